import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breather, inSteps, turnBudgetMs, turns } from './slices.js';

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

test('callers that have gone by their turn take no place in it: one still wanted behind thousands of them goes on at the next turn', async () => {
  // every turn runs over: one caller a turn, and 5,000 callers gone (clients that went away while they waited)
  const turn = turns(-1);
  const gone = Array.from({ length: 5000 }, () => turn(() => true));
  let loopTurns = 0, counting = true;
  const count = () => { loopTurns++; if (counting) setImmediate(count); };
  setImmediate(count);
  await turn(() => false);
  counting = false;
  await Promise.all(gone);
  assert.ok(loopTurns <= 2, `the wanted caller went on after ${loopTurns} turns`);
});

test('callers take turns key by key: one behind hundreds of another key\'s goes on at the next turn, each key in order', async () => {
  // every turn runs over: one caller a turn
  const turn = turns(-1);
  const order: string[] = [];
  const flood = Array.from({ length: 300 }, async (_, i) => { await turn(undefined, 'alice'); order.push(`alice ${i}`); });
  const others = ['bob', 'carol'].map(async key => { await turn(undefined, key); order.push(key); });
  await Promise.all([...flood, ...others]);
  assert.deepEqual(order.slice(0, 3), ['alice 0', 'bob', 'carol']);
  assert.deepEqual(order.filter(o => o.startsWith('alice')), Array.from({ length: 300 }, (_, i) => `alice ${i}`));
  // keys alternate while each has callers waiting
  const mixed: string[] = [];
  await Promise.all(['a', 'a', 'a', 'b', 'b', 'c'].map(async (key, i) => { await turn(undefined, key); mixed.push(`${key}${i}`); }));
  assert.deepEqual(mixed, ['a0', 'b3', 'c5', 'a1', 'b4', 'a2']);
});

/** busy work of about `ms` on the loop */
const spin = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };

test('steps in slices: other work runs between steps once a turn has run its budget, and not between short ones', async () => {
  const trace: string[] = [];
  function* steps(n: number, ms: number) {
    for (let i = 0; i < n; i++) { spin(ms); trace.push(`step ${i}`); yield; }
    return n;
  }
  // long steps: an immediate queued before the first step runs before the third (the second pause is past the budget)
  setImmediate(() => trace.push('other'));
  assert.equal(await inSteps(steps(3, turnBudgetMs * 0.6)), 3);
  assert.ok(trace.indexOf('other') > 0 && trace.indexOf('other') < trace.indexOf('step 2'), trace.join(', '));
  // short steps in a fresh turn go through without giving the loop back
  await new Promise(resolve => setImmediate(resolve));
  trace.length = 0;
  setImmediate(() => trace.push('other'));
  assert.equal(await inSteps(steps(5, 0)), 5);
  assert.deepEqual(trace, ['step 0', 'step 1', 'step 2', 'step 3', 'step 4']);
});

test('a breather after a pause counts the new turn from the pause: each long step is a turn of its own', async () => {
  let others = 0;
  const other = () => { others++; };
  await breather();   // starts this turn's clock
  for (let i = 0; i < 3; i++) {
    setImmediate(other);
    spin(turnBudgetMs + 5);
    await breather();
  }
  assert.equal(others, 3);
});
