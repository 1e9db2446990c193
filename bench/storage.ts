// Storage benchmark: each backend against the raw client it is built on, measured in the same run.
//   sqlite vs raw better-sqlite3 durable inserts (WAL, synchronous=FULL, one row per transaction)
//   etcd   vs raw etcd3 puts and gets at the same concurrency
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { openEtcdKV } from '../src/storage/etcd/kv.js';
import { openSqliteKV } from '../src/storage/sqlite/kv.js';
import type { KV } from '../src/storage/types.js';
import { startEtcd } from '../test/support/etcd.js';

/** baseline and backend run in alternating rounds, so drift on a shared machine hits both alike */
const ROUNDS = 8;
const ROUND_MS = 250;
const WARMUP_MS = 300;
const MANY = 64;
const LIST_KEYS = 10_000;
const LIST_RUNS = 5;
/** about the size of a typical stored object */
const VALUE = Buffer.alloc(1024, 'v');

interface Row {
  measure: string;
  backend: number;
  baseline: number;
  /** ops/s: higher is better; ms: lower is better */
  unit: 'ops/s' | 'ms';
  /** the least acceptable backend/baseline speed ratio */
  target?: number;
}

/** an operation and how many loops run it at once */
interface Load { concurrency: number; op: (n: number) => unknown }

/** runs `load` for ms; returns the operations done */
async function runFor(load: Load, ms: number, counter: { n: number }): Promise<number> {
  const first = counter.n;
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: load.concurrency }, async () => {
    while (performance.now() < end) await load.op(counter.n++);
  }));
  return counter.n - first;
}

/** operations per second of the baseline and of the backend, measured in alternating rounds */
async function versus(baseline: Load, backend: Load): Promise<{ baseline: number; backend: number }> {
  const loads = [baseline, backend];
  const counters = [{ n: 0 }, { n: 0 }];
  const totals = [{ ops: 0, ms: 0 }, { ops: 0, ms: 0 }];
  for (const i of [0, 1]) await runFor(loads[i], WARMUP_MS, counters[i]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const started = performance.now();
      totals[i].ops += await runFor(loads[i], ROUND_MS, counters[i]);
      totals[i].ms += performance.now() - started;
    }
  }
  const rate = (i: number) => totals[i].ops / (totals[i].ms / 1000);
  return { baseline: rate(0), backend: rate(1) };
}

/** median milliseconds of LIST_RUNS runs of op */
async function medianMs(op: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < LIST_RUNS; i++) {
    const started = performance.now();
    await op();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/** creates `count` keys through the backend, MANY at a time */
async function fill(kv: KV, prefix: string, count: number) {
  let next = 0;
  await Promise.all(Array.from({ length: MANY }, async () => {
    for (let i = next++; i < count; i = next++) await kv.create(prefix + String(i).padStart(6, '0'), VALUE);
  }));
}

/** the same measurements for each backend; the baseline supplies the raw client's side of each */
async function measureBackend(kv: KV, baseline: {
  writes(concurrency: number): Load;
  prepareList(): Promise<void>;
  reads(keys: string[]): Load;
  list(): Promise<unknown>;
}, writeTarget: { 1?: number; [MANY]?: number }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const concurrency of [1, MANY]) {
    const prefix = `/bench/writes-${concurrency}/`;
    const rates = await versus(baseline.writes(concurrency), { concurrency, op: n => kv.create(prefix + n, VALUE) });
    const measure = `writes/s, ${concurrency} concurrent writer${concurrency > 1 ? 's' : ''}`;
    rows.push({ measure, ...rates, unit: 'ops/s', target: writeTarget[concurrency as 1] });
  }
  await fill(kv, '/bench/list/', LIST_KEYS);
  await baseline.prepareList();
  const keys = Array.from({ length: 1000 }, (_, i) => `/bench/list/${String(i * 7).padStart(6, '0')}`);
  const reads = await versus(baseline.reads(keys), { concurrency: MANY, op: n => kv.get(keys[n % keys.length]) });
  rows.push({ measure: `point reads/s, ${MANY} concurrent readers`, ...reads, unit: 'ops/s' });
  const listBase = await medianMs(() => baseline.list());
  const listBackend = await medianMs(async () => {
    const { kvs } = await kv.list('/bench/list/');
    if (kvs.length !== LIST_KEYS) throw new Error(`listed ${kvs.length} keys, expected ${LIST_KEYS}`);
  });
  rows.push({ measure: `list of ${LIST_KEYS.toLocaleString('en-US')} keys (ms, median of ${LIST_RUNS})`, backend: listBackend, baseline: listBase, unit: 'ms' });
  return rows;
}

async function sqliteRows(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-sqlite-'));
  const raw = new Database(join(dir, 'raw.db'));
  let kv: KV | undefined;
  try {
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
    raw.exec('CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL)');
    const insert = raw.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
    const select = raw.prepare('SELECT value FROM kv WHERE key = ?');
    const scan = raw.prepare('SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key');
    // better-sqlite3 is synchronous: concurrent callers would only queue, so the raw client
    // runs one loop, one row per (durable) transaction, against every backend concurrency.
    let rawKey = 0;
    kv = await openSqliteKV({ file: join(dir, 'backend.db') });
    return await measureBackend(kv, {
      writes: () => ({ concurrency: 1, op: () => insert.run(`/bench/raw-writes/${rawKey++}`, VALUE) }),
      prepareList: async () => {
        raw.transaction(() => {
          for (let i = 0; i < LIST_KEYS; i++) insert.run(`/bench/list/${String(i).padStart(6, '0')}`, VALUE);
        })();
      },
      reads: keys => ({ concurrency: 1, op: n => select.get(keys[n % keys.length]) }),
      list: async () => scan.all('/bench/list/', '/bench/list0'),
    }, { [MANY]: 2 });
  } finally {
    await kv?.close();
    raw.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function etcdRows(): Promise<Row[]> {
  const etcd = await startEtcd();
  const raw = new Etcd3({ hosts: etcd.endpoint, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  let kv: KV | undefined;
  try {
    kv = await openEtcdKV({ endpoints: [etcd.endpoint], prefix: '/backend' });
    const backend = kv;
    const rows = await measureBackend(kv, {
      writes: concurrency => ({ concurrency, op: n => raw.put(`/raw/writes-${concurrency}/${n}`).value(VALUE) }),
      // The raw client reads the very keys the backend wrote (under its prefix).
      prepareList: async () => {},
      reads: keys => ({ concurrency: MANY, op: n => raw.get(`/backend${keys[n % keys.length]}`).buffer() }),
      list: () => raw.getAll().prefix('/backend/bench/list/').buffers(),
    }, { 1: 0.8, [MANY]: 0.8 });
    // A guarded create is a transaction, which costs etcd about twice the CPU of a plain put:
    // this row compares like with like, to show the backend's own overhead.
    const txn = await versus({
      concurrency: MANY,
      op: n => {
        const key = Buffer.from(`/raw/txn/${n}`);
        return raw.kv.txn({
          compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key, value: VALUE } }],
        });
      },
    }, { concurrency: MANY, op: n => backend.create(`/bench/txn/${n}`, VALUE) });
    rows.splice(2, 0, { measure: `writes/s, ${MANY} concurrent writers, baseline: raw create-if-absent transactions`, ...txn, unit: 'ops/s' });
    return rows;
  } finally {
    await kv?.close();
    raw.close();
    await etcd.stop();
  }
}

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

function table(rows: Row[], baselineName: string): string {
  const lines = [
    `| measure | backend | ${baselineName} | speed vs baseline | target |`,
    '|---|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const speed = row.unit === 'ops/s' ? row.backend / row.baseline : row.baseline / row.backend;
    const target = row.target === undefined ? '' : `≥ ${row.target}x: ${speed >= row.target ? 'met' : '**missed**'}`;
    const fmt = (x: number) => number.format(row.unit === 'ms' ? x : Math.round(x));
    lines.push(`| ${row.measure} | ${fmt(row.backend)} | ${fmt(row.baseline)} | ${speed.toFixed(2)}x | ${target} |`);
  }
  return lines.join('\n');
}

/** runs the storage benchmark; returns the Markdown body of its section */
export async function storageBench(): Promise<string> {
  const sqlite = await sqliteRows();
  const etcd = await etcdRows();
  return [
    `Values of ${VALUE.length} bytes. Each rate is measured after a ${WARMUP_MS} ms warm-up in ${ROUNDS} rounds of `
      + `${ROUND_MS} ms that alternate baseline and backend. "Speed vs baseline" is backend speed / baseline speed `
      + '(above 1: faster than the raw client).',
    '',
    '### sqlite (`openSqliteKV`) vs raw better-sqlite3',
    '',
    'Baseline: one INSERT per durable transaction (WAL, synchronous=FULL); better-sqlite3 is synchronous, so its rate '
      + 'is the same at any concurrency. Reads and the list are prepared statements on a plain key/value table.',
    '',
    table(sqlite, 'raw better-sqlite3'),
    '',
    '### etcd (`openEtcdKV`, compare-and-swap transactions) vs raw etcd3 puts/gets',
    '',
    'A private etcd 3.4 on loopback (fsync on), sharing the CPUs with the client. Baseline: `etcd3` `put().value()`, '
      + '`get().buffer()` and `getAll().prefix().buffers()` at the same concurrency. Every backend write is a guarded '
      + 'transaction (create: `Create == 0`), which costs etcd itself about twice the CPU of a plain put; the row '
      + 'against raw create-if-absent transactions compares like with like and shows the backend\'s own overhead.',
    '',
    table(etcd, 'raw etcd3'),
  ].join('\n');
}
