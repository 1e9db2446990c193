// Deployment benchmark: the control plane at work, in two runs, each with its baseline of the same run (the rate at which
// the same API server creates pods for one client, 64 in flight, with nobody scheduling them).
// 1. Scheduling throughput on 1,000 nodes: the scheduler bench's backlog run (bench/scheduler.ts): 1,000 Node objects with
//    no agent behind them (as the reference's scheduler_perf), 3,000 pods created first, then a `cluster-scheduler`
//    process binds them; pods bound per second from its start (informers synced) to the last binding.
// 2. A Deployment of 3,000 replicas from create to every replica available: the API server (memory storage, its
//    controller manager and scheduler in-process as by default) and one agent process simulating 100 nodes with the
//    fake runtime (ReplicaSet, 3,000 pod creates by the controller, 3,000 bindings, 3,000 status writes by the agent).
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { clientFromFile, type Client } from '../src/client/rest-client.js';
import { fmt, root } from './support.js';
import { backlogRun, inParallel, NODES as SCHEDULER_NODES, PODS as SCHEDULER_PODS, spawnUntil, stop } from './scheduler.js';

const NODES = 100;
const REPLICAS = 3000;
const TIMEOUT_MS = 20 * 60_000;

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const nodesRef = { group: '', version: 'v1', resource: 'nodes' };
const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };

/** resolves once `done` holds for the object (read, then watched), or rejects at the deadline */
async function waitUntil(client: Client, ref: typeof deploymentsRef, namespace: string, name: string, done: (obj: any) => boolean) {
  const deadline = Date.now() + TIMEOUT_MS;
  const resource = client.resource(ref, namespace);
  for (;;) {
    const current = await resource.get(name).catch(() => undefined);
    if (current && done(current)) return current;
    if (Date.now() > deadline) throw new Error(`${name}: not done within ${TIMEOUT_MS / 60_000} min: ${JSON.stringify(current?.status)}`);
    if (!current) { await new Promise((r) => setTimeout(r, 200)); continue; }
    const stopper = new AbortController();
    const timer = setTimeout(() => stopper.abort(), 30_000);
    try {
      for await (const e of resource.watch({ fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata.resourceVersion, signal: stopper.signal })) {
        if (done(e.object)) return e.object;
      }
    } catch { /* a watch that ended early: read again */ } finally {
      clearTimeout(timer);
    }
  }
}

/** in pages, so that a busy server answers each within the client's timeout */
const listPods = async (client: Client, namespace: string) => (await client.resource(podsRef, namespace).listAll()).items;
const running = async (client: Client, namespace: string) => (await listPods(client, namespace)).filter((p: any) => p.status?.phase === 'Running').length;

export async function deploymentBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'deployment-bench-'));
  const children: ChildProcess[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    // 1. scheduling throughput on 1,000 nodes
    const scheduling = await backlogRun(join(dir, 'scheduling'));
    const loadBetween = loadavg()[0]!;

    // 2. the Deployment
    const api = await spawnUntil([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory',
      `--data-dir=${join(dir, 'data')}`], /serving on https:\/\/127\.0\.0\.1:(\d+)/);
    children.push(api.proc);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const namespaces = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    for (const name of ['baseline', 'bench']) await namespaces.create({ metadata: { name } });
    // the service-account controller gives each namespace its default account, which pods need
    for (const ns of ['baseline', 'bench']) await waitUntil(client, { group: '', version: 'v1', resource: 'serviceaccounts' }, ns, 'default', () => true);

    // baseline: the server creating pods for one client; nobody schedules or runs them
    const pods = client.resource(podsRef, 'baseline');
    let t = performance.now();
    await inParallel(REPLICAS, (i) => pods.create({ metadata: { name: `p-${i}` }, spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] } }));
    const createRate = REPLICAS / ((performance.now() - t) / 1000);

    const agent = await spawnUntil([join(root, 'bin/agent.js'), `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--fake-nodes=${NODES}`,
      '--hostname-override=sim', `--root-dir=${join(dir, 'agent')}`, `--cert-dir=${join(dir, 'pki')}`, '--enable-server=false',
      '--healthz-port=0', '--read-only-port=0'], /running (\d+) node/);
    children.push(agent.proc);
    const nodes = client.resource(nodesRef);
    for (;;) {
      const ready = (await nodes.list()).items.filter((n: any) => !(n.spec?.taints ?? []).length
        && n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      if (ready.length >= NODES) break;
      await new Promise((r) => setTimeout(r, 1000));
    }

    t = performance.now();
    await client.resource(deploymentsRef, 'bench').create({
      metadata: { name: 'web' },
      spec: {
        replicas: REPLICAS, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1m', memory: '1Mi' } } }] } },
      },
    });
    await waitUntil(client, deploymentsRef, 'bench', 'web', (d) => (d.status?.availableReplicas ?? 0) >= REPLICAS);
    const deploySeconds = (performance.now() - t) / 1000;
    const runningPods = await running(client, 'bench');
    client.close();

    const deployRate = REPLICAS / deploySeconds;
    const s = scheduling;
    return [
      `1. Scheduling throughput: the API server (memory storage, \`--scheduler=false\`, the node lifecycle controller off) with ${SCHEDULER_NODES}`,
      '   Node objects of 32 CPUs with a Ready condition and no agent behind them, in 3 zones (as the reference\'s scheduler_perf uses).',
      `   ${SCHEDULER_PODS} pods (100m CPU, 64Mi) exist before a \`cluster-scheduler\` process starts (\`--kube-api-qps=0\`, the default profile with`,
      '   every filter and score plugin); pods bound per second from its start (informers synced) to the last binding. Every binding is a',
      '   `pods/binding` request and a Scheduled event. The same run as `node dist/bench/run.js scheduler` (its backlog row).',
      `2. A Deployment of ${REPLICAS} replicas: the API server (memory storage, its controller manager and scheduler in-process as by`,
      `   default) and one agent process (\`--runtime=fake --fake-nodes=${NODES}\`), each in its own process; from the Deployment's create until`,
      `   \`status.availableReplicas\` is ${REPLICAS}. The controller manager keeps the reference's default of 20 requests per second per`,
      '   controller, so its ReplicaSet creates at most about 20 pods/s.',
      'Baselines, each of the same run and server: pods created by one client (64 in flight) with nobody scheduling them.',
      '',
      '| measure | result | baseline | ratio | target |',
      '| --- | ---: | ---: | ---: | --- |',
      `| **1. scheduling, ${SCHEDULER_NODES} nodes: pods bound/s** | **${fmt(s.bindRate)}** (${s.bindSeconds.toFixed(1)} s) | ${fmt(s.createRate)} pod creates/s | ${(s.bindRate / s.createRate).toFixed(2)}x | ≥ 300/s: ${s.bindRate >= 300 ? 'met' : 'not met'} |`,
      `| 1. pods per node (min / max over ${s.perNode.length} nodes used) | ${Math.min(...s.perNode)} / ${Math.max(...s.perNode)} | | | |`,
      `| 1. \`cluster-scheduler\` peak resident memory | ${s.schedulerRss.toFixed(0)} MiB | | | |`,
      `| **2. ${REPLICAS}-replica Deployment, create → all available: pods/s** | **${fmt(deployRate)}** (${deploySeconds.toFixed(1)} s, ${runningPods} Running) | ${fmt(createRate)} pod creates/s | ${(deployRate / createRate).toFixed(2)}x | converges |`,
      '',
      `The machine's load average (1 minute) was ${loadBefore.toFixed(1)} at the start, ${loadBetween.toFixed(1)} between the runs and ${loadavg()[0]!.toFixed(1)} at the end`,
      '(2 CPUs shared with other work), which moves the absolute rates of both columns; the ratios compare them within each run.',
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
