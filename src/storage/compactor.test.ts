import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCompactor } from './compactor.js';
import { openMemoryKV } from './memory/kv.js';
import { StorageError, type KV } from './types.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const waitUntil = async (ok: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 200; i++) { if (await ok()) return; await sleep(5); }
  assert.fail(`timed out waiting until ${what}`);
};

test('the compactor compacts to the revision seen one tick earlier', async () => {
  const kv = openMemoryKV();
  const compactions: number[] = [];
  const watched: KV = { ...kv, compact: async (rev) => { compactions.push(rev); await kv.compact(rev); } };
  let rev = (await kv.create('/k', new Uint8Array([0]))).revision;
  const compactor = startCompactor(watched, { intervalMs: 20 });
  try {
    // the first tick only records the revision; the second compacts to it while newer writes stay readable
    await waitUntil(async () => compactions.length > 0, 'a compaction');
    assert.equal(compactions[0], rev);
    const written = await kv.update('/k', new Uint8Array([1]), rev);
    rev = written.revision;
    await waitUntil(async () => (await kv.oldestRevision()) > rev, 'the update is compacted too');
    assert.deepEqual(compactions, [...new Set(compactions)], 'an unchanged revision is not compacted twice');
    assert.ok(compactions.every((r, i) => i === 0 || r > compactions[i - 1]));
  } finally {
    compactor.stop();
    await kv.close();
  }
});

test('compactor errors are logged, never thrown', async () => {
  const kv = openMemoryKV();
  await kv.create('/k', new Uint8Array([0]));
  const logged: string[] = [];
  const failing: KV = { ...kv, compact: async () => { throw new StorageError('Unavailable', 'disk on fire'); } };
  const compactor = startCompactor(failing, { intervalMs: 10, log: (m) => logged.push(m) });
  try {
    await waitUntil(async () => logged.length >= 2, 'two failures are logged');
    assert.match(logged[0], /disk on fire/);
  } finally {
    compactor.stop();
    await kv.close();
  }
});
