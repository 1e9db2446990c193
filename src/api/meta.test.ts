import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { microTime, nowMicroTime, nowTimestamp, preciseNow } from './meta.js';

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

test('microTime keeps the microseconds of a time given in fractional milliseconds', () => {
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 120) + 0.4567), '2026-01-02T03:04:05.120456Z');
  assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '2026-01-02T03:04:05.000000Z');
  assert.equal(nowMicroTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 7))), '2026-01-02T03:04:05.007000Z');
  fc.assert(fc.property(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 0, max: 999 }), (ms, micros) =>
    microTime(ms + (micros + 0.4) / 1000) === new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`)));
});

test('preciseNow is the wall clock to within a millisecond, with digits below it', () => {
  const readings = Array.from({ length: 50 }, () => { const before = Date.now(), t = preciseNow(), after = Date.now(); return { before, t, after }; });
  for (const { before, t, after } of readings) assert.ok(t >= before - 1 && t <= after + 1, `${t} within [${before}, ${after}]`);
  assert.ok(readings.some(({ t }) => !Number.isInteger(t)), 'some reading has a fraction of a millisecond');
});
