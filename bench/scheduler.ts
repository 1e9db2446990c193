// Scheduler benchmark: 1,000 nodes (Node objects with allocatable resources and a Ready condition,
// no agent behind them, as the reference's scheduler_perf does), pods with small requests, measured as
// pods bound per second against the same run's baseline: the rate at which the same API server
// creates those pods alone.
// 1. backlog: the pods exist before a `cluster-scheduler` process starts; from its first scheduling
//    (informers synced) to the last binding.
// 2. in-process: the scheduler inside `cluster-apiserver` (the default); pods created at full speed
//    while it schedules, from the first create to the last binding, and create → bound latency.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clientFromFile, type Client } from '../src/client/rest-client.js';
import { nowTimestamp } from '../src/api/meta.js';
import { fmt, root } from './support.js';

export const NODES = 1000;
export const PODS = 3000;
const CONCURRENCY = 64;

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const nodesRef = { group: '', version: 'v1', resource: 'nodes' };

interface Proc { proc: ChildProcess; match: RegExpExecArray; output(): string }

/** BENCH_PROFILE=<dir> writes CPU profiles of the child processes there */
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

export function spawnUntil(args: string[], ready: RegExp): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...profile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let done = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m && !done) {
        done = true;
        resolve({ proc, match: m, output: () => out });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => { if (!done) reject(new Error(`${args.join(' ')} exited with ${code}: ${out.slice(-2000)}`)); });
  });
}

export const stop = (p: ChildProcess) => new Promise<void>((r) => {
  if (p.exitCode !== null || p.signalCode !== null) return r();
  p.once('exit', () => r());
  p.kill('SIGTERM');
  setTimeout(() => p.kill('SIGKILL'), 10_000).unref();
});

export const rssMiB = (pid: number, field = 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function inParallel(count: number, op: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) await op(next++);
  }));
}

async function startServer(dir: string, extra: string[]) {
  const api = await spawnUntil([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory',
    `--data-dir=${join(dir, 'data')}`, '--controllers=*,-nodelifecycle', ...extra], /serving on https:\/\/127\.0\.0\.1:(\d+)/);
  const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
  const client = await clientFromFile(kubeconfig, { qps: 0 });
  await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'bench' } });
  await client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'bench').create({ metadata: { name: 'default' } }).catch(() => {});
  return { api, kubeconfig, client };
}

/**
 * NODES Ready nodes of 32 CPUs, their not-ready taint (set at create) lifted here: no agent renews their Leases, so
 * the servers run without the node lifecycle controller, which would find them unreachable
 */
async function addNodes(client: Client) {
  const nodes = client.resource(nodesRef);
  const allocatable = { cpu: '32', memory: '128Gi', pods: '110' };
  await inParallel(NODES, async (i) => {
    const name = `node-${i}`;
    await nodes.create({ metadata: { name, labels: { zone: `zone-${i % 3}` } } });
    const now = nowTimestamp();
    await nodes.status.patch(name, { status: { capacity: allocatable, allocatable, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] } }, 'merge');
    await nodes.patch(name, { spec: { taints: null } }, 'merge');
  });
  for (;;) {
    const tainted = (await nodes.list()).items.filter((n: any) => (n.spec?.taints ?? []).length).length;
    if (!tainted) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const pod = (i: number) => ({
  metadata: { name: `p-${i}` },
  spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
});

/** resolves with the time each pod was first seen bound, once all `count` are */
export async function watchBound(client: Client, count: number): Promise<{ boundAt: Map<string, number>; done: Promise<void> }> {
  const pods = client.resource(podsRef, 'bench');
  const boundAt = new Map<string, number>();
  const { metadata } = await pods.list({ limit: 1 });
  const stopper = new AbortController();
  const deadline = setTimeout(() => stopper.abort(), 600_000);
  const done = (async () => {
    for await (const e of pods.watch({ resourceVersion: metadata.resourceVersion, signal: stopper.signal })) {
      const p = e.object as any;
      if (p.spec?.nodeName && !boundAt.has(p.metadata.name)) boundAt.set(p.metadata.name, performance.now());
      if (boundAt.size >= count) break;
    }
    clearTimeout(deadline);
    stopper.abort();
    if (boundAt.size < count) throw new Error(`only ${boundAt.size} of ${count} pods were bound`);
  })();
  return { boundAt, done };
}

/** what a backlog run measured: the server's creates/s (the baseline), the scheduler's bindings/s and more */
export interface BacklogResult { createRate: number; bindRate: number; bindSeconds: number; perNode: number[]; schedulerRss: number }

/**
 * The backlog run: an API server (no scheduler inside) with NODES Node objects; the pods are created by the server
 * alone (the baseline), then a `cluster-scheduler` process starts and binds them. Stops what it started.
 */
export async function backlogRun(dir: string): Promise<BacklogResult> {
  const children: ChildProcess[] = [];
  try {
    const one = await startServer(dir, ['--scheduler=false']);
    children.push(one.api.proc);
    await addNodes(one.client);
    let t = performance.now();
    await inParallel(PODS, (i) => one.client.resource(podsRef, 'bench').create(pod(i)));
    const createRate = PODS / ((performance.now() - t) / 1000);
    const backlog = await watchBound(one.client, PODS);
    const scheduler = await spawnUntil([join(root, 'bin/scheduler.js'), `--kubeconfig=${one.kubeconfig}`, '--kube-api-qps=0', '--leader-elect=false'],
      /scheduler: scheduling pods of/);
    children.push(scheduler.proc);
    t = performance.now();
    await backlog.done;
    const bindSeconds = (Math.max(...backlog.boundAt.values()) - t) / 1000;
    const schedulerRss = rssMiB(scheduler.proc.pid!);
    const spread = new Map<string, number>();
    for (const p of (await one.client.resource(podsRef, 'bench').listAll()).items) spread.set(p.spec.nodeName, (spread.get(p.spec.nodeName) ?? 0) + 1);
    one.client.close();
    return { createRate, bindRate: PODS / bindSeconds, bindSeconds, perNode: [...spread.values()], schedulerRss };
  } finally {
    for (const c of children.reverse()) await stop(c);
  }
}

export async function schedulerBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'scheduler-bench-'));
  const children: ChildProcess[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    // 1. backlog: the API server alone creates the pods (the baseline), then a cluster-scheduler process binds them
    const { createRate, bindRate: backlogRate, perNode, schedulerRss } = await backlogRun(join(dir, 'one'));

    // 2. in-process: pods created while the scheduler inside the API server binds them
    const two = await startServer(join(dir, 'two'), []);
    children.push(two.api.proc);
    await addNodes(two.client);
    const steady = await watchBound(two.client, PODS);
    const createdAt = new Map<string, number>();
    const t = performance.now();
    await inParallel(PODS, async (i) => {
      createdAt.set(`p-${i}`, performance.now());
      await two.client.resource(podsRef, 'bench').create(pod(i));
    });
    const steadyCreateRate = PODS / ((performance.now() - t) / 1000);
    await steady.done;
    const steadyRate = PODS / ((Math.max(...steady.boundAt.values()) - t) / 1000);
    const latencies = [...steady.boundAt].map(([name, at]) => at - createdAt.get(name)!).sort((a, b) => a - b);
    two.client.close();

    return [
      `${NODES} nodes (Node objects of 32 CPUs with a Ready condition and no agent, in 3 zones, as the reference's scheduler_perf uses;`,
      'the node lifecycle controller is off, since no agent renews their Leases),',
      `${PODS} pods requesting 100m CPU and 64Mi, the default profile (every filter and score plugin), the API server on the memory store,`,
      `each in its own process; this process creates the pods (${CONCURRENCY} in flight) and watches them. Every binding is a \`pods/binding\``,
      'request and a Scheduled event, as the reference\'s are. Baseline: the rate at which the same API server creates those pods, with no scheduler.',
      '',
      '| measure | scheduler | baseline | ratio | target |',
      '| --- | ---: | ---: | ---: | --- |',
      `| **backlog: pods bound/s, \`cluster-scheduler\` process (synced → last binding)** | **${fmt(backlogRate)}** | ${fmt(createRate)} pod creates/s | ${(backlogRate / createRate).toFixed(2)}x | ≥ 300/s: ${backlogRate >= 300 ? 'met' : 'not met'} |`,
      `| in-process scheduler: pods bound/s while they are created (first create → last binding) | ${fmt(steadyRate)} | ${fmt(steadyCreateRate)} pod creates/s in the same phase | ${(steadyRate / steadyCreateRate).toFixed(2)}x | ≥ 300/s: ${steadyRate >= 300 ? 'met' : 'not met'} |`,
      `| in-process: create → bound latency p50 / p99 | ${Math.round(pct(latencies, 50))} / ${Math.round(pct(latencies, 99))} ms | | | |`,
      `| backlog: pods per node (min / max over ${perNode.length} nodes used) | ${Math.min(...perNode)} / ${Math.max(...perNode)} | | | |`,
      `| \`cluster-scheduler\` peak resident memory | ${schedulerRss.toFixed(0)} MiB | | | |`,
      '',
      `The machine's load average (1 minute) was ${loadBefore.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end: other work shares the CPUs, which moves`,
      'the absolute rates of both columns; the ratio compares them within the run.',
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
