// What the benchmarks share: servers started as child processes, HTTPS requests on keep-alive connections,
// request rates measured in rounds that alternate a server with its baseline, and table formatting.
import { spawn, type ChildProcess } from 'node:child_process';
import { request, Agent } from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const root = new URL('..', import.meta.url).pathname;   // dist/
export const apiserver = join(root, 'bin/apiserver.js');
const baseline = join(root, 'bench/servers/baseline.js');
export const ROUND_MS = 1500;
export const ROUNDS = 3;

export interface Child { proc: ChildProcess; port: number; dir: string; stop(): Promise<void> }

export function start(args: string[], ready: RegExp, dir: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve({
        proc, port: Number(m[1]), dir,
        stop: () => new Promise(r => { proc.once('exit', () => r()); proc.kill('SIGKILL'); }),
      });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', code => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

/** `nodeFlags` go to Node itself (`--cpu-prof`, ...) */
export const startApi = (dir: string, backend: 'sqlite' | 'memory' | 'etcd', extra: string[] = [], nodeFlags: string[] = []) =>
  start([...nodeFlags, apiserver, '--secure-port=0', '--bind-address=127.0.0.1', `--storage-backend=${backend}`, `--data-dir=${join(dir, 'data')}`, ...extra,
    '--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0',
    // the API server alone, as the reference's kube-apiserver runs: the controllers, scheduler and metrics server are
    // its clients, with suites of their own
    '--controller-manager=false', '--scheduler=false', '--metrics-server=false'], /serving on https:\/\/127\.0\.0\.1:(\d+)/, dir);
export const startBaseline = (dir: string, mode: 'json' | 'sqlite' | 'sqlite-group' | 'bytes', file?: string) =>
  start([baseline, mode, dir, ...(file ? [file] : [])], /listening (\d+)/, dir);

export function call(agent: Agent, port: number, method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, rejectUnauthorized: false,
      headers: body ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) } : {} }, res => {
      const chunks: Buffer[] = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** requests per second at a concurrency, in rounds alternating with the baseline; on the connections of `reuse`
 *  when given (kept open: a round then pays no TLS handshakes), else on new ones */
export async function rate(port: number, concurrency: number, op: (agent: Agent, port: number, i: number) => Promise<unknown>, ms: number,
  reuse?: Agent) {
  const agent = reuse ?? new Agent({ keepAlive: true, maxSockets: concurrency });
  let n = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => { while (performance.now() < end) await op(agent, port, n++); }));
  const elapsed = performance.now() - t0;
  if (!reuse) agent.destroy();
  return (n / elapsed) * 1000;
}

export async function versus(a: () => Promise<number>, b: () => Promise<number>) {
  let ta = 0, tb = 0;
  await a(); await b();   // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2) { tb += await b(); ta += await a(); } else { ta += await a(); tb += await b(); }
  }
  return [ta / ROUNDS, tb / ROUNDS];
}

export async function expectOk(p: Promise<{ status: number; text: string }>, code: number) {
  const r = await p;
  if (r.status !== code) throw new Error(`expected ${code}, got ${r.status}: ${r.text.slice(0, 300)}`);
  return r;
}

export const fmt = (n: number) => n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
export const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

