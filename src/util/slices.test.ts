import { test } from 'node:test';
import assert from 'node:assert/strict';
import { turns } from './slices.js';

/** runs a burst of callers through a turn taker, counting the loop's turns until they are all through */
async function burst(turn: () => Promise<void>, size: number) {
  const order: number[] = [];
  const callers = Array.from({ length: size }, async (_, i) => { await turn(); order.push(i); });
  // other work of the event loop (a probe read from another connection) runs after the first turn, not after the burst
  const doneWhenOtherRan = await new Promise<number>(resolve => setImmediate(() => resolve(order.length)));
  let loopTurns = 0, all = false;
  const count = () => { loopTurns++; if (!all) setImmediate(count); };
  setImmediate(count);
  await Promise.all(callers);
  all = true;
  return { order, doneWhenOtherRan, loopTurns };
}

test('callers of turns go on in order, with other work of the loop let in between', async () => {
  // every turn runs over: one caller a turn
  const slow = await burst(turns(-1), 50);
  assert.deepEqual(slow.order, Array.from({ length: 50 }, (_, i) => i));
  assert.equal(slow.doneWhenOtherRan, 1);
  assert.ok(slow.loopTurns >= 45, `${slow.loopTurns} turns`);
  // short turns: twice as many callers each turn (1, 2, 4, ...), so 200 go through in 8 turns
  const fast = await burst(turns(60_000), 200);
  assert.deepEqual(fast.order, Array.from({ length: 200 }, (_, i) => i));
  assert.equal(fast.doneWhenOtherRan, 1);
  assert.ok(fast.loopTurns <= 10, `${fast.loopTurns} turns`);
  // an idle taker lets the next caller go on at the next turn
  const turn = turns();
  await turn();
  await turn();
});
