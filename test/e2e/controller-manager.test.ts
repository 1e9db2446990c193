// cluster-controller-manager as its own program: two processes against one server elect one leader (the
// other waits), the leader's death hands the lease over, and the controllers pick up where the old leader
// stopped without duplicating pods.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { waitFor } from '../support/cluster.js';
import { freePort } from '../support/ports.js';
import { componentGet } from '../support/component-port.js';
import { writeFileSync } from 'node:fs';
import { loadClientConfig } from '../../src/config/client-config.js';

const get = componentGet;

const program = new URL('../../bin/controller-manager.js', import.meta.url).pathname;
const podsRef = { group: '', version: 'v1', resource: 'pods' };

interface Proc { child: ChildProcess; output: string; exited: Promise<number | null> }

function startProgram(args: string[]): Proc {
  const child = spawn(process.execPath, [program, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { child, output: '', exited: new Promise((r) => child.on('exit', (code) => r(code))) };
  child.stdout!.on('data', (d) => { p.output += d; });
  child.stderr!.on('data', (d) => { p.output += d; });
  return p;
}

describe('cluster-controller-manager', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let root: string;
  const procs: Proc[] = [];
  const flags = () => [`--kubeconfig=${server.kubeconfig}`, '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s',
    '--leader-elect-retry-period=500ms', '--kube-api-qps=100', '--kube-api-burst=200', '--secure-port=0'];

  before(async () => {
    // the server runs its scheduler but no controllers of its own
    server = await startTestServer({ scheduler: true, flags: ['--controller-manager=false'] });
    client = await clientFromFile(server.kubeconfig);
    root = mkdtempSync(join(tmpdir(), 'cm-agent-'));
    const { options } = await parseAgentOptions([`--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--fake-nodes=2',
      '--hostname-override=cm-node', `--root-dir=${root}`, '--node-status-update-frequency=1s']);
    agent = await runAgent(options, { info() {}, warn() {} }, { leaseDurationSeconds: 10, relistMs: 200 });
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('--help lists the flags, a bad --controllers entry is refused', async () => {
    const help = startProgram(['--help']);
    assert.equal(await help.exited, 0);
    for (const f of ['--kubeconfig', '--controllers', '--concurrent-deployment-syncs', '--leader-elect-lease-duration', '--leader-elect-resource-namespace']) {
      assert.ok(help.output.includes(f), f);
    }
    const bad = startProgram([`--kubeconfig=${server.kubeconfig}`, '--controllers=*,nosuch']);
    assert.equal(await bad.exited, 2);
    assert.match(bad.output, /"nosuch" is not in the list of known controllers/);
    const badCidr = startProgram([`--kubeconfig=${server.kubeconfig}`, '--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/24', '--node-cidr-mask-size=16']);
    assert.equal(await badCidr.exited, 2);
    assert.match(badCidr.output, /mask size 16 is smaller than the prefix length/);
  });

  test('two processes elect one leader; when it dies the other takes over without duplicating pods', async () => {
    const leases = client.resource({ group: server.names.group('coordination'), version: 'v1', resource: 'leases' }, server.names.systemNamespace);
    const a = startProgram(flags());
    procs.push(a);
    const first = await waitFor('a leader', async () => (await leases.get('kube-controller-manager').catch(() => undefined))?.spec?.holderIdentity);
    const b = startProgram(flags());
    procs.push(b);
    await waitFor('b to see the leader', () => /is the leader/.test(b.output) || /waiting to become the leader/.test(b.output));
    assert.match(a.output, /became the leader/);
    assert.doesNotMatch(b.output, /became the leader/);

    const deps = client.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, 'default');
    await deps.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ha' }, spec: { replicas: 4,
      selector: { matchLabels: { app: 'ha' } }, template: { metadata: { labels: { app: 'ha' } }, spec: { containers: [{ name: 'c', image: 'ha:1' }] } } } });
    await waitFor('4 available', async () => (await deps.get('ha')).status?.availableReplicas === 4);
    const before = (await client.resource(podsRef, 'default').list({ labelSelector: 'app=ha' })).items.map((p: any) => p.metadata.name).sort();

    a.child.kill('SIGKILL');
    await a.exited;
    const second = await waitFor('b takes the lease', async () => {
      const l = await leases.get('kube-controller-manager');
      return l.spec.holderIdentity !== first && l.spec.holderIdentity;
    }, 60_000);
    assert.ok(second);
    await waitFor('b runs the controllers', () => /became the leader/.test(b.output));
    // the new leader sees the pods the old one made and makes none more
    await new Promise((r) => setTimeout(r, 2000));
    const after = (await client.resource(podsRef, 'default').list({ labelSelector: 'app=ha' })).items.map((p: any) => p.metadata.name).sort();
    assert.deepEqual(after, before);
    // and it acts: a scale-up is carried out
    await deps.patch('ha', { spec: { replicas: 5 } });
    await waitFor('5 available', async () => (await deps.get('ha')).status?.availableReplicas === 5);
    assert.equal((await client.resource(podsRef, 'default').list({ labelSelector: 'app=ha' })).items.length, 5);
    b.child.kill('SIGTERM');
    assert.equal(await b.exited, 0);
    // a graceful stop frees the lease
    assert.equal((await leases.get('kube-controller-manager')).spec.holderIdentity ?? '', '');
  });

  test('the flags of kubeadm\'s manifest start it: node IPAM gives a new node a CIDR, the HTTPS port serves health to anyone and metrics to whom RBAC allows', async (t) => {
    // a server of its own with RBAC, so that what the HTTPS port refuses is the API server's decision
    const rbac = await startTestServer({ flags: ['--controller-manager=false', '--authorization-mode=Node,RBAC'] });
    const rbacClient = await clientFromFile(rbac.kubeconfig);
    const server = rbac, client = rbacClient;
    t.after(async () => { rbacClient.close(); await rbac.close(); });
    const kubeconfig = server.kubeconfig;
    const port = await freePort();
    const caFile = join(root, 'client-ca.crt');
    writeFileSync(caFile, server.caCertPem);
    const p = startProgram([`--client-ca-file=${caFile}`, '--allocate-node-cidrs=true', `--authentication-kubeconfig=${kubeconfig}`, `--authorization-kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1', '--cluster-cidr=10.244.0.0/16', '--cluster-name=kubernetes', '--controllers=*,bootstrapsigner,tokencleaner',
      `--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--service-cluster-ip-range=10.96.0.0/12', '--use-service-account-credentials=true',
      '--horizontal-pod-autoscaler-sync-period=10s', '--pod-eviction-timeout=1m', `--secure-port=${port}`]);
    procs.push(p);
    await waitFor('the controllers running', () => /controllers running/.test(p.output));
    assert.match(p.output, /pod-eviction-timeout is deprecated/);
    const nodes = client.resource({ group: '', version: 'v1', resource: 'nodes' });
    await nodes.create({ metadata: { name: 'kubeadm-node' } });
    const cidrs = await waitFor('a CIDR for the node', async () => (await nodes.get('kubeadm-node')).spec?.podCIDRs);
    assert.match(cidrs[0], /^10\.244\.\d+\.0\/24$/);

    // the HTTPS port: health for anyone, metrics for whom the API server authorizes
    await waitFor('the HTTPS port', () => /serving HTTPS/.test(p.output));
    assert.deepEqual(await get(port, '/healthz'), { status: 200, body: 'ok' });
    assert.equal((await get(port, '/healthz/ping')).status, 200);
    assert.equal((await get(port, '/healthz/nosuch')).status, 404);
    assert.match((await get(port, '/readyz?verbose')).body, /\[\+\]ping ok/);
    assert.equal((await get(port, '/livez')).status, 200);
    assert.equal((await get(port, '/metrics')).status, 403, 'anonymous');
    assert.equal((await get(port, '/metrics', { token: 'not-a-token' })).status, 401);
    const nobody = await loadClientConfig(await server.userKubeconfig('nobody'));
    assert.equal((await get(port, '/metrics', nobody)).status, 403);
    const admin = await loadClientConfig(await server.userKubeconfig('admin', ['system:masters']));
    const metrics = await get(port, '/metrics', admin);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /leader_election_master_status\{name="kube-controller-manager"\} 1/);
    assert.match(metrics.body, /process_cpu_seconds_total/);
    // each controller's work queue, as the reference's workqueue_* families: the node IPAM queue took the node
    assert.match(metrics.body, /workqueue_adds_total\{name="nodeipam"\} [1-9]/);
    assert.match(metrics.body, /workqueue_queue_duration_seconds_count\{name="nodeipam"\} [1-9]/);
    assert.match(metrics.body, /workqueue_work_duration_seconds_bucket\{le="10",name="nodeipam"\} [1-9]/);
    assert.match(metrics.body, /workqueue_depth\{name="deployment"\} 0/);
    assert.match(metrics.body, /workqueue_longest_running_processor_seconds\{name="deployment"\} 0/);
    assert.match(metrics.body, /workqueue_unfinished_work_seconds\{name="deployment"\} 0/);
    assert.match(metrics.body, /workqueue_retries_total/);
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
  });
});
