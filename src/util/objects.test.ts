import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCopy, extend } from './objects.js';

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

test('deepCopy copies JSON-shaped data as structuredClone does, sharing nothing', () => {
  const parsed = JSON.parse('{"a":{"b":[1,{"c":null}],"__proto__":{"x":1}},"s":"t","n":1.5,"t":true,"e":[],"o":{}}') as Record<string, unknown>;
  for (const v of [parsed, { u: undefined, nested: { list: [undefined, 0, ''] } }, [1, [2, [3]]], 'text', 7, null, undefined]) {
    const copy = deepCopy(v);
    assert.deepEqual(copy, structuredClone(v));
    if (v && typeof v === 'object') assert.notEqual(copy, v);
  }
  const copy = deepCopy(parsed);
  (((copy.a as Record<string, unknown>).b as unknown[])[1] as Record<string, unknown>).c = 'changed';
  assert.equal(((((parsed.a as Record<string, unknown>).b as unknown[])[1]) as Record<string, unknown>).c, null, 'the source is left alone');
  assert.equal(Object.getPrototypeOf(copy.a), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy.a, '__proto__')?.value, { x: 1 });
});

test('deepCopy hands what is not plain data to structuredClone', () => {
  const when = new Date(0);
  const bytes = new Uint8Array([1, 2]);
  const copy = deepCopy({ when, bytes, m: new Map([['k', 1]]) });
  assert.ok(copy.when instanceof Date && copy.when.getTime() === 0 && copy.when !== when);
  assert.ok(copy.bytes instanceof Uint8Array && copy.bytes !== bytes);
  assert.deepEqual([...copy.bytes], [1, 2]);
  assert.equal(copy.m.get('k'), 1);
});
