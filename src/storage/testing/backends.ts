// The three storage backends for suites that run against each of them: memory, SQLite in a temporary file, and
// a private etcd (one per test file, started on first use and stopped with the last store).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEtcd, type EtcdServer } from '../../../test/support/etcd.js';
import { openMemoryKV } from '../memory/kv.js';
import type { KV } from '../types.js';

export type BackendName = 'memory' | 'sqlite' | 'etcd';
export const backendNames: BackendName[] = ['memory', 'sqlite', 'etcd'];

let etcd: Promise<EtcdServer> | undefined;
let etcdUsers = 0;

/** the running etcd of this file (started when first needed) */
export const sharedEtcd = () => (etcd ??= startEtcd());

/** a fresh, empty store of the backend; close() closes it and cleans up after it */
export async function openBackend(name: BackendName): Promise<{ kv: KV; close(): Promise<void> }> {
  if (name === 'memory') {
    const kv = openMemoryKV();
    return { kv, close: () => kv.close() };
  }
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
    const { openSqliteKV } = await import('../sqlite/kv.js');
    const kv = await openSqliteKV({ file: join(dir, 'store.db') });
    return { kv, async close() { await kv.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  etcdUsers++;
  const server = await sharedEtcd();
  const { openEtcdKV } = await import('../etcd/kv.js');
  const kv = await openEtcdKV({ endpoints: [server.endpoint], prefix: `/test-${randomBytes(4).toString('hex')}` });
  return {
    kv,
    async close() {
      await kv.close();
      if (--etcdUsers === 0) { const stopping = etcd; etcd = undefined; await (await stopping!).stop(); }
    },
  };
}
