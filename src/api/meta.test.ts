import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nowTimestamp } from './meta.js';

test('nowTimestamp formats any time to the second, the same whether or not the second before was asked', () => {
  const plain = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
  // times close together (the cached second) and far apart, before and after 1970
  const time = fc.oneof(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: -8.64e15, max: 8.64e15 }));
  fc.assert(fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (ms) => {
    for (const t of ms) assert.equal(nowTimestamp(new Date(t)), plain(new Date(t)));
  }));
  assert.match(nowTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.throws(() => nowTimestamp(new Date(NaN)), RangeError);
});
