// The in-memory backend: every version of every key since the last compaction, a
// sorted key index for range reads (a B+ tree: a new key costs a log of the keys, where a sorted array moved half
// of them), and the event log that watches replay from.
import sortedBtree from 'sorted-btree';
import {
  StorageError, checkValueSize, compacted, conflict, futureRevision, keyExists, notFound,
  type KV, type KeyValue, type Revision, type WatchEvent, type WriteResult,
} from '../types.js';
import { createWatchHub } from '../watch-hub.js';

interface Version { modRevision: Revision; createRevision: Revision; value: Uint8Array; deleted: boolean }

const EMPTY = new Uint8Array(0);
/** the package is CommonJS with its class as `default` */
const BTree = sortedBtree.default;

/** index of the first element for which `before` is false, in an array where it is true then false */
function partition<T>(items: T[], before: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid])) lo = mid + 1; else hi = mid;
  }
  return lo;
}

export function openMemoryKV(): KV {
  const history = new Map<string, Version[]>();
  const keys = new BTree<string, true>(); // every key with a version, in order
  const log: WatchEvent[] = []; // every event after the compacted revision
  const hub = createWatchHub();
  let revision = 0;
  let compactedAt = 0;
  let closed = false;

  const toKV = (key: string, v: Version): KeyValue =>
    ({ key, value: v.value, createRevision: v.createRevision, modRevision: v.modRevision });

  /** the version of key at rev, if it is live */
  const liveVersion = (key: string, rev: Revision): Version | undefined => {
    const versions = history.get(key);
    if (!versions) return undefined;
    const i = partition(versions, (v) => v.modRevision <= rev) - 1;
    return i >= 0 && !versions[i].deleted ? versions[i] : undefined;
  };

  /** the live value of key at rev, if any */
  const at = (key: string, rev: Revision): KeyValue | undefined => {
    const v = liveVersion(key, rev);
    return v && toKV(key, v);
  };

  const open = () => { if (closed) throw new StorageError('Unavailable', 'memory store is closed'); };

  /** the revision to read at: the current one, or a past one still in history */
  const readRevision = (requested: Revision | undefined): Revision => {
    open();
    if (!requested) return revision;
    if (requested > revision) throw futureRevision(requested, revision);
    if (requested < compactedAt) throw compacted(requested, compactedAt);
    return requested;
  };

  const write = (key: string, value: Uint8Array, deleted: boolean, prev: KeyValue | undefined): WriteResult => {
    const rev = ++revision;
    const version: Version = {
      modRevision: rev,
      createRevision: prev ? prev.createRevision : rev,
      value: deleted ? EMPTY : new Uint8Array(value), // copy: the caller may reuse its buffer
      deleted,
    };
    let versions = history.get(key);
    if (!versions) {
      versions = [];
      history.set(key, versions);
      keys.set(key, true);
    }
    versions.push(version);
    const kv = toKV(key, version);
    const event: WatchEvent = { type: deleted ? 'delete' : 'put', kv, prevKv: prev };
    log.push(event);
    hub.publish([event]);
    return { kv: deleted ? prev! : kv, revision: rev };
  };

  /** the live keys under prefix from start, in order, at rev: up to limit of them, and how many more there are */
  const scan = (prefix: string, start: string | undefined, rev: Revision, limit = Infinity) => {
    const from = start !== undefined && start > prefix ? start : prefix;
    const kvs: KeyValue[] = [];
    let remaining = 0;
    for (const key of keys.keys(from)) {
      if (!key.startsWith(prefix)) break;
      const v = liveVersion(key, rev);
      if (!v) continue;
      // past the page, keys are only counted
      if (kvs.length < limit) kvs.push(toKV(key, v)); else remaining++;
    }
    return { kvs, remaining };
  };

  return {
    name: 'memory',

    async get(key, opts) {
      const rev = readRevision(opts?.revision);
      return { kv: at(key, rev), revision: rev };
    },

    async list(prefix, opts = {}) {
      const rev = readRevision(opts.revision);
      const { kvs, remaining } = scan(prefix, opts.start, rev, opts.limit || Infinity);
      return remaining > 0 ? { kvs, revision: rev, more: true, remaining } : { kvs, revision: rev, more: false };
    },

    async count(prefix) {
      return scan(prefix, undefined, readRevision(undefined), 0).remaining;
    },

    async create(key, value) {
      open();
      checkValueSize(key, value);
      if (at(key, revision)) throw keyExists(key);
      return write(key, value, false, undefined);
    },

    async update(key, value, expectedModRevision) {
      open();
      checkValueSize(key, value);
      const current = at(key, revision);
      if (!current) throw notFound(key);
      if (current.modRevision !== expectedModRevision) throw conflict(key, current);
      return write(key, value, false, current);
    },

    async delete(key, expectedModRevision) {
      open();
      const current = at(key, revision);
      if (!current) throw notFound(key);
      if (expectedModRevision !== undefined && current.modRevision !== expectedModRevision) throw conflict(key, current);
      return write(key, EMPTY, true, current);
    },

    watch(prefix, opts, handler) {
      if (closed) return hub.reject(handler, new StorageError('Unavailable', 'memory store is closed'));
      const after = opts.afterRevision;
      if (after === undefined) return hub.add(prefix, revision, [], handler);
      if (after < compactedAt) return hub.reject(handler, compacted(after, compactedAt));
      const replay = log.slice(partition(log, (e) => e.kv.modRevision <= after)).filter((e) => e.kv.key.startsWith(prefix));
      return hub.add(prefix, Math.max(after, revision), replay, handler);
    },

    async compact(rev) {
      open();
      if (rev > revision) throw futureRevision(rev, revision);
      if (rev <= compactedAt) return;
      compactedAt = rev;
      log.splice(0, partition(log, (e) => e.kv.modRevision <= rev));
      for (const [key, versions] of history) {
        // keep the state at rev (unless it is a tombstone) and everything after it
        let keep = partition(versions, (v) => v.modRevision <= rev) - 1;
        if (keep >= 0 && versions[keep].deleted) keep++;
        if (keep > 0) versions.splice(0, keep);
        if (versions.length === 0) { history.delete(key); keys.delete(key); }
      }
    },

    async currentRevision() { open(); return revision; },
    async oldestRevision() { open(); return compactedAt + 1; },
    async check() { open(); },

    async close() {
      if (closed) return;
      closed = true;
      hub.endAll(new StorageError('Unavailable', 'memory store is closed'));
    },
  };
}
