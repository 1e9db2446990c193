// The work queue's promises: one waiting copy of a key, never two workers on one key, delays, back-off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketLimiter, createWorkQueue, exponentialBackoff, maxOf, runWorkers } from './workqueue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** until this much time has passed on the clock the queue reads (a timer may fire early against it) */
const elapsed = async (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) await sleep(1);
};

test('a key added while it waits is queued once', async () => {
  const q = createWorkQueue<string>();
  q.add('a'); q.add('b'); q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
});

test('a key added while a worker holds it comes back once, after done, and never to a second worker', async () => {
  const q = createWorkQueue<string>();
  q.add('a');
  const k = await q.get();
  q.add('a'); q.add('a');
  assert.equal(q.len(), 0, 'not handed out while being worked on');
  let second: string | undefined;
  void q.get().then((x) => { second = x; });
  await sleep(5);
  assert.equal(second, undefined);
  q.done(k!);
  await sleep(0);
  assert.equal(second, 'a');
});

test('runWorkers: concurrent workers never sync one key at once; failures come back through the limiter', async () => {
  const q = createWorkQueue<string>(exponentialBackoff(1, 50));
  const active = new Set<string>();
  let overlaps = 0;
  const attempts = new Map<string, number>();
  const running = runWorkers(q, 4, async (key) => {
    if (active.has(key)) overlaps++;
    active.add(key);
    await sleep(2);
    active.delete(key);
    const n = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, n);
    if (key === 'flaky' && n < 3) throw new Error('not yet');
  });
  for (let i = 0; i < 50; i++) { q.add(`k${i % 5}`); q.add('flaky'); await sleep(1); }
  for (let i = 0; i < 200 && (attempts.get('flaky') ?? 0) < 3; i++) await sleep(5);
  assert.equal(overlaps, 0);
  assert.ok((attempts.get('flaky') ?? 0) >= 3, 'retried until it succeeded');
  assert.equal(q.retries('flaky'), 0, 'success clears the back-off');
  q.shutDown();
  await running;
});

test('addAfter: the key comes after its delay; a shorter later delay wins', async () => {
  const q = createWorkQueue<string>();
  q.addAfter('x', 10_000);
  q.addAfter('x', 10);
  const t0 = Date.now();
  assert.equal(await q.get(), 'x');
  assert.ok(Date.now() - t0 < 5000);
  q.shutDown();
  assert.equal(await q.get(), undefined);
});

test('rate limiters: exponential per key, an overall bucket, the larger of both', () => {
  const e = exponentialBackoff<string>(5, 1000);
  assert.deepEqual([e.when('a'), e.when('a'), e.when('a'), e.when('b')], [5, 10, 20, 5]);
  e.forget('a');
  assert.equal(e.when('a'), 5);
  for (let i = 0; i < 20; i++) e.when('c');
  assert.equal(e.when('c'), 1000, 'capped');
  const b = bucketLimiter<string>(10, 2);
  assert.equal(b.when('x'), 0);
  assert.equal(b.when('y'), 0);
  const third = b.when('z');
  assert.ok(third > 50 && third <= 100, `the third waits for a token: ${third}`);
  const m = maxOf(exponentialBackoff<string>(5, 1000), bucketLimiter<string>(10, 100));
  assert.equal(m.when('k'), 5);
  assert.equal(m.retries('k'), 1);
});

test('an observer is told of each add (not of a key already waiting), each take with its wait, each finish and each retry', async () => {
  const seen = { added: 0, taken: [] as number[], finished: [] as number[], retried: 0 };
  const q = createWorkQueue<string>(exponentialBackoff(1, 5), {
    added: () => { seen.added++; }, taken: (ms) => { seen.taken.push(ms); }, finished: (ms) => { seen.finished.push(ms); }, retried: () => { seen.retried++; },
  });
  q.add('a'); q.add('a'); q.add('b');
  assert.equal(seen.added, 2);
  await elapsed(3);
  const a = await q.get();
  assert.ok(seen.taken[0] >= 2, `waited ${seen.taken[0]} ms`);
  assert.deepEqual([...q.workStarts()].length, 1);
  q.add('a');   // while held: counted as an add, handed out again only after done
  assert.equal(seen.added, 3);
  await elapsed(2);
  q.done(a!);
  assert.equal(seen.finished.length, 1);
  assert.ok(seen.finished[0] >= 1);
  assert.equal([...q.workStarts()].length, 0);
  assert.equal(q.len(), 2, 'b, then a again');
  q.addRateLimited('c');
  assert.equal(seen.retried, 1);
  q.shutDown();
});
