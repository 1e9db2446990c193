import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, fsync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { kvContract, valueLimitContract } from '../testing/kv-contract.js';
import { isStorageError, type WatchEvent } from '../types.js';
import { openSqliteKV, type SyncFile } from './kv.js';
import { FORMAT_VERSION } from './schema.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-kv-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `store-${++files}.db`);
const bytes = (s: string) => new TextEncoder().encode(s);
const text = (v: Uint8Array) => Buffer.from(v).toString();
const statSize = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

kvContract('sqlite KV', () => openSqliteKV({ file: freshFile() }));
valueLimitContract('sqlite KV', () => openSqliteKV({ file: freshFile() }));

describe('sqlite KV on disk', () => {
  test('reopening keeps the data, the revision and the compacted revision', async () => {
    const file = freshFile();
    const kv = await openSqliteKV({ file });
    const a = await kv.create('/r/a', bytes('a1'));
    const a2 = await kv.update('/r/a', bytes('a2'), a.revision);
    await kv.create('/r/b', bytes('b1'));
    const del = await kv.delete('/r/b');
    await kv.compact(a2.revision);
    await kv.close();

    const again = await openSqliteKV({ file });
    try {
      assert.equal(await again.currentRevision(), del.revision);
      assert.equal(await again.oldestRevision(), a2.revision + 1);
      assert.deepEqual((await again.list('/r/')).kvs.map((x) => [x.key, text(x.value), x.createRevision, x.modRevision]),
        [['/r/a', 'a2', a.revision, a2.revision]]);
      const next = await again.create('/r/c', bytes('c1'));
      assert.equal(next.revision, del.revision + 1, 'revisions continue where they left off');
      await assert.rejects(again.get('/r/a', { revision: a.revision }), (e) => isStorageError(e, 'Compacted'));
    } finally {
      await again.close();
    }
  });

  test('a watch from a revision before a reopen replays across it, then continues live', async () => {
    const file = freshFile();
    const kv = await openSqliteKV({ file });
    const a = await kv.create('/w/a', bytes('a1'));
    const a2 = await kv.update('/w/a', bytes('a2'), a.revision);
    const b = await kv.create('/w/b', bytes('b1'));
    await kv.close();

    const again = await openSqliteKV({ file });
    try {
      const events: WatchEvent[] = [];
      let arrived = () => {};
      const w = again.watch('/w/', { afterRevision: a.revision }, {
        onEvents: (batch) => { events.push(...batch); arrived(); },
        onError: (err) => assert.fail(err),
      });
      const del = await again.delete('/w/a', a2.revision);
      while (events.length < 3) await new Promise<void>((resolve) => { arrived = resolve; });
      w.close();
      assert.deepEqual(events.map((e) => [e.type, e.kv.key, e.kv.modRevision, e.prevKv && text(e.prevKv.value)]), [
        ['put', '/w/a', a2.revision, 'a1'],
        ['put', '/w/b', b.revision, undefined],
        ['delete', '/w/a', del.revision, 'a2'],
      ]);
    } finally {
      await again.close();
    }
  });

  test('a store made with the unique predecessor index opens without it, its data and conditions intact', async () => {
    const file = freshFile();
    let kv = await openSqliteKV({ file });
    const first = await kv.create('/u/a', bytes('1'));
    await kv.close();
    const old = new Database(file);
    old.exec('CREATE UNIQUE INDEX kv_log_name_prev ON kv_log (name, prev_revision)');
    old.close();
    kv = await openSqliteKV({ file });
    try {
      assert.equal(text((await kv.get('/u/a')).kv!.value), '1');
      const updated = await kv.update('/u/a', bytes('2'), first.revision);
      await assert.rejects(kv.update('/u/a', bytes('3'), first.revision), (e: Error) => isStorageError(e, 'Conflict'));
      await assert.rejects(kv.create('/u/a', bytes('4')), (e: Error) => isStorageError(e, 'KeyExists'));
      assert.equal(text((await kv.get('/u/a')).kv!.value), '2');
      assert.equal((await kv.get('/u/a')).kv!.modRevision, updated.revision);
    } finally {
      await kv.close();
    }
    const reopened = new Database(file, { readonly: true });
    try {
      assert.deepEqual(reopened.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'kv_log_name_prev'`).all(), []);
    } finally {
      reopened.close();
    }
  });

  test('concurrent writes share one commit; a failed condition rejects only its own write', async () => {
    const kv = await openSqliteKV({ file: freshFile() });
    try {
      await kv.create('/g/taken', bytes('x'));
      const before = { ...kv.stats };
      const writes = Array.from({ length: 64 }, (_, i) => kv.create(`/g/k${i}`, bytes(String(i))));
      const clash = kv.create('/g/taken', bytes('y'));
      const results = await Promise.all(writes);
      await assert.rejects(clash, (e) => isStorageError(e, 'KeyExists'));
      const commits = kv.stats.commits - before.commits;
      assert.ok(commits < 10, `64 concurrent writes took ${commits} commits`);
      assert.equal(kv.stats.writes - before.writes, 64);
      assert.equal(new Set(results.map((r) => r.revision)).size, 64);
      assert.equal(await kv.count('/g/'), 65);
    } finally {
      await kv.close();
    }
  });

  test('compaction reclaims the space of dropped history', async () => {
    const file = freshFile();
    const kv = await openSqliteKV({ file });
    try {
      const big = new Uint8Array(randomBytes(256 * 1024));
      let rev = (await kv.create('/c/k', big)).revision;
      for (let i = 0; i < 20; i++) rev = (await kv.update('/c/k', big, rev)).revision;
      const size = () => statSize(file) + statSize(file + '-wal');
      const grown = size();
      await kv.compact(rev);
      const shrunk = size();
      assert.ok(grown > 5 * 1024 * 1024, `the store grew to ${grown} bytes`);
      assert.ok(shrunk < grown / 4, `compaction left ${shrunk} of ${grown} bytes`);
      assert.equal((await kv.get('/c/k')).kv!.value.length, big.length);
    } finally {
      await kv.close();
    }
  });

  describe('durability: a write counts once the fsync of the log covers it', () => {
    /** an fsync that waits to be let through, so a test sees what happens meanwhile */
    const heldSync = () => {
      const held: (() => void)[] = [];
      const syncFile: SyncFile = (fd, done) => { held.push(() => fsync(fd, done)); };
      const waitHeld = async () => { while (held.length === 0) await new Promise((r) => setImmediate(r)); };
      /** lets the next held fsync through (the directory's comes first, once) */
      const release = async () => { await waitHeld(); held.shift()!(); };
      return { syncFile, held, release, waitHeld };
    };
    const settled = <T>(p: Promise<T>) => {
      const state: { done: boolean; value?: T } = { done: false };
      p.then((value) => { state.done = true; state.value = value; }, () => { state.done = true; });
      return state;
    };

    test('until then it is not acknowledged, not readable and not watched; after, it is all three', async () => {
      const sync = heldSync();
      const kv = await openSqliteKV({ file: freshFile(), syncFile: sync.syncFile });
      try {
        const events: WatchEvent[] = [];
        const w = kv.watch('/d/', {}, { onEvents: (b) => events.push(...b), onError: (e) => assert.fail(e) });
        const write = settled(kv.create('/d/a', bytes('a')));
        await sync.waitHeld();
        await new Promise((r) => setImmediate(r));
        assert.equal(write.done, false, 'acknowledged before the fsync');
        assert.equal((await kv.get('/d/a')).kv, undefined, 'readable before the fsync');
        assert.equal(await kv.currentRevision(), 0);
        assert.equal(events.length, 0, 'watched before the fsync');
        await sync.release();   // the directory
        await sync.release();   // the log
        while (!write.done) await new Promise((r) => setImmediate(r));
        assert.equal(write.value!.revision, 1);
        assert.equal(text((await kv.get('/d/a')).kv!.value), 'a');
        while (events.length === 0) await new Promise((r) => setImmediate(r));
        assert.deepEqual(events.map((e) => [e.type, e.kv.key, e.kv.modRevision]), [['put', '/d/a', 1]]);
        w.close();
      } finally {
        const closing = kv.close();
        while (sync.held.length) sync.held.shift()!();
        await closing;
      }
    });

    test('the writes queued while one fsync runs share the next transaction and fsync; close waits for them', async () => {
      const sync = heldSync();
      const kv = await openSqliteKV({ file: freshFile(), syncFile: sync.syncFile });
      const first = settled(kv.create('/s/first', bytes('1')));
      await sync.release();   // the directory
      await sync.waitHeld();  // the log, for the first write
      const later = [1, 2, 3].map((i) => settled(kv.create(`/s/later-${i}`, bytes(String(i)))));
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      assert.equal(sync.held.length, 1, 'a second fsync started while the first ran');
      assert.equal(kv.stats.commits, 1, 'the later writes were committed before the fsync in progress ended');
      const closing = settled(kv.close());
      await sync.release();
      while (!first.done) await new Promise((r) => setImmediate(r));
      assert.ok(later.every((l) => !l.done), 'later writes acknowledged by an fsync that started before them');
      await sync.release();   // one fsync for all of them
      while (!closing.done) await new Promise((r) => setImmediate(r));
      assert.ok(later.every((l) => l.value !== undefined), 'every write queued before the close was acknowledged');
      assert.equal(kv.stats.commits, 2, 'the later writes were committed in one transaction');
    });

    test('a failed fsync fails its writes, and the store takes no more', async () => {
      const kv = await openSqliteKV({ file: freshFile(), syncFile: (_fd, done) => done(new Error('EIO: i/o error')) });
      try {
        await assert.rejects(kv.create('/f/a', bytes('a')), (e: Error) => isStorageError(e, 'Unavailable') && /fsync failed/.test(e.message));
        await assert.rejects(kv.create('/f/b', bytes('b')), /fsync failed/);
        await assert.rejects(kv.check(), /fsync failed/);
        await assert.rejects(kv.get('/f/a'), /fsync failed/);
      } finally {
        await kv.close();
      }
    });
  });

  describe('bad input fails with a clear error', () => {
    const rejectsNaming = (file: string, pattern: RegExp) =>
      assert.rejects(openSqliteKV({ file }), (e: Error) => {
        assert.match(e.message, pattern);
        return true;
      });

    test('a file that is not a SQLite database', async () => {
      const file = freshFile();
      writeFileSync(file, randomBytes(8192));
      await rejectsNaming(file, /not a SQLite database/);
    });

    test('a SQLite database of another application', async () => {
      const file = freshFile();
      const other = new Database(file);
      other.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)');
      other.close();
      await rejectsNaming(file, /another kind \(tables: users\)/);
    });

    test('a store of a newer format version', async () => {
      const file = freshFile();
      await (await openSqliteKV({ file })).close();
      const raw = new Database(file);
      raw.prepare(`UPDATE kv_meta SET value = ? WHERE name = 'format_version'`).run(FORMAT_VERSION + 1);
      raw.close();
      await rejectsNaming(file, new RegExp(`format version ${FORMAT_VERSION + 1}, newer`));
    });

    test('a directory that does not exist', async () => {
      const missing = join(dir, 'no-such-dir');
      await rejectsNaming(join(missing, 'store.db'), new RegExp(`directory ${missing} does not exist`));
    });

    test('a store file this process may not write', async () => {
      const sub = mkdtempSync(join(dir, 'read-only-'));
      const file = join(sub, 'store.db');
      await (await openSqliteKV({ file })).close();
      chmodSync(file, 0o444);
      // root writes any file: the opening runs as nobody then, in a directory nobody may write in, so only the file is refused
      const nobody = process.getuid?.() === 0 ? 65534 : undefined;
      if (nobody !== undefined) {
        chmodSync(dir, 0o755);
        chownSync(sub, nobody, nobody);
      }
      const opening = `import { openSqliteKV } from ${JSON.stringify(new URL('./kv.js', import.meta.url).href)};
        try { await (await openSqliteKV({ file: ${JSON.stringify(file)} })).close(); console.log('opened'); } catch (e) { console.log(e.message); }`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', opening], { uid: nobody, gid: nobody, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), `cannot open store ${file}: ${file} is not writable by this process (EACCES)`);
    });

    test('a file another process (or handle) holds open', async () => {
      const file = freshFile();
      const first = await openSqliteKV({ file });
      try {
        await first.create('/x', bytes('x'));
        await rejectsNaming(file, /another process has it open/);
      } finally {
        await first.close();
      }
    });
  });
});
