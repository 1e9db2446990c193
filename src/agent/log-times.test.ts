// Log times as `kubectl logs --timestamps` shows them: the reference's node agent reformats the runtime's time
// with nine fraction digits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixedNanoTime, parseCriLog } from './logs.js';

test('a log time gets nine fraction digits, whatever precision the runtime wrote', () => {
  assert.equal(fixedNanoTime('2026-11-27T08:05:59.4Z'), '2026-11-27T08:05:59.400000000Z');
  assert.equal(fixedNanoTime('2026-11-27T08:05:59Z'), '2026-11-27T08:05:59.000000000Z');
  assert.equal(fixedNanoTime('2026-11-27T08:05:59.123456789Z'), '2026-11-27T08:05:59.123456789Z');
  assert.equal(fixedNanoTime('2026-11-27T08:05:59.5+02:00'), '2026-11-27T08:05:59.500000000+02:00');
  assert.equal(fixedNanoTime('not a time'), 'not a time');
});

test('parseCriLog prints the reformatted time only when asked', () => {
  const raw = '2026-11-27T08:05:59.4Z stdout F hello\n2026-11-27T08:05:59.6Z stderr F world\n';
  assert.deepEqual(parseCriLog(raw, false), ['hello\n', 'world\n']);
  assert.deepEqual(parseCriLog(raw, true), ['2026-11-27T08:05:59.400000000Z hello\n', '2026-11-27T08:05:59.600000000Z world\n']);
});
