// Simulated nodes for controller testing: capacity and labels from a node template and flags, pod
// addresses from each node's part of --pod-cidr (or, without it, from the node's own range), the same node
// admission as real nodes, usage figures on the statistics endpoints, and init containers and Jobs' pods
// that finish.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions, fakeAnnotation } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { csiNodesRef } from '../../src/agent/csinode.js';
import { podLogDirectory } from '../../src/agent/sandbox.js';
import { podsRef } from '../../src/agent/status-manager.js';
import type { Summary } from '../../src/agent/stats/summary.js';
import { ensureDefaultServiceAccount, httpsGet, pod, quiet, tempDir, waitFor } from './helpers.js';

describe('simulated nodes', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let servers: AgentServers;
  let dir: string;
  let port: number;

  before(async () => {
    // the agent's own admission is under test: the taint manager of node lifecycle would evict the untolerated pod first
    server = await startTestServer({ flags: ['--controllers=*,-nodelifecycle'] });
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    dir = tempDir('agent-fake-nodes-');
    writeFileSync(join(dir, 'nodes.yaml'), [
      'items:',
      '- metadata: { labels: { zone: a }, annotations: { owner: team-a } }',
      '  status: { capacity: { cpu: "4", memory: 8Gi, example.com/gpu: "2" } }',
      '- metadata: { labels: { zone: b } }',
      '- metadata: { labels: { zone: c } }',
      '  spec: { taints: [ { key: dedicated, value: batch, effect: NoExecute } ] }',
    ].join('\n'));
    port = await freePort();
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--fake-nodes=3', '--hostname-override=sim', `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--node-status-update-frequency=200ms', '--pod-cidr=10.244.0.0/16', `--fake-node-template=${join(dir, 'nodes.yaml')}`,
      '--fake-node-capacity=cpu=2,pods=4', '--address=127.0.0.1', `--port=${port}`, '--read-only-port=0', '--healthz-port=0',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 5, relistMs: 50, statsSampleMs: 200 });
    servers = await startAgentServers(options, agent.nodes, agent.client, agent.metrics);
  });

  after(async () => {
    await servers?.close();
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pods = () => client.resource(podsRef, 'default');
  const failed = (name: string) => waitFor(`${name} rejected`, async () => {
    const p = await pods().get(name);
    return p.status?.phase === 'Failed' && p;
  });

  test('capacity, labels and taints from the template and the flags; each node its part of the pod range', async () => {
    const nodes = await waitFor('three nodes', async () => {
      const list = (await client.resource(nodesRef).list()).items.filter((n: any) => n.metadata.name.startsWith('sim-') && n.status?.capacity);
      return list.length === 3 && list.sort((a: any, b: any) => a.metadata.name.localeCompare(b.metadata.name));
    });
    assert.deepEqual(nodes.map((n: any) => n.metadata.labels.zone), ['a', 'b', 'c']);
    assert.equal(nodes[0].metadata.annotations.owner, 'team-a');
    // the flag wins over the template for cpu and pods; the template's memory and extended resource stay
    assert.equal(nodes[0].status.capacity.cpu, '2');
    // stored in canonical form, as the reference does
    assert.equal(nodes[0].status.capacity.memory, '8Gi');
    assert.equal(nodes[0].status.capacity['example.com/gpu'], '2');
    assert.equal(nodes[1].status.capacity.memory, '32Gi', 'the default without a template value');
    assert.equal(nodes[0].status.capacity.pods, '4');
    assert.deepEqual(nodes.map((n: any) => n.spec.podCIDR), ['10.244.0.0/18', '10.244.64.0/18', '10.244.128.0/18']);
    assert.deepEqual(nodes[2].spec.taints.filter((t: any) => t.key === 'dedicated'), [{ key: 'dedicated', value: 'batch', effect: 'NoExecute' }]);
  });

  test('pods get addresses from their node\'s range; host-network pods the node\'s', async () => {
    await pods().create(pod('addressed', 'sim-1'));
    await pods().create(pod('on-host', 'sim-1', { spec: { hostNetwork: true } }));
    const p = await waitFor('Running with an IP', async () => {
      const x = await pods().get('addressed');
      return x.status?.phase === 'Running' && x.status.podIP && x;
    });
    assert.equal(p.status.podIP, '10.244.64.2');
    const h = await waitFor('host pod Running', async () => {
      const x = await pods().get('on-host');
      return x.status?.phase === 'Running' && x;
    });
    assert.equal(h.status.podIP, h.status.hostIP);
  });

  test('the node admission of real nodes: resources, pod count, node selector, host ports and NoExecute taints', async () => {
    await pods().create(pod('greedy', 'sim-0', { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '3' } } }] }));
    await pods().create(pod('gpu-hungry', 'sim-0', { containers: [{ name: 'main', image: 'busybox', resources: { requests: { 'example.com/gpu': '3' }, limits: { 'example.com/gpu': '3' } } }] }));
    // an extended resource the node does not have at all is left to the scheduler, as the reference does
    await pods().create(pod('gpu-elsewhere', 'sim-1', { containers: [{ name: 'main', image: 'busybox', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }] }));
    await pods().create(pod('wrong-zone', 'sim-0', { spec: { nodeSelector: { zone: 'b' } } }));
    await pods().create(pod('port-a', 'sim-0', { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 80, hostPort: 8080 }] }] }));
    await waitFor('port-a Running', async () => (await pods().get('port-a')).status?.phase === 'Running');
    await pods().create(pod('port-b', 'sim-0', { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 81, hostPort: 8080 }] }] }));
    await pods().create(pod('untolerated', 'sim-2'));
    await pods().create(pod('tolerated', 'sim-2', { spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoExecute' }] } }));

    const greedy = await failed('greedy');
    assert.equal(greedy.status.reason, 'OutOfcpu');
    assert.equal(greedy.status.message, 'Pod was rejected: Node didn\'t have enough resource: cpu, requested: 3000, used: 0, capacity: 2000');
    assert.equal((await failed('gpu-hungry')).status.reason, 'OutOfexample.com/gpu');
    assert.equal((await failed('wrong-zone')).status.reason, 'NodeAffinity');
    assert.equal((await failed('port-b')).status.reason, 'NodePorts');
    assert.equal((await failed('untolerated')).status.reason, 'TaintToleration');
    await waitFor('tolerated Running', async () => (await pods().get('tolerated')).status?.phase === 'Running');
    await waitFor('gpu-elsewhere Running', async () => (await pods().get('gpu-elsewhere')).status?.phase === 'Running');

    // four pods at most: port-a and three more fit on sim-0, the next does not
    for (const name of ['fill-1', 'fill-2', 'fill-3', 'fill-4']) await pods().create(pod(name, 'sim-0'));
    const over = await failed('fill-4');
    assert.equal(over.status.reason, 'OutOfpods');
    assert.equal(over.status.message, 'Pod was rejected: Node didn\'t have enough resource: pods, requested: 1, used: 4, capacity: 4');
    const events = await waitFor('rejection events', async () => {
      const list = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items;
      const reasons = new Set(list.filter((e: any) => e.type === 'Warning').map((e: any) => e.reason));
      return ['OutOfcpu', 'NodeAffinity', 'NodePorts', 'TaintToleration', 'OutOfpods'].every((r) => reasons.has(r)) && reasons;
    });
    assert.ok(events.has('OutOfexample.com/gpu'));
  });

  test('usage figures on /stats/summary and /metrics/resource: the annotated rate, CPU time that grows', async () => {
    await pods().create(pod('busy', 'sim-1', { annotations: { [fakeAnnotation(server.names, 'cpu-usage')]: '250m', [fakeAnnotation(server.names, 'memory-usage')]: '64Mi' } }));
    await waitFor('busy Running', async () => (await pods().get('busy')).status?.phase === 'Running');
    const summary = async () => JSON.parse((await httpsGet(`https://127.0.0.1:${port}/stats/summary?node=sim-1`)).body) as Summary;
    const first = await waitFor('a rate', async () => {
      const c = (await summary()).pods.find((p) => p.podRef.name === 'busy')?.containers[0];
      return c?.cpu?.usageNanoCores !== undefined && c;
    });
    assert.ok(Math.abs(first.cpu!.usageNanoCores! - 250_000_000) < 25_000_000, `about 250m: ${first.cpu!.usageNanoCores}`);
    assert.equal(first.memory!.workingSetBytes, 64 * 2 ** 20);
    const later = await waitFor('more CPU time', async () => {
      const c = (await summary()).pods.find((p) => p.podRef.name === 'busy')?.containers[0];
      return c && c.cpu!.usageCoreNanoSeconds > first.cpu!.usageCoreNanoSeconds + 100_000_000 && c;
    });
    assert.ok(later.cpu!.usageCoreNanoSeconds > first.cpu!.usageCoreNanoSeconds);
    const s = await summary();
    assert.equal(s.node.nodeName, 'sim-1');
    assert.ok(s.node.memory!.workingSetBytes >= 64 * 2 ** 20, 'the node sums its pods');
    const metrics = (await httpsGet(`https://127.0.0.1:${port}/metrics/resource?node=sim-1`)).body;
    assert.match(metrics, /^container_memory_working_set_bytes\{container="main",namespace="default",pod="busy"\} 67108864 \d+$/m);
    assert.match(metrics, /^# TYPE container_cpu_usage_seconds_total counter$/m);
  });

  test('a node registered tells its start and each condition it reports in events on the node, in the reference\'s order', async () => {
    const expected = ['Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady'];
    const events = await waitFor('the node\'s events', async () => {
      const list = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
        .filter((e: any) => e.involvedObject.kind === 'Node' && e.involvedObject.name === 'sim-1' && e.source?.component === 'kubelet');
      return list.length >= expected.length && list;
    });
    assert.deepEqual(events.map((e: any) => e.reason), expected);
    assert.equal(events[1].message, 'Node sim-1 status is now: NodeHasSufficientMemory');
  });

  test('each node has its CSINode, owned by the node; a deleted node comes back with a CSINode of its own', async () => {
    const csiNodes = () => client.resource(csiNodesRef(server.names));
    const ownedBy = async (name: string) => {
      const node = await client.resource(nodesRef).get(name);
      const csi = await csiNodes().get(name).catch(() => undefined);
      return csi?.metadata.ownerReferences?.[0]?.uid === node.metadata.uid ? { node, csi } : undefined;
    };
    for (const name of ['sim-0', 'sim-1', 'sim-2']) {
      const { csi } = await waitFor(`the CSINode of ${name}`, () => ownedBy(name));
      assert.deepEqual(csi.spec, { drivers: [] });
      assert.deepEqual(csi.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name, uid: (await client.resource(nodesRef).get(name)).metadata.uid }]);
      assert.match(csi.metadata.annotations[`storage.alpha.${server.names.labelDomain}/migrated-plugins`], /\/gce-pd\b/);
    }
    const before = await ownedBy('sim-2');
    assert.ok(before);
    await client.resource(nodesRef).delete('sim-2');
    // the agent registers its node again; the old CSINode goes with the old node and a new one is owned by the new node
    const after = await waitFor('sim-2 registered again with its CSINode', async () => {
      const now = await ownedBy('sim-2').catch(() => undefined);
      return now && now.node.metadata.uid !== before.node.metadata.uid && now;
    });
    assert.notEqual(after.csi.metadata.uid, before.csi.metadata.uid);
  });
});

describe('simulated nodes without --pod-cidr', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let dir: string;

  before(async () => {
    // the scheduler places the Jobs' pods
    server = await startTestServer({ scheduler: true });
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    dir = tempDir('agent-fake-ranges-');
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--fake-nodes=2', '--hostname-override=nocidr', `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--node-status-update-frequency=200ms', `--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 5, relistMs: 50 });
  });

  after(async () => {
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pods = () => client.resource(podsRef, 'default');
  const addressOf = (name: string) => waitFor(`${name} Running with an address`, async () => {
    const p = await pods().get(name);
    return p.status?.phase === 'Running' && p.status.podIP;
  });

  test('pods get addresses, so Services get endpoints; a range the node is given later serves its new pods', async () => {
    await pods().create({ ...pod('first', 'nocidr-1'), metadata: { name: 'first', labels: { app: 'web' } } });
    assert.equal(await addressOf('first'), '10.244.1.2');
    await client.resource({ group: '', version: 'v1', resource: 'services' }, 'default').create({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    const endpoints = await waitFor('the Service\'s endpoints', async () => {
      const e = await client.resource({ group: '', version: 'v1', resource: 'endpoints' }, 'default').get('web').catch(() => undefined);
      return e?.subsets?.[0]?.addresses && e;
    });
    assert.deepEqual(endpoints.subsets[0].addresses.map((a: any) => a.ip), ['10.244.1.2']);

    // the range node IPAM would give: the agent passes it to the runtime with the next status it posts
    await client.resource(nodesRef).patch('nocidr-1', { spec: { podCIDR: '10.99.7.0/24', podCIDRs: ['10.99.7.0/24'] } }, 'strategic');
    await waitFor('the range reached the agent', () => agent.nodes.find((n) => n.nodeName === 'nocidr-1')?.status?.node()?.spec?.podCIDR === '10.99.7.0/24');
    await pods().create(pod('second', 'nocidr-1'));
    assert.equal(await addressOf('second'), '10.99.7.2');
    // the first keeps its address
    assert.equal((await pods().get('first')).status.podIP, '10.244.1.2');
  });

  test('init containers exit 0 once started, so the pod\'s containers start', async () => {
    await pods().create(pod('initialized', 'nocidr-0', { spec: { initContainers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }] } }));
    const p = await waitFor('initialized Running', async () => {
      const x = await pods().get('initialized');
      return x.status?.phase === 'Running' && x;
    });
    assert.deepEqual(p.status.initContainerStatuses.map((c: any) => [c.name, c.state.terminated?.exitCode, c.state.terminated?.reason]), [['a', 0, 'Completed'], ['b', 0, 'Completed']]);
    assert.ok(p.status.containerStatuses[0].state.running);
  });

  test('a Job\'s pods exit 0 once started, so the Job completes; the annotations still make one fail', async () => {
    const jobs = client.resource({ group: 'batch', version: 'v1', resource: 'jobs' }, 'default');
    const job = (name: string, annotations: Record<string, string> = {}) => ({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
      spec: { completions: 2, backoffLimit: 0, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox', command: ['true'] }] } } },
    });
    await jobs.create(job('done'));
    await jobs.create(job('fails', { [fakeAnnotation(server.names, 'exit-code')]: '3' }));
    const finished = (name: string, type: string) => waitFor(`Job ${name} ${type}`, async () => {
      const j = await jobs.get(name);
      return j.status?.conditions?.some((c: any) => c.type === type && c.status === 'True') && j;
    });
    assert.equal((await finished('done', 'Complete')).status.succeeded, 2);
    assert.equal((await finished('fails', 'Failed')).status.failed, 1);
    const failedPod = (await pods().list({ labelSelector: 'job-name=fails' })).items[0];
    assert.equal(failedPod.status.containerStatuses[0].state.terminated.exitCode, 3);
  });

  test('the command of a Job\'s pod runs in the simulated shell: its output is logged, its exit code kept', async () => {
    const jobs = client.resource({ group: 'batch', version: 'v1', resource: 'jobs' }, 'default');
    // the shell knows echo, sleep and exit; a program it does not know (train) is taken as done
    await jobs.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'scripted' }, spec: { backoffLimit: 0, template: { spec: {
      restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox', command: ['sh', '-c'], args: ['echo starting; train --epochs=3; sleep 0.2; echo done >&2; exit 4'] }] } } } });
    const failed = await waitFor('Job scripted Failed', async () => {
      const j = await jobs.get('scripted');
      return j.status?.conditions?.some((c: any) => c.type === 'Failed' && c.status === 'True') && j;
    });
    assert.equal(failed.status.failed, 1);
    const p = (await pods().list({ labelSelector: 'job-name=scripted' })).items[0];
    const terminated = p.status.containerStatuses[0].state.terminated;
    assert.deepEqual([terminated.exitCode, terminated.reason], [4, 'Error']);
    const logFile = join(podLogDirectory(join(dir, 'root'), p), 'work', '0.log');
    const lines = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => l.split(' ').slice(1).join(' '));
    assert.deepEqual(lines, ['stdout F starting', 'stderr F done']);
  });
});
