// List and watch of one resource: served from storage or from the watch cache per the resourceVersion rules,
// with label and field selectors, paging with continue tokens, and watch start semantics.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { KV, Revision } from '../storage/types.js';
import { isStorageError } from '../storage/types.js';
import type { WatchHub } from '../watch/cache.js';
import type { ResourceInfo } from './resources.js';
import { decodeObject } from './store.js';
import { badRequest, expired, gone, internalError, timeout, ApiError } from '../api/status.js';
import type { CachedObject, CacheEvent, EventType } from '../api/cache.js';

export interface Filter {
  namespace: string;
  /** true when the object passes the label and field selectors */
  match?(obj: ApiObject): boolean;
  /** true when any selector is set (remainingItemCount is then left out) */
  selective: boolean;
}

export interface ListRequest extends Filter {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: '' | 'Exact' | 'NotOlderThan';
}

export interface ListResult {
  items: CachedObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchRequest extends Filter {
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  bookmarkIntervalMs: number;
}

export interface WatchSink {
  event(type: EventType, item: CachedObject): void;
  bookmark(rev: Revision, initialEventsEnd?: boolean): void;
  /** the watch cannot go on; an ERROR event with this Status ends it */
  fail(err: ApiError): void;
}

export interface ReadDeps { kv: KV; hub: WatchHub; names: Naming; freshnessTimeoutMs: number }

/** a resourceVersion this server has not reached (504, as the reference answers) */
const tooLargeResourceVersion = (rv: Revision, current: Revision) =>
  timeout(`Too large resource version: ${rv}, current: ${current}`, 1);

function parseRV(rv: string | undefined): Revision | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d+$/.test(rv)) throw badRequest(`invalid resource version "${rv}": must be a decimal integer`);
  return Number(rv);
}

interface ContinueToken { v: string; rv: Revision; start: string }

function encodeContinue(names: Naming, rv: Revision, start: string): string {
  return Buffer.from(JSON.stringify({ v: `${names.metaGroup}/v1`, rv, start })).toString('base64url');
}

function decodeContinue(names: Naming, token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (t.v !== `${names.metaGroup}/v1` || typeof t.rv !== 'number' || typeof t.start !== 'string' || t.rv <= 0) throw new Error('bad token');
    return t;
  } catch {
    throw badRequest(`continue key is not valid: the continue token "${token}" is not one this server issued`);
  }
}

export function createReads(info: ResourceInfo, deps: ReadDeps) {
  const { kv, hub, names } = deps;
  const prefixFor = (namespace: string) => (info.namespaced && namespace ? `${info.keyPrefix}${namespace}/` : info.keyPrefix);
  const cache = () => hub.cache(info.keyPrefix);

  async function fresh(rv: Revision) {
    if (!(await hub.waitFor(rv, deps.freshnessTimeoutMs))) throw tooLargeResourceVersion(rv, hub.revision());
  }

  async function listFromCache(req: ListRequest, atLeast: Revision | undefined): Promise<ListResult> {
    const c = cache();
    await c.ready;
    if (atLeast !== undefined) await fresh(atLeast);
    const all = c.snapshot(prefixFor(req.namespace));
    const items = req.match ? all.filter(i => req.match!(i.obj)) : all;
    return { items, resourceVersion: String(c.revision()) };
  }

  async function listFromStorage(req: ListRequest, revision: Revision | undefined, start: string | undefined): Promise<ListResult> {
    const prefix = prefixFor(req.namespace);
    const limit = req.limit && req.limit > 0 ? req.limit : 0;
    const items: CachedObject[] = [];
    let from = start !== undefined ? info.keyPrefix + start : undefined;
    let readAt = revision;
    let next: string | undefined;
    let remaining: number | undefined;
    try {
      for (;;) {
        const want = limit ? limit - items.length : 0;
        const page = await kv.list(prefix, { revision: readAt, limit: req.match && want ? Math.max(want, 100) : want, start: from });
        readAt = page.revision;
        let i = 0;
        for (; i < page.kvs.length && (!limit || items.length < limit); i++) {
          const obj = decodeObject(page.kvs[i]);
          if (!req.match || req.match(obj)) items.push({ key: page.kvs[i].key, obj, rev: page.kvs[i].modRevision });
        }
        const lastKey = page.kvs[i - 1]?.key;
        const leftInPage = page.kvs.length - i;
        if (limit && items.length >= limit) {
          if (leftInPage > 0 || page.more) {
            next = lastKey! + '\0';
            if (!req.selective) remaining = leftInPage + (page.remaining ?? 0);
          }
          break;
        }
        if (!page.more || !lastKey) break;
        from = lastKey + '\0';
      }
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        throw start !== undefined
          ? expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.')
          : expired(`too old resource version: ${revision} (${await kv.oldestRevision().catch(() => 0)})`);
      }
      if (isStorageError(e, 'FutureRevision')) throw tooLargeResourceVersion(revision ?? 0, await kv.currentRevision());
      if (isStorageError(e)) throw internalError(e.message);
      throw e;
    }
    const result: ListResult = { items, resourceVersion: String(readAt) };
    if (next) {
      result.continue = encodeContinue(names, readAt!, next.slice(info.keyPrefix.length));
      if (remaining !== undefined && remaining > 0) result.remainingItemCount = remaining;
    }
    return result;
  }

  return {
    /** a get's resourceVersion: unset or "0" reads at once; another value waits until the server has seen it (504 when it never comes) */
    async notOlderThan(resourceVersion: string | undefined): Promise<void> {
      const rv = parseRV(resourceVersion);
      if (rv) await fresh(rv);
    },

    /** the resourceVersion / resourceVersionMatch / limit / continue table of the reference */
    async list(req: ListRequest): Promise<ListResult> {
      const match = req.resourceVersionMatch ?? '';
      const rvText = req.resourceVersion ?? '';
      const rv = parseRV(rvText);
      const limited = !!req.limit && req.limit > 0;
      if (match && match !== 'Exact' && match !== 'NotOlderThan')
        throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
      if (req.continue) {
        if (match) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
        if (rvText && rvText !== '0') throw badRequest('specifying resource version is not allowed when using continue');
        const t = decodeContinue(names, req.continue);
        return listFromStorage(req, t.rv, t.start);
      }
      if (match && rvText === '') throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (match === 'Exact') {
        if (rv === 0) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
        return listFromStorage(req, rv, undefined);
      }
      if (rv === undefined) return listFromStorage(req, undefined, undefined);   // most recent, consistent
      if (rv === 0) return listFromCache(req, undefined);                           // any
      if (!limited) return listFromCache(req, rv);                                    // not older than
      if (match === 'NotOlderThan') {                                                 // not older than, paged: the latest from storage
        await fresh(rv);
        return listFromStorage(req, undefined, undefined);
      }
      return listFromStorage(req, rv, undefined);                                    // limit with a version: exact
    },

    /** starts a watch; returns the function that stops it */
    async watch(req: WatchRequest, sink: WatchSink): Promise<() => void> {
      const c = cache();
      await c.ready;
      const rv = parseRV(req.resourceVersion);
      const prefix = prefixFor(req.namespace);
      const inScope = (i: CachedObject) => i.key.startsWith(prefix) && (!req.match || req.match(i.obj));
      const deliver = (ev: CacheEvent) => {
        if (!ev.key.startsWith(prefix)) return;
        const now = !req.match || ev.type === 'DELETED' ? true : req.match(ev.cur.obj);
        const before = ev.prev ? (!req.match || req.match(ev.prev.obj)) : false;
        if (ev.type === 'ADDED') { if (now) sink.event('ADDED', ev.cur); return; }
        if (ev.type === 'DELETED') { if (before) sink.event('DELETED', ev.cur); return; }
        if (now && before) sink.event('MODIFIED', ev.cur);
        else if (now) sink.event('ADDED', ev.cur);
        else if (before) sink.event('DELETED', ev.cur);
      };
      let stopped = false;
      let unsubscribe: () => void = () => {};
      const initial = req.sendInitialEvents ?? (rv === undefined || rv === 0);

      if (initial) {
        if (rv === undefined) await fresh(await kv.currentRevision());
        else if (rv > 0) await fresh(rv);
        const snap = c.snapshot(prefix);
        const at = c.revision();
        unsubscribe = c.subscribe({ send: deliver, end: err => sink.fail(err ? gone(err.message) : internalError('watch cache stopped')) });
        for (const i of snap) if (inScope(i)) sink.event('ADDED', i);
        if (req.sendInitialEvents && req.allowBookmarks) sink.bookmark(at, true);
      } else {
        if (rv! > hub.revision()) await fresh(rv!);
        const history = c.since(rv!);
        if (history) {
          unsubscribe = c.subscribe({ send: deliver, end: err => sink.fail(err ? gone(err.message) : internalError('watch cache stopped')) });
          for (const ev of history) deliver(ev);
        } else {
          unsubscribe = watchStorage(rv!, prefix, deliver, sink);
        }
      }
      const timer = req.allowBookmarks
        ? setInterval(() => { if (!stopped) sink.bookmark(c.revision()); }, req.bookmarkIntervalMs)
        : undefined;
      timer?.unref();
      return () => { stopped = true; if (timer) clearInterval(timer); unsubscribe(); };
    },
  };

  /** a watch from before the cache's history: straight from storage, in the cache's event form */
  function watchStorage(after: Revision, prefix: string, deliver: (ev: CacheEvent) => void, sink: WatchSink): () => void {
    const w = kv.watch(prefix, { afterRevision: after }, {
      onEvents(events) {
        for (const e of events) {
          const at = Date.now();
          const prev = e.prevKv ? { key: e.prevKv.key, obj: decodeObject(e.prevKv), rev: e.prevKv.modRevision } : undefined;
          if (e.type === 'put') {
            const cur = { key: e.kv.key, obj: decodeObject(e.kv), rev: e.kv.modRevision };
            deliver({ type: prev ? 'MODIFIED' : 'ADDED', key: cur.key, cur, prev, rev: cur.rev, at });
          } else if (e.prevKv) {
            const cur = { key: e.kv.key, obj: decodeObject({ ...e.prevKv, modRevision: e.kv.modRevision }), rev: e.kv.modRevision };
            deliver({ type: 'DELETED', key: cur.key, cur, prev, rev: cur.rev, at });
          }
        }
      },
      onError(err) {
        sink.fail(err.code === 'Compacted' ? expired(`too old resource version: ${after} (${(err.compactedRevision ?? 0) + 1})`) : internalError(err.message));
      },
    });
    return () => w.close();
  }
}

export type Reads = ReturnType<typeof createReads>;
