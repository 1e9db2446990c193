// The behaviour every KV backend must share, run unchanged against each of them.
// Each test writes under its own fresh prefix, so one store instance serves the
// whole suite (and may hold other data). Revisions are only compared, never
// predicted, because other writers may share the store.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  isStorageError, maxValueBytes,
  type KV, type KeyValue, type Revision, type StorageError, type StorageErrorCode, type Watch, type WatchEvent, type WatchOptions,
} from '../types.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (v: Uint8Array): string => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** how long to wait for an expected event; generous for a networked backend */
const EVENT_TIMEOUT_MS = 5000;
/** how long to watch for events that must not come */
const QUIET_MS = 150;

export async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let caught: unknown;
  await assert.rejects(promise, (err: unknown) => {
    caught = err;
    assert.ok(isStorageError(err, code), `expected StorageError ${code}, got ${String(err)}`);
    return true;
  });
  return caught as StorageError;
}

/** a watch that records what it receives and lets a test wait for it */
interface Recorder {
  events: WatchEvent[];
  errors: StorageError[];
  watch: Watch;
  /** resolves with all events once at least n have arrived */
  until(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
  untilError(timeoutMs?: number): Promise<StorageError>;
}

function record(kv: KV, prefix: string, opts: WatchOptions): Recorder {
  const events: WatchEvent[] = [];
  const errors: StorageError[] = [];
  const waiters = new Set<() => void>();
  const wake = () => { for (const check of [...waiters]) check(); };
  /** resolves with ready()'s first defined value; ready() may throw to fail the wait */
  const waitFor = <T>(ready: () => T | undefined, timeoutMs: number, what: () => string) =>
    new Promise<T>((resolve, reject) => {
      const finish = (settle: () => void) => { clearTimeout(timer); waiters.delete(check); settle(); };
      const check = () => {
        try {
          const value = ready();
          if (value !== undefined) finish(() => resolve(value));
        } catch (err) {
          finish(() => reject(err));
        }
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${what()}`))), timeoutMs);
      waiters.add(check);
      check();
    });
  const watch = kv.watch(prefix, opts, {
    onEvents(batch) { events.push(...batch); wake(); },
    onError(err) { errors.push(err); wake(); },
  });
  const describeEvents = () => JSON.stringify(events.map((e) => [e.type, e.kv.key, e.kv.modRevision]));
  return {
    events, errors, watch,
    until: (n, timeoutMs = EVENT_TIMEOUT_MS) => waitFor(
      () => {
        if (errors.length > 0) throw errors[0];
        return events.length >= n ? events : undefined;
      },
      timeoutMs,
      () => `${n} events on ${prefix}; got ${events.length}: ${describeEvents()}`,
    ),
    untilError: (timeoutMs = EVENT_TIMEOUT_MS) => waitFor(
      () => errors[0],
      timeoutMs,
      () => `an error on the watch of ${prefix}; got events ${describeEvents()}`,
    ),
  };
}

const revisionOf = (e: WatchEvent): Revision => e.kv.modRevision;

function assertStrictlyIncreasing(revisions: Revision[], what: string) {
  for (let i = 1; i < revisions.length; i++) {
    assert.ok(revisions[i] > revisions[i - 1], `${what} not strictly increasing: ${revisions.join(', ')}`);
  }
}

/** the fields a test can rely on for a key-value pair */
const plain = (kv: KeyValue | undefined) =>
  kv && { key: kv.key, value: text(kv.value), createRevision: kv.createRevision, modRevision: kv.modRevision };

const plainEvent = (e: WatchEvent) => ({
  type: e.type,
  key: e.kv.key,
  value: e.type === 'put' ? text(e.kv.value) : '',
  modRevision: e.kv.modRevision,
  prev: e.prevKv && { value: text(e.prevKv.value), modRevision: e.prevKv.modRevision },
});

export function kvContract(name: string, open: () => Promise<KV>, close: (kv: KV) => Promise<void> = (kv) => kv.close()) {
  describe(name, () => {
    let kv: KV;
    const run = randomBytes(4).toString('hex');
    let counter = 0;
    /** a prefix no other test (or run) writes under */
    const fresh = (label: string) => `/kv-contract-${run}/${++counter}-${label}/`;

    before(async () => { kv = await open(); });
    after(async () => { await close(kv); });

    test('revisions are global, monotonic and ordered', async () => {
      const p = fresh('revisions');
      const before = await kv.currentRevision();
      const a = await kv.create(p + 'a', bytes('a1'));
      const b = await kv.create(p + 'b', bytes('b1'));
      const a2 = await kv.update(p + 'a', bytes('a2'), a.kv.modRevision);
      const bDel = await kv.delete(p + 'b');
      assertStrictlyIncreasing([before, a.revision, b.revision, a2.revision, bDel.revision], 'write revisions');
      assert.equal(a.kv.modRevision, a.revision);
      assert.equal(a.kv.createRevision, a.revision);
      assert.equal(a2.kv.modRevision, a2.revision);
      assert.equal(a2.kv.createRevision, a.revision, 'an update keeps the create revision');
      assert.ok((await kv.currentRevision()) >= bDel.revision);
      const got = await kv.get(p + 'a');
      assert.deepEqual(plain(got.kv), { key: p + 'a', value: 'a2', createRevision: a.revision, modRevision: a2.revision });
      assert.ok(got.revision >= bDel.revision, 'a read reports a revision at least as new as the last write');
    });

    test('get returns the current value and the value at a past revision', async () => {
      const p = fresh('get');
      const k = p + 'k';
      const r0 = await kv.currentRevision();
      const c = await kv.create(k, bytes('v1'));
      const u = await kv.update(k, bytes('v2'), c.revision);
      const d = await kv.delete(k, u.revision);
      assert.equal((await kv.get(k)).kv, undefined);
      assert.equal((await kv.get(k, { revision: r0 })).kv, undefined, 'absent before it was created');
      assert.deepEqual(plain((await kv.get(k, { revision: c.revision })).kv),
        { key: k, value: 'v1', createRevision: c.revision, modRevision: c.revision });
      assert.deepEqual(plain((await kv.get(k, { revision: d.revision - 1 })).kv),
        { key: k, value: 'v2', createRevision: c.revision, modRevision: u.revision });
      assert.equal((await kv.get(k, { revision: d.revision })).kv, undefined, 'absent at the delete');
      const again = await kv.create(k, bytes('v3'));
      assert.equal(again.kv.createRevision, again.revision, 'a new incarnation has a new create revision');
      assert.deepEqual(plain((await kv.get(k)).kv), { key: k, value: 'v3', createRevision: again.revision, modRevision: again.revision });
      assert.equal((await kv.get(p + 'missing')).kv, undefined);
    });

    test('list returns the keys of a prefix in key order, now and at a past revision', async () => {
      const p = fresh('list');
      for (const name of ['c', 'a', 'e', 'b', 'd']) await kv.create(p + name, bytes(name + '1'));
      const then = await kv.list(p);
      assert.deepEqual(then.kvs.map((x) => x.key), ['a', 'b', 'c', 'd', 'e'].map((x) => p + x));
      assert.equal(then.more, false);
      const b = then.kvs[1];
      await kv.update(p + 'b', bytes('b2'), b.modRevision);
      await kv.delete(p + 'd');
      const last = await kv.create(p + 'bb', bytes('bb1'));
      const now = await kv.list(p);
      assert.ok(now.revision >= last.revision);
      assert.deepEqual(now.kvs.map((x) => [x.key, text(x.value)]),
        [['a', 'a1'], ['b', 'b2'], ['bb', 'bb1'], ['c', 'c1'], ['e', 'e1']].map(([k, v]) => [p + k, v]));
      const past = await kv.list(p, { revision: then.revision });
      assert.equal(past.revision, then.revision, 'a list at a revision reports that revision');
      assert.deepEqual(past.kvs.map(plain), then.kvs.map(plain));
    });

    test('list pages with limit and start, reporting more and remaining', async () => {
      const p = fresh('pages');
      const keys = Array.from({ length: 10 }, (_, i) => `${p}k${String(i).padStart(2, '0')}`);
      for (const k of keys) await kv.create(k, bytes(k));
      const first = await kv.list(p, { limit: 3 });
      assert.deepEqual(first.kvs.map((x) => x.key), keys.slice(0, 3));
      assert.equal(first.more, true);
      assert.equal(first.remaining, 7);
      const second = await kv.list(p, { limit: 3, start: keys[3], revision: first.revision });
      assert.deepEqual(second.kvs.map((x) => x.key), keys.slice(3, 6));
      assert.equal(second.more, true);
      assert.equal(second.remaining, 4);
      const exact = await kv.list(p, { limit: 4, start: keys[6], revision: first.revision });
      assert.deepEqual(exact.kvs.map((x) => x.key), keys.slice(6));
      assert.equal(exact.more, false, 'a page that ends exactly at the last key has no more');
      assert.equal(exact.remaining ?? 0, 0);
      const between = await kv.list(p, { start: keys[4] + '\0' });
      assert.deepEqual(between.kvs.map((x) => x.key), keys.slice(5), 'start is inclusive and need not exist');
      const all = await kv.list(p, { limit: 0 });
      assert.equal(all.kvs.length, 10);
      assert.equal(all.more, false);
    });

    test('paging at a fixed revision stays consistent while writes continue', async () => {
      const p = fresh('consistent');
      const keys = Array.from({ length: 12 }, (_, i) => `${p}k${String(i * 2).padStart(2, '0')}`);
      const original = new Map<string, string>();
      for (const k of keys) { await kv.create(k, bytes('old ' + k)); original.set(k, 'old ' + k); }
      const seen: string[][] = [];
      let page = await kv.list(p, { limit: 4 });
      const at = page.revision;
      const remainings: (number | undefined)[] = [];
      for (let turn = 0; ; turn++) {
        seen.push(page.kvs.map((x) => x.key + '=' + text(x.value)));
        remainings.push(page.remaining);
        // disturb every kind of thing a later page could see: updates, deletes, new keys in between
        const next = keys[turn * 4 + 5];
        if (next) {
          const cur = await kv.get(next);
          await kv.update(next, bytes('new'), cur.kv!.modRevision);
        }
        if (keys[turn * 4 + 6]) await kv.delete(keys[turn * 4 + 6]);
        await kv.create(`${p}k${String(turn * 8 + 9).padStart(2, '0')}x`, bytes('new'));
        if (!page.more) break;
        const lastKey = page.kvs[page.kvs.length - 1].key;
        page = await kv.list(p, { limit: 4, start: lastKey + '\0', revision: at });
        assert.equal(page.revision, at);
      }
      assert.deepEqual(seen.flat(), keys.map((k) => k + '=' + original.get(k)));
      assert.deepEqual(remainings.map((r) => r ?? 0), [8, 4, 0]);
      assert.ok((await kv.list(p)).kvs.some((x) => text(x.value) === 'new'), 'the writes did happen');
    });

    test('create fails with KeyExists on a live key and succeeds again after a delete', async () => {
      const p = fresh('create');
      const first = await kv.create(p + 'k', bytes('1'));
      const err = await rejectsWith(kv.create(p + 'k', bytes('2')), 'KeyExists');
      assert.equal(err.key, p + 'k');
      assert.equal(text((await kv.get(p + 'k')).kv!.value), '1', 'a failed create changes nothing');
      await kv.delete(p + 'k', first.revision);
      const second = await kv.create(p + 'k', bytes('3'));
      assert.ok(second.revision > first.revision);
    });

    test('of many concurrent creates of one key exactly one wins', async () => {
      const k = fresh('create-race') + 'k';
      const outcomes = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => kv.create(k, bytes(`writer ${i}`))));
      const winners = outcomes.filter((o) => o.status === 'fulfilled');
      assert.equal(winners.length, 1);
      for (const o of outcomes) {
        if (o.status === 'rejected') assert.ok(isStorageError(o.reason, 'KeyExists'), String(o.reason));
      }
      const won = (winners[0] as PromiseFulfilledResult<{ kv: KeyValue }>).value.kv;
      assert.deepEqual(plain((await kv.get(k)).kv), plain(won));
    });

    test('update and delete are guarded by the expected modRevision', async () => {
      const p = fresh('guards');
      const k = p + 'k';
      const c = await kv.create(k, bytes('v1'));
      const u = await kv.update(k, bytes('v2'), c.revision);

      const stale = await rejectsWith(kv.update(k, bytes('lost'), c.revision), 'Conflict');
      assert.equal(stale.key, k);
      assert.deepEqual(plain(stale.current), plain(u.kv), 'a Conflict carries the current value');
      const staleDelete = await rejectsWith(kv.delete(k, c.revision), 'Conflict');
      assert.deepEqual(plain(staleDelete.current), plain(u.kv));
      assert.equal(text((await kv.get(k)).kv!.value), 'v2');

      await rejectsWith(kv.update(p + 'missing', bytes('x'), c.revision), 'NotFound');
      await rejectsWith(kv.delete(p + 'missing'), 'NotFound');
      await rejectsWith(kv.delete(p + 'missing', c.revision), 'NotFound');

      const d = await kv.delete(k, u.revision);
      assert.ok(d.revision > u.revision);
      assert.deepEqual(plain(d.kv), plain(u.kv), 'a delete returns the deleted value');
      await rejectsWith(kv.update(k, bytes('x'), u.revision), 'NotFound');
      await rejectsWith(kv.delete(k, u.revision), 'NotFound');
      await rejectsWith(kv.delete(k), 'NotFound');

      const again = await kv.create(k, bytes('v3'));
      const unguarded = await kv.delete(k);
      assert.deepEqual(plain(unguarded.kv), plain(again.kv));
    });

    test('100 concurrent compare-and-swap updaters lose no update', async () => {
      const k = fresh('cas') + 'counter';
      await kv.create(k, bytes('0'));
      let attempts = 0;
      const winningRevisions: Revision[] = [];
      const increment = async () => {
        let cur = (await kv.get(k)).kv!;
        for (;;) {
          if (++attempts > 20_000) throw new Error('too many attempts');
          try {
            const r = await kv.update(k, bytes(String(Number(text(cur.value)) + 1)), cur.modRevision);
            winningRevisions.push(r.revision);
            return;
          } catch (err) {
            if (!isStorageError(err, 'Conflict')) throw err;
            cur = err.current ?? (await kv.get(k)).kv!;
          }
        }
      };
      await Promise.all(Array.from({ length: 100 }, increment));
      assert.equal(text((await kv.get(k)).kv!.value), '100');
      assert.equal(new Set(winningRevisions).size, 100, 'every successful update has its own revision');
    });

    test('watch from a past revision replays the events after it, then live ones, with prevKv', async () => {
      const p = fresh('watch-replay');
      const a1 = await kv.create(p + 'a', bytes('a1'));
      const a2 = await kv.update(p + 'a', bytes('a2'), a1.revision);
      const b1 = await kv.create(p + 'b', bytes('b1'));
      const bDel = await kv.delete(p + 'b', b1.revision);
      const b2 = await kv.create(p + 'b', bytes('b2'));
      const rec = record(kv, p, { afterRevision: a1.revision });
      try {
        await rec.until(4);
        const a3 = await kv.update(p + 'a', bytes('a3'), a2.revision);
        const aDel = await kv.delete(p + 'a', a3.revision);
        const a4 = await kv.create(p + 'a', bytes('a4'));
        await rec.until(7);
        await sleep(QUIET_MS);
        assert.deepEqual(rec.events.map(plainEvent), [
          { type: 'put', key: p + 'a', value: 'a2', modRevision: a2.revision, prev: { value: 'a1', modRevision: a1.revision } },
          { type: 'put', key: p + 'b', value: 'b1', modRevision: b1.revision, prev: undefined },
          { type: 'delete', key: p + 'b', value: '', modRevision: bDel.revision, prev: { value: 'b1', modRevision: b1.revision } },
          { type: 'put', key: p + 'b', value: 'b2', modRevision: b2.revision, prev: undefined },
          { type: 'put', key: p + 'a', value: 'a3', modRevision: a3.revision, prev: { value: 'a2', modRevision: a2.revision } },
          { type: 'delete', key: p + 'a', value: '', modRevision: aDel.revision, prev: { value: 'a3', modRevision: a3.revision } },
          { type: 'put', key: p + 'a', value: 'a4', modRevision: a4.revision, prev: undefined },
        ]);
        assert.equal(rec.events[0].kv.createRevision, a1.revision);
        assert.deepEqual(rec.errors, []);
      } finally {
        rec.watch.close();
      }
    });

    test('a watch opened while writes are in flight has no gap and no duplicate', async () => {
      const p = fresh('watch-race');
      const firstHalf = await Promise.all(Array.from({ length: 10 }, (_, i) => kv.create(`${p}k${i}`, bytes('x'))));
      const after = Math.max(...firstHalf.map((r) => r.revision));
      const inFlight = Array.from({ length: 30 }, (_, i) => kv.create(`${p}k${10 + i}`, bytes('y')));
      const rec = record(kv, p, { afterRevision: after });
      try {
        const secondHalf = await Promise.all(inFlight);
        await rec.until(30);
        await sleep(QUIET_MS);
        const expected = secondHalf.map((r) => r.revision).sort((x, y) => x - y);
        assert.deepEqual(rec.events.map(revisionOf), expected);
        assert.deepEqual(rec.events.map((e) => e.type), expected.map(() => 'put'));
      } finally {
        rec.watch.close();
      }
    });

    test('a watch without afterRevision delivers only new events, and stops when closed', async () => {
      const p = fresh('watch-live');
      const old = await kv.create(p + 'old', bytes('old'));
      await kv.update(p + 'old', bytes('older'), old.revision);
      const rec = record(kv, p, {});
      try {
        // a networked backend may need a moment to start watching: probe until the watch is live
        let probe = await kv.create(p + 'probe', bytes('0'));
        for (let i = 1; rec.events.length === 0; i++) {
          try { await rec.until(1, 50); } catch {
            if (i > 100) throw new Error('the watch never delivered an event');
            probe = await kv.update(p + 'probe', bytes(String(i)), probe.revision);
          }
        }
        const live = rec.events.length;
        const n1 = await kv.create(p + 'new', bytes('n1'));
        const n2 = await kv.update(p + 'new', bytes('n2'), n1.revision);
        await rec.until(live + 2);
        await sleep(QUIET_MS);
        assert.ok(rec.events.every((e) => e.kv.key !== p + 'old'), 'no event from before the watch');
        assertStrictlyIncreasing(rec.events.map(revisionOf), 'event revisions');
        assert.deepEqual(rec.events.slice(-2).map(plainEvent), [
          { type: 'put', key: p + 'new', value: 'n1', modRevision: n1.revision, prev: undefined },
          { type: 'put', key: p + 'new', value: 'n2', modRevision: n2.revision, prev: { value: 'n1', modRevision: n1.revision } },
        ]);
        rec.watch.close();
        const count = rec.events.length;
        await kv.update(p + 'new', bytes('n3'), n2.revision);
        await sleep(QUIET_MS);
        assert.equal(rec.events.length, count, 'no event after close');
      } finally {
        rec.watch.close();
      }
    });

    test('prefixes are isolated', async () => {
      const p = fresh('isolation');
      await kv.create(p + 'a/1', bytes('x'));
      await kv.create(p + 'ab/1', bytes('x'));
      await kv.create(p + 'a', bytes('x'));
      await kv.create(p + 'a/2', bytes('x'));
      assert.deepEqual((await kv.list(p + 'a/')).kvs.map((x) => x.key), [p + 'a/1', p + 'a/2']);
      assert.deepEqual((await kv.list(p + 'ab/')).kvs.map((x) => x.key), [p + 'ab/1']);
      assert.equal(await kv.count(p + 'a/'), 2);
      assert.equal(await kv.count(p + 'ab/'), 1);
      const rec = record(kv, p + 'a/', {});
      try {
        await kv.create(p + 'ab/2', bytes('x'));
        const mine = await kv.create(p + 'a/3', bytes('x'));
        await rec.until(1);
        await sleep(QUIET_MS);
        assert.deepEqual(rec.events.map((e) => e.kv.key), [p + 'a/3']);
        assert.equal(rec.events[0].kv.modRevision, mine.revision);
      } finally {
        rec.watch.close();
      }
    });

    test('count counts the live keys of a prefix', async () => {
      const p = fresh('count');
      assert.equal(await kv.count(p), 0);
      for (let i = 0; i < 5; i++) await kv.create(`${p}${i}`, bytes('x'));
      await kv.delete(`${p}1`);
      await kv.delete(`${p}3`);
      assert.equal(await kv.count(p), 3);
    });

    test('values of 1.5 MiB round-trip intact', async () => {
      const p = fresh('large');
      const v1 = new Uint8Array(randomBytes(1.5 * 1024 * 1024));
      const v2 = new Uint8Array(randomBytes(1.5 * 1024 * 1024));
      const before = await kv.currentRevision();
      const c = await kv.create(p + 'big', v1);
      assert.ok(sameBytes((await kv.get(p + 'big')).kv!.value, v1));
      const u = await kv.update(p + 'big', v2, c.revision);
      assert.ok(sameBytes((await kv.list(p)).kvs[0].value, v2));
      assert.ok(sameBytes((await kv.get(p + 'big', { revision: c.revision })).kv!.value, v1));
      const rec = record(kv, p, { afterRevision: before });
      try {
        const [created, updated] = await rec.until(2);
        assert.ok(sameBytes(created.kv.value, v1));
        assert.ok(sameBytes(updated.kv.value, v2));
        assert.ok(sameBytes(updated.prevKv!.value, v1));
        assert.equal(updated.kv.modRevision, u.revision);
      } finally {
        rec.watch.close();
      }
    });

    test('reads beyond the current revision fail with FutureRevision', async () => {
      const p = fresh('future');
      await kv.create(p + 'k', bytes('x'));
      const current = await kv.currentRevision();
      await rejectsWith(kv.get(p + 'k', { revision: current + 1000 }), 'FutureRevision');
      await rejectsWith(kv.list(p, { revision: current + 1000 }), 'FutureRevision');
    });

    test('compaction drops old history: reads and watches before it fail with Compacted', async () => {
      const p = fresh('compact');
      const a1 = await kv.create(p + 'a', bytes('a1'));
      const a2 = await kv.update(p + 'a', bytes('a2'), a1.revision);
      const b1 = await kv.create(p + 'b', bytes('b1'));
      await kv.delete(p + 'b', b1.revision);
      const c1 = await kv.create(p + 'c', bytes('c1'));
      const a3 = await kv.update(p + 'a', bytes('a3'), a2.revision);
      const at = c1.revision;
      await kv.compact(at);

      const oldest = await kv.oldestRevision();
      assert.ok(oldest >= at && oldest <= at + 1, `oldestRevision ${oldest} should be ${at} or ${at + 1}`);
      const err = await rejectsWith(kv.get(p + 'a', { revision: a1.revision }), 'Compacted');
      assert.ok(err.compactedRevision === undefined || err.compactedRevision >= at - 1);
      await rejectsWith(kv.list(p, { revision: a2.revision }), 'Compacted');
      const gone = record(kv, p, { afterRevision: a1.revision });
      try {
        const watchErr = await gone.untilError();
        assert.ok(isStorageError(watchErr, 'Compacted'), String(watchErr));
        assert.deepEqual(gone.events, []);
      } finally {
        gone.watch.close();
      }

      // the state at the compacted revision and everything after it survive
      assert.deepEqual((await kv.list(p, { revision: at })).kvs.map((x) => [x.key, text(x.value)]),
        [[p + 'a', 'a2'], [p + 'c', 'c1']]);
      assert.deepEqual((await kv.list(p)).kvs.map((x) => [x.key, text(x.value)]), [[p + 'a', 'a3'], [p + 'c', 'c1']]);
      assert.equal((await kv.get(p + 'b')).kv, undefined);
      assert.equal(await kv.count(p), 2);
      const rec = record(kv, p, { afterRevision: at });
      try {
        await rec.until(1);
        const c2 = await kv.update(p + 'c', bytes('c2'), c1.revision);
        await rec.until(2);
        assert.deepEqual(rec.events.map(plainEvent), [
          { type: 'put', key: p + 'a', value: 'a3', modRevision: a3.revision, prev: { value: 'a2', modRevision: a2.revision } },
          { type: 'put', key: p + 'c', value: 'c2', modRevision: c2.revision, prev: { value: 'c1', modRevision: c1.revision } },
        ]);
      } finally {
        rec.watch.close();
      }
      const again = await kv.create(p + 'b', bytes('b2'));
      assert.equal(again.kv.createRevision, again.revision, 'a key whose tombstone was compacted can be created again');
    });
  });
}

/**
 * The embedded stores' value limit (etcd's default request limit, which a configured etcd may raise): a value of
 * maxValueBytes is taken, one byte more is TooLarge for create and update alike, and the store goes on.
 */
export function valueLimitContract(name: string, open: () => Promise<KV>) {
  test(`${name}: values up to ${maxValueBytes} bytes are taken, larger ones refused as TooLarge`, async () => {
    const kv = await open();
    try {
      const fits = new Uint8Array(maxValueBytes), over = new Uint8Array(maxValueBytes + 1);
      const tooLarge = (e: unknown) => isStorageError(e, 'TooLarge') && /over the 1572864 bytes storage takes/.test((e as Error).message);
      await assert.rejects(kv.create('/limit/new', over), tooLarge);
      assert.equal((await kv.get('/limit/new')).kv, undefined);
      const created = await kv.create('/limit/k', fits);
      await assert.rejects(kv.update('/limit/k', over, created.revision), tooLarge);
      const kept = (await kv.get('/limit/k')).kv!;
      assert.deepEqual([kept.value.length, kept.modRevision], [maxValueBytes, created.revision]);
      assert.ok((await kv.update('/limit/k', new Uint8Array(10), created.revision)).revision > created.revision);
    } finally {
      await kv.close();
    }
  });
}
