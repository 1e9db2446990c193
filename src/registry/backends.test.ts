// The listers admission and subresource handlers read through: an object that is not there is an answer, not a
// failure, and costs no more than one that is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { ApiObject } from '../api/meta.js';
import { naming } from '../api/naming.js';
import { openMemoryKV } from '../storage/memory/kv.js';
import { createObjectStore } from '../storage/objects.js';
import { createWatchCache } from '../watch/cache.js';
import { createApiResources } from './resources.js';
import { createBackends } from './backends.js';
import { noAdmission } from './store.js';
import { define, only } from './resources/define.js';

async function setup() {
  const names = naming();
  const resources = createApiResources(names, () => true);
  resources.add(define<ApiObject>({ group: 'example.com', resource: 'things', kind: 'Thing', namespaced: true, versions: only('v1', { type: 'object' }) }));
  const kv = openMemoryKV();
  const objects = createWatchCache(createObjectStore(kv), { root: '/registry/', consistentReads: true });
  await objects.start();
  const backends = createBackends(resources, { objects, names });
  const { store } = backends.preferred('example.com', 'things')!;
  for (let i = 0; i < 100; i++)
    await store.create('ns', { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: `t${i}` } }, noAdmission, { dryRun: false });
  return { listers: backends.listers, async close() { objects.stop(); await kv.close(); } };
}

/** microseconds a call costs: the least over five rounds */
async function cost(n: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < n; i++) await call(i);
    best = Math.min(best, (performance.now() - started) * 1000 / n);
  }
  return best;
}

/** hits and misses timed in a thread of their own: the test runner's hooks on every promise would dwarf them here */
async function measure() {
  const { listers, close } = await setup();
  const hit = () => cost(10_000, i => listers.get('example.com', 'things', 'ns', `t${i % 100}`));
  const miss = () => cost(10_000, i => listers.get('example.com', 'things', 'ns', `absent-${i % 100}`));
  await hit(); await miss();   // compiled and warm
  const result = { hits: await hit(), misses: await miss() };
  await close();
  return result;
}

if (!isMainThread) parentPort!.postMessage(await measure());
else {
  test('listers.get: an object that is not there is undefined, not an error', async () => {
    const { listers, close } = await setup();
    try {
      assert.equal((await listers.get('example.com', 'things', 'ns', 't7'))?.metadata.name, 't7');
      assert.equal(await listers.get('example.com', 'things', 'ns', 'absent'), undefined);
      assert.equal(await listers.get('example.com', 'things', 'other-ns', 't7'), undefined);
      assert.equal(await listers.get('example.com', 'nothings', 'ns', 't7'), undefined);
    } finally {
      await close();
    }
  });

  test('listers.get: a miss costs about what a hit costs', async () => {
    const worker = new Worker(new URL(import.meta.url));
    const { hits, misses } = await new Promise<{ hits: number; misses: number }>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    process.stderr.write(`# listers.get: ${hits.toFixed(2)} µs a hit, ${misses.toFixed(2)} µs a miss\n`);
    // a miss made a NotFound error (its message, its stack) and threw it through two awaits: 2.5 to 3 times a hit
    assert.ok(misses < hits * 1.8, `a miss costs ${(misses / hits).toFixed(2)} times a hit (${misses.toFixed(2)} and ${hits.toFixed(2)} µs)`);
  });
}
