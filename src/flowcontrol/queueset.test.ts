// Fair queuing for one level: seats, shuffle-sharded queues with their length limit, the wait limit, clients
// that go away, and fairness between a flooding flow and a quiet one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueueSet, dealHand, type Outcome } from './queueset.js';

const admitted = (o: Outcome) => { assert.ok(o.admitted, `refused: ${!o.admitted && o.reason}`); return o.release; };
const settled = async <T>(p: Promise<T>) => {
  let done = false;
  void p.then(() => { done = true; });
  await new Promise(r => setImmediate(r));
  return done;
};

test('a hand is handSize distinct queues of the deck, the same for the same hash', () => {
  for (const hash of [0, 1, 12345, 2 ** 47 + 99, 2 ** 48 - 1]) {
    const hand = dealHand(hash, 128, 6);
    assert.equal(hand.length, 6);
    assert.equal(new Set(hand).size, 6);
    for (const q of hand) assert.ok(q >= 0 && q < 128);
    assert.deepEqual(dealHand(hash, 128, 6), hand);
  }
  assert.deepEqual(dealHand(7, 4, 4).sort(), [0, 1, 2, 3]);
});

test('requests run while their seats fit; the next waits for a release', async () => {
  const qs = createQueueSet({ concurrency: 2, queues: 8, handSize: 2, queueLengthLimit: 10 });
  const a = admitted(await qs.admit(1, 1, 10_000));
  admitted(await qs.admit(2, 1, 10_000));
  const third = qs.admit(3, 1, 10_000);
  assert.equal(await settled(third), false);
  assert.equal(qs.stats().waitingRequests, 1);
  a();
  admitted(await third);
  assert.equal(qs.stats().executingSeats, 2);
});

test('a wide request waits until its seats are free, then holds them all', async () => {
  const qs = createQueueSet({ concurrency: 4, queues: 8, handSize: 1, queueLengthLimit: 10 });
  const first = admitted(await qs.admit(0, 2, 10_000));
  const second = admitted(await qs.admit(1, 1, 10_000));
  const wide = qs.admit(2, 4, 10_000);
  assert.equal(await settled(wide), false);
  first();
  assert.equal(await settled(wide), false, 'three seats free of the four it needs');
  second();
  const w = admitted(await wide);
  assert.equal(qs.stats().executingSeats, 4);
  const narrow = qs.admit(3, 1, 10_000);
  assert.equal(await settled(narrow), false);
  w();
  admitted(await narrow);
});

test('when the earliest request does not fit, later ones wait behind it', async () => {
  const qs = createQueueSet({ concurrency: 2, queues: 8, handSize: 1, queueLengthLimit: 10 });
  const running = admitted(await qs.admit(0, 1, 10_000));
  const wide = qs.admit(1, 2, 10_000);
  // the same flow's next request queues behind the wide one, though a seat is free
  const behind = qs.admit(1, 1, 10_000);
  assert.equal(await settled(behind), false);
  running();
  const w = admitted(await wide);
  assert.equal(await settled(behind), false);
  w();
  admitted(await behind);
});

test('seats asked beyond the limit are capped at it', async () => {
  const qs = createQueueSet({ concurrency: 3, queues: 4, handSize: 1, queueLengthLimit: 10 });
  admitted(await qs.admit(0, 10, 10_000));
  assert.equal(qs.stats().executingSeats, 3);
});

test('a full queue refuses at once', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 1, handSize: 1, queueLengthLimit: 2 });
  admitted(await qs.admit(0, 1, 10_000));
  void qs.admit(0, 1, 10_000); void qs.admit(0, 1, 10_000);
  assert.deepEqual(await qs.admit(0, 1, 10_000), { admitted: false, reason: 'queue-full' });
});

test('a flow is held to its hand: a flood of one flow fills its queues, not the others', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 16, handSize: 2, queueLengthLimit: 3 });
  admitted(await qs.admit(0, 1, 10_000));
  let refused = 0;
  for (let i = 0; i < 20; i++) void qs.admit(42, 1, 10_000).then(o => { if (!o.admitted) refused++; });
  await new Promise(r => setImmediate(r));
  assert.equal(refused, 20 - 2 * 3, 'two queues of three, the rest refused');
  const other = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].find(h => !dealHand(h, 16, 2).some(q => dealHand(42, 16, 2).includes(q)))!;
  assert.equal(await settled(qs.admit(other, 1, 10_000)), false, 'another flow still gets a queue');
  assert.equal(qs.stats().waitingRequests, 7);
});

test('the wait limit refuses with time-out, and the queue forgets the request', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 2, handSize: 1, queueLengthLimit: 5 });
  admitted(await qs.admit(0, 1, 10_000));
  assert.deepEqual(await qs.admit(0, 1, 20), { admitted: false, reason: 'time-out', queueLength: 1 });
  assert.equal(qs.stats().waitingRequests, 0);
});

test('a client that goes away leaves the queue, and the requests behind it move on', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 1, handSize: 1, queueLengthLimit: 5 });
  const running = admitted(await qs.admit(0, 1, 10_000));
  const gone = new AbortController();
  const first = qs.admit(0, 1, 10_000, () => gone.signal);
  const second = qs.admit(0, 1, 10_000);
  gone.abort();
  assert.deepEqual(await first, { admitted: false, reason: 'cancelled', queueLength: 1 });
  running();
  admitted(await second);
  assert.deepEqual(await qs.admit(0, 1, 10_000, () => AbortSignal.abort()), { admitted: false, reason: 'cancelled' });
});

test('a level that does not queue refuses what does not fit', async () => {
  const qs = createQueueSet({ concurrency: 2, queues: 0, handSize: 0, queueLengthLimit: 0 });
  admitted(await qs.admit(0, 2, 10_000));
  assert.deepEqual(await qs.admit(1, 1, 10_000), { admitted: false, reason: 'concurrency-limit' });
});

test('a quiet flow is served next to a flooding one, not behind it', async () => {
  const qs = createQueueSet({ concurrency: 2, queues: 64, handSize: 1, queueLengthLimit: 1000 });
  const order: string[] = [];
  const run = async (flow: string, hash: number) => {
    const o = await qs.admit(hash, 1, 60_000);
    const release = admitted(o);
    order.push(flow);
    await new Promise(r => setTimeout(r, 2));
    release();
  };
  const flood = Array.from({ length: 60 }, () => run('flood', 0));
  await new Promise(r => setTimeout(r, 10));
  const quiet = Array.from({ length: 5 }, () => run('quiet', 1));
  await Promise.all([...flood, ...quiet]);
  const lastQuiet = order.lastIndexOf('quiet');
  const firstQuiet = order.indexOf('quiet');
  assert.ok(lastQuiet < firstQuiet + 15, `the quiet flow's five requests are interleaved with the flood (at ${order.map((f, i) => (f === 'quiet' ? i : '')).filter(String).join(', ')})`);
  assert.ok(firstQuiet < 20, `the quiet flow started early (at ${firstQuiet})`);
});

test('reconfiguring keeps the waiting requests and applies the new limit', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 4, handSize: 2, queueLengthLimit: 5 });
  admitted(await qs.admit(0, 1, 10_000));
  const waiting = qs.admit(1, 1, 10_000);
  qs.configure({ concurrency: 2, queues: 16, handSize: 4, queueLengthLimit: 5 });
  admitted(await waiting);
  assert.equal(qs.stats().queueLengths.length, 16);
});

test('each request tells the length of its queue once it joined it (1 when served at once); a refused one never joined', async () => {
  const qs = createQueueSet({ concurrency: 1, queues: 1, handSize: 1, queueLengthLimit: 2 });
  const first = await qs.admit(1, 1, 10_000);
  assert.equal(first.queueLength, 1);
  const second = qs.admit(1, 1, 10_000), third = qs.admit(1, 1, 10_000);
  const full = await qs.admit(1, 1, 10_000);
  assert.ok(!full.admitted && full.reason === 'queue-full');
  assert.equal(full.queueLength, undefined);
  admitted(first)();
  const s = await second;
  assert.equal(s.queueLength, 1);
  admitted(s)();
  assert.equal((await third).queueLength, 2);
});
