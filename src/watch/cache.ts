// The watch cache. One storage watch over the whole registry feeds a cache per resource (built on first use
// from a list at the revision the watch has reached), which serves watches and resourceVersion="0" /
// NotOlderThan lists from memory, keeps a bounded history window, and fans events out to watchers.
import type { KV, KeyValue, Revision, Watch, WatchEvent as KVEvent } from '../storage/types.js';
import { isStorageError, StorageError } from '../storage/types.js';
import type { ApiObject } from '../api/meta.js';
import type { CacheEvent, CacheWatcher, CachedObject, EventType, ResourceCache } from '../api/cache.js';

export interface WatchCacheOptions {
  /** how long history is kept */
  historyMs?: number;
  /** most events kept per resource */
  historyLimit?: number;
  decode(kv: KeyValue): ApiObject;
}

export interface WatchHub {
  start(): Promise<void>;
  cache(prefix: string): ResourceCache;
  /** latest revision the hub has seen */
  revision(): Revision;
  /** resolve once the hub has seen rev, or false after timeoutMs */
  waitFor(rev: Revision, timeoutMs: number): Promise<boolean>;
  stop(): void;
}

/** the part of a registry key that names the resource: /registry/<group>/<resource>/ */
export function resourcePrefixOf(key: string): string {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) if (key[i] === '/' && ++slashes === 4) return key.slice(0, i + 1);
  return key;
}

export function createWatchHub(kv: KV, root: string, opts: WatchCacheOptions): WatchHub {
  const historyMs = opts.historyMs ?? 5 * 60_000;
  const historyLimit = opts.historyLimit ?? 10_000;
  const caches = new Map<string, CacheState>();
  let seen = 0;
  let watch: Watch | undefined;
  let waiters: Array<{ rev: Revision; resolve: (ok: boolean) => void }> = [];
  let failed: StorageError | undefined;

  interface CacheState extends ResourceCache {
    apply(events: KVEvent[]): void;
    fail(err: StorageError): void;
  }

  function advance(rev: Revision) {
    if (rev <= seen) return;
    seen = rev;
    if (waiters.length) {
      const still: typeof waiters = [];
      for (const w of waiters) (w.rev <= seen ? w.resolve(true) : still.push(w));
      waiters = still;
    }
  }

  function makeCache(prefix: string): CacheState {
    const objects = new Map<string, CachedObject>();
    let sortedKeys: string[] | undefined;
    const history: CacheEvent[] = [];
    let historyFrom = 0;   // every event with rev > historyFrom is in history
    let rev = 0;
    let buffered: KVEvent[] | undefined = [];
    const watchers = new Set<CacheWatcher>();

    const toCached = (k: KeyValue): CachedObject => ({ key: k.key, obj: opts.decode(k), rev: k.modRevision });

    function trim(now: number) {
      let drop = 0;
      while (drop < history.length && (history.length - drop > historyLimit || now - history[drop].at > historyMs)) drop++;
      if (drop) { historyFrom = history[drop - 1].rev; history.splice(0, drop); }
    }

    function applyOne(e: KVEvent, now: number) {
      if (e.kv.modRevision <= rev) return;
      const prev = objects.get(e.kv.key);
      let ev: CacheEvent;
      if (e.type === 'put') {
        const cur = toCached(e.kv);
        if (!prev) sortedKeys = undefined;
        objects.set(cur.key, cur);
        ev = { type: prev ? 'MODIFIED' : 'ADDED', key: cur.key, cur, prev, rev: cur.rev, at: now };
      } else {
        if (!prev) { rev = e.kv.modRevision; return; }
        objects.delete(e.kv.key);
        sortedKeys = undefined;
        // the deleted object as last stored, carrying the delete's revision
        const last: CachedObject = e.prevKv
          ? toCached({ ...e.prevKv, modRevision: e.kv.modRevision })
          : { key: prev.key, obj: structuredClone(prev.obj), rev: e.kv.modRevision };
        last.obj.metadata.resourceVersion = String(e.kv.modRevision);
        ev = { type: 'DELETED', key: e.kv.key, cur: last, prev, rev: e.kv.modRevision, at: now };
      }
      rev = ev.rev;
      history.push(ev);
      for (const w of watchers) w.send(ev);
    }

    const c: CacheState = {
      prefix,
      ready: Promise.resolve(),
      revision: () => (buffered ? rev : Math.max(rev, seen)),
      get: key => objects.get(key),
      snapshot(keyPrefix) {
        if (!sortedKeys) sortedKeys = [...objects.keys()].sort();
        const out: CachedObject[] = [];
        if (keyPrefix === prefix) { for (const k of sortedKeys) out.push(objects.get(k)!); return out; }
        let lo = 0, hi = sortedKeys.length;
        while (lo < hi) { const mid = (lo + hi) >> 1; if (sortedKeys[mid] < keyPrefix) lo = mid + 1; else hi = mid; }
        for (let i = lo; i < sortedKeys.length && sortedKeys[i].startsWith(keyPrefix); i++) out.push(objects.get(sortedKeys[i])!);
        return out;
      },
      since(from) {
        if (from < historyFrom) return undefined;
        let lo = 0, hi = history.length;
        while (lo < hi) { const mid = (lo + hi) >> 1; if (history[mid].rev <= from) lo = mid + 1; else hi = mid; }
        return history.slice(lo);
      },
      subscribe(w) { watchers.add(w); return () => { watchers.delete(w); }; },
      apply(events) {
        if (buffered) { buffered.push(...events); return; }
        const now = Date.now();
        for (const e of events) applyOne(e, now);
        trim(now);
      },
      fail(err) {
        for (const w of watchers) w.end(err);
        watchers.clear();
      },
    };
    const at = seen;
    c.ready = kv.list(prefix, { revision: at }).then(list => {
      for (const k of list.kvs) objects.set(k.key, toCached(k));
      rev = historyFrom = list.revision;
      const pending = buffered!;
      buffered = undefined;
      c.apply(pending);
    }, err => {
      caches.delete(prefix);
      throw err;
    });
    return c;
  }

  return {
    async start() {
      seen = await kv.currentRevision();
      watch = kv.watch(root, { afterRevision: seen }, {
        onEvents(events) {
          const byPrefix = new Map<string, KVEvent[]>();
          for (const e of events) {
            const p = resourcePrefixOf(e.kv.key);
            if (!caches.has(p)) continue;
            let list = byPrefix.get(p);
            if (!list) byPrefix.set(p, list = []);
            list.push(e);
          }
          for (const [p, list] of byPrefix) caches.get(p)!.apply(list);
          advance(events[events.length - 1].kv.modRevision);
        },
        onError(err) {
          failed = err;
          for (const c of caches.values()) c.fail(err);
          caches.clear();
        },
      });
    },
    cache(prefix) {
      if (failed) throw failed;
      let c = caches.get(prefix);
      if (!c) { c = makeCache(prefix); caches.set(prefix, c); }
      return c;
    },
    revision: () => seen,
    async waitFor(rev, timeoutMs) {
      if (rev <= seen) return true;
      // revisions written outside the registry never reach the watch; the store's own revision settles those
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const ok = await new Promise<boolean>(resolve => {
          const w = { rev, resolve };
          waiters.push(w);
          setTimeout(() => { waiters = waiters.filter(x => x !== w); resolve(false); }, Math.min(100, deadline - Date.now())).unref();
        });
        if (ok) return true;
        try {
          const current = await kv.currentRevision();
          if (current >= rev) { await new Promise(r => setTimeout(r, 20)); advance(Math.min(rev, current)); return true; }
        } catch (e) { if (!isStorageError(e)) throw e; }
      }
      return rev <= seen;
    },
    stop() {
      watch?.close();
      for (const c of caches.values()) c.fail(new StorageError('Unavailable', 'the watch cache is stopping'));
      caches.clear();
    },
  };
}
