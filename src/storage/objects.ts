// The object store: what the registry asks of storage, in objects rather than bytes. One interface, two
// implementations: the direct store below (JSON over a KV backend) and the watch cache (src/watch/cache.ts), which
// decorates it and serves watches and not-older-than reads from memory. Every write is a compare-and-swap on the
// key's revision, retried on conflict.
import type { ApiObject } from '../api/meta.js';
import type { ObjectEvent, StoredObject } from '../api/cache.js';
import { formatResourceVersion, type Revision } from '../api/resource-version.js';
import { yieldToLoop } from '../util/slices.js';
import { futureRevision, isStorageError, notFound, StorageError, type KV, type KeyValue, type WatchEvent } from './types.js';
import { decryptFailure, isStale } from './encryption/kv.js';
import { describeEncrypted } from './encryption/providers.js';

/** how recent a read must be, as a request's resourceVersion and resourceVersionMatch say */
export interface ReadOptions {
  /** absent: the latest (a consistent read); 0: any; else not older than this revision, or exactly it (match Exact) */
  revision?: Revision;
  match?: 'Exact' | 'NotOlderThan';
  /** the caller only reads what it gets: an object held in memory may be handed out as it is, not copied */
  shared?: boolean;
}

export interface ListOptions extends ReadOptions {
  /** at most this many objects (that pass the filter); absent or 0: all */
  limit?: number;
  /** the key to go on from (inclusive), a page of an earlier list read at exactly `revision` */
  start?: string;
  /** only objects it accepts are returned and count against the limit */
  filter?(obj: ApiObject): boolean;
}

export interface ListPage {
  /** in key order */
  items: StoredObject[];
  /** the revision the list was read at */
  revision: Revision;
  /** more objects may follow: the key the next page starts at */
  next?: string;
  /** stored objects after this page (filtered or not), when known */
  remaining?: number;
}

export interface WatchOptions {
  /** changes after this revision; absent or 0: the current state first, as ADDED events (for absent: the latest state) */
  revision?: Revision;
  /** send the current state first even with a revision (which it is then not older than), and mark its end */
  initialEvents?: boolean;
  /** an idle watch gets a bookmark at least this often; absent: no bookmarks */
  bookmarkIntervalMs?: number;
  /** when the watch will be ended (epoch ms): with bookmarks on, one goes out 2 s before, as the reference sends it */
  deadline?: number;
  /** the watcher selects on one field's value: a cache may send it only events of objects that had or have it */
  index?: WatchIndex;
}

/** one field a watcher pins (`spec.nodeName=node-1`), and how to read it from an object */
export interface WatchIndex {
  field: string;
  value: string;
  get(obj: ApiObject): string | undefined;
  /** the same value read from the object's storage key, where it is there (the name): no object need be decoded */
  fromKey?(key: string): string;
}

/** a bookmark this long before a watch's deadline lets its client resume from the latest revision */
const bookmarkBeforeDeadlineMs = 2000;

/** the bookmark timers of one watch: every interval, and once shortly before its deadline; returns their stop */
export function scheduleBookmarks(opts: WatchOptions, send: () => void): () => void {
  if (!opts.bookmarkIntervalMs) return () => {};
  const periodic = setInterval(send, opts.bookmarkIntervalMs);
  periodic.unref();
  const untilLast = opts.deadline ? opts.deadline - bookmarkBeforeDeadlineMs - Date.now() : -1;
  const last = untilLast > 0 ? setTimeout(send, untilLast) : undefined;
  last?.unref();
  return () => { clearInterval(periodic); clearTimeout(last); };
}

export interface ObjectWatcher {
  event(ev: ObjectEvent): void;
  /** every change up to rev has been sent; initialEventsEnd: the initial events asked for are all out */
  bookmark?(rev: Revision, initialEventsEnd?: boolean): void;
  /** the watch cannot go on (Compacted: its revision is gone, the watcher must list again); nothing follows */
  end(err: StorageError): void;
  /** the store lost its watch stream (false) or has it back (true); changes go on without a gap unless end follows */
  connected?(live: boolean): void;
}

/** what an update does with the current object (undefined when the key is absent) */
export type UpdateDecision =
  /** store this object, guarded on the current revision (created when absent); unchanged content writes nothing */
  | { put: ApiObject }
  /** write nothing */
  | { skip: true }
  /** delete the current object, guarded on its revision */
  | { delete: true };

export interface Preconditions { uid?: string; resourceVersion?: string }

export interface ObjectStore {
  /** the object at key, or undefined; opts.revision: the answer must not be older */
  get(key: string, opts?: ReadOptions): Promise<StoredObject | undefined>;
  list(prefix: string, opts?: ListOptions): Promise<ListPage>;
  /** starts a watch of a key prefix; rejects when it cannot start (Compacted, FutureRevision); resolves to its stop */
  watch(prefix: string, opts: WatchOptions, watcher: ObjectWatcher): Promise<() => void>;
  /** throws KeyExists; sets obj's resourceVersion */
  create(key: string, obj: ApiObject): Promise<StoredObject>;
  /**
   * Compare-and-swap: decide gets a private copy of the current object and says what to do; when the object changed
   * meanwhile, decide runs again on the new one. Resolves to what is stored afterwards: the written object (its
   * resourceVersion set), the unchanged current one, or for a delete the last state with the delete's revision.
   */
  update(key: string, decide: (current: StoredObject | undefined) => Promise<UpdateDecision> | UpdateDecision,
    opts?: { preconditions?: Preconditions }): Promise<StoredObject | undefined>;
  /** deletes the object when the preconditions hold (else Conflict); NotFound when absent */
  delete(key: string, opts?: { preconditions?: Preconditions }): Promise<StoredObject>;
  /** the store's latest revision */
  revision(): Promise<Revision>;
}

/** the stored form of an object: JSON without its resourceVersion, which the revision carries */
export const encodeObject = (obj: ApiObject): Uint8Array => {
  const rv = obj.metadata.resourceVersion;
  delete obj.metadata.resourceVersion;
  const bytes = Buffer.from(JSON.stringify(obj));
  if (rv !== undefined) obj.metadata.resourceVersion = rv;
  return bytes;
};

export const decodeObject = (value: Uint8Array, rev: Revision, key?: string): ApiObject => {
  // JSON objects begin with `{`: anything else is checked for being a value this server cannot decrypt
  if (value[0] !== 0x7b) undecodable(value, key);
  const obj = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as ApiObject;
  obj.metadata.resourceVersion = formatResourceVersion(rev);
  return obj;
};

/** the text each object was last stored as by this process, kept only while the object lives (see writtenJson) */
const writtenText = new WeakMap<ApiObject, { text: Uint8Array; rev: Revision }>();

/**
 * The JSON of an object this store has just written, made from the text it stored rather than encoded again: for a
 * write's response. Undefined unless the object still carries the resourceVersion of that write. The caller answers
 * at once with it, the object unchanged since the write.
 */
export function writtenJson(obj: ApiObject): Buffer | undefined {
  const w = writtenText.get(obj);
  if (!w || obj.metadata.resourceVersion !== formatResourceVersion(w.rev)) return undefined;
  return servedJson(w.text, w.rev);
}

/** a stored value that is not an object's JSON: encrypted with a key or provider not configured for it */
function undecodable(value: Uint8Array, key: string | undefined) {
  const sealedBy = describeEncrypted(value);
  if (!sealedBy) return;   // not encrypted: JSON.parse says what is wrong
  const why = decryptFailure(value) ?? 'identity transformer tried to read encrypted data';
  throw new StorageError('Internal',
    `unable to transform key "${key ?? ''}": ${why} (the value is encrypted with ${sealedBy}; check --encryption-provider-config)`, key);
}

/** how encodeObject's JSON of an object begins: a few plain string fields (kind, apiVersion), then metadata; the match
 *  cannot end inside a string, since JSON.stringify escapes every quote in one */
const storedHead = /^\{(?:"[A-Za-z]+":"[^"\\]*",){0,4}"metadata":\{/;
const resourceVersionField = Buffer.from('"resourceVersion":');

/**
 * The JSON of decodeObject(value, rev) made from the stored bytes without parsing them: the resourceVersion is put
 * first in metadata, the rest is the stored text (JSON.stringify's own output, which it would write again alike).
 * Undefined when the stored text does not begin as encodeObject writes it, or names a resourceVersion anywhere.
 */
export function servedJson(value: Uint8Array, rev: Revision): Buffer | undefined {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  // latin1: one character per byte, so the match's length is a byte offset
  const head = storedHead.exec(bytes.toString('latin1', 0, Math.min(bytes.length, 512)));
  if (!head || bytes.includes(resourceVersionField)) return undefined;
  const at = head[0].length;
  const field = `"resourceVersion":"${formatResourceVersion(rev)}"${bytes[at] === 0x7d /* } */ ? '' : ','}`;
  // a buffer of its own: a slice of Node's shared pool would keep the whole 8 KiB slab alive for as long as a cache
  // holds the object
  const out = Buffer.allocUnsafeSlow(bytes.length + field.length);
  bytes.copy(out, 0, 0, at);
  out.write(field, at, 'latin1');
  bytes.copy(out, at + field.length, at);
  return out;
}

/**
 * A stored object decoded when first read: watchers of a wide prefix skip most events without parsing them, and
 * its JSON for a response is made from the stored bytes, unparsed, unless the object was replaced.
 */
export const storedObject = (key: string, value: Uint8Array, rev: Revision): StoredObject => new LazyObject(key, value, rev);

/**
 * An object as a cache keeps it for long: only its served JSON (made now, letting the stored text go), and its decoded
 * form only while something uses it. A cache of many objects then costs about their JSON, not the several times more
 * of their parsed form. Its users only read it: one that changed a part of it and read it again could find the
 * change gone, decoded afresh.
 */
export function keptForm(item: StoredObject): StoredObject {
  if (item instanceof LazyObject) item.keep();
  return item;
}

/**
 * Throws what decoding the object would throw (a value encrypted with a key this server lacks), without decoding or
 * copying an object whose stored text is JSON: a list or watch checks its objects before its response starts.
 */
export function checkDecodable(item: StoredObject): void {
  if (item instanceof LazyObject) item.check();
  else if (item.bytes === undefined) void item.obj;
}

/**
 * A second, independent decoding of a stored object as read (undefined when it was replaced, or is not one this
 * store read): for a writer that changes a copy while keeping the original to compare with. Parsing the stored text
 * again costs less than deep-copying a large decoded object, whose maps V8 keeps as dictionaries.
 */
export function decodedAgain(item: StoredObject): ApiObject | undefined {
  return item instanceof LazyObject ? item.decodeAgain() : undefined;
}

/** A class rather than an object literal with its own accessors: a watch cache holds one per object, and a literal's
 *  accessor closures and property dictionary cost about 800 bytes each where these fields cost under 100. */
class LazyObject implements StoredObject {
  /** the stored text, until the served JSON made from it takes its place */
  #text: Uint8Array | undefined;
  #bytes: Buffer | undefined;
  /** the decoded object: held for as long as this is, until a cache keeps this; then only while in use */
  #decoded: ApiObject | undefined;
  #inUse: WeakRef<ApiObject> | undefined;
  #kept = false;
  #replaced: ApiObject | undefined;

  constructor(readonly key: string, text: Uint8Array, readonly rev: Revision) { this.#text = text; }

  get obj(): ApiObject {
    if (this.#replaced) return this.#replaced;
    let obj = this.#kept ? this.#inUse?.deref() : this.#decoded;
    if (!obj) {
      obj = decodeObject(this.#bytes ?? this.#text!, this.rev, this.key);
      if (this.#kept) this.#inUse = new WeakRef(obj); else this.#decoded = obj;
    }
    return obj;
  }

  set obj(o: ApiObject) { this.#replaced = o; this.#decoded = this.#inUse = this.#text = this.#bytes = undefined; }

  get bytes(): Buffer | undefined {
    if (this.#bytes || this.#replaced) return this.#bytes;
    this.#bytes = servedJson(this.#text!, this.rev);
    if (this.#bytes) this.#text = undefined;
    return this.#bytes;
  }

  set bytes(b: Buffer | undefined) {
    if (this.#replaced) this.#bytes = b;
    else if (b) { this.#bytes = b; this.#text = undefined; }   // the whole object's JSON, which decoding can read instead
  }

  decodeAgain(): ApiObject | undefined {
    if (this.#replaced) return undefined;
    return decodeObject(this.#bytes ?? this.#text!, this.rev, this.key);
  }

  check() {
    if (!this.#replaced && !this.#bytes && this.#text && this.#text[0] !== 0x7b /* { */) void this.obj;
  }

  keep() {
    void this.bytes;
    this.#kept = true;
    if (this.#decoded) { this.#inUse = new WeakRef(this.#decoded); this.#decoded = undefined; }
  }
}

const stored = (kv: KeyValue) => storedObject(kv.key, kv.value, kv.modRevision);

/** a change in the form watchers get; a delete without the deleted value says nothing a watcher can use */
export function objectEvent(e: WatchEvent): ObjectEvent | undefined {
  const prev = e.prevKv && stored(e.prevKv);
  const rev = e.kv.modRevision;
  if (e.type === 'put') return { type: prev ? 'MODIFIED' : 'ADDED', key: e.kv.key, cur: stored(e.kv), prev, rev };
  return e.prevKv && { type: 'DELETED', key: e.kv.key, cur: storedObject(e.kv.key, e.prevKv.value, rev), prev, rev };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** the two objects are stored alike (their resourceVersions aside) */
export const sameContent = (a: ApiObject, b: ApiObject) => sameBytes(encodeObject(a), encodeObject(b));

/** why preconditions fail on the current object, in the reference's words */
export function checkPreconditions(key: string, current: StoredObject, p: Preconditions | undefined) {
  const meta = current.obj.metadata;
  if (p?.uid && p.uid !== meta.uid)
    throw new StorageError('Conflict', `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${meta.uid}`, key);
  if (p?.resourceVersion && p.resourceVersion !== meta.resourceVersion)
    throw new StorageError('Conflict',
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`, key);
}

/** the most objects a list reads from the store in one go */
const readPageSize = 1000;

/** attempts of one update before it gives up with Conflict (with updates from this process taking turns, only writers
 *  elsewhere, such as another API server on the same etcd, make an attempt fail) */
const maxAttempts = 64;

/**
 * how long one update's turn holds the next update of the same key back: a decision may wait on a request that writes
 * the very object (an admission webhook that patches what it admits), which must not wait for the decision in turn
 */
const turnMs = 1000;

/**
 * Runs the updates of one key from this process one after another, in the order they came. Racing each other, every
 * writer but one would lose each round and decide again (admission, managed fields and all), so a hot object took many
 * times the work of its writes and the unlucky ones ran out of attempts; in turn, each decides once on the latest state.
 * A turn that lasts past turnMs lets the next update go ahead, to race it as compare-and-swap allows.
 */
function takeTurns() {
  /** for each key with updates under way, what the latest one lets the next wait for */
  const turnsOver = new Map<string, Promise<void>>();
  return async <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const before = turnsOver.get(key);
    let over!: () => void;
    const turnOver = new Promise<void>(resolve => { over = resolve; });
    turnsOver.set(key, turnOver);
    if (before) await before;
    const timer = setTimeout(over, turnMs);
    try {
      return await run();
    } finally {
      clearTimeout(timer);
      over();
      if (turnsOver.get(key) === turnOver) turnsOver.delete(key);
    }
  };
}

/** the revision a list reads at: exactly the asked one, or absent for the latest (then checked to be not older) */
const exactRevision = (opts: ListOptions): Revision | undefined =>
  opts.start !== undefined || opts.match === 'Exact' || (!opts.match && opts.limit && opts.revision) ? opts.revision || undefined : undefined;

export function createObjectStore(kv: KV): ObjectStore {
  const notOlder = (rev: Revision | undefined, readAt: Revision) => {
    if (rev && readAt < rev) throw futureRevision(rev, readAt);
  };

  const inTurn = takeTurns();
  const store: ObjectStore = {
    async get(key, opts) {
      const { kv: cur, revision } = await kv.get(key);
      notOlder(opts?.revision, revision);
      return cur && stored(cur);
    },

    async list(prefix, opts = {}) {
      const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
      const { filter } = opts;
      const items: StoredObject[] = [];
      let readAt = exactRevision(opts);
      let from = opts.start;
      let next: string | undefined;
      let remaining: number | undefined;
      for (;;) {
        const want = limit ? limit - items.length : 0;
        // a filter may drop most of a page: read ahead so a selective list takes few round trips; a long list is read
        // (and its objects decoded) a page at a time, giving the event loop back between pages
        const pageSize = Math.min(filter && want ? Math.max(want, 100) : want || readPageSize, readPageSize);
        // what is left after the page is counted only when it can become the list's remaining count: a page that
        // ends the list, with no filter dropping objects from it
        const page = await kv.list(prefix, { revision: readAt, limit: pageSize, start: from, countRemaining: !!limit && !filter && want <= pageSize });
        if (readAt === undefined) notOlder(opts.revision, page.revision);
        readAt = page.revision;
        let i = 0;
        for (; i < page.kvs.length && (!limit || items.length < limit); i++) {
          const item = stored(page.kvs[i]);
          if (!filter || filter(item.obj)) items.push(item);
        }
        const lastKey = page.kvs[i - 1]?.key;
        const leftInPage = page.kvs.length - i;
        if (limit && items.length >= limit) {
          if (leftInPage > 0 || page.more) {
            next = lastKey! + '\0';
            remaining = page.more && page.remaining === undefined ? undefined : leftInPage + (page.remaining ?? 0);
          }
          break;
        }
        if (!page.more || !lastKey) break;
        from = lastKey + '\0';
        await yieldToLoop();
      }
      return { items, revision: readAt, next, remaining };
    },

    async watch(prefix, opts, watcher) {
      let last: Revision;
      if (opts.initialEvents ?? !opts.revision) {
        const { items, revision } = await store.list(prefix, { revision: opts.revision });
        for (const cur of items) watcher.event({ type: 'ADDED', key: cur.key, cur, rev: cur.rev });
        if (opts.initialEvents) watcher.bookmark?.(revision, true);
        last = revision;
      } else {
        last = opts.revision || await kv.currentRevision();
      }
      let stopBookmarks = () => {};
      const w = kv.watch(prefix, { afterRevision: last }, {
        onEvents(events) {
          for (const e of events) {
            last = e.kv.modRevision;
            const ev = objectEvent(e);
            if (ev) watcher.event(ev);
          }
        },
        onError: err => { stopBookmarks(); watcher.end(err); },
        onConnection: live => watcher.connected?.(live),
      });
      // a bookmark says what this watch has delivered, never more
      stopBookmarks = scheduleBookmarks(opts, () => watcher.bookmark?.(last));
      return () => { stopBookmarks(); w.close(); };
    },

    async create(key, obj) {
      const text = encodeObject(obj);
      const { kv: written } = await kv.create(key, text);
      obj.metadata.resourceVersion = formatResourceVersion(written.modRevision);
      writtenText.set(obj, { text, rev: written.modRevision });
      return { key, obj, rev: written.modRevision };
    },

    update: (key, decide, opts = {}) => inTurn(key, async () => {
      let cur = (await kv.get(key)).kv;
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const current = cur && stored(cur);
        if (current && opts.preconditions) checkPreconditions(key, current, opts.preconditions);
        const decision = await decide(current);
        if ('skip' in decision) return current;
        if ('delete' in decision && !cur) throw notFound(key);
        try {
          if ('delete' in decision) {
            const { revision } = await kv.delete(key, cur!.modRevision);
            return storedObject(key, cur!.value, revision);
          }
          const bytes = encodeObject(decision.put);
          if (cur && sameBytes(bytes, cur.value) && !isStale(cur.value)) return current;
          const { kv: written } = cur ? await kv.update(key, bytes, cur.modRevision) : await kv.create(key, bytes);
          decision.put.metadata.resourceVersion = formatResourceVersion(written.modRevision);
          writtenText.set(decision.put, { text: bytes, rev: written.modRevision });
          return { key, obj: decision.put, rev: written.modRevision };
        } catch (e) {
          // changed meanwhile: decide again on what is stored now
          if (isStorageError(e, 'Conflict')) cur = e.current ?? (await kv.get(key)).kv;
          else if (isStorageError(e, 'NotFound')) cur = undefined;
          else if (isStorageError(e, 'KeyExists')) cur = (await kv.get(key)).kv;
          else throw e;
        }
      }
      throw new StorageError('Conflict', 'too many concurrent updates; please try again', key);
    }),

    async delete(key, opts) {
      const gone = await store.update(key, () => ({ delete: true }), opts);
      return gone!;
    },

    revision: () => kv.currentRevision(),
  };
  return store;
}
