// The behaviour every object store shares, run unchanged against the direct store and the watch cache on each
// backend. Each test writes under a fresh resource prefix (/registry/<run>/<test>/), so one store serves the whole
// suite; revisions are compared, never predicted.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ApiObject } from '../../api/meta.js';
import type { ObjectEvent } from '../../api/cache.js';
import { formatResourceVersion, type Revision } from '../../api/resource-version.js';
import type { ObjectStore, ObjectWatcher, WatchOptions } from '../objects.js';
import { isStorageError, type KV, type StorageError } from '../types.js';
import { rejectsWith } from './kv-contract.js';
import { until } from '../../../test/support/wait.js';

export interface OpenedStore {
  store: ObjectStore;
  /** the backend under it, for compaction */
  kv: KV;
  close(): Promise<void>;
}

const EVENT_TIMEOUT_MS = 10_000;
const QUIET_MS = 150;
const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

const object = (name: string, data: Record<string, string> = {}): ApiObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, uid: `uid-${name}` }, data } as ApiObject);
const dataOf = (o: ApiObject | undefined) => (o as { data?: Record<string, string> } | undefined)?.data;

/** what a watcher received, in order, and a way to wait for it */
export interface Recording {
  log: Array<{ kind: 'event'; ev: ObjectEvent } | { kind: 'bookmark'; rev: Revision; end?: boolean }>;
  events(): ObjectEvent[];
  ended?: StorageError;
  stop: () => void;
  until(ready: () => boolean, what: string): Promise<void>;
}

export async function record(store: ObjectStore, prefix: string, opts: WatchOptions): Promise<Recording> {
  const r: Recording = {
    log: [],
    events: () => r.log.flatMap(l => (l.kind === 'event' ? [l.ev] : [])),
    stop: () => {},
    until: (ready, what) => until(ready, () => `${what}; got ${JSON.stringify(r.log.map(l => l.kind === 'event' ? [l.ev.type, l.ev.key, l.ev.rev] : ['BOOKMARK', l.rev]))}${r.ended ? ` and end ${r.ended.message}` : ''}`, EVENT_TIMEOUT_MS),
  };
  const watcher: ObjectWatcher = {
    event: ev => { r.log.push({ kind: 'event', ev }); },
    bookmark: (rev, end) => { r.log.push({ kind: 'bookmark', rev, end }); },
    end: err => { r.ended = err; },
  };
  r.stop = await store.watch(prefix, opts, watcher);
  return r;
}

/** no bookmark names a revision whose events are still to come */
export function assertBookmarksHonest(r: Recording) {
  let bookmarked = 0;
  for (const l of r.log) {
    if (l.kind === 'bookmark') bookmarked = Math.max(bookmarked, l.rev);
    else assert.ok(l.ev.rev > bookmarked, `event at ${l.ev.rev} came after a bookmark at ${bookmarked}`);
  }
}

export function objectStoreContract(name: string, open: () => Promise<OpenedStore>) {
  describe(name, () => {
    let opened: OpenedStore;
    let store: ObjectStore;
    const run = randomBytes(4).toString('hex');
    let counter = 0;
    const fresh = (label: string) => `/registry/os-${run}/${++counter}-${label}/`;

    before(async () => { opened = await open(); store = opened.store; });
    after(async () => { await opened.close(); });

    test('create sets the resourceVersion; get returns the stored object; a second create is KeyExists', async () => {
      const p = fresh('create');
      const obj = object('a', { x: '1' });
      const made = await store.create(p + 'a', obj);
      assert.equal(obj.metadata.resourceVersion, formatResourceVersion(made.rev));
      const got = await store.get(p + 'a');
      assert.deepEqual(got?.obj, obj);
      assert.equal(got?.rev, made.rev);
      await rejectsWith(store.create(p + 'a', object('a')), 'KeyExists');
      assert.equal(await store.get(p + 'missing'), undefined);
    });

    test('update: the callback decides on a private copy; put, skip, unchanged, create and delete', async () => {
      const p = fresh('update');
      const made = await store.create(p + 'a', object('a', { n: '0' }));
      const put = await store.update(p + 'a', cur => {
        dataOf(cur!.obj)!.n = '1';
        return { put: cur!.obj };
      });
      assert.ok(put!.rev > made.rev);
      assert.equal(put!.obj.metadata.resourceVersion, formatResourceVersion(put!.rev));
      assert.deepEqual(dataOf((await store.get(p + 'a'))!.obj), { n: '1' });

      // the copy is private: changing it without writing changes nothing stored
      const skipped = await store.update(p + 'a', cur => { dataOf(cur!.obj)!.n = 'lost'; return { skip: true }; });
      assert.equal(skipped!.rev, put!.rev);
      assert.deepEqual(dataOf((await store.get(p + 'a'))!.obj), { n: '1' });

      // the same content writes nothing and keeps the resourceVersion
      const same = await store.update(p + 'a', cur => ({ put: cur!.obj }));
      assert.equal(same!.rev, put!.rev);
      assert.equal((await store.get(p + 'a'))!.rev, put!.rev);

      // absent: the callback sees undefined; a put creates
      let saw: unknown = 'not called';
      const created = await store.update(p + 'b', cur => { saw = cur; return { put: object('b') }; });
      assert.equal(saw, undefined);
      assert.ok((await store.get(p + 'b'))?.rev === created!.rev);
      assert.equal(await store.update(p + 'c', () => ({ skip: true })), undefined);

      const gone = await store.update(p + 'b', () => ({ delete: true }));
      assert.ok(gone!.rev > created!.rev, 'a delete answers with its own revision');
      assert.equal(gone!.obj.metadata.name, 'b');
      assert.equal(gone!.obj.metadata.resourceVersion, formatResourceVersion(gone!.rev));
      assert.equal(await store.get(p + 'b'), undefined);
      await rejectsWith(store.update(p + 'b', () => ({ delete: true })), 'NotFound');
    });

    test('50 concurrent updaters lose no update: the callback runs again on what changed meanwhile', async () => {
      const key = fresh('cas') + 'counter';
      await store.create(key, object('counter', { n: '0' }));
      let calls = 0;
      await Promise.all(Array.from({ length: 50 }, () => store.update(key, async cur => {
        calls++;
        const data = dataOf(cur!.obj)!;
        await sleep(Math.random() * 3);
        data.n = String(Number(data.n) + 1);
        return { put: cur!.obj };
      })));
      assert.equal(dataOf((await store.get(key))!.obj)!.n, '50');
      assert.ok(calls >= 50);
    });

    test('delete honours uid and resourceVersion preconditions and answers with the last state', async () => {
      const p = fresh('delete');
      const made = await store.create(p + 'a', object('a', { v: 'last' }));
      const uidErr = await rejectsWith(store.delete(p + 'a', { preconditions: { uid: 'other' } }), 'Conflict');
      assert.match(uidErr.message, /Precondition failed: UID in precondition: other, UID in object meta: uid-a/);
      await rejectsWith(store.delete(p + 'a', { preconditions: { resourceVersion: formatResourceVersion(made.rev + 1000) } }), 'Conflict');
      assert.ok(await store.get(p + 'a'), 'a failed precondition deletes nothing');
      const gone = await store.delete(p + 'a', { preconditions: { uid: 'uid-a', resourceVersion: formatResourceVersion(made.rev) } });
      assert.deepEqual(dataOf(gone.obj), { v: 'last' });
      assert.ok(gone.rev > made.rev);
      await rejectsWith(store.delete(p + 'a'), 'NotFound');
    });

    test('list: latest, not older than, exactly at a past revision, paged and filtered', async () => {
      const p = fresh('list');
      for (const n of ['c', 'a', 'e', 'b', 'd']) await store.create(p + n, object(n, { keep: n === 'b' || n === 'd' ? 'yes' : 'no' }));
      const then = await store.list(p);
      assert.deepEqual(then.items.map(i => i.obj.metadata.name), ['a', 'b', 'c', 'd', 'e']);
      await store.update(p + 'a', cur => { dataOf(cur!.obj)!.changed = 'yes'; return { put: cur!.obj }; });
      const last = await store.delete(p + 'e');

      const now = await store.list(p);
      assert.ok(now.revision >= last.rev, 'a consistent list sees every write before it');
      assert.deepEqual(now.items.map(i => i.obj.metadata.name), ['a', 'b', 'c', 'd']);
      const notOlder = await store.list(p, { revision: last.rev });
      assert.ok(notOlder.revision >= last.rev);
      assert.deepEqual(notOlder.items.map(i => i.obj.metadata.name), ['a', 'b', 'c', 'd']);
      assert.deepEqual(dataOf(notOlder.items[0].obj), { keep: 'no', changed: 'yes' });
      const any = await store.list(p, { revision: 0 });
      assert.ok(any.items.length >= 0);

      const past = await store.list(p, { revision: then.revision, match: 'Exact' });
      assert.equal(past.revision, then.revision);
      assert.deepEqual(past.items.map(i => [i.obj.metadata.name, i.obj.metadata.resourceVersion]),
        then.items.map(i => [i.obj.metadata.name, i.obj.metadata.resourceVersion]));

      const first = await store.list(p, { revision: then.revision, limit: 2 });
      assert.equal(first.revision, then.revision, 'a paged list at a version reads exactly there');
      assert.deepEqual(first.items.map(i => i.obj.metadata.name), ['a', 'b']);
      assert.equal(first.remaining, 3);
      const second = await store.list(p, { revision: first.revision, start: first.next, limit: 10 });
      assert.deepEqual(second.items.map(i => i.obj.metadata.name), ['c', 'd', 'e']);
      assert.equal(second.next, undefined);

      const kept = await store.list(p, { limit: 1, filter: o => dataOf(o)?.keep === 'yes' });
      assert.deepEqual(kept.items.map(i => i.obj.metadata.name), ['b']);
      const rest = await store.list(p, { revision: kept.revision, start: kept.next, limit: 1, filter: o => dataOf(o)?.keep === 'yes' });
      assert.deepEqual(rest.items.map(i => i.obj.metadata.name), ['d']);
      const everything = await store.list(p, { revision: 0, filter: o => dataOf(o)?.keep === 'yes' });
      assert.deepEqual(everything.items.map(i => i.obj.metadata.name), ['b', 'd']);
    });

    test('reads at a revision the store has not reached fail with FutureRevision; compacted ones with Compacted', async () => {
      const p = fresh('bounds');
      const a = await store.create(p + 'a', object('a'));
      await store.update(p + 'a', cur => { dataOf(cur!.obj)!.v = '2'; return { put: cur!.obj }; });
      const future = (await store.revision()) + 1000;
      await rejectsWith(store.list(p, { revision: future }), 'FutureRevision');
      await rejectsWith(store.get(p + 'a', { revision: future }), 'FutureRevision');
      await rejectsWith(store.list(p, { revision: future, match: 'Exact' }), 'FutureRevision');
      await opened.kv.compact(await store.revision());
      await rejectsWith(store.list(p, { revision: a.rev, match: 'Exact' }), 'Compacted');
    });

    test('watch from a revision: the changes after it in order, typed, with the previous state', async () => {
      const p = fresh('watch');
      const a1 = await store.create(p + 'a', object('a', { v: '1' }));
      const a2 = await store.update(p + 'a', cur => { dataOf(cur!.obj)!.v = '2'; return { put: cur!.obj }; });
      const b1 = await store.create(p + 'b', object('b'));
      const r = await record(store, p, { revision: a1.rev });
      try {
        const bGone = await store.delete(p + 'b');
        const a3 = await store.update(p + 'a', cur => { dataOf(cur!.obj)!.v = '3'; return { put: cur!.obj }; });
        await r.until(() => r.events().length >= 4, '4 events');
        await sleep(QUIET_MS);
        assert.deepEqual(r.events().map(e => [e.type, e.cur.obj.metadata.name, e.rev, dataOf(e.cur.obj)?.v, e.prev?.rev]), [
          ['MODIFIED', 'a', a2!.rev, '2', a1.rev],
          ['ADDED', 'b', b1.rev, undefined, undefined],
          ['DELETED', 'b', bGone.rev, undefined, b1.rev],
          ['MODIFIED', 'a', a3!.rev, '3', a2!.rev],
        ]);
        for (const e of r.events()) assert.equal(e.cur.obj.metadata.resourceVersion, formatResourceVersion(e.rev));
        assert.equal(r.ended, undefined);
        r.stop();
        await store.update(p + 'a', cur => { dataOf(cur!.obj)!.v = '4'; return { put: cur!.obj }; });
        await sleep(QUIET_MS);
        assert.equal(r.events().length, 4, 'nothing after stop');
      } finally {
        r.stop();
      }
    });

    test('watch without a revision: the current objects as ADDED, then the changes; initial events end with a bookmark', async () => {
      const p = fresh('initial');
      await store.create(p + 'a', object('a'));
      const b = await store.create(p + 'b', object('b'));
      const plain = await record(store, p, {});
      const marked = await record(store, p, { revision: b.rev, initialEvents: true, bookmarkIntervalMs: 60_000 });
      try {
        await plain.until(() => plain.events().length >= 2, 'the initial objects');
        const c = await store.create(p + 'c', object('c'));
        for (const r of [plain, marked]) {
          await r.until(() => r.events().length >= 3, '3 events');
          assert.deepEqual(r.events().map(e => [e.type, e.cur.obj.metadata.name]), [['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'c']]);
          assert.equal(r.events()[2].rev, c.rev);
        }
        const mark = marked.log[2];
        assert.ok(mark.kind === 'bookmark' && mark.end === true, 'the initial events end with a marked bookmark');
        assert.ok(mark.rev >= b.rev && mark.rev < c.rev);
      } finally {
        plain.stop();
        marked.stop();
      }
    });

    test('bookmarks never name a revision whose events are still to come', async () => {
      const p = fresh('bookmarks');
      const start = await store.create(p + 'k', object('k', { n: '0' }));
      const r = await record(store, p, { revision: start.rev, bookmarkIntervalMs: 5 });
      try {
        for (let i = 1; i <= 40; i++) {
          await store.update(p + 'k', cur => { dataOf(cur!.obj)!.n = String(i); return { put: cur!.obj }; });
          if (i % 10 === 0) await sleep(15);
        }
        await r.until(() => r.events().length >= 40, '40 events');
        await r.until(() => r.log.some(l => l.kind === 'bookmark'), 'a bookmark');
        assertBookmarksHonest(r);
      } finally {
        r.stop();
      }
    });

    test('a watch from a compacted revision ends with Compacted', async () => {
      const p = fresh('compacted');
      const a = await store.create(p + 'a', object('a'));
      await store.update(p + 'a', cur => { dataOf(cur!.obj)!.v = '2'; return { put: cur!.obj }; });
      await store.create(p + 'b', object('b'));
      await opened.kv.compact(await store.revision());
      try {
        const r = await record(store, p, { revision: a.rev });
        try {
          await r.until(() => r.ended !== undefined, 'the end');
          assert.ok(isStorageError(r.ended, 'Compacted'), String(r.ended));
          assert.deepEqual(r.events(), []);
        } finally {
          r.stop();
        }
      } catch (e) {
        // or it does not start at all
        assert.ok(isStorageError(e, 'Compacted'), String(e));
      }
    });
  });
}
