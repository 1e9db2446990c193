// The pause before a refused request goes again: exponential, jittered, capped, never under Retry-After.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, isRetryable, retryAfterMs } from './backoff.js';

test('Retry-After is read as seconds or as a date; anything else is no advice', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs('0'), 0);
  assert.equal(retryAfterMs(['2', '9']), 2000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
  assert.equal(retryAfterMs(undefined), undefined);
  assert.equal(retryAfterMs('soon'), undefined);
  assert.equal(retryAfterMs('-1'), undefined);
});

test('the ceiling doubles with each attempt up to the cap; the pause is a random part of it', () => {
  const top = () => 0.999999;
  const policy = { baseMs: 100, maxMs: 1000 };
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((a) => Math.round(backoffMs(a, undefined, policy, top))), [100, 200, 400, 800, 1000, 1000]);
  assert.equal(backoffMs(3, undefined, policy, () => 0.5), 400);
  assert.equal(backoffMs(3, undefined, policy, () => 0), 0);
  // a huge attempt count neither overflows nor passes the cap
  assert.equal(Math.round(backoffMs(10_000, undefined, policy, top)), 1000);
});

test('the pause is never shorter than the server asked, nor longer than the cap', () => {
  assert.equal(backoffMs(0, 2000, { baseMs: 100, maxMs: 30_000 }, () => 0), 2000);
  assert.equal(backoffMs(0, 120_000, { baseMs: 100, maxMs: 30_000 }, () => 0), 30_000);
});

test('clients refused together spread out: the pauses of one attempt differ', () => {
  const pauses = new Set(Array.from({ length: 50 }, () => Math.round(backoffMs(4, undefined, { baseMs: 100 }))));
  assert.ok(pauses.size > 10, `only ${pauses.size} distinct pauses`);
});

test('429 always goes again; a 5xx when the server says when; other errors and 501 never', () => {
  assert.equal(isRetryable(429, false), true);
  assert.equal(isRetryable(503, true), true);
  assert.equal(isRetryable(504, true), true);
  assert.equal(isRetryable(503, false), false);
  assert.equal(isRetryable(500, false), false);
  assert.equal(isRetryable(501, true), false);
  assert.equal(isRetryable(409, true), false);
  assert.equal(isRetryable(404, true), false);
});
