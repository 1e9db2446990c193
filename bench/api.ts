// API benchmark: the API server against bare Node servers measured in the same run.
//   create (sqlite, 64 connections)  vs a bare HTTPS server doing group-committed durable inserts into better-sqlite3
//                                    (and, for reference, one insert per durable transaction)
//   create (etcd, 64 connections)    vs raw etcd3 puts at the same concurrency
//   get by name                      vs a bare HTTPS server answering the same JSON
//   consistent list of 10,000 objects vs a bare HTTPS server sending the same bytes
//   10,000-object list from the cache vs JSON serialization of those objects
//   one change delivered to 1,000 watchers; start-up to ready; idle resident memory
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '../test/support/etcd.js';
import { request, Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROUND_MS, ROUNDS, call, expectOk, fmt, rate, row, startApi, startBaseline, versus, type Child } from './support.js';

const configMap = (i: number) => JSON.stringify({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'bench-', labels: { app: 'bench', i: String(i % 10) } },
  data: { key: 'v'.repeat(200) },
});

/** CPU time (user and system) a process has used, in milliseconds; the kernel counts in ticks of 10 ms */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startupMs(backend: 'sqlite' | 'memory'): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
    const t0 = performance.now();
    const c = await startApi(dir, backend);
    const agent = new Agent({ keepAlive: false });
    for (;;) {
      const r = await call(agent, c.port, 'GET', '/readyz').catch(() => ({ status: 0, text: '' }));
      if (r.status === 200) break;
      await new Promise(r => setTimeout(r, 5));
    }
    times.push(performance.now() - t0);
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return times.sort((a, b) => a - b)[2];
}

/** time to start a bare `node -e` process, the floor under any start-up figure */
async function nodeFloorMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await new Promise<void>(r => spawn(process.execPath, ['-e', '0']).once('exit', () => r()));
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[2];
}

export async function apiBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const lines: string[] = [];
  const children: Child[] = [];
  try {
    const api = await startApi(dir, 'sqlite'); children.push(api);
    const bjson = await startBaseline(mkdtempSync(join(dir, 'json-')), 'json'); children.push(bjson);
    const bsql = await startBaseline(mkdtempSync(join(dir, 'sql-')), 'sqlite'); children.push(bsql);
    const bgroup = await startBaseline(mkdtempSync(join(dir, 'group-')), 'sqlite-group'); children.push(bgroup);

    // create: 64 connections, against group-committed inserts (the same durability and batching as the server's store)
    const create = (port: number, path: string) => (agent: Agent, p: number, i: number) => expectOk(call(agent, p, 'POST', path, configMap(i)), 201);
    const [createApi, createBase] = await versus(
      () => rate(api.port, 64, create(api.port, '/api/v1/namespaces/default/configmaps'), ROUND_MS),
      () => rate(bgroup.port, 64, create(bgroup.port, '/objects'), ROUND_MS));
    await rate(bsql.port, 64, create(bsql.port, '/objects'), ROUND_MS);
    const createOnePerTxn = await rate(bsql.port, 64, create(bsql.port, '/objects'), ROUND_MS);

    // get by name: 64 connections
    const one = await expectOk(call(new Agent(), api.port, 'POST', '/api/v1/namespaces/default/configmaps', configMap(0)), 201);
    const name = JSON.parse(one.text).metadata.name;
    const get = (path: string) => (agent: Agent, p: number) => expectOk(call(agent, p, 'GET', path), 200);
    const [getApi, getBase] = await versus(
      () => rate(api.port, 64, get(`/api/v1/namespaces/default/configmaps/${name}`), ROUND_MS),
      () => rate(bjson.port, 64, get('/x'), ROUND_MS));

    // 10,000-object list from the cache vs JSON serialization of the same objects; in a namespace of their own, as
    // the rounds above leave as many objects in default as the server managed to create
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const listPath = '/api/v1/namespaces/bench-list/configmaps';
    await expectOk(call(agent, api.port, 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-list' } })), 201);
    for (let i = 0; i < 10_000; i += 64)
      await Promise.all(Array.from({ length: Math.min(64, 10_000 - i) }, (_, j) => expectOk(call(agent, api.port, 'POST', listPath, configMap(i + j)), 201)));
    // the first list makes each object's JSON bytes once; the measured ones reuse them
    const items: unknown[] = JSON.parse((await expectOk(call(agent, api.port, 'GET', `${listPath}?resourceVersion=0`), 200)).text).items;
    if (items.length !== 10_000) throw new Error(`the list holds ${items.length} objects, not 10,000`);
    const lists = 20;
    const listTimes: number[] = [];
    const cpuBefore = cpuMs(api.proc.pid!);
    for (let i = 0; i < lists; i++) {
      const t0 = performance.now();
      await expectOk(call(agent, api.port, 'GET', `${listPath}?resourceVersion=0`), 200);
      listTimes.push(performance.now() - t0);
    }
    // the server's own work per list: CPU time, which leaves out waiting for the client to read 4 MB
    const serverListMs = (cpuMs(api.proc.pid!) - cpuBefore) / lists;
    const serialTimes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items });
      serialTimes.push(performance.now() - t0);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const listMs = median(listTimes), serialMs = median(serialTimes);

    // a consistent list (no resourceVersion: read from storage) as the client sees it, against a bare server
    // sending the very bytes of one such list
    const consistent = (port: number, path: string) => async () => {
      const t0 = performance.now();
      await expectOk(call(agent, port, 'GET', path), 200);
      return performance.now() - t0;
    };
    const bodyFile = join(dir, 'list.json');
    writeFileSync(bodyFile, (await expectOk(call(agent, api.port, 'GET', listPath), 200)).text);
    const bbytes = await startBaseline(mkdtempSync(join(dir, 'bytes-')), 'bytes', bodyFile); children.push(bbytes);
    const consistentApi: number[] = [], consistentBase: number[] = [];
    await consistent(api.port, listPath)(); await consistent(bbytes.port, '/x')();
    for (let i = 0; i < 10; i++) {
      consistentApi.push(await consistent(api.port, listPath)());
      consistentBase.push(await consistent(bbytes.port, '/x')());
    }
    const consistentMs = median(consistentApi), bytesMs = median(consistentBase);

    // one change delivered to 1,000 watchers
    const watchers = 1000;
    const wagent = new Agent({ keepAlive: true, maxSockets: watchers });
    const target = JSON.parse((await expectOk(call(agent, api.port, 'POST', '/api/v1/namespaces/default/configmaps', configMap(1)), 201)).text);
    const rv = target.metadata.resourceVersion;
    let delivered = 0;
    let lastAt = 0;
    const opened: Array<() => void> = [];
    await Promise.all(Array.from({ length: watchers }, () => new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: api.port, agent: wagent, rejectUnauthorized: false,
        path: `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${target.metadata.name}` }, res => {
        res.on('data', () => { delivered++; lastAt = performance.now(); });
        resolve();
      });
      req.on('error', reject);
      opened.push(() => req.destroy());
      req.end();
    })));
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port: api.port, agent, method: 'PATCH', rejectUnauthorized: false,
        path: `/api/v1/namespaces/default/configmaps/${target.metadata.name}`, headers: { 'Content-Type': 'application/merge-patch+json' } },
      res => { res.resume(); res.on('end', () => resolve()); });
      r.on('error', reject);
      r.end(JSON.stringify({ data: { key: 'changed' } }));
    });
    const deadline = performance.now() + 10_000;
    while (delivered < watchers && performance.now() < deadline) await new Promise(r => setTimeout(r, 5));
    const fanoutMs = lastAt - t0;
    for (const close of opened) close();
    wagent.destroy();
    agent.destroy();

    // idle resident memory of a fresh server
    await api.stop();
    children.splice(children.indexOf(api), 1);
    const idle = await startApi(mkdtempSync(join(dir, 'idle-')), 'sqlite'); children.push(idle);
    await new Promise(r => setTimeout(r, 1500));
    const status = readFileSync(`/proc/${idle.proc.pid}/status`, 'utf8');
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;

    // create on etcd: the API server on a private etcd against raw etcd3 puts of the same bytes, both 64 in flight
    const etcd = await startEtcd();
    let createEtcd = 0, putEtcd = 0;
    try {
      const onEtcd = await startApi(mkdtempSync(join(dir, 'etcd-')), 'etcd', [`--etcd-servers=${etcd.endpoint}`]); children.push(onEtcd);
      const raw = new Etcd3({ hosts: etcd.endpoint });
      let k = 0;
      const puts = async (ms: number) => {
        let n = 0;
        const end = performance.now() + ms;
        const t0 = performance.now();
        await Promise.all(Array.from({ length: 64 }, async () => {
          while (performance.now() < end) { await raw.put(`/raw/configmaps/default/bench-${k++}`).value(configMap(n)); n++; }
        }));
        return (n / (performance.now() - t0)) * 1000;
      };
      [createEtcd, putEtcd] = await versus(
        () => rate(onEtcd.port, 64, create(onEtcd.port, '/api/v1/namespaces/default/configmaps'), ROUND_MS),
        () => puts(ROUND_MS));
      raw.close();
      await onEtcd.stop();
      children.splice(children.indexOf(onEtcd), 1);
    } finally {
      await etcd.stop();
    }

    const sqliteStart = await startupMs('sqlite');
    const memoryStart = await startupMs('memory');
    const floor = await nodeFloorMs();

    const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
    lines.push(
      'The API server and each baseline run as separate processes over HTTPS (HTTP/1.1, keep-alive) on loopback, sharing the two CPUs with the load generator.',
      `Rates are the mean of ${ROUNDS} rounds of ${ROUND_MS} ms that alternate server and baseline, after a warm-up round.`,
      '',
      row(['measure', 'API server', 'baseline', 'ratio', 'target']),
      row(['---', '---:', '---:', '---:', '---']),
      row(['create ConfigMap, sqlite, 64 connections (req/s)', fmt(createApi), `${fmt(createBase)} (bare HTTPS + better-sqlite3, group-committed durable inserts)`,
        `${(createApi / createBase).toFixed(2)}x`, `≥ 0.5x: ${verdict(createApi / createBase >= 0.5)}`]),
      row(['the same, against one durable transaction per insert (req/s)', fmt(createApi), `${fmt(createOnePerTxn)} (bare HTTPS + better-sqlite3, one insert per transaction; measured after the rounds above)`,
        `${(createApi / createOnePerTxn).toFixed(2)}x`, '']),
      row(['create ConfigMap, etcd, 64 connections (req/s)', fmt(createEtcd), `${fmt(putEtcd)} (raw etcd3 puts of the same JSON, 64 in flight)`,
        `${(createEtcd / putEtcd).toFixed(2)}x`, `≥ 0.8x: ${verdict(createEtcd / putEtcd >= 0.8)}`]),
      row(['get by name, 64 connections (req/s)', fmt(getApi), `${fmt(getBase)} (bare HTTPS answering the same JSON)`,
        `${(getApi / getBase).toFixed(2)}x`, `≥ 0.7x: ${verdict(getApi / getBase >= 0.7)}`]),
      row(['consistent list of 10,000 objects (no resourceVersion) as the client sees it (ms, median of 10)', fmt(consistentMs),
        `${fmt(bytesMs)} (bare HTTPS sending the same bytes, interleaved)`, `${(consistentMs / bytesMs).toFixed(2)}x the time`, `≤ 1.5x: ${verdict(consistentMs / bytesMs <= 1.5)}`]),
      row(['list of 10,000 objects from the cache: the server\'s CPU time per list (ms, mean of 20)', fmt(serverListMs),
        `${fmt(serialMs)} (JSON.stringify of the same objects, median of 7)`, `${(serverListMs / serialMs).toFixed(2)}x the time`, `≤ 2x: ${verdict(serverListMs / serialMs <= 2)}`]),
      row(['the same list as the client sees it, TLS transfer of ~4 MB and reading included (ms, median of 20)', fmt(listMs),
        `${fmt(serialMs)}`, `${(listMs / serialMs).toFixed(2)}x the time`, '']),
      row(['one change delivered to 1,000 watchers (ms until the last)', fmt(fanoutMs), `${delivered}/${watchers} delivered`, '', delivered === watchers ? 'all delivered' : '**not all delivered**']),
      row(['start-up to ready, sqlite (ms, median of 5, whole process)', fmt(sqliteStart), `${fmt(floor)} (bare node process start and exit)`, '', `≤ 150 ms: ${verdict(sqliteStart <= 150)}`]),
      row(['start-up to ready, memory (ms, median of 5, whole process)', fmt(memoryStart), `${fmt(floor)} (bare node process start and exit)`, '', `≤ 150 ms: ${verdict(memoryStart <= 150)}`]),
      row(['idle resident memory, fresh sqlite server (MB)', fmt(rssMb), '', '', `< 80 MB: ${verdict(rssMb < 80)}`]),
    );
    return lines.join('\n');
  } finally {
    for (const c of children) await c.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
