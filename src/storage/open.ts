// Opens the configured backend. Each backend's code (SQLite's native module, the etcd client) loads only when chosen.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openMemoryKV } from './memory/kv.js';
import { StorageError, type KV } from './types.js';

export interface StorageOptions {
  backend: 'memory' | 'sqlite' | 'etcd';
  /** sqlite: the directory holding store.db; created when its parent exists */
  dataDir?: string;
  etcdServers?: string[];
  /** etcd: every key is stored under this prefix */
  etcdPrefix?: string;
  /** etcd over TLS: the CA, client certificate and key, as PEM */
  etcdTls?: { caPem?: string; certPem?: string; keyPem?: string };
}

const invalid = (message: string) => new StorageError('Invalid', message);

export async function openStorage(opts: StorageOptions): Promise<KV> {
  switch (opts.backend) {
    case 'memory':
      return openMemoryKV();
    case 'sqlite': {
      if (!opts.dataDir) throw invalid('the sqlite storage backend needs a data directory');
      ensureDataDir(opts.dataDir);
      const { openSqliteKV } = await import('./sqlite/kv.js');
      return openSqliteKV({ file: join(opts.dataDir, 'store.db') });
    }
    case 'etcd': {
      if (!opts.etcdServers?.length) throw invalid('the etcd storage backend needs at least one etcd server');
      const { openEtcdKV } = await import('./etcd/kv.js');
      return openEtcdKV({ endpoints: opts.etcdServers, prefix: opts.etcdPrefix, tls: opts.etcdTls });
    }
    default:
      throw invalid(`unknown storage backend ${JSON.stringify((opts as { backend: unknown }).backend)}`);
  }
}

/** create the data directory itself, but not a missing parent: that is more likely a typo than a wish */
function ensureDataDir(dataDir: string) {
  const dir = resolve(dataDir);
  const existing = statSync(dir, { throwIfNoEntry: false });
  if (existing) {
    if (!existing.isDirectory()) throw invalid(`data directory ${dir} exists but is not a directory`);
    return;
  }
  const parent = dirname(dir);
  if (!statSync(parent, { throwIfNoEntry: false })?.isDirectory()) {
    throw invalid(`cannot create data directory ${dir}: its parent ${parent} does not exist`);
  }
  mkdirSync(dir, { mode: 0o700 });
}
