import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inMode, legacyLine, logBackend, truncating, type AuditEvent, type AuditMode, type Backend } from './backends.js';

const event = (id: string): AuditEvent => ({ kind: 'Event', auditID: id, stage: 'ResponseComplete' });

/** a backend of the mode over a sink whose sends wait until released (or fail, when told) */
function overSlowSink(mode: AuditMode, opts: { bufferSize?: number; failing?: boolean } = {}) {
  const sent: AuditEvent[][] = [], lost: number[] = [];
  const pending: Array<() => void> = [];
  const backend = inMode({
    mode, bufferSize: opts.bufferSize ?? 10, maxBatchSize: 100, maxWaitMs: 0,
    send: events => new Promise<void>((resolve, reject) => {
      pending.push(() => { if (opts.failing) reject(new Error('sink refused')); else { sent.push(events); resolve(); } });
    }),
    onError: count => { lost.push(count); },
  });
  const releaseAll = () => { for (const release of pending.splice(0)) release(); };
  return { backend, sent, lost, pending, releaseAll };
}

test('batch mode: handing events over never waits for the sink; past the buffer they are dropped and counted', async () => {
  const { backend, lost, pending, releaseAll } = overSlowSink('batch', { bufferSize: 5 });
  assert.equal(backend.process([event('a')]), undefined);
  assert.equal(pending.length, 1, 'the first batch is on its way and the sink holds it');
  for (let i = 0; i < 10; i++) assert.equal(backend.process([event(`b${i}`)]), undefined);
  assert.deepEqual(lost, [1, 1, 1, 1, 1]);
  releaseAll();
  await backend.shutdown(1000);
});

test('blocking mode: the request waits until its events are written; a failure is counted, not thrown', async () => {
  const ok = overSlowSink('blocking');
  let done = false;
  const p = Promise.resolve(ok.backend.process([event('a')])).then(() => { done = true; });
  await new Promise(r => setImmediate(r));
  assert.equal(done, false, 'still waiting for the sink');
  ok.releaseAll();
  await p;
  assert.deepEqual(ok.sent.map(b => b.map(e => e.auditID)), [['a']]);

  const failing = overSlowSink('blocking', { failing: true });
  const q = failing.backend.process([event('x')]);
  failing.releaseAll();
  await q;
  assert.deepEqual(failing.lost, [1]);
});

test('blocking-strict mode: an event that cannot be written fails the caller', async () => {
  const { backend, lost, releaseAll } = overSlowSink('blocking-strict', { failing: true });
  const p = backend.process([event('x')]);
  releaseAll();
  await assert.rejects(Promise.resolve(p), /sink refused/);
  assert.deepEqual(lost, [1]);
});

test('truncation: a large event loses its objects first, then is dropped and counted; a large batch is split', async () => {
  const handed: AuditEvent[][] = [], lost: Array<[number, string]> = [];
  const sink: Backend = { process: events => { handed.push(events); }, shutdown: async () => {} };
  const backend = truncating(sink, { maxEventSize: 1000, maxBatchSize: 2000, annotation: 'audit.cluster.io/truncated' }, (n, why) => { lost.push([n, why]); });
  const size = (e: AuditEvent) => Buffer.byteLength(JSON.stringify(e));
  const body = (n: number) => ({ kind: 'ConfigMap', data: { a: 'x'.repeat(n) } });
  const small = { ...event('small'), level: 'RequestResponse', requestObject: body(10), responseObject: body(10) };
  const large = { ...event('large'), level: 'RequestResponse', annotations: { kept: 'yes' }, requestObject: body(600), responseObject: body(600) };
  const metadataOnly = { ...event('metadata'), level: 'Metadata', requestURI: `/${'y'.repeat(1200)}` };
  const stillLarge = { ...event('still'), level: 'Request', requestURI: `/${'z'.repeat(1200)}`, requestObject: body(10) };
  const mid = (id: string) => ({ ...event(id), level: 'Metadata', userAgent: 'u'.repeat(800) });
  assert.equal(backend.process([small, large, metadataOnly, stillLarge, mid('m1'), mid('m2'), mid('m3'), mid('m4')]), undefined);

  const ids = handed.map(b => b.map(e => e.auditID));
  assert.deepEqual(ids, [['small', 'large', 'm1'], ['m2', 'm3'], ['m4']], 'batches split where the next event would pass the batch size');
  for (const b of handed) assert.ok(b.reduce((n, e) => n + size(e), 0) <= 2000);
  assert.deepEqual(handed[0]![0], small, 'an event within the size is untouched');
  const truncated = handed[0]![1]!;
  assert.equal(truncated.requestObject, undefined);
  assert.equal(truncated.responseObject, undefined);
  assert.deepEqual(truncated.annotations, { kept: 'yes', 'audit.cluster.io/truncated': 'true' });
  assert.ok(size(truncated) <= 1000);
  assert.ok(large.requestObject, 'the event handed in is not changed');
  assert.deepEqual(lost, [[2, 'event is too large even after truncating']], 'the Metadata event and the one still too large without its objects');
});

test('truncation in front of a blocking backend: the caller waits for every batch', async () => {
  const { backend, sent, releaseAll, pending } = overSlowSink('blocking');
  const sized = truncating(backend, { maxEventSize: 500, maxBatchSize: 500, annotation: 't' }, () => {});
  const big = (id: string) => ({ ...event(id), userAgent: 'u'.repeat(300) });
  let done = false;
  const p = Promise.resolve(sized.process([big('a'), big('b')])).then(() => { done = true; });
  await new Promise(r => setImmediate(r));
  assert.equal(pending.length, 2);
  assert.equal(done, false);
  releaseAll();
  await p;
  assert.deepEqual(sent.map(b => b.map(e => e.auditID)), [['a'], ['b']]);
});

test('the legacy log line', () => {
  const line = legacyLine({
    kind: 'Event', level: 'Metadata', auditID: '6c7e', stage: 'ResponseComplete', requestURI: '/api/v1/namespaces/ns/pods?limit=5',
    verb: 'list', user: { username: 'alice', groups: ['dev', 'system:authenticated'] }, sourceIPs: ['10.0.0.1', '127.0.0.1'],
    userAgent: 'kubectl/v1.27.0', objectRef: { resource: 'pods', namespace: 'ns' }, responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2026-01-02T03:04:05.120000Z',
  });
  assert.equal(line, '2026-01-02T03:04:05.12Z AUDIT: id="6c7e" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" '
    + 'groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.27.0" namespace="ns" '
    + 'uri="/api/v1/namespaces/ns/pods?limit=5" response="200"');
  const bare = legacyLine({ auditID: 'x', stage: 'RequestReceived', verb: 'get', user: {}, requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z',
    impersonatedUser: { username: 'bob', groups: ['g'] } });
  assert.match(bare, /^2026-01-02T03:04:05Z AUDIT: .* ip="<unknown>" .* user="<none>" groups="<none>" as="bob" asgroups="\\"g\\"" .* namespace="<none>" .* response="<deferred>"$/);
});

test('the log in legacy format, rotated by size into compressed backups, pruned past maxBackups', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  try {
    const lost: string[] = [];
    const log = logBackend({ path: join(dir, 'audit.log'), maxSizeMb: 1, maxBackups: 2, maxAgeDays: 0, compress: true, format: 'legacy' },
      { mode: 'blocking', bufferSize: 10, maxBatchSize: 1, maxWaitMs: 0 }, (_n, why) => { lost.push(why); });
    const big = { ...event('e'), requestURI: `/${'x'.repeat(100_000)}`, requestReceivedTimestamp: '2026-01-02T03:04:05.000000Z' };
    // about 100 kB a line: 40 lines make four files of 1 MB
    for (let i = 0; i < 40; i++) await log.process([{ ...big, auditID: `e${i}` }]);
    // compression and pruning follow a rotation: wait for them
    const backups = () => readdirSync(dir).filter(f => /^audit-.*\.log\.gz$/.test(f));
    for (let i = 0; i < 200 && (backups().length !== 2 || readdirSync(dir).some(f => !/^audit.*\.log(\.gz)?$/.test(f))); i++) await new Promise(r => setTimeout(r, 25));
    await log.shutdown(1000);
    assert.equal(backups().length, 2, readdirSync(dir).join(' '));
    const lines = gunzipSync(readFileSync(join(dir, backups()[0]!))).toString().trim().split('\n');
    assert.match(lines[0]!, /^2026-01-02T03:04:05Z AUDIT: id="e\d+" stage="ResponseComplete"/);
    assert.deepEqual(lost, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
