import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameJson, showValue } from './fields.js';

test('values print as the reference prints them', () => {
  assert.equal(showValue('a'), '"a"');
  assert.equal(showValue(3), '3');
  assert.equal(showValue({ b: '2', a: '1' }), 'map[string]string{"a":"1", "b":"2"}');
  assert.equal(showValue(null), 'null');
});

test('the same JSON whatever the order of keys', () => {
  assert.ok(sameJson({ a: 1, b: [{ c: 2, d: 3 }] }, { b: [{ d: 3, c: 2 }], a: 1 }));
  assert.ok(sameJson(undefined, null));
  assert.ok(!sameJson([1, 2], [2, 1]));
});
