// The embedded store: the revision log of schema.ts in one SQLite file owned by this process.
// Writes are grouped: every write issued before the next turn of the event loop goes into one
// transaction, each checked for its own condition. The write-ahead log is then fsynced off the
// event loop (one fsync covers every transaction committed before it), and only then are the
// writes acknowledged, made visible to reads and fed to watchers, so nothing polls and a slow
// disk never stalls the requests that do not wait for it.
import type Database from 'better-sqlite3';
import { closeSync, fsync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  StorageError, checkValueSize, compacted, conflict, futureRevision, keyExists, notFound,
  type KV, type KeyValue, type Revision, type WatchEvent, type WriteResult,
} from '../types.js';
import { createWatchHub } from '../watch-hub.js';
import { openDatabase } from './schema.js';

export interface SqliteStats {
  /** transactions that wrote something */
  commits: number;
  /** writes applied (successful creates, updates and deletes) */
  writes: number;
}

export interface SqliteKV extends KV {
  readonly stats: Readonly<SqliteStats>;
}

/** revisions removed per compaction transaction, so a large compaction does not stall writes */
const COMPACT_BATCH = 10_000;

const EMPTY = Buffer.alloc(0);

interface Row { key: string; modRevision: Revision; createRevision: Revision; deleted: 0 | 1; value: Buffer }

interface LogRow extends Row { prevRevision: Revision | null; prevCreateRevision: Revision | null; prevValue: Buffer | null }

interface Write {
  kind: 'create' | 'update' | 'delete';
  key: string;
  value: Buffer;
  expected?: Revision;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
}

/** the end of the key range under prefix in SQLite's UTF-8 byte order (above every character) */
const rangeEnd = (prefix: string) => prefix + '\u{10ffff}';

const asBuffer = (v: Uint8Array): Buffer => Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);

const toKV = (r: Row): KeyValue => ({ key: r.key, value: r.value, createRevision: r.createRevision, modRevision: r.modRevision });

/** flushes a file to disk; the default is fsync(2) on libuv's thread pool */
export type SyncFile = (fd: number, done: (err: Error | null) => void) => void;

/** a transaction committed to the log, waiting for the fsync that makes it durable */
interface Unsynced { batch: Write[]; outcomes: (WriteResult | StorageError)[]; events: WatchEvent[] }

export async function openSqliteKV(opts: { file: string; syncFile?: SyncFile }): Promise<SqliteKV> {
  const db = openDatabase(opts.file);
  const hub = createWatchHub();
  const stats: SqliteStats = { commits: 0, writes: 0 };

  const sql = {
    at: db.prepare<{ key: string; rev: Revision }, Row>(`
      SELECT name AS key, id AS modRevision, create_revision AS createRevision, deleted, value
      FROM kv_log WHERE name = @key AND id <= @rev ORDER BY id DESC LIMIT 1`),
    // the live rows under a range at a revision: each key's newest row at or below it, unless a tombstone
    list: db.prepare<{ from: string; to: string; rev: Revision; limit: number }, Row>(`
      SELECT name AS key, id AS modRevision, create_revision AS createRevision, deleted, value FROM kv_log l
      WHERE name >= @from AND name < @to AND deleted = 0
        AND id = (SELECT MAX(id) FROM kv_log x WHERE x.name = l.name AND x.id <= @rev)
      ORDER BY name LIMIT @limit`),
    // the same rows as list; grouping is quicker than the per-row lookup when every row is visited anyway
    count: db.prepare<{ from: string; to: string; rev: Revision }, number>(`
      SELECT COUNT(*) FROM (SELECT MAX(id) AS id FROM kv_log WHERE name >= @from AND name < @to AND id <= @rev GROUP BY name) m
      JOIN kv_log l ON l.id = m.id WHERE l.deleted = 0`).pluck(),
    insert: db.prepare<[Revision, string, number, number, Revision, Revision, Buffer]>(`
      INSERT INTO kv_log (id, name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    // "+name" keeps the planner on the revision range: replays cover recent history, not a whole prefix
    replay: db.prepare<{ after: Revision; upTo: Revision; from: string; to: string }, LogRow>(`
      SELECT l.name AS key, l.id AS modRevision, l.create_revision AS createRevision, l.deleted, l.value,
             p.id AS prevRevision, p.create_revision AS prevCreateRevision, p.value AS prevValue
      FROM kv_log l LEFT JOIN kv_log p ON p.id = l.prev_revision AND p.deleted = 0
      WHERE l.id > @after AND l.id <= @upTo AND +l.name >= @from AND +l.name < @to ORDER BY l.id`),
    revision: db.prepare<[], number | null>(`SELECT seq FROM sqlite_sequence WHERE name = 'kv_log'`).pluck(),
    meta: db.prepare<[string], number>(`SELECT value FROM kv_meta WHERE name = ?`).pluck(),
    setMeta: db.prepare<[number, string]>(`UPDATE kv_meta SET value = ? WHERE name = ?`),
    dropSuperseded: db.prepare<{ lo: Revision; hi: Revision }>(`
      DELETE FROM kv_log WHERE id IN (SELECT prev_revision FROM kv_log WHERE id > @lo AND id <= @hi AND prev_revision != 0)`),
    dropTombstones: db.prepare<{ lo: Revision; hi: Revision }>(`DELETE FROM kv_log WHERE id > @lo AND id <= @hi AND deleted = 1`),
  };

  /** the newest revision committed to the log; writes check their conditions against it */
  let revision: Revision = sql.revision.get() ?? 0;
  /** the newest revision on disk: what reads and watchers see */
  let durable: Revision = revision;
  let compactedAt: Revision = sql.meta.get('compact_revision') ?? 0;
  let pending: Write[] = [];
  let flushTimer: NodeJS.Immediate | undefined;
  let closed = false;
  /** set once an fsync fails: what was written may not be on disk, so the store takes nothing more */
  let failed: StorageError | undefined;

  const closedError = () => new StorageError('Unavailable', `sqlite store ${opts.file} is closed`);
  const ensureOpen = () => { if (failed) throw failed; if (closed) throw closedError(); };

  const readRevision = (requested: Revision | undefined): Revision => {
    ensureOpen();
    if (!requested) return durable;
    if (requested > durable) throw futureRevision(requested, durable);
    if (requested < compactedAt) throw compacted(requested, compactedAt);
    return requested;
  };

  /**
   * apply one write inside the open transaction; returns its result and event, or the error it fails with. This is the
   * compare-and-swap: the condition is checked against the newest row, in the transaction that appends the next one,
   * by the one process that holds the file
   */
  const apply = (w: Write, events: WatchEvent[]): WriteResult | StorageError => {
    const latest = sql.at.get({ key: w.key, rev: revision });
    const current = latest && !latest.deleted ? latest : undefined;
    if (w.kind === 'create') {
      if (current) return keyExists(w.key);
      const id = ++revision;
      // a new incarnation supersedes the previous one's tombstone, if that is still there
      sql.insert.run(id, w.key, 1, 0, id, latest?.modRevision ?? 0, w.value);
      const kv: KeyValue = { key: w.key, value: w.value, createRevision: id, modRevision: id };
      events.push({ type: 'put', kv });
      return { kv, revision: id };
    }
    if (!current) return notFound(w.key);
    const prevKv = toKV(current);
    if (w.expected !== undefined && w.expected !== current.modRevision) return conflict(w.key, prevKv);
    const id = ++revision;
    const deleted = w.kind === 'delete';
    sql.insert.run(id, w.key, 0, deleted ? 1 : 0, current.createRevision, current.modRevision, w.value);
    const kv: KeyValue = { key: w.key, value: w.value, createRevision: current.createRevision, modRevision: id };
    events.push({ type: deleted ? 'delete' : 'put', kv, prevKv });
    return { kv: deleted ? prevKv : kv, revision: id };
  };

  const applyAll = db.transaction((batch: Write[], events: WatchEvent[]) => batch.map((w) => apply(w, events)));

  // the write-ahead log's own descriptor: an fsync of it makes every transaction committed before durable. SQLite keeps
  // the file (truncating it at most) while this process holds the store, so it is opened once, at the first commit,
  // with the directory synced once as well, as the file may be new
  const syncFile: SyncFile = opts.syncFile ?? ((fd, done) => fsync(fd, done));
  let walFd: number | undefined;
  let unsynced: Unsynced[] = [];
  let syncing = false;
  let whenSynced: (() => void)[] = [];

  const openWal = (done: (err: Error | null) => void) => {
    let dirFd: number | undefined;
    try {
      walFd = openSync(`${opts.file}-wal`, 'r');
      dirFd = openSync(dirname(opts.file), 'r');
    } catch (err) {
      // no log yet: nothing was written to it, so nothing needs syncing
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && walFd === undefined) return done(null);
      return done(err as Error);
    }
    syncFile(dirFd, err => { closeSync(dirFd!); done(err); });
  };

  /** fsync the log for every commit not yet durable, then acknowledge them in order; one fsync at a time */
  const sync = () => {
    if (syncing || unsynced.length === 0) {
      if (!syncing) for (const resolve of whenSynced.splice(0)) resolve();
      return;
    }
    syncing = true;
    const group = unsynced;
    unsynced = [];
    const upTo = revision;
    const synced = (err: Error | null) => {
      syncing = false;
      if (err) {
        failed ??= new StorageError('Unavailable', `sqlite store ${opts.file}: fsync failed, no more writes are taken: ${err.message}`);
        for (const c of [...group, ...unsynced.splice(0)]) for (const w of c.batch) w.reject(failed);
      } else {
        durable = upTo;
        for (const c of group) {
          if (c.events.length > 0) hub.publish(c.events);
          c.batch.forEach((w, i) => {
            const outcome = c.outcomes[i];
            if (outcome instanceof StorageError) w.reject(outcome); else w.resolve(outcome);
          });
        }
      }
      // what queued up during this fsync is committed now, as one transaction
      if (pending.length > 0) flush(); else sync();
    };
    if (walFd === undefined) openWal(err => (err || walFd === undefined ? synced(err) : syncFile(walFd, synced)));
    else syncFile(walFd, synced);
  };

  /**
   * commit every queued write in one transaction; the fsync that follows acknowledges each and feeds the watchers.
   * While an fsync runs, writes wait for it in the queue: they could not be acknowledged before the next fsync anyway,
   * and one larger transaction writes fewer log pages than several small ones
   */
  const flush = () => {
    flushTimer = undefined;
    if (syncing) return;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    if (failed) { for (const w of batch) w.reject(failed); return; }
    const events: WatchEvent[] = [];
    const before = revision;
    let outcomes: (WriteResult | StorageError)[];
    try {
      outcomes = applyAll(batch, events);
    } catch (err) {
      // nothing was committed: every write of the batch fails alike
      revision = before;
      const failure = new StorageError('Unavailable', `sqlite store ${opts.file}: write failed: ${(err as Error).message}`);
      for (const w of batch) w.reject(failure);
      return;
    }
    if (events.length > 0) {
      stats.commits++;
      stats.writes += events.length;
    }
    unsynced.push({ batch, outcomes, events });
    sync();
  };

  const enqueue = (kind: Write['kind'], key: string, value: Uint8Array, expected?: Revision) =>
    new Promise<WriteResult>((resolve, reject) => {
      if (failed || closed) return reject(failed ?? closedError());
      pending.push({ kind, key, value: asBuffer(value), expected, resolve, reject });
      flushTimer ??= setImmediate(flush);
    });

  const rowToEvent = (r: LogRow): WatchEvent => {
    const prevKv: KeyValue | undefined = r.prevRevision === null ? undefined
      : { key: r.key, value: r.prevValue!, createRevision: r.prevCreateRevision!, modRevision: r.prevRevision };
    return r.deleted
      ? { type: 'delete', kv: { key: r.key, value: EMPTY, createRevision: r.createRevision, modRevision: r.modRevision }, prevKv }
      : { type: 'put', kv: toKV(r), prevKv };
  };

  /** remove the history in (lo, hi] that no read at or after hi can see, and record hi */
  const compactStep = db.transaction((lo: Revision, hi: Revision) => {
    sql.dropSuperseded.run({ lo, hi });
    sql.dropTombstones.run({ lo, hi });
    sql.setMeta.run(hi, 'compact_revision');
  });

  return {
    name: 'sqlite',
    stats,

    async get(key, o) {
      const rev = readRevision(o?.revision);
      const row = sql.at.get({ key, rev });
      return { kv: row && !row.deleted ? toKV(row) : undefined, revision: rev };
    },

    async list(prefix, o = {}) {
      const rev = readRevision(o.revision);
      const from = o.start !== undefined && o.start > prefix ? o.start : prefix;
      const to = rangeEnd(prefix);
      const limit = o.limit || 0;
      const kvs = sql.list.all({ from, to, rev, limit: limit > 0 ? limit + 1 : -1 }).map(toKV);
      if (limit === 0 || kvs.length <= limit) return { kvs, revision: rev, more: false };
      kvs.length = limit;
      if (o.countRemaining === false) return { kvs, revision: rev, more: true };
      return { kvs, revision: rev, more: true, remaining: sql.count.get({ from, to, rev })! - limit };
    },

    async count(prefix) {
      const rev = readRevision(undefined);
      return sql.count.get({ from: prefix, to: rangeEnd(prefix), rev })!;
    },

    create: async (key, value) => { checkValueSize(key, value); return enqueue('create', key, value); },
    update: async (key, value, expectedModRevision) => { checkValueSize(key, value); return enqueue('update', key, value, expectedModRevision); },
    delete: (key, expectedModRevision) => enqueue('delete', key, EMPTY, expectedModRevision),

    watch(prefix, o, handler) {
      if (failed || closed) return hub.reject(handler, failed ?? closedError());
      const after = o.afterRevision;
      if (after === undefined) return hub.add(prefix, durable, [], handler);
      if (after < compactedAt) return hub.reject(handler, compacted(after, compactedAt));
      const replay = after < durable ? sql.replay.all({ after, upTo: durable, from: prefix, to: rangeEnd(prefix) }).map(rowToEvent) : [];
      return hub.add(prefix, Math.max(after, durable), replay, handler);
    },

    async compact(rev) {
      ensureOpen();
      if (rev > durable) throw futureRevision(rev, durable);
      if (rev <= compactedAt) return;
      while (compactedAt < rev) {
        const hi = Math.min(rev, compactedAt + COMPACT_BATCH);
        compactStep(compactedAt, hi);
        compactedAt = hi;
        if (hi < rev) {
          await new Promise((resolve) => setImmediate(resolve));
          ensureOpen();
        }
      }
      db.pragma('incremental_vacuum');
      db.pragma('wal_checkpoint(TRUNCATE)');
    },

    async currentRevision() { ensureOpen(); return durable; },
    async oldestRevision() { ensureOpen(); return compactedAt + 1; },
    async check() { ensureOpen(); sql.meta.get('format_version'); },

    async close() {
      if (closed) return;
      closed = true;
      // what was queued and committed before the close is still made durable and acknowledged
      if (flushTimer) { clearImmediate(flushTimer); flush(); }
      await new Promise<void>(resolve => { whenSynced.push(resolve); sync(); });
      hub.endAll(closedError());
      db.close();
      if (walFd !== undefined) closeSync(walFd);
    },
  };
}
