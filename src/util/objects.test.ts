import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extend } from './objects.js';

test('extend copies the object and sets the extra properties over it, as a spread does', () => {
  const o = { a: 1, b: { deep: true }, c: 'x' };
  const out = extend(o, { c: 'y', d: [1] });
  assert.deepEqual(out, { a: 1, b: { deep: true }, c: 'y', d: [1] });
  assert.deepEqual(out, { ...o, c: 'y', d: [1] });
  assert.equal(out.b, o.b, 'shallow: nested values are shared');
  assert.deepEqual(o, { a: 1, b: { deep: true }, c: 'x' }, 'the source is left alone');
  assert.deepEqual(Object.keys(out), ['a', 'b', 'c', 'd'], 'the order of a spread');
});

test('a __proto__ property from parsed input stays an own property and does not change the prototype', () => {
  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "name": "a"}') as Record<string, unknown>;
  const out = extend(hostile, { extra: 1 }) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(out.polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
  assert.equal(JSON.stringify(out), JSON.stringify({ ...hostile, extra: 1 }));
});
