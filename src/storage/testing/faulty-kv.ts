// A KV whose watches a test can disturb: hold their events back as a lost connection would, and end them all with
// an error as a broken stream or a restarted server does. Everything else goes straight to the wrapped store.
import type { KV, StorageError, Watch, WatchEvent, WatchHandler } from '../types.js';

export interface FaultyKV extends KV {
  /** watches stop delivering (their events wait) and report their connection lost */
  disconnect(): void;
  /** the held events are delivered and the connection reported back */
  reconnect(): void;
  /** every open watch ends with err; events held back are lost with it */
  breakWatches(err: StorageError): void;
}

interface Open { handler: WatchHandler; inner: Watch; held: WatchEvent[][] }

export function faultyKV(kv: KV): FaultyKV {
  const open = new Set<Open>();
  let offline = false;
  return {
    name: kv.name,
    get: (key, o) => kv.get(key, o),
    list: (prefix, o) => kv.list(prefix, o),
    count: prefix => kv.count(prefix),
    create: (key, value) => kv.create(key, value),
    update: (key, value, rev) => kv.update(key, value, rev),
    delete: (key, rev) => kv.delete(key, rev),
    compact: rev => kv.compact(rev),
    currentRevision: () => kv.currentRevision(),
    oldestRevision: () => kv.oldestRevision(),
    check: () => kv.check(),
    close: () => kv.close(),
    watch(prefix, opts, handler) {
      const w: Open = { handler, held: [], inner: undefined! };
      w.inner = kv.watch(prefix, opts, {
        onEvents(events) { if (offline) w.held.push(events); else handler.onEvents(events); },
        onError(err) { open.delete(w); handler.onError(err); },
      });
      open.add(w);
      if (offline) queueMicrotask(() => handler.onConnection?.(false));
      return { close() { open.delete(w); w.inner.close(); } };
    },
    disconnect() {
      offline = true;
      for (const w of open) w.handler.onConnection?.(false);
    },
    reconnect() {
      offline = false;
      for (const w of open) {
        for (const events of w.held.splice(0)) w.handler.onEvents(events);
        w.handler.onConnection?.(true);
      }
    },
    breakWatches(err) {
      offline = false;
      for (const w of [...open]) {
        open.delete(w);
        w.inner.close();
        w.held = [];
        w.handler.onError(err);
      }
    },
  };
}
