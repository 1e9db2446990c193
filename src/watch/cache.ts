// The watch cache: a decorator of the object store that serves watches and not-older-than lists from memory and
// passes everything else to the store it wraps. One storage watch over the root feeds a cache per resource (built on
// first use from a list at the revision the watch has reached), which keeps a bounded history window and fans
// events out to watchers.
//
// When the storage watch cannot go on, the cache heals. A watch that merely broke (cancelled, connection lost) is
// opened again from the last revision seen, and nothing is lost. A watch whose revision was compacted away makes the
// cache list every resource again at one revision and watch from there: a resource that changed in the gap ends its
// API watchers with Compacted (410 for the client, which lists again), and its subscribers inside the server get the
// difference as events; a resource that did not change keeps its watchers. Until it has caught up, check() fails,
// which readyz reports.
import type { CacheSubscriber, ObjectEvent, ResourceCache, StoredObject } from '../api/cache.js';
import type { ApiObject } from '../api/meta.js';
import { formatResourceVersion, type Revision } from '../api/resource-version.js';
import { decodeObject, keptForm as kept, scheduleBookmarks, type ListOptions, type ObjectStore, type ObjectWatcher, type WatchIndex } from '../storage/objects.js';
import { futureRevision, isStorageError, StorageError } from '../storage/types.js';
import { deepCopy } from '../util/objects.js';

export interface WatchCacheOptions {
  /** the key root of the resources' keys, /registry/<group>/<resource>/... */
  root: string;
  /** how long history is kept */
  historyMs?: number;
  /** most events kept per resource */
  historyLimit?: number;
  /** most events kept for the resource of this key prefix, when it has its own size (--watch-cache-sizes) */
  historyLimitFor?(prefix: string): number | undefined;
  /** most bytes of objects' JSON the history of one resource keeps (default 256 MiB): older events are let go sooner */
  historyBytes?: number;
  /** how long a read waits for the cache to reach a revision it asks for before FutureRevision (default 3 s) */
  freshnessTimeoutMs?: number;
  /**
   * The store's watch carries every revision it makes, at once (a store in this process that owns its data): a
   * consistent read (no revision) is then served here once the cache has seen the store's current revision, which
   * answers exactly what reading storage would. Without it, consistent and exact reads go to storage.
   */
  consistentReads?: boolean;
  /**
   * the resource of this key prefix has its cache turned off (--watch-cache-sizes=<resource>#0, --watch-cache=false):
   * clients' reads and watches go to storage, as the reference serves them without a cacher. The in-memory view
   * consumers inside the server ask for with cache() is kept all the same.
   */
  bypasses?(prefix: string): boolean;
  log?: { warn(message: string): void };
}

export interface WatchCache extends ObjectStore {
  start(): Promise<void>;
  /** the in-memory view of one resource, for consumers inside the server (built on first use) */
  cache(prefix: string): ResourceCache;
  /** resolves once the cache has seen rev, or false after timeoutMs */
  waitFor(rev: Revision, timeoutMs: number): Promise<boolean>;
  /** throws while the cache cannot serve what storage holds: before start, while its storage watch is away or it re-lists */
  check(): void;
  stop(): void;
}

/** what an event of the history holds of its own: its object's JSON (a previous state is the event before's) */
const eventBytes = (ev: ObjectEvent) => ev.cur.bytes?.length ?? 0;

/** the part of a registry key that names the resource: /registry/<group>/<resource>/ */
export function resourcePrefixOf(key: string): string {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) if (key[i] === '/' && ++slashes === 4) return key.slice(0, i + 1);
  return key;
}

/** the index of the first of the sorted keys not before `key` */
function lowerBound(keys: string[], key: string): number {
  let lo = 0, hi = keys.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (keys[mid] < key) lo = mid + 1; else hi = mid; }
  return lo;
}

/** a cached object for a caller that may change it: its obj is a deep copy made when first read (decoded from the
 *  cached JSON, which the cache keeps rather than a parsed object); until then, its bytes are the cache's */
function privateCopy(item: StoredObject): StoredObject {
  let obj: ApiObject | undefined;
  let bytes: Buffer | undefined;
  return {
    key: item.key, rev: item.rev,
    get obj() { return (obj ??= item.bytes ? decodeObject(item.bytes, item.rev) : deepCopy(item.obj)); },
    set obj(o: ApiObject) { obj = o; bytes = undefined; },
    get bytes() { return bytes ?? (obj === undefined ? item.bytes : undefined); },
    set bytes(b: Buffer | undefined) { bytes = b; },
  };
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms).unref());

/** the end of API watchers a re-list could not carry over */
const relisted = () => new StorageError('Compacted',
  'the watch cache listed this resource again after its storage watch was compacted away; list and watch again');

interface Stream { prefix: string; watcher: ObjectWatcher }

/** how an index reads its field from a stored object: from its key where it can, which decodes nothing */
const readIndex = (index: WatchIndex) => index.fromKey ? (o: StoredObject) => index.fromKey!(o.key) : (o: StoredObject) => index.get(o.obj);

/** an event to the watchers of one index value whose prefix it lies in */
function deliver(set: Set<Stream> | undefined, ev: ObjectEvent) {
  if (set) for (const s of set) if (ev.key.startsWith(s.prefix)) s.watcher.event(ev);
}

interface Deferred { promise: Promise<void>; resolve(): void; settled: boolean }
function deferred(): Deferred {
  let resolve!: () => void;
  const d: Deferred = { promise: new Promise<void>(r => { resolve = r; }), resolve: () => { d.settled = true; resolve(); }, settled: false };
  return d;
}

interface ResourceState extends ResourceCache {
  /** latest revision whose events this cache has applied */
  revision(): Revision;
  /** events after rev (exclusive), or undefined when history does not reach back that far */
  since(rev: Revision): ObjectEvent[] | undefined;
  /** an API watcher of a prefix of this resource; it ends when the cache cannot carry it over a re-list. With an index,
   *  it is sent only the events of objects whose indexed field had or has its value. */
  stream(prefix: string, watcher: ObjectWatcher, index?: WatchIndex): () => void;
  apply(ev: ObjectEvent): void;
  /** events wait until the next load */
  hold(): void;
  /** the stored state at exactly at; false when generation gen was over by then (nothing changed) */
  load(at: Revision, gen: number): Promise<boolean>;
  loaded(): boolean;
  end(err: StorageError): void;
}

export function createWatchCache(inner: ObjectStore, opts: WatchCacheOptions): WatchCache {
  const historyMs = opts.historyMs ?? 5 * 60_000;
  const historyLimit = opts.historyLimit ?? 10_000;
  const historyBytes = opts.historyBytes ?? 256 * 1024 * 1024;
  const freshnessTimeoutMs = opts.freshnessTimeoutMs ?? 3000;
  const caches = new Map<string, ResourceState>();
  let seen = 0;
  /** bumped whenever the storage watch is replaced; work of an older generation is dropped */
  let generation = 0;
  let stopRoot: (() => void) | undefined;
  let started = false;
  let stopped = false;
  let disconnected = false;
  let healing: { reason: string; done: Promise<void> } | undefined;
  let lastHealAt = 0;
  let healDelayMs = 0;
  let waiters: Array<{ rev: Revision; resolve: (ok: boolean) => void }> = [];

  function advance(rev: Revision) {
    if (rev <= seen) return;
    seen = rev;
    if (waiters.length) {
      const still: typeof waiters = [];
      for (const w of waiters) (w.rev <= seen ? w.resolve(true) : still.push(w));
      waiters = still;
    }
  }

  function resourceState(prefix: string): ResourceState {
    let objects = new Map<string, StoredObject>();
    /** the objects in key order, made when first listed and kept until an object comes or goes (a change of one
     *  replaces it in place): a list is then two binary searches and a copy, with no lookup per object */
    let sorted: { keys: string[]; items: StoredObject[] } | undefined;
    /** the events from index `head` on; those before it have expired and are cut in one piece, 1,024 at a time (or once
     *  they are half of it): a splice of the front at every event moved the whole window (10,000 events) each time */
    let history: Array<{ ev: ObjectEvent; at: number; size: number }> = [];
    let head = 0;
    let historyFrom = 0;   // every event with rev > historyFrom is in history
    /** the JSON bytes of the objects history holds: writes of large objects (a flood of 1 MB ConfigMaps) would
     *  otherwise keep gigabytes for the whole window; a watch from before what is kept is served from storage */
    let bytesHeld = 0;
    const limit = opts.historyLimitFor?.(prefix) ?? historyLimit;
    let rev = 0;
    let loaded = false;
    let buffered: ObjectEvent[] | undefined = [];
    let readiness = deferred();
    /** watchers that take every event of their prefix */
    const streams = new Set<Stream>();
    /** watchers that pin a field, by field and value: an event is tested against its objects' watchers only. `values`
     *  remembers each object's value as last published, so that an event's previous state need not be parsed again */
    const indexes = new Map<string, { read: (o: StoredObject) => string | undefined; byValue: Map<string, Set<Stream>>; values: Map<string, string> }>();
    const subscribers = new Set<CacheSubscriber>();
    const allStreams = () => {
      const all = [...streams];
      for (const { byValue } of indexes.values()) for (const set of byValue.values()) all.push(...set);
      return all;
    };
    const endStreams = (err: StorageError) => {
      const all = allStreams();
      streams.clear();
      indexes.clear();
      for (const s of all) s.watcher.end(err);
    };

    function trim(now: number) {
      const from = head;
      while (head < history.length && (history.length - head > limit || now - history[head].at > historyMs || bytesHeld > historyBytes))
        bytesHeld -= history[head++].size;
      if (head === from) return;
      historyFrom = history[head - 1].ev.rev;
      if (head >= 1024 || head >= history.length / 2) { history = history.slice(head); head = 0; }
    }

    function publish(ev: ObjectEvent) {
      for (const s of streams) if (ev.key.startsWith(s.prefix)) s.watcher.event(ev);
      for (const { read, byValue, values } of indexes.values()) {
        const before = ev.prev && (values.get(ev.key) ?? read(ev.prev) ?? '');
        const now = ev.type === 'DELETED' && before !== undefined ? before : read(ev.cur) ?? '';
        if (ev.type === 'DELETED') values.delete(ev.key); else values.set(ev.key, now);
        deliver(byValue.get(now), ev);
        if (before !== undefined && before !== now) deliver(byValue.get(before), ev);
      }
      for (const s of subscribers) s.send(ev);
    }

    function applyOne(e: ObjectEvent, now: number) {
      if (e.rev <= rev) return;
      const prev = objects.get(e.key);
      let ev: ObjectEvent;
      if (e.type !== 'DELETED') {
        const cur = kept(e.cur);
        if (!prev) sorted = undefined;
        else if (sorted) sorted.items[lowerBound(sorted.keys, e.key)] = cur;
        objects.set(e.key, cur);
        ev = { type: prev ? 'MODIFIED' : 'ADDED', key: e.key, cur: e.cur, prev, rev: e.rev };
      } else {
        if (!prev) { rev = e.rev; return; }
        objects.delete(e.key);
        sorted = undefined;
        ev = { type: 'DELETED', key: e.key, cur: kept(e.cur), prev, rev: e.rev };
      }
      rev = ev.rev;
      const size = eventBytes(ev);
      history.push({ ev, at: now, size });
      bytesHeld += size;
      publish(ev);
    }

    /** the stored state replaces the cache's; after a gap, what changed in it goes to subscribers */
    function replace(items: StoredObject[], at: Revision) {
      const fresh = new Map(items.map(i => [i.key, kept(i)]));
      if (!loaded) {
        loaded = true;
        objects = fresh;
        sorted = undefined;
        rev = historyFrom = at;
        return;
      }
      const changes: ObjectEvent[] = [];
      for (const [key, cur] of fresh) {
        const prev = objects.get(key);
        if (!prev) changes.push({ type: 'ADDED', key, cur, rev: cur.rev });
        else if (prev.rev !== cur.rev) changes.push({ type: 'MODIFIED', key, cur, prev, rev: cur.rev });
      }
      for (const [key, prev] of objects) {
        if (fresh.has(key)) continue;
        const last = deepCopy(prev.obj);
        last.metadata.resourceVersion = formatResourceVersion(at);
        changes.push({ type: 'DELETED', key, cur: { key, obj: last, rev: at }, prev, rev: at });
      }
      rev = Math.max(rev, at);
      // the same keys at the same revisions: nothing happened to this resource in the gap, its watchers go on
      if (!changes.length) return;
      objects = fresh;
      sorted = undefined;
      history = [];
      head = 0;
      bytesHeld = 0;
      historyFrom = rev;
      endStreams(relisted());
      for (const ev of changes.sort((a, b) => a.rev - b.rev)) for (const s of subscribers) s.send(ev);
    }

    const c: ResourceState = {
      prefix,
      get ready() { return readiness.promise; },
      revision: () => (buffered ? rev : Math.max(rev, seen)),
      get: key => objects.get(key),
      count: () => objects.size,
      snapshot(keyPrefix) {
        if (!sorted) {
          const keys = [...objects.keys()].sort();
          sorted = { keys, items: keys.map(k => objects.get(k)!) };
        }
        const { keys, items } = sorted;
        if (keyPrefix === prefix) return items.slice();
        const from = lowerBound(keys, keyPrefix);
        // the keys past `from` that begin with the prefix come first, so where they end is found the same way
        let lo = from, hi = keys.length;
        while (lo < hi) { const mid = (lo + hi) >> 1; if (keys[mid].startsWith(keyPrefix)) lo = mid + 1; else hi = mid; }
        return items.slice(from, lo);
      },
      since(from) {
        if (from < historyFrom) return undefined;
        let lo = head, hi = history.length;
        while (lo < hi) { const mid = (lo + hi) >> 1; if (history[mid].ev.rev <= from) lo = mid + 1; else hi = mid; }
        return history.slice(lo).map(h => h.ev);
      },
      subscribe(s) { subscribers.add(s); return () => { subscribers.delete(s); }; },
      stream(keyPrefix, watcher, index) {
        const s: Stream = { prefix: keyPrefix, watcher };
        if (!index) {
          streams.add(s);
          return () => { streams.delete(s); };
        }
        let byField = indexes.get(index.field);
        if (!byField) indexes.set(index.field, byField = { read: readIndex(index), byValue: new Map(), values: new Map() });
        const { byValue } = byField;
        let set = byValue.get(index.value);
        if (!set) byValue.set(index.value, set = new Set());
        set.add(s);
        return () => {
          const current = byValue.get(index.value);
          if (!current?.delete(s) || current.size) return;
          byValue.delete(index.value);
          if (!byValue.size && indexes.get(index.field)?.byValue === byValue) indexes.delete(index.field);
        };
      },
      apply(ev) {
        if (buffered) { buffered.push(ev); return; }
        const now = Date.now();
        applyOne(ev, now);
        trim(now);
      },
      hold() {
        buffered ??= [];
        if (readiness.settled) readiness = deferred();
      },
      async load(at, gen) {
        c.hold();
        const page = await inner.list(prefix, { revision: at, match: 'Exact' });
        if (gen !== generation) return false;
        replace(page.items, page.revision);
        const pending = buffered!;
        buffered = undefined;
        const now = Date.now();
        for (const ev of pending) applyOne(ev, now);
        trim(now);
        readiness.resolve();
        return true;
      },
      loaded: () => loaded,
      end(err) {
        endStreams(err);
        for (const s of subscribers) s.end(err);
        subscribers.clear();
      },
    };
    return c;
  }

  /** the storage watch of this generation, from a revision */
  async function watchRoot(from: Revision) {
    const gen = generation;
    stopRoot?.();
    stopRoot = undefined;
    const stop = await inner.watch(opts.root, { revision: from }, {
      event(ev) {
        if (gen !== generation) return;
        caches.get(resourcePrefixOf(ev.key))?.apply(ev);
        advance(ev.rev);
      },
      end(err) { if (gen === generation) heal(err); },
      connected(live) { if (gen === generation) disconnected = !live; },
    });
    if (gen === generation && !stopped) stopRoot = stop; else stop();
  }

  /** a new storage watch after the last one ended: from where it was, or after listing everything again */
  function heal(err: StorageError) {
    const gen = ++generation;
    stopRoot?.();
    stopRoot = undefined;
    disconnected = false;
    // a store that ends every watch at once is not hammered: heals close together wait longer and longer
    healDelayMs = Date.now() - lastHealAt < 1000 ? Math.min(Math.max(healDelayMs * 2, 100), 5000) : 0;
    lastHealAt = Date.now();
    opts.log?.warn(`watch cache: the storage watch ended (${err.message}); ${isStorageError(err, 'Compacted') ? 'listing every cached resource again' : 'watching again from revision ' + seen}`);
    let relist = isStorageError(err, 'Compacted');
    const done = (async () => {
      for (let delay = healDelayMs; gen === generation && !stopped; delay = Math.min(Math.max(delay * 2, 100), 5000)) {
        if (delay) await sleep(delay);
        if (gen !== generation || stopped) return;
        try {
          if (!relist) {
            await watchRoot(seen);
          } else {
            const at = await inner.revision();
            for (const c of caches.values()) c.hold();
            await watchRoot(at);
            await Promise.all([...caches.values()].map(c => c.load(at, gen)));
            if (gen === generation) advance(at);
          }
          if (gen === generation) healing = undefined;
          return;
        } catch (e) {
          if (gen !== generation || stopped) return;
          if (isStorageError(e, 'Compacted')) relist = true;
          opts.log?.warn(`watch cache: healing failed (${(e as Error).message}); trying again`);
        }
      }
    })();
    healing = { reason: err.message, done };
  }

  /** a cache's first state: listed at the revision the storage watch has reached, once any healing is over */
  async function loadFirst(c: ResourceState) {
    for (let delay = 100; !stopped && !c.loaded();) {
      await healing?.done;
      if (c.loaded()) return;   // a heal that listed everything again loaded it
      const gen = generation;
      try {
        if (await c.load(seen, gen)) return;
      } catch (e) {
        if (stopped || gen !== generation) continue;
        if (isStorageError(e, 'Compacted')) { heal(e); continue; }
        opts.log?.warn(`watch cache: listing ${c.prefix} failed (${(e as Error).message}); trying again`);
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  function cache(prefix: string): ResourceState {
    let c = caches.get(prefix);
    if (!c) {
      c = resourceState(prefix);
      caches.set(prefix, c);
      void loadFirst(c);
    }
    return c;
  }

  /** the cache of the resource a prefix lies in, when it is one the cache serves */
  const cacheFor = (prefix: string) => {
    const p = resourcePrefixOf(prefix);
    return p.endsWith('/') && p.startsWith(opts.root) && !opts.bypasses?.(p) ? cache(p) : undefined;
  };

  async function waitFor(rev: Revision, timeoutMs: number) {
    if (rev <= seen) return true;
    // revisions written outside the root never reach the watch; the store's own revision settles those
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const ok = await new Promise<boolean>(resolve => {
        const w = { rev, resolve };
        waiters.push(w);
        // not unref'd: a read waiting here is work in progress
        setTimeout(() => { waiters = waiters.filter(x => x !== w); resolve(false); }, Math.min(100, deadline - Date.now()));
      });
      if (ok) return true;
      try {
        const current = await inner.revision();
        if (current >= rev && !healing && !disconnected) { await new Promise(r => setTimeout(r, 20)); advance(Math.min(rev, current)); return true; }
      } catch (e) { if (!isStorageError(e)) throw e; }
    }
    return rev <= seen;
  }

  /** the cache is current to at least rev and not re-listing; FutureRevision when it does not get there in time */
  async function fresh(c: ResourceState, rev: Revision | undefined) {
    await c.ready;
    if (!rev) return;
    if (!(await waitFor(rev, freshnessTimeoutMs))) throw futureRevision(rev, seen);
    await c.ready;
  }

  /** the reference's rule: consistent, exact and paged reads at a version go to storage, the rest is served here;
   *  with consistentReads, whole consistent lists are served here too */
  const servedHere = (o: ListOptions) => (o.revision !== undefined || (!!opts.consistentReads && !o.limit))
    && o.start === undefined && o.match !== 'Exact' && !(o.limit && o.revision);

  /** the cache that serves a consistent read of key: loaded and following storage; else the read goes to storage */
  const consistentCache = (key: string) => {
    if (!opts.consistentReads || healing || disconnected) return undefined;
    const c = cacheFor(key);
    return c?.loaded() ? c : undefined;
  };

  const watchCache: WatchCache = {
    async start() {
      seen = await inner.revision();
      await watchRoot(seen);
      started = true;
    },
    cache,
    waitFor,
    check() {
      if (!started || stopped) throw new Error(stopped ? 'the watch cache is stopped' : 'the watch cache has not started');
      if (healing) throw new Error(`the watch cache is catching up after its storage watch ended: ${healing.reason}`);
      if (disconnected) throw new Error('the watch cache lost its storage watch and is reconnecting');
    },
    stop() {
      stopped = true;
      generation++;
      stopRoot?.();
      stopRoot = undefined;
      for (const c of caches.values()) c.end(new StorageError('Unavailable', 'the watch cache is stopping'));
      caches.clear();
    },

    async get(key, o) {
      // any version: the cache's, when it holds the resource (as the reference's watch cache serves resourceVersion=0)
      const any = o?.revision === 0 && !healing ? cacheFor(key) : undefined;
      if (any?.loaded()) {
        const item = any.get(key);
        return item && (o?.shared ? item : privateCopy(item));
      }
      const c = consistentCache(key);
      if (c) {
        await fresh(c, o?.revision || await inner.revision());
        const item = c.get(key);
        return item && (o?.shared ? item : privateCopy(item));
      }
      // served by storage, once this server has seen the version asked for
      if (o?.revision && !(await waitFor(o.revision, freshnessTimeoutMs))) throw futureRevision(o.revision, seen);
      return inner.get(key, o);
    },

    async list(prefix, o = {}) {
      const c = servedHere(o) ? (o.revision === undefined ? consistentCache(prefix) : cacheFor(prefix)) : undefined;
      if (!c) return inner.list(prefix, o);
      await fresh(c, o.revision ?? await inner.revision());
      const all = c.snapshot(prefix);
      const filter = o.filter;
      return { items: filter ? all.filter(i => filter(i.obj)) : all, revision: c.revision() };
    },

    async watch(prefix, o, watcher) {
      const c = cacheFor(prefix);
      if (!c) return inner.watch(prefix, o, watcher);
      let stopStream: () => void;
      let stopBookmarks = () => {};
      const own: ObjectWatcher = { ...watcher, end(err) { stopBookmarks(); watcher.end(err); } };
      if (o.initialEvents ?? !o.revision) {
        try {
          await fresh(c, o.revision ?? await inner.revision());
        } catch (e) {
          // as the reference's watch cache: a watch asking for initial events at a version the cache does not reach in
          // time begins, and its one event is the error (Too large resource version)
          if (!o.initialEvents || !isStorageError(e, 'FutureRevision')) throw e;
          own.end(e);
          return () => {};
        }
        const snap = c.snapshot(prefix);
        const at = c.revision();
        stopStream = c.stream(prefix, own, o.index);
        for (const cur of snap) watcher.event({ type: 'ADDED', key: cur.key, cur, rev: cur.rev });
        if (o.initialEvents) watcher.bookmark?.(at, true);
      } else {
        // no version and no initial events: changes from the latest state (for "0": from the cache's)
        await fresh(c, undefined);
        const from = o.revision || c.revision();
        if (from > c.revision()) {
          // a version the cache has not reached (or no server has): as the reference's watch cache, the watch begins at
          // once and sends only what comes after that version, until its own timeout; it is not refused
          const after: ObjectWatcher = { ...own, event(ev) { if (ev.rev > from) own.event(ev); } };
          stopStream = c.stream(prefix, after, o.index);
          stopBookmarks = scheduleBookmarks(o, () => { if (c.revision() > from) watcher.bookmark?.(c.revision()); });
          return () => { stopBookmarks(); stopStream(); };
        }
        const history = c.since(from);
        // older than the history: straight from storage, whose watch sends its own bookmarks
        if (!history) return inner.watch(prefix, o, watcher);
        stopStream = c.stream(prefix, own, o.index);
        for (const ev of history) if (ev.key.startsWith(prefix)) watcher.event(ev);
      }
      // every event up to the cache's revision has gone out before a bookmark names it
      stopBookmarks = scheduleBookmarks(o, () => watcher.bookmark?.(c.revision()));
      return () => { stopBookmarks(); stopStream(); };
    },

    create: (key, obj) => inner.create(key, obj),
    update: (key, decide, o) => inner.update(key, decide, o),
    delete: (key, o) => inner.delete(key, o),
    revision: () => inner.revision(),
  };
  return watchCache;
}
