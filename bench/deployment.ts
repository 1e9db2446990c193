// Deployment benchmark: the whole control plane at work on 1,000 simulated nodes. The API server (memory storage,
// its controller manager in-process as by default), a `cluster-scheduler` process and one agent process simulating
// 1,000 nodes with the fake runtime (each node registers, heartbeats through its Lease and runs the pods bound to it).
// 1. Scheduling throughput: 3,000 pods created with no scheduler running; then the scheduler starts, and the
//    pods bound per second are measured from its start (informers synced) to the last binding. Baseline of the same
//    run: the rate at which the same server created those pods.
// 2. A Deployment of 3,000 replicas from create to every replica available (ReplicaSet, 3,000 pod creates by the
//    controller, 3,000 bindings by the scheduler, 3,000 status writes by the agent).
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { clientFromFile, type Client } from '../src/client/rest-client.js';
import { fmt, root } from './support.js';
import { inParallel, rssMiB, spawnUntil, stop, watchBound } from './scheduler.js';

const NODES = 1000;
const PODS = 3000;
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

const pod = (i: number) => ({
  metadata: { name: `p-${i}` },
  spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
});

/** in pages, so that a busy server answers each within the client's timeout */
const listPods = async (client: Client, namespace: string) => (await client.resource(podsRef, namespace).listAll()).items;
const running = async (client: Client, namespace: string) => (await listPods(client, namespace)).filter((p: any) => p.status?.phase === 'Running').length;

export async function deploymentBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'deployment-bench-'));
  const children: ChildProcess[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    const api = await spawnUntil([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory',
      `--data-dir=${join(dir, 'data')}`, '--scheduler=false'], /serving on https:\/\/127\.0\.0\.1:(\d+)/);
    children.push(api.proc);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const namespaces = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    await namespaces.create({ metadata: { name: 'bench' } });
    // the service-account controller gives each namespace its default account, which pods need
    await waitUntil(client, { group: '', version: 'v1', resource: 'serviceaccounts' }, 'bench', 'default', () => true);

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

    // 1. the backlog, created by the server alone (the baseline); then the scheduler binds it
    let t = performance.now();
    await inParallel(PODS, (i) => client.resource(podsRef, 'bench').create(pod(i)));
    const createRate = PODS / ((performance.now() - t) / 1000);
    const backlog = await watchBound(client, PODS);
    const scheduler = await spawnUntil([join(root, 'bin/scheduler.js'), `--kubeconfig=${kubeconfig}`, '--kube-api-qps=0', '--leader-elect=false'],
      /scheduler: scheduling pods of/);
    children.push(scheduler.proc);
    t = performance.now();
    await backlog.done;
    const bindSeconds = (Math.max(...backlog.boundAt.values()) - t) / 1000;
    const bindRate = PODS / bindSeconds;
    const spread = new Map<string, number>();
    for (const p of await listPods(client, 'bench')) spread.set(p.spec.nodeName, (spread.get(p.spec.nodeName) ?? 0) + 1);
    for (;;) {
      if (await running(client, 'bench') >= PODS) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const runSeconds = (performance.now() - t) / 1000;
    await client.resource(podsRef, 'bench').deleteCollection({ gracePeriodSeconds: 0 });
    for (;;) {
      if (!(await client.resource(podsRef, 'bench').list({ limit: 1 })).items.length) break;
      await new Promise((r) => setTimeout(r, 1000));
    }

    // 2. the Deployment
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
    const schedulerRss = rssMiB(scheduler.proc.pid!);
    client.close();

    const deployRate = REPLICAS / deploySeconds;
    const perNode = [...spread.values()];
    return [
      `The API server (memory storage, its controller manager in-process as by default, \`--scheduler=false\`), a \`cluster-scheduler\``,
      `process (\`--kube-api-qps=0\`, the default profile with every filter and score plugin) and one agent process`,
      `(\`--runtime=fake --fake-nodes=${NODES}\`: ${NODES} nodes that register, heartbeat through their Leases and run the pods bound to them),`,
      'each in its own process. Baseline of the same run: the rate at which the same server created the pods for one client (64 in flight),',
      'with nobody scheduling them.',
      `1. Scheduling: ${PODS} pods (100m CPU, 64Mi) exist before the scheduler starts; pods bound per second from its start (informers`,
      '   synced) to the last binding. Every binding is a `pods/binding` request and a Scheduled event.',
      `2. A Deployment of ${REPLICAS} replicas, from its create until \`status.availableReplicas\` is ${REPLICAS} (the controller manager's`,
      '   clients keep the reference\'s default limit of 20 requests per second each, so its ReplicaSet creates at most about 20 pods/s).',
      '',
      '| measure | result | baseline | ratio | target |',
      '| --- | ---: | ---: | ---: | --- |',
      `| **scheduling, ${NODES} fake nodes: pods bound/s** | **${fmt(bindRate)}** (${bindSeconds.toFixed(1)} s) | ${fmt(createRate)} pod creates/s | ${(bindRate / createRate).toFixed(2)}x | ≥ 300/s: ${bindRate >= 300 ? 'met' : 'not met'} |`,
      `| scheduling: scheduler start → all ${PODS} Running on the agent | ${runSeconds.toFixed(1)} s | | | |`,
      `| scheduling: pods per node (min / max over ${spread.size} nodes used) | ${Math.min(...perNode)} / ${Math.max(...perNode)} | | | |`,
      `| **${REPLICAS}-replica Deployment, create → all available: pods/s** | **${fmt(deployRate)}** (${deploySeconds.toFixed(1)} s, ${runningPods} Running) | ${fmt(createRate)} pod creates/s | ${(deployRate / createRate).toFixed(2)}x | converges |`,
      `| \`cluster-scheduler\` peak resident memory | ${schedulerRss.toFixed(0)} MiB | | | |`,
      '',
      `The machine's load average (1 minute) was ${loadBefore.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (2 CPUs shared with`,
      'other work), which moves the absolute rates of both columns; the ratio compares them within the run.',
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
