// cluster-scheduler as its own program against a real API server (whose own scheduler is off): two
// processes elect one leader through the kube-scheduler Lease and the other takes over when it stops;
// --config profiles select pods by schedulerName, with plugins disabled and arguments changed; the
// API server's --scheduler-config configures the scheduler inside it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { componentGet } from '../support/component-port.js';
import { freePort } from '../support/ports.js';
import { loadClientConfig } from '../../src/config/client-config.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { ensureDefaultServiceAccount, tempDir, waitFor } from '../agent/helpers.js';
import { addReadyNode, agentlessNodeFlags } from './nodes.js';
import { startScheduler } from '../../src/scheduler/scheduler.js';

const program = new URL('../../bin/scheduler.js', import.meta.url).pathname;
const podsRef = { group: '', version: 'v1', resource: 'pods' };
const bound = 60_000;

interface Running { proc: ChildProcess; output(): string; exited: Promise<number | null> }

function run(args: string[]): Running {
  const proc = spawn(process.execPath, [program, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  proc.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, output: () => out, exited };
}

const stop = async (r: Running) => {
  if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGTERM');
  return r.exited;
};

const pod = (name: string, spec: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

describe('cluster-scheduler, the program', () => {
  let server: TestServer;
  let client: Client;
  let dir: string;
  const started: Running[] = [];

  before(async () => {
    server = await startTestServer({ flags: agentlessNodeFlags });
    client = await clientFromFile(server.kubeconfig, { qps: 0 });
    await ensureDefaultServiceAccount(client);
    dir = tempDir('scheduler-program-');
  });
  after(async () => {
    await Promise.all(started.map(stop));
    client?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // several run at once: none opens the HTTPS port unless the test gives it one
  const start = (args: string[]) => {
    const r = run([`--kubeconfig=${server.kubeconfig}`, '--secure-port=0', ...args]);
    started.push(r);
    return r;
  };
  const nodeOf = (name: string) => waitFor(`pod ${name} bound`, async () => (await client.resource(podsRef, 'default').get(name)).spec?.nodeName, bound);

  test('--help lists the flags; a bad flag or configuration is refused, naming it', async () => {
    const help = run(['--help']);
    assert.equal(await help.exited, 0);
    for (const flag of ['--config', '--kubeconfig', '--scheduler-name', '--leader-elect', '--leader-elect-lease-duration', '--leader-elect-resource-name'])
      assert.ok(help.output().includes(flag), flag);
    const bad = run(['--kubeconfig=x', '--leader-elect-lease-duration=soon']);
    assert.equal(await bad.exited, 2);
    assert.match(bad.output(), /leader-elect-lease-duration/);
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `apiVersion: ${server.names.group('kubescheduler.config')}/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n  plugins:\n    filter:\n      enabled: [{name: NoSuchPlugin}]\n`);
    const badPlugin = run([`--kubeconfig=${server.kubeconfig}`, `--config=${file}`]);
    assert.equal(await badPlugin.exited, 2);
    assert.match(badPlugin.output(), /profile x: plugin "NoSuchPlugin" does not exist/);
  });

  test('the HTTPS port serves health to anyone and metrics to whom the API server authorizes', async () => {
    const port = await freePort();
    const caFile = join(dir, 'client-ca.crt');
    writeFileSync(caFile, server.caCertPem);
    const p = start(['--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--client-ca-file=${caFile}`,
      `--authentication-kubeconfig=${server.kubeconfig}`, `--authorization-kubeconfig=${server.kubeconfig}`]);
    await waitFor('the HTTPS port', () => /serving HTTPS/.test(p.output()), bound);
    assert.deepEqual(await componentGet(port, '/healthz'), { status: 200, body: 'ok' });
    assert.equal((await componentGet(port, '/livez')).status, 200);
    assert.equal((await componentGet(port, '/metrics', { token: 'not-a-token' })).status, 401);
    const admin = await loadClientConfig(server.kubeconfig);
    const metrics = await componentGet(port, '/metrics', admin);
    assert.equal(metrics.status, 200, metrics.body);
    assert.match(metrics.body, /leader_election_master_status\{name="kube-scheduler"\} 1/);
    // the scheduler's own families, as the reference names them: a pod placed, one that fits nowhere and waits
    const pods = client.resource(podsRef, 'default');
    await addReadyNode(client, server.names, 'metrics-node', { labels: { metrics: 'yes' } });
    await pods.create(pod('placed', { nodeSelector: { metrics: 'yes' } }));
    await pods.create(pod('nowhere', { nodeSelector: { metrics: 'no' } }));
    assert.equal(await nodeOf('placed'), 'metrics-node');
    const scraped = await waitFor('both attempts counted', async () => {
      const body = (await componentGet(port, '/metrics', admin)).body;
      return /scheduler_pending_pods\{queue="unschedulable"\} 1/.test(body) && /result="scheduled"/.test(body) ? body : undefined;
    }, bound);
    assert.match(scraped, /^scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1$/m);
    assert.match(scraped, /^scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]\d*$/m);
    assert.match(scraped, /^scheduler_scheduling_attempt_duration_seconds_count\{result="scheduled",profile="default-scheduler"\} 1$/m);
    assert.match(scraped, /^scheduler_scheduling_attempt_duration_seconds_bucket\{le="0.001",result="scheduled",profile="default-scheduler"\} \d+$/m);
    for (const queue of ['active', 'backoff', 'gated']) assert.match(scraped, new RegExp(`^scheduler_pending_pods\\{queue="${queue}"\\} 0$`, 'm'));
    await stop(p);
    for (const name of ['placed', 'nowhere']) await pods.delete(name, { gracePeriodSeconds: 0 });
    await client.resource({ group: '', version: 'v1', resource: 'nodes' }).delete('metrics-node');
  });

  test('two processes elect one leader through the kube-scheduler Lease; the other takes over when it stops', async () => {
    const leaseFlags = ['--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms'];
    const a = start(leaseFlags);
    const b = start(leaseFlags);
    const leases = client.resource({ group: server.names.group('coordination'), version: 'v1', resource: 'leases' }, server.names.systemNamespace);
    const lease = await waitFor('the lease held', async () => (await leases.get('kube-scheduler')).spec?.holderIdentity, bound);
    const scheduling = (r: Running) => r.output().includes('scheduler: scheduling pods of default-scheduler');
    await waitFor('one of them scheduling', () => scheduling(a) || scheduling(b), bound);
    await waitFor('the other seeing the leader', () => [a, b].some((r) => r.output().includes(`scheduler: ${lease} is the leader`)), bound);
    const [leader, follower] = scheduling(a) ? [a, b] : [b, a];
    assert.ok(!scheduling(follower), 'only the leader schedules');
    assert.ok(leader.output().includes(`${lease} became the leader`));

    await addReadyNode(client, server.names, 'le-node', {});
    await client.resource(podsRef, 'default').create(pod('first'));
    assert.equal(await nodeOf('first'), 'le-node');

    // a graceful stop frees the lease: the follower takes it and schedules
    assert.equal(await stop(leader), 0);
    await waitFor('the follower scheduling', () => scheduling(follower), bound);
    const next = (await leases.get('kube-scheduler')).spec;
    assert.notEqual(next.holderIdentity, lease);
    assert.ok(next.leaseTransitions >= 1);
    await client.resource(podsRef, 'default').create(pod('second'));
    assert.equal(await nodeOf('second'), 'le-node');
    await stop(follower);
  });

  test('--config: profiles by schedulerName, a filter plugin disabled, a scoring strategy changed; other pods left alone', async () => {
    const file = join(dir, 'profiles.yaml');
    writeFileSync(file, [
      `apiVersion: ${server.names.group('kubescheduler.config')}/v1`,
      'kind: KubeSchedulerConfiguration',
      'percentageOfNodesToScore: 50',
      'leaderElection: {leaderElect: false}',
      'profiles:',
      '- schedulerName: ignores-taints',
      '  plugins:',
      '    filter:',
      '      disabled: [{name: TaintToleration}]',
      '- schedulerName: packing',
      // balanced allocation would pull the other way as much as MostAllocated pulls this one: left out
      '  plugins:',
      '    score:',
      '      disabled: [{name: NodeResourcesBalancedAllocation}]',
      '  pluginConfig:',
      '  - name: NodeResourcesFit',
      '    args: {scoringStrategy: {type: MostAllocated}}',
    ].join('\n'));
    const scheduler = start([`--config=${file}`]);
    await waitFor('scheduling', () => scheduler.output().includes('scheduler: scheduling pods of ignores-taints, packing'), bound);
    await addReadyNode(client, server.names, 'cfg-tainted', { labels: { cfg: 'tainted' }, taints: [{ key: 'keep', value: 'out', effect: 'NoSchedule' }] });
    await addReadyNode(client, server.names, 'cfg-busy', { labels: { cfg: 'pack' } });
    await addReadyNode(client, server.names, 'cfg-idle', { labels: { cfg: 'pack' } });
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('through-taint', { schedulerName: 'ignores-taints', nodeSelector: { cfg: 'tainted' } }));
    assert.equal(await nodeOf('through-taint'), 'cfg-tainted');
    await pods.create(pod('filler', { nodeName: 'cfg-busy', containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '2' } } }] }));
    await pods.create(pod('packed', { schedulerName: 'packing', nodeSelector: { cfg: 'pack' }, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }] }));
    assert.equal(await nodeOf('packed'), 'cfg-busy', 'MostAllocated prefers the fuller node');
    // no profile is named default-scheduler here: such a pod is not this scheduler's
    await pods.create(pod('unclaimed', { nodeSelector: { cfg: 'pack' } }));
    await pods.create(pod('claimed', { schedulerName: 'packing', nodeSelector: { cfg: 'pack' } }));
    await nodeOf('claimed');
    const unclaimed = await pods.get('unclaimed');
    assert.equal(unclaimed.spec.nodeName, undefined);
    assert.equal(unclaimed.status.conditions?.find((c: any) => c.type === 'PodScheduled'), undefined);
  });
});

describe('the scheduler inside cluster-apiserver with --scheduler-config', () => {
  test('its profiles are those of the file', async () => {
    const dir = tempDir('scheduler-config-');
    const file = join(dir, 'config.yaml');
    // the reference's apiVersion is accepted as well
    writeFileSync(file, 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: custom\n');
    const server = await startTestServer({ scheduler: true, flags: [`--scheduler-config=${file}`, ...agentlessNodeFlags] });
    const client = await clientFromFile(server.kubeconfig, { qps: 0 });
    try {
      await ensureDefaultServiceAccount(client);
      await addReadyNode(client, server.names, 'inside', {});
      await client.resource(podsRef, 'default').create(pod('custom-pod', { schedulerName: 'custom' }));
      assert.equal(await waitFor('bound', async () => (await client.resource(podsRef, 'default').get('custom-pod')).spec?.nodeName, bound), 'inside');
    } finally {
      client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a configuration the scheduler cannot use stops the server from starting, naming the problem', async () => {
    const dir = tempDir('scheduler-config-');
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n');
    try {
      await assert.rejects(startTestServer({ scheduler: true, flags: [`--scheduler-config=${file}`] }), /percentageOfNodesToScore: Invalid value: 120: not in valid range \[0-100\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('startScheduler without a lost-leadership handler (as inside the API server)', () => {
  test('a scheduler whose lease was taken stops scheduling, stands for election again and takes over once the lease expires', async () => {
    const server = await startTestServer({ flags: agentlessNodeFlags });
    const client = await clientFromFile(server.kubeconfig, { qps: 0 });
    const logged: string[] = [];
    const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };
    const scheduler = startScheduler({
      client, log, identity: 'me',
      leaderElection: { enabled: true, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300, resourceName: 'kube-scheduler', resourceNamespace: '' },
    });
    try {
      await ensureDefaultServiceAccount(client);
      await scheduler.ready;
      assert.ok(scheduler.isLeader());
      const leases = client.resource({ group: server.names.group('coordination'), version: 'v1', resource: 'leases' }, server.names.systemNamespace);
      // another candidate takes the lease (as one would after a partition), racing the leader's renewals
      await waitFor('the lease taken', async () => {
        const lease = await leases.get('kube-scheduler');
        await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: new Date().toISOString().replace('Z', '000Z') } });
        return true;
      }, bound);
      await waitFor('leadership lost', () => logged.some((m) => m.includes('leadership lost')) && !scheduler.isLeader(), bound);
      // the thief never renews: once its lease has expired, this scheduler leads again and schedules
      await addReadyNode(client, server.names, 'again', {});
      await client.resource(podsRef, 'default').create(pod('after'));
      assert.equal(await waitFor('bound after re-election', async () => (await client.resource(podsRef, 'default').get('after')).spec?.nodeName, bound), 'again');
      assert.ok(scheduler.isLeader());
      assert.equal((await leases.get('kube-scheduler')).spec.holderIdentity, 'me');
    } finally {
      await scheduler.stop();
      client.close();
      await server.close();
    }
  });
});
