import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turns } from './slices.js';

test('callers of turns go on one a turn of the event loop, in order, with other work of the loop let in between', async () => {
  const turn = turns();
  const order: number[] = [];
  const burst = Array.from({ length: 200 }, async (_, i) => { await turn(); order.push(i); });
  // other work of the event loop (a probe read from another connection) runs after a turn or two, not after the burst
  const doneWhenOtherRan = await new Promise<number>(resolve => setImmediate(() => resolve(order.length)));
  await Promise.all(burst);
  assert.ok(doneWhenOtherRan < 10, `other work waited for ${doneWhenOtherRan} turns`);
  assert.deepEqual(order, Array.from({ length: 200 }, (_, i) => i));
  // an idle taker lets the next caller go on at the next turn
  await turn();
});
