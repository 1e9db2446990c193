// The watch cache: the object store contract, and healing after its storage watch ends, on every backend.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ApiObject } from '../api/meta.js';
import type { ObjectEvent } from '../api/cache.js';
import { objectStoreContract, record, assertBookmarksHonest } from '../storage/testing/object-store-contract.js';
import { backendNames, openBackend } from '../storage/testing/backends.js';
import { faultyKV, type FaultyKV } from '../storage/testing/faulty-kv.js';
import { createObjectStore } from '../storage/objects.js';
import { isStorageError, StorageError } from '../storage/types.js';
import { createWatchCache, type WatchCache } from './cache.js';
import { until } from '../../test/support/wait.js';

const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));
const object = (name: string, v = '1'): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } } as ApiObject);
const valueOf = (o: ApiObject) => (o as { data?: { v?: string } }).data?.v;

const passes = (check: () => void) => { try { check(); return true; } catch { return false; } };

for (const name of backendNames) {
  objectStoreContract(`watch cache on ${name}`, async () => {
    const { kv, close } = await openBackend(name);
    const store = createWatchCache(createObjectStore(kv), { root: '/registry/', freshnessTimeoutMs: 300 });
    await store.start();
    return { store, kv, async close() { store.stop(); await close(); } };
  });

  if (name !== 'etcd') {
    objectStoreContract(`watch cache serving consistent reads on ${name}`, async () => {
      const { kv, close } = await openBackend(name);
      const store = createWatchCache(createObjectStore(kv), { root: '/registry/', freshnessTimeoutMs: 300, consistentReads: true });
      await store.start();
      return { store, kv, async close() { store.stop(); await close(); } };
    });

    test(`consistent gets and whole lists are served from the cache on ${name}, the same as storage answers them`, async () => {
      const { kv, close } = await openBackend(name);
      const direct = createObjectStore(kv);
      let storageReads = 0;
      const counted = { ...direct, get: (...a: Parameters<typeof direct.get>) => { storageReads++; return direct.get(...a); },
        list: (...a: Parameters<typeof direct.list>) => { storageReads++; return direct.list(...a); } };
      const cache = createWatchCache(counted, { root: '/registry/', consistentReads: true });
      await cache.start();
      try {
        const prefix = `/registry/consistent-${randomBytes(4).toString('hex')}/things/`;
        await cache.create(`${prefix}a`, object('a'));
        await until(() => cache.cache(prefix).count() === 1, 'the cache to hold the first object');
        const first = storageReads;
        await cache.create(`${prefix}b`, object('b'));
        await cache.update(`${prefix}a`, cur => ({ put: { ...cur!.obj, data: { v: '2' } } as ApiObject }));
        // written and acknowledged: the next consistent reads see it, without reading storage
        const got = await cache.get(`${prefix}a`);
        assert.equal(valueOf(got!.obj), '2');
        const listed = await cache.list(prefix);
        assert.deepEqual(listed.items.map(i => i.key), [`${prefix}a`, `${prefix}b`]);
        assert.equal(listed.revision, await cache.revision());
        assert.equal(storageReads, first);
        // what a consistent get hands out is the caller's own: changing it leaves the cache as it was
        got!.obj.metadata.labels = { changed: 'yes' };
        assert.equal((await cache.get(`${prefix}a`))!.obj.metadata.labels, undefined);
        assert.deepEqual(JSON.parse(String((await cache.get(`${prefix}a`))!.bytes)), (await direct.get(`${prefix}a`))!.obj);
        // a page goes to storage, which knows how to go on from it
        await cache.list(prefix, { limit: 1 });
        assert.equal(storageReads, first + 1);
      } finally {
        cache.stop();
        await close();
      }
    });
  }

  describe(`watch cache healing on ${name}`, () => {
    let backend: Awaited<ReturnType<typeof openBackend>>;
    let kv: FaultyKV;
    let cache: WatchCache;
    const run = randomBytes(4).toString('hex');
    let counter = 0;
    const fresh = (label: string) => `/registry/heal-${run}/${++counter}-${label}/`;
    const put = (key: string, v: string) => cache.update(key, cur => ({ put: { ...(cur?.obj ?? object(key.split('/').pop()!)), data: { v } } as ApiObject }));

    before(async () => {
      backend = await openBackend(name);
      kv = faultyKV(backend.kv);
      cache = createWatchCache(createObjectStore(kv), { root: '/registry/', log: { warn() {} } });
      await cache.start();
    });
    after(async () => { cache.stop(); await backend.close(); });

    test('a storage watch that breaks is opened again from where it was: watchers go on without loss', async () => {
      const p = fresh('broken');
      const first = await cache.create(p + 'a', object('a', '0'));
      await cache.list(p, { revision: first.rev });   // the resource is cached from here on
      const r = await record(cache, p, { revision: first.rev, bookmarkIntervalMs: 5 });
      try {
        kv.disconnect();
        assert.throws(() => cache.check(), /reconnecting/);
        const written: number[] = [];
        for (let i = 1; i <= 5; i++) written.push((await put(p + 'a', String(i)))!.rev);
        kv.breakWatches(new StorageError('Unavailable', 'the connection to storage was lost'));
        await r.until(() => r.events().length >= 5, 'the 5 changes');
        await until(() => passes(() => cache.check()), 'the cache to be ready again');
        const more = await put(p + 'a', '6');
        await r.until(() => r.events().length >= 6, 'a change after healing');
        assert.deepEqual(r.events().map(e => e.rev), [...written, more!.rev]);
        assert.equal(r.ended, undefined, 'the watcher was carried over');
        assertBookmarksHonest(r);
      } finally {
        r.stop();
      }
    });

    test('compaction past the cache: it lists again; watchers of changed resources end with Compacted, the rest go on; subscribers get the difference', async () => {
      const changed = fresh('changed');
      const quiet = fresh('quiet');
      await cache.create(changed + 'a', object('a'));
      await cache.create(changed + 'b', object('b'));
      const q = await cache.create(quiet + 'q', object('q'));
      const view = cache.cache(changed);
      await view.ready;
      await cache.list(changed, { revision: q.rev });
      await cache.list(quiet, { revision: q.rev });
      // a subscriber inside the server keeps a map of the resource
      const state = new Map(view.snapshot(changed).map(i => [i.key, valueOf(i.obj)]));
      const seen: ObjectEvent[] = [];
      const unsubscribe = view.subscribe({
        send(ev) { seen.push(ev); if (ev.type === 'DELETED') state.delete(ev.key); else state.set(ev.key, valueOf(ev.cur.obj)); },
        end() {},
      });
      const onChanged = await record(cache, changed, { revision: q.rev });
      const onQuiet = await record(cache, quiet, { revision: q.rev });
      try {
        kv.disconnect();
        await cache.create(changed + 'c', object('c'));
        await put(changed + 'a', '2');
        await cache.delete(changed + 'b');
        await backend.kv.compact(await backend.kv.currentRevision());
        kv.breakWatches(new StorageError('Unavailable', 'the storage server restarted'));
        await onChanged.until(() => onChanged.ended !== undefined, 'the watcher of the changed resource to end');
        await until(() => passes(() => cache.check()), 'the cache to be ready again');
        assert.ok(isStorageError(onChanged.ended, 'Compacted'), String(onChanged.ended));
        assert.deepEqual(Object.fromEntries(state), { [changed + 'a']: '2', [changed + 'c']: '1' }, 'the subscriber holds what is stored');
        assert.deepEqual(seen.map(e => [e.type, e.key]).sort(), [['ADDED', changed + 'c'], ['DELETED', changed + 'b'], ['MODIFIED', changed + 'a']].sort());

        const after = await put(quiet + 'q', '2');
        await onQuiet.until(() => onQuiet.events().length >= 1, 'a change to the quiet resource');
        assert.equal(onQuiet.ended, undefined, 'the quiet resource kept its watcher');
        assert.deepEqual(onQuiet.events().map(e => e.rev), [after!.rev]);

        const later = await put(changed + 'c', '2');
        await until(() => state.get(changed + 'c') === '2', 'the subscriber to see a change after healing');
        const again = await record(cache, changed, { revision: 0 });
        try {
          await again.until(() => again.events().length >= 2, 'the current objects');
          assert.deepEqual(again.events().map(e => [e.key, valueOf(e.cur.obj)]), [[changed + 'a', '2'], [changed + 'c', '2']]);
          assert.ok(again.events()[1].rev === later!.rev);
        } finally {
          again.stop();
        }
      } finally {
        unsubscribe();
        onChanged.stop();
        onQuiet.stop();
      }
    });

    test('a watch from before the cache\'s history is served by storage, whose bookmarks never run ahead of its events', async () => {
      const p = fresh('fallback');
      const first = await cache.create(p + 'k', object('k', '0'));
      for (let i = 1; i <= 100; i++) await put(p + 'k', String(i));
      const now = await cache.revision();
      await cache.list(p, { revision: now });   // the cache's history starts after all of these
      const r = await record(cache, p, { revision: first.rev, bookmarkIntervalMs: 1 });
      try {
        for (let i = 101; i <= 120; i++) await put(p + 'k', String(i));
        await r.until(() => r.events().length >= 120, 'every change');
        await r.until(() => r.log.some(l => l.kind === 'bookmark'), 'a bookmark');
        assertBookmarksHonest(r);
        assert.deepEqual(r.events().map(e => valueOf(e.cur.obj)), Array.from({ length: 120 }, (_, i) => String(i + 1)));
      } finally {
        r.stop();
      }
    });

    test('a cache first used while the storage watch is away catches up once it is back', async () => {
      const p = fresh('late');
      await cache.create(p + 'a', object('a'));
      kv.disconnect();
      const b = await cache.create(p + 'b', object('b'));
      const listing = cache.list(p, { revision: b.rev });
      await sleep(50);
      kv.reconnect();
      assert.deepEqual((await listing).items.map(i => i.obj.metadata.name), ['a', 'b']);
      await until(() => passes(() => cache.check()), 'the cache to be ready');
    });
  });
}

test('a watch from a revision within the history window is served from the cache, with every event after it; an older one goes to storage', async () => {
  const { kv, close } = await openBackend('memory');
  const direct = createObjectStore(kv);
  let storageWatches = 0;
  const counted = { ...direct, watch: (...a: Parameters<typeof direct.watch>) => { storageWatches++; return direct.watch(...a); } };
  const limit = 100;
  const cache = createWatchCache(counted, { root: '/registry/', historyLimit: limit });
  await cache.start();
  try {
    const p = `/registry/window-${randomBytes(4).toString('hex')}/things/`;
    const revs = [(await cache.create(`${p}k`, object('k', '0'))).rev];
    await until(() => cache.cache(p).count() === 1, 'the cache to hold the object');
    // more than a thousand events past the window, so expired ones have been cut away more than once
    for (let i = 1; i <= 2500; i++) revs.push((await cache.update(`${p}k`, cur => ({ put: { ...cur!.obj, data: { v: String(i) } } as ApiObject })))!.rev);
    await until(() => cache.cache(p).get(`${p}k`)?.rev === revs.at(-1), 'the cache to see the last update');
    const watchesBefore = storageWatches;
    for (const back of [limit, limit / 2, 1]) {
      const r = await record(cache, p, { revision: revs.at(-1 - back)! });
      try {
        await r.until(() => r.events().length >= back, `the last ${back} events`);
        assert.deepEqual(r.events().map(e => valueOf(e.cur.obj)), Array.from({ length: back }, (_, i) => String(2500 - back + 1 + i)));
      } finally {
        r.stop();
      }
    }
    assert.equal(storageWatches, watchesBefore, 'served from the cache');
    const old = await record(cache, p, { revision: revs.at(-2 - limit)! });
    old.stop();
    assert.equal(storageWatches, watchesBefore + 1, 'a revision older than the window is watched from storage');
  } finally {
    cache.stop();
    await close();
  }
});

test('history keeps at most its bytes of objects: a watch from before what large writes left in it is served from storage, with every event', async () => {
  const { kv, close } = await openBackend('memory');
  const direct = createObjectStore(kv);
  let storageWatches = 0;
  const counted = { ...direct, watch: (...a: Parameters<typeof direct.watch>) => { storageWatches++; return direct.watch(...a); } };
  // ten events of 10 kB objects fit; the count limit and the time window are far off
  const cache = createWatchCache(counted, { root: '/registry/', historyBytes: 100_000 });
  await cache.start();
  try {
    const p = `/registry/bytes-${randomBytes(4).toString('hex')}/things/`;
    const big = (i: number) => ({ ...object('k', String(i)), binaryData: { pad: 'a'.repeat(10_000) } }) as ApiObject;
    const revs = [(await cache.create(`${p}k`, big(0))).rev];
    await until(() => cache.cache(p).count() === 1, 'the cache to hold the object');
    for (let i = 1; i <= 40; i++) revs.push((await cache.update(`${p}k`, () => ({ put: big(i) })))!.rev);
    await until(() => cache.cache(p).get(`${p}k`)?.rev === revs.at(-1), 'the cache to see the last update');
    const watchesBefore = storageWatches;
    const recent = await record(cache, p, { revision: revs.at(-6)! });
    try {
      await recent.until(() => recent.events().length >= 5, 'the last 5 events');
      assert.deepEqual(recent.events().map(e => valueOf(e.cur.obj)), ['36', '37', '38', '39', '40']);
    } finally {
      recent.stop();
    }
    assert.equal(storageWatches, watchesBefore, 'recent events served from the cache');
    const old = await record(cache, p, { revision: revs[20] });
    try {
      await old.until(() => old.events().length >= 20, 'the 20 events after the old revision');
      assert.deepEqual(old.events().map(e => valueOf(e.cur.obj)), Array.from({ length: 20 }, (_, i) => String(21 + i)));
    } finally {
      old.stop();
    }
    assert.equal(storageWatches, watchesBefore + 1, 'a revision older than the bytes history keeps is watched from storage');
  } finally {
    cache.stop();
    await close();
  }
});
