// List and watch of one resource: served from storage or from the watch cache per the resourceVersion rules,
// with label and field selectors, paging with continue tokens, and watch start semantics.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { formatResourceVersion, parseResourceVersion, type Revision } from '../api/resource-version.js';
import { checkDecodable, type ListOptions, type ObjectStore, type WatchIndex } from '../storage/objects.js';
import type { ResourceInfo } from './resources.js';
import { storageFailure } from './errors.js';
import { ApiError, badRequest } from '../api/status.js';
import type { StoredObject, ObjectEvent, EventType } from '../api/cache.js';
import { extend } from '../util/objects.js';

export interface Filter {
  namespace: string;
  /** true when the object passes the label and field selectors */
  match?(obj: ApiObject): boolean;
  /** true when any selector is set (remainingItemCount is then left out) */
  selective: boolean;
  /** a field the selectors pin to one value, by which a watch cache sends a watcher only the events it may want */
  index?: WatchIndex;
}

export interface ListRequest extends Filter {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: '' | 'Exact' | 'NotOlderThan';
}

export interface ListResult {
  items: StoredObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchRequest extends Filter {
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  bookmarkIntervalMs: number;
  /** when the watch will be ended (epoch ms) */
  deadline?: number;
}

export interface WatchSink {
  event(type: EventType, item: StoredObject): void;
  bookmark(rev: Revision, initialEventsEnd?: boolean): void;
  /** the watch cannot go on; an ERROR event with this Status ends it */
  fail(err: ApiError): void;
}

export interface ReadDeps { objects: ObjectStore; names: Naming }

interface ContinueToken { v: string; rv: Revision; start: string }

const latestRevision = -1;

function encodeContinue(names: Naming, rv: Revision, start: string): string {
  return Buffer.from(JSON.stringify({ v: `${names.metaGroup}/v1`, rv, start })).toString('base64url');
}

function decodeContinue(names: Naming, token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    // revision -1: go on at the latest revision (the token a 410 for an expired one offers)
    if (t.v !== `${names.metaGroup}/v1` || typeof t.rv !== 'number' || typeof t.start !== 'string' || (t.rv <= 0 && t.rv !== latestRevision)) throw new Error('bad token');
    return t;
  } catch {
    throw badRequest(`continue key is not valid: the continue token "${token}" is not one this server issued`);
  }
}

/** an object that stopped matching a watcher's selectors: its last state that matched, at the version of the change
 *  (as the reference's watchers send it), so a client sees what it knew of the object go, not the state it never saw */
function leaving(prev: StoredObject, rev: Revision): StoredObject {
  const resourceVersion = formatResourceVersion(rev);
  return { key: prev.key, obj: { ...prev.obj, metadata: { ...prev.obj.metadata, resourceVersion } }, rev };
}

export function createReads(info: ResourceInfo, deps: ReadDeps) {
  const { objects, names } = deps;
  const prefixFor = (namespace: string) => (info.namespaced && namespace ? `${info.keyPrefix}${namespace}/` : info.keyPrefix);
  const failure = (e: unknown, revision?: Revision, read?: { continuing?: boolean; listing?: boolean }) =>
    storageFailure(e, { group: info.group, resource: info.resource, revision, ...read }) ?? e;

  async function listAt(req: ListRequest, at: ListOptions, continuing = false): Promise<ListResult> {
    const page = await objects.list(prefixFor(req.namespace), extend(at, { limit: req.limit, filter: req.match }))
      .catch(e => { throw failure(e, at.revision, { continuing, listing: true }); });
    // an object that cannot be decoded (encrypted with a key this server lacks) fails the list now, as a Status, rather
    // than the response stream half-way
    try { for (const item of page.items) checkDecodable(item); } catch (e) { throw failure(e, at.revision, { continuing, listing: true }); }
    const result: ListResult = { items: page.items, resourceVersion: formatResourceVersion(page.revision) };
    if (page.next) {
      result.continue = encodeContinue(names, page.revision, page.next.slice(info.keyPrefix.length));
      if (!req.selective && page.remaining) result.remainingItemCount = page.remaining;
    }
    return result;
  }

  return {
    /** the resourceVersion / resourceVersionMatch / limit / continue table of the reference (the options checked as a whole
     *  by the endpoint, listOptionProblems); the store decides where each read is served */
    async list(req: ListRequest): Promise<ListResult> {
      const match = req.resourceVersionMatch ?? '';
      const rvText = req.resourceVersion ?? '';
      const rv = parseResourceVersion(rvText);
      if (req.continue) {
        if (rvText && rvText !== '0') throw badRequest('specifying resource version is not allowed when using continue');
        const t = decodeContinue(names, req.continue);
        const start = info.keyPrefix + t.start;
        // a token made for another namespace's list (or made up) names a key outside this list
        if (!start.startsWith(prefixFor(req.namespace)) || !Number.isSafeInteger(t.rv))
          throw badRequest(`continue key is not valid: the continue token "${req.continue}" does not belong to this list`);
        return await listAt(req, { revision: t.rv === latestRevision ? undefined : t.rv, start }, true).catch(e => {
          // past compaction: the answer offers a token that goes on at the latest revision, an inconsistent list
          if (e instanceof ApiError && e.code === 410) e.status.metadata = { continue: encodeContinue(names, latestRevision, t.start) };
          throw e;
        });
      }
      return listAt(req, { revision: rv, match: match || undefined });
    },

    /** starts a watch; returns the function that stops it */
    async watch(req: WatchRequest, sink: WatchSink): Promise<() => void> {
      const rv = parseResourceVersion(req.resourceVersion);
      const { match } = req;
      // with selectors, an object that starts or stops matching is added or deleted for this watcher
      const deliver = (ev: ObjectEvent) => {
        const now = !match || ev.type === 'DELETED' ? true : match(ev.cur.obj);
        const before = ev.prev ? (!match || match(ev.prev.obj)) : false;
        if (ev.type === 'ADDED') { if (now) sink.event('ADDED', ev.cur); return; }
        if (ev.type === 'DELETED') { if (before) sink.event('DELETED', ev.cur); return; }
        if (now && before) sink.event('MODIFIED', ev.cur);
        else if (now) sink.event('ADDED', ev.cur);
        else if (before) sink.event('DELETED', leaving(ev.prev!, ev.rev));
      };
      return objects.watch(prefixFor(req.namespace), {
        revision: rv, initialEvents: req.sendInitialEvents, bookmarkIntervalMs: req.allowBookmarks ? req.bookmarkIntervalMs : undefined, deadline: req.deadline,
        index: req.index,
      }, {
        event: deliver,
        bookmark: (rev, initialEventsEnd) => { if (req.allowBookmarks) sink.bookmark(rev, initialEventsEnd); },
        end: err => sink.fail(failure(err, rv) as ApiError),
      }).catch(e => { throw failure(e, rv); });
    },
  };
}

export type Reads = ReturnType<typeof createReads>;
