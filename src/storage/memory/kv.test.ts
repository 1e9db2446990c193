import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvContract, valueLimitContract } from '../testing/kv-contract.js';
import { openMemoryKV } from './kv.js';

kvContract('memory KV', async () => openMemoryKV());
valueLimitContract('memory KV', async () => openMemoryKV());

/** keys in a scattered order, so that each new one lands among those already there */
const scattered = (from: number, n: number) => Array.from({ length: n }, (_, i) =>
  `/registry/configmaps/ns/cm-${(((from + i) * 2654435761) >>> 0).toString(16).padStart(8, '0')}-${from + i}`);

/**
 * CPU microseconds a create costs in a store that holds `size` keys: the least over three batches of new keys, so a
 * garbage collection or a busy machine in one batch does not count
 */
async function createCostAt(size: number, batch = 5000): Promise<number> {
  const kv = openMemoryKV();
  const value = Buffer.from('v');
  for (const key of scattered(0, size)) await kv.create(key, value);
  let best = Infinity;
  for (let b = 0; b < 3; b++) {
    const keys = scattered(size + b * batch, batch);
    const before = process.cpuUsage();
    for (const key of keys) await kv.create(key, value);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / batch);
  }
  await kv.close();
  return best;
}

test('a create costs about as much in a store of 200,000 keys as in one of 10,000 (not linear in the keys held)', async () => {
  await createCostAt(1000);   // compiled and warm before measuring
  const small = await createCostAt(10_000);
  const large = await createCostAt(200_000);
  const ratio = large / small;
  process.stderr.write(`# memory KV create: ${small.toFixed(1)} µs with 10,000 keys held, ${large.toFixed(1)} µs with 200,000 (ratio ${ratio.toFixed(2)})\n`);
  // a sorted array moves half its keys on each insert (16 times the cost at 20 times the keys, measured); a tree adds
  // a level or two (1 to 2 times)
  assert.ok(ratio < 4, `a create costs ${ratio.toFixed(2)} times as much with 200,000 keys held as with 10,000`);
});
