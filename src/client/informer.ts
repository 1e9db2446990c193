// Informers: list, then watch from the list's resourceVersion; a watch that ends is resumed from the last
// resourceVersion seen (bookmarks included); a 410 Gone relists. Two shapes share that loop:
// - startInformer: one consumer, which sees a `sync` with the full set after every list, then single changes;
// - shared informers from an informer factory: one list+watch per collection for any number of
//   controllers, a local store with indexes (by namespace, by owner uid, by node name, ...), handlers told
//   of additions, updates and deletions (deletions missed while disconnected are told after the relist),
//   and a periodic resync that tells every handler about every object again.

import { setMaxListeners } from 'node:events';
import { isClientClosed, isGone, type ListOptions, type ListResult, type ResourceClient, type ResourceRef, type Client } from './rest-client.js';

export type InformerEvent<T> =
  | { type: 'sync'; items: T[] }
  | { type: 'added' | 'modified' | 'deleted'; object: T };

export interface Informer<T> {
  /** current objects by `namespace/name` */
  readonly store: ReadonlyMap<string, T>;
  /** resolves after the first list was handled */
  readonly synced: Promise<void>;
  /** resourceVersion of the last list or event seen */
  lastResourceVersion(): string;
  stop(): void;
}

export interface InformerOptions extends Pick<ListOptions, 'labelSelector' | 'fieldSelector'> {
  /** server-side lifetime of each watch request; default 5 to 10 minutes, randomised as the reference does */
  watchTimeoutSeconds?: number;
  /** pause before retrying after an error; default 1 s, doubling up to 30 s while errors repeat */
  retryDelayMs?: number;
  /** objects per list page; default 500 */
  pageSize?: number;
  /** startInformer: keep `store` (default true); a consumer that keeps its own copies saves holding every object twice */
  keepStore?: boolean;
  /** applied to each object as it arrives, before it is kept or handed on (as the reference's informer transforms) */
  transform?(obj: any): any;
  onError?(err: unknown): void;
}

interface Meta { metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; ownerReferences?: Array<{ uid: string }> } }

export const objectKey = (o: any): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/** What a list+watch loop tells its consumer. */
interface ReflectorSink<T> {
  replace(items: T[], resourceVersion: string): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
}

/** Every page of a list, as one result. */
export async function listAll<T>(resource: ResourceClient<T>, opts: ListOptions = {}, pageSize = 500): Promise<ListResult<T>> {
  const items: T[] = [];
  let page = await resource.list({ ...opts, limit: pageSize });
  items.push(...page.items);
  while (page.metadata.continue) {
    try {
      // a continued list carries its position in the token, not in resourceVersion
      page = await resource.list({ ...opts, resourceVersion: undefined, limit: pageSize, continue: page.metadata.continue });
    } catch (e) {
      // the continue token expired: the whole list again, in one piece
      if (!isGone(e)) throw e;
      return resource.list({ ...opts, resourceVersion: undefined });
    }
    items.push(...page.items);
  }
  return { metadata: { resourceVersion: page.metadata.resourceVersion }, items };
}

/** Runs list+watch until the signal aborts. */
function reflect<T>(resource: ResourceClient<T>, sink: ReflectorSink<T>, opts: InformerOptions, signal: AbortSignal): { lastResourceVersion(): string } {
  let resourceVersion = '';
  const selectors = { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };
  const run = async () => {
    let needList = true;
    let failures = 0;
    // the first list may come from the server's cache (resourceVersion 0), as the reference's reflector does;
    // a list after a 410 must be current
    let listFrom: string | undefined = '0';
    while (!signal.aborted) {
      try {
        if (needList) {
          const list = await listAll(resource, { ...selectors, resourceVersion: listFrom }, opts.pageSize);
          listFrom = undefined;
          resourceVersion = list.metadata.resourceVersion ?? '';
          sink.replace(opts.transform ? list.items.map(opts.transform) : list.items, resourceVersion);
          needList = false;
        }
        const timeoutSeconds = opts.watchTimeoutSeconds ?? Math.floor(300 * (1 + Math.random()));
        for await (const e of resource.watch({ ...selectors, resourceVersion, allowWatchBookmarks: true, timeoutSeconds, signal })) {
          const obj = e.object as Meta;
          if (obj?.metadata?.resourceVersion) resourceVersion = obj.metadata.resourceVersion;
          failures = 0;
          if (e.type === 'BOOKMARK' || e.type === 'ERROR') continue;
          sink.event(e.type, opts.transform ? opts.transform(e.object) : e.object);
        }
      } catch (err) {
        if (signal.aborted) return;
        // a closed client answers nothing again: told once, the loop ends rather than retrying for ever
        if (isClientClosed(err)) {
          opts.onError?.(err);
          return;
        }
        if (isGone(err)) {
          needList = true;
          continue;
        }
        opts.onError?.(err);
        const delay = Math.min(30_000, (opts.retryDelayMs ?? 1000) * 2 ** Math.min(failures++, 5));
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  void run();
  return { lastResourceVersion: () => resourceVersion };
}

/** One consumer's informer: a `sync` event with all objects after each list, then the changes. */
export function startInformer<T>(resource: ResourceClient<T>, handler: (e: InformerEvent<T>) => void, opts: InformerOptions = {}): Informer<T> {
  const store = new Map<string, T>();
  const keep = opts.keepStore ?? true;
  const stopper = new AbortController();
  let markSynced!: () => void;
  const synced = new Promise<void>((r) => (markSynced = r));
  const reflector = reflect(resource, {
    replace(items) {
      store.clear();
      if (keep) for (const item of items) store.set(objectKey(item), item);
      handler({ type: 'sync', items });
      markSynced();
    },
    event(type, obj) {
      const key = objectKey(obj);
      if (type === 'DELETED') store.delete(key);
      else if (keep) store.set(key, obj);
      handler({ type: type === 'ADDED' ? 'added' : type === 'DELETED' ? 'deleted' : 'modified', object: obj });
    },
  }, opts, stopper.signal);
  return { store, synced, lastResourceVersion: reflector.lastResourceVersion, stop: () => stopper.abort() };
}

// ---- shared informers ----

/** What a controller is told. `deleted` with `finalStateUnknown` is a deletion noticed only at a relist. */
export interface ResourceHandler<T> {
  added?(obj: T): void;
  updated?(old: T, cur: T): void;
  deleted?(obj: T, finalStateUnknown: boolean): void;
}

/** The values an object is filed under in one index. */
export type IndexFunc<T> = (obj: T) => readonly string[];

export const namespaceIndex: IndexFunc<Meta> = (o) => [o.metadata.namespace ?? ''];
export const ownerUidIndex: IndexFunc<Meta> = (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid);
export const nodeNameIndex: IndexFunc<{ spec?: { nodeName?: string } }> = (o) => (o.spec?.nodeName ? [o.spec.nodeName] : []);

export interface SharedInformer<T> {
  readonly ref: ResourceRef<T>;
  /** adds a handler; it is told about the objects already known as additions; returns its removal */
  addHandler(handler: ResourceHandler<T>): () => void;
  /** files every object under the values of `index` (objects already known included) */
  addIndex(name: string, index: IndexFunc<T>): void;
  /** by `namespace/name` (or `name` for cluster-scoped objects) */
  get(key: string): T | undefined;
  list(namespace?: string): T[];
  byIndex(name: string, value: string): T[];
  hasSynced(): boolean;
  /** resolves after the first list was handled */
  readonly synced: Promise<void>;
  lastResourceVersion(): string;
}

export interface InformerFactory {
  /** the one shared informer of a collection (created on first use, started by start()) */
  informer<T = any>(ref: ResourceRef<T>, opts?: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): SharedInformer<T>;
  /** starts the informers asked for so far (calling it again starts the newer ones) */
  start(): void;
  /** resolves when every started informer has listed once; rejects when the signal aborts first */
  waitForSync(signal?: AbortSignal): Promise<void>;
  stop(): void;
}

export interface InformerFactoryOptions extends Omit<InformerOptions, 'labelSelector' | 'fieldSelector'> {
  /** how often every handler is told about every object again; 0: never. Default 0 */
  resyncMs?: number;
}

export function createInformerFactory(client: Client, opts: InformerFactoryOptions = {}): InformerFactory {
  const informers = new Map<string, SharedInformerImpl<any>>();
  const stopper = new AbortController();
  // every watch of every informer listens for the stop: more than the default warning threshold of 10
  setMaxListeners(0, stopper.signal);
  let resyncTimer: NodeJS.Timeout | undefined;
  return {
    informer<T = any>(ref: ResourceRef<T>, sel: Pick<ListOptions, 'labelSelector' | 'fieldSelector'> = {}) {
      const id = `${ref.group}/${ref.version}/${ref.resource}?${sel.labelSelector ?? ''}&${sel.fieldSelector ?? ''}`;
      let inf = informers.get(id);
      if (!inf) informers.set(id, inf = sharedInformer<T>(client, ref, { ...opts, ...sel }));
      return inf as SharedInformer<T>;
    },
    start() {
      if (stopper.signal.aborted) return;
      for (const inf of informers.values()) inf.start(stopper.signal);
      if (opts.resyncMs && !resyncTimer) {
        resyncTimer = setInterval(() => { for (const inf of informers.values()) inf.resync(); }, opts.resyncMs);
        resyncTimer.unref();
      }
    },
    async waitForSync(signal) {
      const all = Promise.all([...informers.values()].filter((i) => i.started()).map((i) => i.synced));
      if (!signal) return void (await all);
      await new Promise<void>((resolve, reject) => {
        const abort = () => reject(new Error('stopped before the informers had synced'));
        if (signal.aborted) return abort();
        signal.addEventListener('abort', abort, { once: true });
        all.then(() => { signal.removeEventListener('abort', abort); resolve(); }, reject);
      });
    },
    stop() {
      stopper.abort();
      clearInterval(resyncTimer);
    },
  };
}

interface SharedInformerImpl<T> extends SharedInformer<T> {
  start(signal: AbortSignal): void;
  started(): boolean;
  resync(): void;
}

function sharedInformer<T>(client: Client, ref: ResourceRef<T>, opts: InformerOptions): SharedInformerImpl<T> {
  const items = new Map<string, T>();
  const indexFuncs = new Map<string, IndexFunc<T>>([['namespace', namespaceIndex as IndexFunc<T>]]);
  /** index name → value → keys */
  const indexes = new Map<string, Map<string, Set<string>>>([['namespace', new Map()]]);
  const handlers = new Set<ResourceHandler<T>>();
  let reflector: { lastResourceVersion(): string } | undefined;
  let synced = false;
  let markSynced!: () => void;
  const syncedPromise = new Promise<void>((r) => (markSynced = r));

  const file = (key: string, obj: T | undefined, old: T | undefined) => {
    for (const [name, fn] of indexFuncs) {
      const index = indexes.get(name)!;
      for (const v of old ? fn(old) : []) {
        const keys = index.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(v);
      }
      for (const v of obj ? fn(obj) : []) {
        let keys = index.get(v);
        if (!keys) index.set(v, keys = new Set());
        keys.add(key);
      }
    }
  };
  // a handler that throws must not stop the others or the informer
  const tell = (f: (h: ResourceHandler<T>) => void) => {
    for (const h of handlers) {
      try { f(h); } catch (e) { opts.onError?.(e); }
    }
  };
  const put = (obj: T) => {
    const key = objectKey(obj);
    const old = items.get(key);
    items.set(key, obj);
    file(key, obj, old);
    if (old) tell((h) => h.updated?.(old, obj));
    else tell((h) => h.added?.(obj));
  };
  const remove = (obj: T, finalStateUnknown: boolean) => {
    const key = objectKey(obj);
    const old = items.get(key);
    if (!old) return;
    items.delete(key);
    file(key, undefined, old);
    tell((h) => h.deleted?.(finalStateUnknown ? old : obj, finalStateUnknown));
  };
  const rv = (o: T) => (o as Meta).metadata.resourceVersion;
  // objects carry their apiVersion and kind, as owner references and events need them
  const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
  const stamp = (o: T): T => {
    const typed = o as { apiVersion?: string; kind?: string };
    if (!typed.kind) { typed.kind = ref.kind; typed.apiVersion = apiVersion; }
    return o;
  };

  const sink: ReflectorSink<T> = {
    replace(list) {
      const seen = new Set<string>();
      for (const obj of list) {
        const key = objectKey(obj);
        seen.add(key);
        const old = items.get(key);
        if (!old || rv(old) !== rv(obj)) put(obj);
      }
      for (const [key, old] of [...items]) if (!seen.has(key)) remove(old, true);
      if (!synced) { synced = true; markSynced(); }
    },
    event(type, obj) {
      if (type === 'DELETED') remove(obj, false);
      else put(obj);
    },
  };

  return {
    ref,
    addHandler(h) {
      handlers.add(h);
      for (const obj of items.values()) {
        try { h.added?.(obj); } catch (e) { opts.onError?.(e); }
      }
      return () => handlers.delete(h);
    },
    addIndex(name, fn) {
      if (indexFuncs.has(name)) return;
      indexFuncs.set(name, fn);
      const index = new Map<string, Set<string>>();
      indexes.set(name, index);
      for (const [key, obj] of items) for (const v of fn(obj)) {
        let keys = index.get(v);
        if (!keys) index.set(v, keys = new Set());
        keys.add(key);
      }
    },
    get: (key) => items.get(key),
    list: (namespace) => namespace === undefined ? [...items.values()] : [...(indexes.get('namespace')!.get(namespace) ?? [])].map((k) => items.get(k)!),
    byIndex(name, value) {
      const index = indexes.get(name);
      if (!index) throw new Error(`${ref.resource}: no index named ${name}`);
      return [...(index.get(value) ?? [])].map((k) => items.get(k)!);
    },
    hasSynced: () => synced,
    synced: syncedPromise,
    lastResourceVersion: () => reflector?.lastResourceVersion() ?? '',
    start(signal) {
      if (reflector) return;
      const stamped: ReflectorSink<T> = ref.kind ? {
        replace: (list, rv) => sink.replace(list.map(stamp), rv),
        event: (type, obj) => sink.event(type, stamp(obj)),
      } : sink;
      reflector = reflect(client.resource(ref), stamped, opts, signal);
    },
    started: () => reflector !== undefined,
    resync() {
      if (synced) for (const obj of items.values()) tell((h) => h.updated?.(obj, obj));
    },
  };
}
