// Overload: many clients listing thousands of objects while thousands of watches are open, against the API server
// with its default limits (API priority and fairness, 600 seats). Measured: what the excess gets (429), how fast
// /livez and /readyz answer throughout, the server's resident memory, and whether it serves normally afterwards,
// against the same server's idle figures in the same run. The clients run in a process of their own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiserver, root, row, fmt, start, type Child } from './support.js';
import type { LoadPlan, LoadResult } from './overload-load.js';

export interface OverloadOptions {
  clients: number;
  users: number;
  objects: number;
  watches: number;
  durationMs: number;
  /** bytes of data per object */
  objectBytes: number;
  /** more server flags (smaller limits for a short run) */
  serverFlags?: string[];
}

export interface OverloadResult {
  load: LoadResult;
  probes: { count: number; failed: number; failures: Record<string, number>; overOneSecond: number; maxMs: number; idleMaxMs: number; slow: Array<[number, number]> };
  rss: { idleMiB: number; maxMiB: number; afterMiB: number };
  /** the server's CPU time while the load ran, its wall time, and the machine's load average (1 min) before and after */
  cpu: { serverSeconds: number; wallSeconds: number; loadBefore: number; loadAfter: number };
  after: { listStatus: number; listItems: number; listMs: number; idleListMs: number; createStatus: number };
}

/** CPU time (user and system) a process has used, in seconds; the kernel counts in ticks of 10 ms */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

function call(agent: Agent, port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string, timeoutMs = 60_000) {
  return new Promise<{ status: number; text: string; ms: number }>((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, method, path, agent, timeout: timeoutMs,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) } }, res => {
      const chunks: Buffer[] = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** probes /livez and /readyz in turn until stopped; each answer must come within a second */
function probe(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, rejectUnauthorized: false });
  const times: number[] = [];
  /** when (ms after the probing began) each probe slower than 500 ms was sent, and how long it took */
  const slow: Array<[number, number]> = [];
  const began = performance.now();
  let failed = 0, stopped = false;
  const failures: Record<string, number> = {};
  const done = (async () => {
    while (!stopped) {
      for (const path of ['/livez', '/readyz']) {
        try {
          const r = await call(agent, port, 'GET', path, {}, undefined, 5000);
          times.push(r.ms);
          if (r.ms > 500) slow.push([Math.round(performance.now() - r.ms - began), Math.round(r.ms)]);
          if (r.status !== 200) failed++;
        } catch (e) {
          failed++; times.push(5000);
          const kind = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
          failures[kind] = (failures[kind] ?? 0) + 1;
        }
      }
      await new Promise(r => setTimeout(r, 100));
    }
  })();
  return async () => { stopped = true; await done; agent.destroy(); return { times, failed, slow, failures }; };
}

export async function runOverload(o: OverloadOptions): Promise<OverloadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-overload-'));
  let server: Child | undefined;
  try {
    writeFileSync(join(dir, 'tokens.csv'), Array.from({ length: o.users }, (_, i) => `token-${i},user-${i},uid-${i}`).join('\n') + '\n');
    server = await start([apiserver, '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=sqlite', `--data-dir=${join(dir, 'data')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`, '--controller-manager=false', '--scheduler=false', ...(o.serverFlags ?? [])],
    /serving on https:\/\/127\.0\.0\.1:(\d+)/, dir);
    const port = server.port, pid = server.proc.pid!;
    const agent = new Agent({ keepAlive: true, maxSockets: 32, rejectUnauthorized: false });
    const admin = { authorization: 'Bearer token-0' };
    const ns = 'overload';
    await call(agent, port, 'POST', '/api/v1/namespaces', admin, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    const data = { key: 'v'.repeat(o.objectBytes) };
    for (let i = 0; i < o.objects; i += 32) {
      await Promise.all(Array.from({ length: Math.min(32, o.objects - i) }, async (_, j) => {
        const r = await call(agent, port, 'POST', `/api/v1/namespaces/${ns}/configmaps`, admin,
          JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}` }, data }));
        if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      }));
    }
    const listPath = `/api/v1/namespaces/${ns}/configmaps`;
    const idleList: number[] = [];
    for (let i = 0; i < 5; i++) idleList.push((await call(agent, port, 'GET', listPath, admin)).ms);
    const idleProbe = probe(port);
    await new Promise(r => setTimeout(r, 1000));
    const idle = await idleProbe();
    const idleMiB = rssMiB(pid);

    const loadBefore = loadavg()[0], cpuBefore = cpuSeconds(pid), wallBefore = performance.now();
    const stopProbe = probe(port);
    let maxMiB = idleMiB;
    const sampler = setInterval(() => { maxMiB = Math.max(maxMiB, rssMiB(pid)); }, 100);
    const plan: LoadPlan = { port, namespace: ns, clients: o.clients, users: o.users, watches: o.watches, durationMs: o.durationMs };
    const load = await new Promise<LoadResult>((resolve, reject) => {
      const child = spawn(process.execPath, [join(root, 'bench/overload-load.js'), 'run', JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'pipe'] });
      // the clients stand for other machines: on this one they take the CPU only when the server does not want it
      setPriority(child.pid!, 19);
      let out = '', err = '';
      child.stdout.on('data', d => { out += d; });
      child.stderr.on('data', d => { err += d; });
      child.once('exit', code => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult) : reject(new Error(`load exited with ${code}: ${err}`))));
    });
    clearInterval(sampler);
    const cpu = { serverSeconds: cpuSeconds(pid) - cpuBefore, wallSeconds: (performance.now() - wallBefore) / 1000, loadBefore, loadAfter: loadavg()[0] };
    const probes = await stopProbe();
    maxMiB = Math.max(maxMiB, rssMiB(pid));

    // afterwards: the same list and a write, as when idle
    const afterList = await call(agent, port, 'GET', listPath, admin);
    const afterListMs: number[] = [afterList.ms];
    for (let i = 0; i < 4; i++) afterListMs.push((await call(agent, port, 'GET', listPath, admin)).ms);
    const created = await call(agent, port, 'POST', `/api/v1/namespaces/${ns}/configmaps`, admin,
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } }));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    agent.destroy();
    return {
      load,
      probes: {
        count: probes.times.length, failed: probes.failed, failures: probes.failures, overOneSecond: probes.times.filter(t => t > 1000).length,
        maxMs: Math.max(...probes.times), idleMaxMs: Math.max(...idle.times), slow: probes.slow,
      },
      rss: { idleMiB, maxMiB, afterMiB: rssMiB(pid) }, cpu,
      after: {
        listStatus: afterList.status, listItems: afterList.status === 200 ? (JSON.parse(afterList.text).items as unknown[]).length : 0,
        listMs: median(afterListMs), idleListMs: median(idleList), createStatus: created.status,
      },
    };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function overloadBench(): Promise<string> {
  const o: OverloadOptions = { clients: 2000, users: 100, objects: 5000, watches: 5000, durationMs: 30_000, objectBytes: 200 };
  const r = await runOverload(o);
  const total = Object.values(r.load.lists).reduce((a, b) => a + b, 0);
  const statuses = Object.entries(r.load.lists).map(([s, n]) => `${s}: ${n.toLocaleString('en-US')}`).join(', ');
  return [
    `${o.clients.toLocaleString('en-US')} list clients (${o.users} users, bearer tokens, each on its own HTTP/1.1 keep-alive connection, waiting out Retry-After on 429) `
      + `repeatedly list ${o.objects.toLocaleString('en-US')} ConfigMaps (${o.objectBytes} bytes of data each, no resourceVersion: consistent lists, which the watch cache serves on SQLite once it has seen the store's revision) for ${o.durationMs / 1000} s, `
      + `while ${o.watches.toLocaleString('en-US')} watches are open on HTTP/2 connections (100 streams each). The server runs on SQLite with its default limits `
      + '(priority and fairness on, 400 + 200 seats; these users fall in `global-default`). The clients run in a process of their own '
      + '(at the lowest scheduling priority, standing for other machines); '
      + 'a third process probes `/livez` and `/readyz` in turn every 100 ms and samples the server\'s resident memory every 100 ms. '
      + 'A client whose connection fails (counted as a connection error, by code) waits a second and connects again.',
    '',
    '| measure | under overload | idle (same server, same run) | target |',
    '| --- | ---: | ---: | --- |',
    row(['list responses', `${total.toLocaleString('en-US')} (${statuses}; ${r.load.listErrors} connection errors${r.load.listErrors ? `: ${JSON.stringify(r.load.listErrorKinds)}` : ''})`, '', 'excess answered 429']),
    row(['list bodies received (MiB)', fmt(r.load.listBytes / 2 ** 20), '', '']),
    row(['watches open', `${r.load.watchesOpened.toLocaleString('en-US')} of ${o.watches.toLocaleString('en-US')}`
      + `${Object.keys(r.load.watchRefused).length ? ` (refused: ${JSON.stringify(r.load.watchRefused)})` : ''}`, '', 'all']),
    row(['probes answered (of /livez and /readyz)', `${r.probes.count - r.probes.failed} of ${r.probes.count}${r.probes.failed ? ` (failed: ${JSON.stringify(r.probes.failures)})` : ''}`, '', 'all']),
    row(['slowest probe (ms)', fmt(r.probes.maxMs), fmt(r.probes.idleMaxMs), `< 1000: ${r.probes.maxMs < 1000 && r.probes.failed === 0 ? 'met' : 'NOT met'}`]),
    row(['probes over 1 s', r.probes.overOneSecond, '', '0']),
    row(['server resident memory, peak (MiB)', fmt(r.rss.maxMiB), fmt(r.rss.idleMiB), `< 1024: ${r.rss.maxMiB < 1024 ? 'met' : 'NOT met'}`]),
    row(['afterwards: the same list (status, items, median ms of 5)', `${r.after.listStatus}, ${r.after.listItems}, ${fmt(r.after.listMs)}`,
      `200, ${o.objects}, ${fmt(r.after.idleListMs)}`, `serves normally: ${r.after.listStatus === 200 && r.after.listItems === o.objects && r.after.createStatus === 201 ? 'met' : 'NOT met'}`]),
    row(['afterwards: a create (status)', r.after.createStatus, '201', '']),
    row(['server CPU while loaded (s of CPU per s of wall time)', `${fmt(r.cpu.serverSeconds / r.cpu.wallSeconds)} (${fmt(r.cpu.serverSeconds)} s in ${fmt(r.cpu.wallSeconds)} s)`, '', '']),
    row(['machine load average, 1 min (before, after; 2 CPUs shared with other work)', `${r.cpu.loadBefore.toFixed(1)}, ${r.cpu.loadAfter.toFixed(1)}`, '', '']),
    '',
    `Probes slower than 500 ms (ms after probing began, ms taken): ${r.probes.slow.length ? r.probes.slow.map(([at, ms]) => `${at}: ${ms}`).join(', ') : 'none'}.`,
  ].join('\n');
}
