// Agent benchmark: one agent process with the fake runtime simulating 100 nodes, against the API
// server (memory storage) in its own process. 3,000 Pods bound to those nodes are created by this
// process; measured: Pods per second from the first create to the last Running, the latency from
// create to Running, and the agent's resident memory (idle with 100 nodes, and with 3,000 Pods).
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
    const api = await spawnUntil([join(root, 'src/main/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory', `--data-dir=${join(dir, 'data')}`], /serving on https:\/\/127\.0\.0\.1:(\d+)/);
    children.push(api.proc);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const nodes = client.resource({ group: '', version: 'v1', resource: 'nodes' });

    const t0 = performance.now();
    const agent = await spawnUntil([join(root, 'src/main/agent.js'), `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--fake-nodes=${NODES}`, '--hostname-override=sim',
      `--root-dir=${join(dir, 'agent')}`, `--cert-dir=${join(dir, 'pki')}`, '--enable-server=false', '--healthz-port=0', '--read-only-port=0'], /running \d+ node/);
    children.push(agent.proc);
    for (;;) {
      const list = await nodes.list();
      const ready = list.items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
      if (ready === NODES) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const nodesReadyMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMiB(agent.proc.pid!);

    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'bench' } });
    const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, 'bench');
    const createdAt = new Map<string, number>();
    const runningAt = new Map<string, number>();
    const { metadata } = await pods.list();
    const watchStop = new AbortController();
    const watching = (async () => {
      for await (const e of pods.watch({ resourceVersion: metadata.resourceVersion, signal: watchStop.signal })) {
        const p = e.object as any;
        if (p.status?.phase === 'Running' && !runningAt.has(p.metadata.name)) {
          runningAt.set(p.metadata.name, performance.now());
          if (runningAt.size === PODS) watchStop.abort();
        }
      }
    })();

    const start = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < PODS) {
        const i = next++;
        const name = `p-${i}`;
        createdAt.set(name, performance.now());
        await pods.create({ metadata: { name }, spec: { nodeName: `sim-${i % NODES}`, containers: [{ name: 'c', image: 'busybox' }] } });
      }
    }));
    const createdMs = performance.now() - start;
    const deadline = setTimeout(() => watchStop.abort(), 300_000);
    await watching;
    clearTimeout(deadline);
    if (runningAt.size < PODS) throw new Error(`only ${runningAt.size} of ${PODS} pods reached Running`);
    const lastRunning = Math.max(...runningAt.values());
    const totalMs = lastRunning - start;
    const latencies = [...runningAt].map(([name, t]) => t - createdAt.get(name)!).sort((a, b) => a - b);
    const loadedRss = rssMiB(agent.proc.pid!);
    const peakRss = rssMiB(agent.proc.pid!, 'VmHWM');
    client.close();

    const rate = PODS / (totalMs / 1000);
    return [
      `One agent process (\`cluster-agent --runtime=fake --fake-nodes=${NODES}\`) against the API server (memory storage), each in its own process;`,
      `this process creates ${PODS} Pods bound round-robin to the ${NODES} simulated nodes (${CREATE_CONCURRENCY} creates in flight) and watches them.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| ${NODES} nodes registered and Ready | ${(nodesReadyMs / 1000).toFixed(1)} s after the agent was started |`,
      `| ${PODS} Pods created | ${(createdMs / 1000).toFixed(1)} s (${Math.round(PODS / (createdMs / 1000))} creates/s) |`,
      `| **Pods to Running** (first create to last Running) | **${Math.round(rate)} Pods/s** (${(totalMs / 1000).toFixed(1)} s; aim ≥ 200) |`,
      `| create → Running latency p50 / p99 / max | ${Math.round(pct(latencies, 50))} / ${Math.round(pct(latencies, 99))} / ${Math.round(latencies[latencies.length - 1]!)} ms |`,
      `| agent resident memory, ${NODES} idle nodes | ${idleRss.toFixed(0)} MiB |`,
      `| agent resident memory, ${NODES} nodes and ${PODS} Pods (peak) | ${loadedRss.toFixed(0)} MiB (${peakRss.toFixed(0)} MiB) |`,
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
