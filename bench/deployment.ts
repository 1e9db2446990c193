// Deployment benchmark: the whole control plane at work. The API server (memory storage) runs its controller
// manager and scheduler in-process, as by default; one agent process simulates 100 nodes with the fake runtime.
// Measured: a Deployment of 3,000 replicas from create to every replica available (ReplicaSet, 3,000 pod
// creates by the controller, 3,000 bindings by the scheduler, 3,000 status writes by the agent). Baseline of the
// same run: the rate at which the same server creates 3,000 pods for a client alone.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clientFromFile, type Client } from '../src/client/rest-client.js';
import { root, start, type Child } from './support.js';

const NODES = 100;
const REPLICAS = 3000;
const CREATE_CONCURRENCY = 64;
const TIMEOUT_MS = 15 * 60_000;

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };

/** resolves once `done` holds for an object the watch of `path` reports (listing first), or rejects at the deadline */
async function waitUntil(client: Client, ref: typeof deploymentsRef, namespace: string, name: string, done: (obj: any) => boolean) {
  const deadline = Date.now() + TIMEOUT_MS;
  const resource = client.resource(ref, namespace);
  for (;;) {
    const current = await resource.get(name);
    if (done(current)) return current;
    if (Date.now() > deadline) throw new Error(`${name}: not done within ${TIMEOUT_MS / 60_000} min: ${JSON.stringify(current.status)}`);
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 30_000);
    try {
      for await (const e of resource.watch({ fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata.resourceVersion, signal: stop.signal })) {
        if (done(e.object)) return e.object;
      }
    } catch { /* a watch that ended early: read again */ } finally {
      clearTimeout(timer);
    }
  }
}

export async function deploymentBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'deployment-bench-'));
  const children: Child[] = [];
  try {
    const api = await start([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory',
      `--data-dir=${join(dir, 'data')}`], /serving on https:\/\/127\.0\.0\.1:(\d+)/, dir);
    children.push(api);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const namespaces = client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    for (const name of ['baseline', 'bench']) await namespaces.create({ metadata: { name } });
    // the service-account controller gives each namespace its default account, which pods need
    for (const ns of ['baseline', 'bench']) {
      await waitUntil(client, { group: '', version: 'v1', resource: 'serviceaccounts' }, ns, 'default', () => true);
    }

    // baseline: the server creating pods for one client (64 in flight); nobody schedules or runs them
    const pods = client.resource(podsRef, 'baseline');
    let next = 0;
    let t = performance.now();
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < REPLICAS) {
        const i = next++;
        await pods.create({ metadata: { name: `p-${i}` }, spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] } });
      }
    }));
    const createRate = REPLICAS / ((performance.now() - t) / 1000);

    const agent = await start([join(root, 'bin/agent.js'), `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--fake-nodes=${NODES}`,
      '--hostname-override=sim', `--root-dir=${join(dir, 'agent')}`, `--cert-dir=${join(dir, 'pki')}`, '--enable-server=false',
      '--healthz-port=0', '--read-only-port=0'], /running (\d+) node/, dir);
    children.push(agent);
    const nodes = client.resource({ group: '', version: 'v1', resource: 'nodes' });
    for (;;) {
      const ready = (await nodes.list()).items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      if (ready.length >= NODES) break;
      await new Promise((r) => setTimeout(r, 500));
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
    client.close();

    const deployRate = REPLICAS / deploySeconds;
    return [
      `The API server (memory storage, its controller manager and scheduler in-process as by default) and one agent process`,
      `(\`--runtime=fake --fake-nodes=${NODES}\`), each in its own process. A Deployment of ${REPLICAS} replicas is created;`,
      `measured until \`status.availableReplicas\` is ${REPLICAS}. Baseline of the same run: ${REPLICAS} pods created by one client`,
      `(${CREATE_CONCURRENCY} in flight) on the same server, with no one scheduling or running them.`,
      '',
      '| measure | Deployment | baseline | ratio |',
      '| --- | ---: | ---: | ---: |',
      `| **${REPLICAS}-replica Deployment, create → all available: pods/s** | **${deployRate.toFixed(0)}** (${deploySeconds.toFixed(1)} s) | ${createRate.toFixed(0)} pod creates/s | ${(deployRate / createRate).toFixed(2)}x |`,
    ].join('\n');
  } finally {
    for (const c of children.reverse()) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
