// Agent benchmark: one agent process with the fake runtime simulating 100 nodes, against the API
// server (memory storage) in its own process. 3,000 Pods bound to those nodes wait when the agent
// starts: measured, the rate at which they reach Running (the agent's own throughput, registration
// included). Then 1,000 more are created while it runs: create → Running latency. And the agent's
// resident memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clientFromFile } from '../src/client/rest-client.js';

const root = new URL('..', import.meta.url).pathname; // dist/
const NODES = 100;
const PODS = 3000;
const CREATE_CONCURRENCY = 64;
const EXTRA = 1000;

/** BENCH_PROFILE=<dir> writes CPU profiles of the child processes there */
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

function spawnUntil(args: string[], ready: RegExp): Promise<{ proc: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...profile, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        proc.stdout!.off('data', onData);
        proc.stderr!.off('data', onData);
        proc.stdout!.resume();
        proc.stderr!.resume();
        resolve({ proc, match: m });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out.slice(-2000)}`)));
  });
}

const rssMiB = (pid: number, field = 'VmRSS') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const stop = (p: ChildProcess) => new Promise<void>((r) => {
  if (p.exitCode !== null) return r();
  p.once('exit', () => r());
  p.kill('SIGTERM');
  setTimeout(() => p.kill('SIGKILL'), 10_000).unref();
});
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function agentBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-'));
  const children: ChildProcess[] = [];
  try {
    const api = await spawnUntil([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], /serving on https:\/\/127\.0\.0\.1:(\d+)/);
    children.push(api.proc);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const nodes = client.resource({ group: '', version: 'v1', resource: 'nodes' });
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'bench' } });
    // the ServiceAccount admission plugin needs the namespace's default account (no controller manager runs here)
    await client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'bench').create({ metadata: { name: 'default' } }).catch(() => {});
    const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, 'bench');
    const createdAt = new Map<string, number>();
    const runningAt = new Map<string, number>();

    const createPods = async (from: number, count: number) => {
      let next = from;
      await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
        while (next < from + count) {
          const i = next++;
          const name = `p-${i}`;
          createdAt.set(name, performance.now());
          await pods.create({ metadata: { name }, spec: { nodeName: `sim-${i % NODES}`, containers: [{ name: 'c', image: 'busybox' }] } });
        }
      }));
    };
    /** pods p-<from> to p-<from+count-1> reach Running */
    const watchUntilRunning = async (from: number, total: number) => {
      const wanted = (name: string) => Number(name.slice(2)) >= from && Number(name.slice(2)) < from + total;
      const { metadata } = await pods.list({ limit: 1 });
      const stop = new AbortController();
      const deadline = setTimeout(() => stop.abort(), 300_000);
      const seen = (p: any) => {
        if (p.status?.phase === 'Running' && wanted(p.metadata.name) && !runningAt.has(p.metadata.name)) runningAt.set(p.metadata.name, performance.now());
        if (runningAt.size >= total) stop.abort();
      };
      for (const p of (await pods.list()).items) seen(p);
      if (runningAt.size < total) for await (const e of pods.watch({ resourceVersion: metadata.resourceVersion, signal: stop.signal })) seen(e.object);
      clearTimeout(deadline);
      if (runningAt.size < total) throw new Error(`only ${runningAt.size} of ${total} pods reached Running`);
    };

    // 1. a backlog: every Pod exists before the agent starts
    let t = performance.now();
    await createPods(0, PODS);
    const createMs = performance.now() - t;

    t = performance.now();
    const agent = await spawnUntil([join(root, 'bin/agent.js'), `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--fake-nodes=${NODES}`, '--hostname-override=sim',
      `--root-dir=${join(dir, 'agent')}`, `--cert-dir=${join(dir, 'pki')}`, '--enable-server=false', '--healthz-port=0', '--read-only-port=0'], /running \d+ node/);
    children.push(agent.proc);
    await watchUntilRunning(0, PODS);
    const backlogMs = Math.max(...runningAt.values()) - t;
    const list = await nodes.list();
    const ready = list.items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
    if (ready !== NODES) throw new Error(`${ready} of ${NODES} nodes Ready`);
    const loadedRss = rssMiB(agent.proc.pid!);

    // 2. steady state: Pods created while the agent runs
    runningAt.clear();
    const start = performance.now();
    const watching = watchUntilRunning(PODS, EXTRA);
    await createPods(PODS, EXTRA);
    const steadyCreateMs = performance.now() - start;
    await watching;
    const steadyMs = Math.max(...runningAt.values()) - start;
    const latencies = [...runningAt].map(([name, at]) => at - createdAt.get(name)!).sort((a, b) => a - b);
    const peakRss = rssMiB(agent.proc.pid!, 'VmHWM');
    client.close();

    return [
      `One agent process (\`cluster-agent --runtime=fake --fake-nodes=${NODES}\`) and the API server (memory storage), each in its own process;`,
      `this process creates the Pods (bound round-robin to the ${NODES} simulated nodes, ${CREATE_CONCURRENCY} creates in flight) and watches them.`,
      `Every Pod costs the agent one status write and two Events (Created, Started), as the reference agent's would.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| **backlog: ${PODS} Pods waiting, agent started → all ${NODES} nodes registered and every Pod Running** | **${Math.round(PODS / (backlogMs / 1000))} Pods/s** (${(backlogMs / 1000).toFixed(1)} s; aim ≥ 200) |`,
      `| the same ${PODS} Pods created beforehand (API server alone) | ${Math.round(PODS / (createMs / 1000))} creates/s |`,
      `| steady state: ${EXTRA} more Pods created while the agent runs, first create → last Running | ${Math.round(EXTRA / (steadyMs / 1000))} Pods/s (creates alone: ${Math.round(EXTRA / (steadyCreateMs / 1000))}/s) |`,
      `| steady state: create → Running latency p50 / p99 / max | ${Math.round(pct(latencies, 50))} / ${Math.round(pct(latencies, 99))} / ${Math.round(latencies[latencies.length - 1]!)} ms |`,
      `| agent resident memory with ${NODES} nodes and ${PODS} Pods / peak with ${PODS + EXTRA} | ${loadedRss.toFixed(0)} MiB / ${peakRss.toFixed(0)} MiB |`,
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
