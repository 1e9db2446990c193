// Authorization benchmark: get by name as a token user with RBAC holding 1,000 roles and 1,000 bindings,
// against the same server under AlwaysAllow, measured in the same run (target: at least 0.8x).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = new URL('..', import.meta.url).pathname;
const apiserver = join(root, 'bin/apiserver.js');
const ROUND_MS = 1500;
const ROUNDS = 3;
const CONCURRENCY = 32;
const OBJECTS = 1000;

interface Server { proc: ChildProcess; port: number; admin: Agent; stop(): Promise<void> }

function startServer(dir: string, mode: string, tokens: string): Promise<Server> {
  const data = join(dir, `data-${mode}`);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [apiserver, '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory', `--data-dir=${data}`,
      `--authorization-mode=${mode}`, `--token-auth-file=${tokens}`, '--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (!m) return;
      const admin = new Agent({ keepAlive: true, maxSockets: 16, cert: readFileSync(join(data, 'pki', 'admin.crt')), key: readFileSync(join(data, 'pki', 'admin.key')), rejectUnauthorized: false });
      resolve({ proc, port: Number(m[1]), admin, stop: () => new Promise(r => { admin.destroy(); proc.once('exit', () => r()); proc.kill('SIGKILL'); }) });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', code => reject(new Error(`apiserver exited with ${code}: ${out}`)));
  });
}

function call(agent: Agent, port: number, method: string, path: string, body?: unknown, token?: string): Promise<number> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, rejectUnauthorized: false, headers: {
      ...(text ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } : {}),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    } }, res => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
    req.on('error', reject);
    req.end(text);
  });
}

async function populate(s: Server, rbacApi: string) {
  const post = async (path: string, body: unknown) => {
    const code = await call(s.admin, s.port, 'POST', path, body);
    if (code !== 201 && code !== 409) throw new Error(`POST ${path}: ${code}`);
  };
  for (let n = 0; n < 10; n++) await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${n}` } });
  await post('/api/v1/namespaces/ns-0/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { k: 'v'.repeat(200) } });
  const batch: Promise<void>[] = [];
  for (let i = 0; i < OBJECTS; i++) {
    const ns = `ns-${i % 10}`;
    batch.push(post(`${rbacApi}/namespaces/${ns}/roles`, { kind: 'Role', metadata: { name: `role-${i}` },
      rules: [{ apiGroups: [''], resources: ['configmaps', 'pods'], resourceNames: [`obj-${i}`], verbs: ['get', 'list'] }] }));
    batch.push(post(`${rbacApi}/namespaces/${ns}/rolebindings`, { kind: 'RoleBinding', metadata: { name: `binding-${i}` },
      roleRef: { apiGroup: rbacApi.split('/')[2], kind: 'Role', name: `role-${i}` },
      subjects: [{ kind: 'User', name: `user-${i}` }, { kind: 'Group', name: `group-${i % 50}` }] }));
    if (batch.length >= 32) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  // the measured user: one binding among the thousand lets it read configmaps in ns-0
  await post(`${rbacApi}/namespaces/ns-0/roles`, { kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
  await post(`${rbacApi}/namespaces/ns-0/rolebindings`, { kind: 'RoleBinding', metadata: { name: 'reader' },
    roleRef: { apiGroup: rbacApi.split('/')[2], kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'bench' }] });
}

/** CPU time the process has used, ms (Linux: /proc/<pid>/stat utime + stime, in clock ticks of 10 ms) */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** requests per second, and the server's CPU time per request (µs), which load on the machine disturbs less */
async function rate(server: Server, token: string) {
  const port = server.port;
  const cpu0 = cpuMs(server.proc.pid!);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, rejectUnauthorized: false });
  let n = 0, bad = 0;
  const t0 = performance.now(), end = t0 + ROUND_MS;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) { if (await call(agent, port, 'GET', '/api/v1/namespaces/ns-0/configmaps/target', undefined, token) !== 200) bad++; n++; }
  }));
  agent.destroy();
  if (bad) throw new Error(`${bad} of ${n} gets failed`);
  return { rate: (n / (performance.now() - t0)) * 1000, cpuUs: ((cpuMs(server.proc.pid!) - cpu0) * 1000) / n };
}

export async function authBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-auth-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'bench-token,bench,1\n');
  const servers: Server[] = [];
  try {
    const rbacServer = await startServer(dir, 'Node,RBAC', tokens); servers.push(rbacServer);
    const allowServer = await startServer(dir, 'AlwaysAllow', tokens); servers.push(allowServer);
    const rbacApi = '/apis/rbac.authorization.cluster.io/v1';
    await Promise.all([populate(rbacServer, rbacApi), populate(allowServer, rbacApi)]);
    const r = { rate: 0, cpuUs: 0 }, a = { rate: 0, cpuUs: 0 };
    const add = (sum: typeof r, x: typeof r) => { sum.rate += x.rate / ROUNDS; sum.cpuUs += x.cpuUs / ROUNDS; };
    await rate(rbacServer, 'bench-token'); await rate(allowServer, 'bench-token'); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2) { add(a, await rate(allowServer, 'bench-token')); add(r, await rate(rbacServer, 'bench-token')); }
      else { add(r, await rate(rbacServer, 'bench-token')); add(a, await rate(allowServer, 'bench-token')); }
    }
    const rbacRate = r.rate, allowRate = a.rate, ratio = rbacRate / allowRate;
    const fmt = (n: number) => n.toFixed(0);
    return [
      `Two API servers (memory storage) as separate processes, each holding ${OBJECTS} Roles and ${OBJECTS} RoleBindings (plus the default policy under RBAC);`,
      `a static-token user reads one ConfigMap by name over HTTPS (HTTP/1.1, keep-alive, ${CONCURRENCY} connections).`,
      `Rates are the mean of ${ROUNDS} rounds of ${ROUND_MS} ms alternating the servers, after a warm-up round.`,
      '',
      '| measure | RBAC (Node,RBAC) | AlwaysAllow | ratio | target |',
      '| --- | ---: | ---: | ---: | --- |',
      `| get by name (req/s) | ${fmt(rbacRate)} | ${fmt(allowRate)} | ${ratio.toFixed(2)}x | ≥ 0.8x: ${ratio >= 0.8 ? 'met' : '**missed**'} |`,
      `| server CPU per get (µs) | ${fmt(r.cpuUs)} | ${fmt(a.cpuUs)} | ${(a.cpuUs / r.cpuUs).toFixed(2)}x the throughput it allows | |`,
      '',
      `Load average when measured: ${loadavg().map(l => l.toFixed(1)).join(', ')} on ${availableParallelism()} CPUs (the CPU row is the steadier one when the machine is busy).`,
    ].join('\n');
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) authBench().then(console.log, e => { console.error(e); process.exitCode = 1; });
