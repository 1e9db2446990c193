import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './wait.js';

test('waitFor resolves with the first truthy value of the predicate, treating errors as not yet', async () => {
  let calls = 0;
  const value = await waitFor(async () => {
    calls++;
    if (calls === 1) throw new Error('not found');
    return calls >= 3 && { calls };
  }, { intervalMs: 1 });
  assert.deepEqual(value, { calls: 3 });
});

test('waitFor fails after its timeout naming what it waited for and the last error', async () => {
  await assert.rejects(waitFor(() => false, { timeoutMs: 20, intervalMs: 1, description: 'pods Ready' }),
    /timed out after 20 ms waiting for pods Ready$/);
  await assert.rejects(waitFor(() => { throw new Error('connection refused'); }, { timeoutMs: 20, intervalMs: 1 }),
    /waiting for the condition; last error: connection refused$/);
});
