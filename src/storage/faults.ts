// Faults injected at the key-value contract, for tests of clients and controllers: a decorator over any KV that
// can end the live watches as a compaction does (the server's watch cache then relists and its watchers get
// 410), compact history now, make the next write of a key lose a compare-and-swap to a real concurrent write
// (clients updating with a stale resourceVersion get 409), and add latency to every operation. The server's code
// paths are the production ones: only what storage does changes.

import { compacted, type KV, type Revision, type Watch, type WatchHandler } from './types.js';

export interface Faults {
  /** end every live watch (and the next `count` new ones) with a Compacted error */
  breakWatches(count?: number): void;
  /** compact history up to the current revision; returns it */
  compactNow(): Promise<Revision>;
  /**
   * the next update or delete of a key under `prefix` (or that `matches` accepts) first meets a real concurrent
   * write of the key (the same value written again, so its revision moves): the writer's compare-and-swap fails
   * as in a race
   */
  conflictOnNextWrite(matches: string | ((key: string) => boolean), count?: number): void;
  /** delay every operation by `ms` (0: none); watches deliver their events later by as much */
  setLatency(ms: number): void;
  /** how many faults of each kind were carried out */
  readonly injected: { brokenWatches: number; conflicts: number };
}

export function withFaults(inner: KV): { kv: KV; faults: Faults } {
  let latencyMs = 0;
  let watchesToBreak = 0;
  const conflicts: Array<{ matches: (key: string) => boolean; left: number }> = [];
  const live = new Set<{ handler: WatchHandler; inner: Watch; ended: boolean }>();
  const injected = { brokenWatches: 0, conflicts: 0 };

  const delay = () => (latencyMs > 0 ? new Promise<void>((r) => setTimeout(r, latencyMs)) : undefined);
  const slow = async <T>(op: () => Promise<T>): Promise<T> => {
    await delay();
    return op();
  };

  const breakOne = async (w: { handler: WatchHandler; inner: Watch; ended: boolean }) => {
    if (w.ended) return;
    w.ended = true;
    live.delete(w);
    w.inner.close();
    injected.brokenWatches++;
    const rev = await inner.currentRevision().catch(() => 0);
    w.handler.onError(compacted(rev, rev));
  };

  /** a concurrent writer wins the race for this key, if one is due */
  const race = async (key: string) => {
    const due = conflicts.find((c) => c.left > 0 && c.matches(key));
    if (!due) return;
    const { kv } = await inner.get(key);
    if (!kv) return;
    due.left--;
    injected.conflicts++;
    await inner.update(key, kv.value, kv.modRevision);
  };

  const kv: KV = {
    name: inner.name,
    get: (key, opts) => slow(() => inner.get(key, opts)),
    list: (prefix, opts) => slow(() => inner.list(prefix, opts)),
    count: (prefix) => slow(() => inner.count(prefix)),
    create: (key, value) => slow(() => inner.create(key, value)),
    update: (key, value, expected) => slow(async () => { await race(key); return inner.update(key, value, expected); }),
    delete: (key, expected) => slow(async () => { if (expected !== undefined) await race(key); return inner.delete(key, expected); }),
    watch(prefix, opts, handler) {
      const w = { handler, inner: undefined as unknown as Watch, ended: false };
      const relay: WatchHandler = {
        onEvents: (events) => {
          if (w.ended) return;
          if (latencyMs > 0) setTimeout(() => { if (!w.ended) handler.onEvents(events); }, latencyMs);
          else handler.onEvents(events);
        },
        onError: (err) => { if (!w.ended) { w.ended = true; live.delete(w); handler.onError(err); } },
        // a lost and regained stream is the watch cache's to know (readyz reports it while it resyncs)
        onConnection: (connected) => { if (!w.ended) handler.onConnection?.(connected); },
      };
      w.inner = inner.watch(prefix, opts, relay);
      live.add(w);
      if (watchesToBreak > 0) {
        watchesToBreak--;
        queueMicrotask(() => void breakOne(w));
      }
      return { close: () => { w.ended = true; live.delete(w); w.inner.close(); } };
    },
    compact: (rev) => slow(() => inner.compact(rev)),
    currentRevision: () => inner.currentRevision(),
    oldestRevision: () => inner.oldestRevision(),
    check: () => inner.check(),
    close: () => inner.close(),
  };

  const faults: Faults = {
    breakWatches(count = 0) {
      watchesToBreak = count;
      for (const w of [...live]) void breakOne(w);
    },
    async compactNow() {
      const rev = await inner.currentRevision();
      await inner.compact(rev);
      return rev;
    },
    conflictOnNextWrite(matches, count = 1) {
      conflicts.push({ matches: typeof matches === 'string' ? (key) => key.startsWith(matches) : matches, left: count });
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
    },
    injected,
  };
  return { kv, faults };
}
