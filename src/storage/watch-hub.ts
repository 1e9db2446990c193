// Fan-out of committed events to the in-process watchers of a backend that owns its data
// (memory, SQLite). Each watcher gets its events through its own queue, flushed in a
// microtask, so a writer never runs watcher code and a slow handler never reorders events.
import type { Revision, StorageError, Watch, WatchEvent, WatchHandler } from './types.js';

export interface WatchHub {
  /** a watcher of prefix: first the replayed events, then published ones with a revision above `after` */
  add(prefix: string, after: Revision, replay: WatchEvent[], handler: WatchHandler): Watch;
  /** a watch that could not start: it only reports err */
  reject(handler: WatchHandler, err: StorageError): Watch;
  /** events of one commit, in revision order */
  publish(events: WatchEvent[]): void;
  /** end every watch with err (the store is closing) */
  endAll(err: StorageError): void;
}

interface Watcher {
  prefix: string;
  after: Revision;
  handler: WatchHandler;
  queue: WatchEvent[];
  error?: StorageError;
  scheduled: boolean;
  closed: boolean;
}

export function createWatchHub(): WatchHub {
  const watchers = new Set<Watcher>();

  const close = (w: Watcher) => { w.closed = true; w.queue = []; watchers.delete(w); };

  const deliver = (w: Watcher) => {
    w.scheduled = false;
    if (w.closed) return;
    const batch = w.queue;
    w.queue = [];
    if (batch.length > 0) guard(() => w.handler.onEvents(batch));
    if (w.error && !w.closed) {
      const err = w.error;
      close(w);
      guard(() => w.handler.onError(err));
    }
  };

  const schedule = (w: Watcher) => {
    if (w.scheduled) return;
    w.scheduled = true;
    queueMicrotask(() => deliver(w));
  };

  const start = (w: Watcher): Watch => {
    schedule(w);
    return { close: () => close(w) };
  };

  return {
    add(prefix, after, replay, handler) {
      const w: Watcher = { prefix, after, handler, queue: replay, scheduled: false, closed: false };
      watchers.add(w);
      return start(w);
    },
    reject(handler, err) {
      return start({ prefix: '', after: 0, handler, queue: [], error: err, scheduled: false, closed: false });
    },
    publish(events) {
      for (const w of watchers) {
        let added = false;
        for (const e of events) {
          if (e.kv.modRevision > w.after && e.kv.key.startsWith(w.prefix)) { w.queue.push(e); added = true; }
        }
        if (added) schedule(w);
      }
    },
    endAll(err) {
      for (const w of watchers) { w.error = err; schedule(w); }
    },
  };
}

/** a throwing handler is the caller's bug; report it without breaking delivery to others */
function guard(call: () => void) {
  try {
    call();
  } catch (err) {
    console.error('storage: watch handler threw', err);
  }
}
