// Snapshots of a store's keys at one revision, and their restore through ordinary writes: keys the snapshot
// lacks are deleted, changed ones written back, so revisions keep rising, watchers see every change as events,
// and a server's caches stay in step. The same restore into a new store makes a fork of the state.

import { isStorageError, type KV, type Revision } from './types.js';

export interface Snapshot {
  /** the revision the keys were read at */
  revision: Revision;
  entries: Array<{ key: string; value: Uint8Array }>;
}

const pageSize = 1000;

/** every key under `prefix` at one revision */
export async function takeSnapshot(kv: KV, prefix = ''): Promise<Snapshot> {
  const first = await kv.list(prefix, { limit: pageSize });
  const entries = first.kvs.map(({ key, value }) => ({ key, value: new Uint8Array(value) }));
  let more = first.more;
  while (more) {
    const page = await kv.list(prefix, { limit: pageSize, revision: first.revision, start: `${entries[entries.length - 1]!.key}\u0000` });
    entries.push(...page.kvs.map(({ key, value }) => ({ key, value: new Uint8Array(value) })));
    more = page.more;
  }
  return { revision: first.revision, entries };
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a).equals(Buffer.from(b));

/** Makes the keys under `prefix` what the snapshot holds; counts what it changed. */
export async function restoreSnapshot(kv: KV, snapshot: Snapshot, prefix = ''): Promise<{ written: number; deleted: number }> {
  const wanted = new Map(snapshot.entries.filter((e) => e.key.startsWith(prefix)).map((e) => [e.key, e.value]));
  const current = await takeSnapshot(kv, prefix);
  let written = 0;
  let deleted = 0;
  for (const { key } of current.entries) {
    if (wanted.has(key)) continue;
    await kv.delete(key).catch((e) => { if (!isStorageError(e, 'NotFound')) throw e; });
    deleted++;
  }
  for (const [key, value] of wanted) {
    // another writer may move a key while this runs: read again and retry
    for (;;) {
      const { kv: now } = await kv.get(key);
      if (now && same(now.value, value)) break;
      try {
        if (now) await kv.update(key, value, now.modRevision);
        else await kv.create(key, value);
        written++;
        break;
      } catch (e) {
        if (!isStorageError(e, 'Conflict') && !isStorageError(e, 'KeyExists') && !isStorageError(e, 'NotFound')) throw e;
      }
    }
  }
  return { written, deleted };
}
