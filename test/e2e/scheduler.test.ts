// The scheduler inside cluster-apiserver against a real server: Node objects created directly for the
// filters (each scenario on nodes of its own, selected by a label; bound CSI volumes and CSINodes for the volume
// filters), the node agent's fake mode for preemption (victims must really go away), kubectl describe for the
// FailedScheduling event.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { ensureDefaultServiceAccount, tempDir, waitFor } from '../agent/helpers.js';
import { startKubectlEnv, type KubectlEnv } from './support.js';
import { startTestServer } from '../../src/testing.js';
import { addReadyNode, agentlessNodeFlags, type NodeOptions } from './nodes.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const nodesRef = { group: '', version: 'v1', resource: 'nodes' };
const eventsRef = { group: '', version: 'v1', resource: 'events' };
const bound = 60_000;

interface Scenario { namespace: string; label: Record<string, string> }

describe('the scheduler inside cluster-apiserver', () => {
  let env: KubectlEnv;
  let client: Client;
  let hostname: string;
  let nsCount = 0;

  before(async () => {
    env = await startKubectlEnv('1.27', 'k8s.io', await startTestServer({ apiDomain: 'k8s.io', scheduler: true, flags: agentlessNodeFlags }));
    client = await clientFromFile(env.server.kubeconfig, { qps: 0 });
    hostname = env.server.names.label('hostname');
  });
  after(async () => {
    client?.close();
    await env?.close();
    await env?.server.close();
  });

  /** a namespace of its own and a label its nodes carry */
  async function scenario(name: string): Promise<Scenario> {
    const namespace = `sched-${name}-${++nsCount}`;
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: namespace } });
    await ensureDefaultServiceAccount(client, namespace);
    return { namespace, label: { scenario: name } };
  }

  const addNode = (name: string, s: Scenario, o: NodeOptions = {}) => addReadyNode(client, env.server.names, name, { ...o, labels: { ...s.label, ...o.labels } });

  const pods = (s: Scenario) => client.resource(podsRef, s.namespace);

  function podOf(name: string, s: Scenario, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}, cpu?: string) {
    return {
      apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
      spec: {
        nodeSelector: s.label,
        containers: [{ name: 'c', image: 'busybox', ...(cpu ? { resources: { requests: { cpu } } } : {}) }],
        ...spec,
      },
    };
  }

  const nodeOf = (s: Scenario, name: string) => waitFor(`pod ${name} bound`, async () => (await pods(s).get(name)).spec?.nodeName, bound);

  /** the PodScheduled=False message once the scheduler has written one matching `match` */
  const unschedulableMessage = (s: Scenario, name: string, match: RegExp = /./) => waitFor(`pod ${name} unschedulable`, async () => {
    const p = await pods(s).get(name);
    const c = p.status?.conditions?.find((x: any) => x.type === 'PodScheduled');
    return c?.status === 'False' && c.reason === 'Unschedulable' && match.test(c.message) && c.message as string;
  }, bound);

  test('an unschedulable pod gets a FailedScheduling event naming why, through the API and in kubectl describe', async () => {
    const s = await scenario('why');
    await addNode('why-tainted', s, { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
    await addNode('why-small-1', s, { cpu: '1' });
    await addNode('why-small-2', s, { cpu: '1' });
    await pods(s).create(podOf('big', s, {}, {}, '2'));
    const expected = '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..';
    assert.equal(await unschedulableMessage(s, 'big'), expected);
    const event = await waitFor('the FailedScheduling event', async () => (await client.resource(eventsRef, s.namespace)
      .list({ fieldSelector: 'involvedObject.name=big' })).items.find((e: any) => e.reason === 'FailedScheduling'), bound);
    assert.equal(event.type, 'Warning');
    assert.equal(event.message, expected);
    // written through the events API, as the reference's scheduler does: its core view names the reporter, not a source
    assert.equal(event.reportingComponent, 'default-scheduler');
    assert.equal(event.involvedObject.kind, 'Pod');
    const described = await env.ok(['describe', 'pod', 'big', '-n', s.namespace]);
    assert.match(described, /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 1 node\(s\) had untolerated taint \{dedicated: gpu\}, 2 Insufficient cpu\./);
    assert.match(described, /PodScheduled\s+False/);
  });

  test('pods for another scheduler are left alone', async () => {
    const s = await scenario('others');
    await addNode('others-1', s);
    await pods(s).create(podOf('theirs', s, { schedulerName: 'someone-else' }));
    await pods(s).create(podOf('ours', s));
    assert.equal(await nodeOf(s, 'ours'), 'others-1');
    const scheduledEvent = await waitFor('the Scheduled event', async () => (await client.resource(eventsRef, s.namespace)
      .list({ fieldSelector: 'involvedObject.name=ours' })).items.find((e: any) => e.reason === 'Scheduled'), bound);
    assert.equal(scheduledEvent.message, `Successfully assigned ${s.namespace}/ours to others-1`);
    // the other pod was seen before ours was bound: it has no node, no condition and no events
    const theirs = await pods(s).get('theirs');
    assert.equal(theirs.spec.nodeName, undefined);
    assert.equal(theirs.status.conditions?.find((c: any) => c.type === 'PodScheduled'), undefined);
    assert.deepEqual((await client.resource(eventsRef, s.namespace).list({ fieldSelector: 'involvedObject.name=theirs' })).items, []);
  });

  test('taints and tolerations', async () => {
    const s = await scenario('taints');
    await addNode('taints-gpu', s, { taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] });
    await pods(s).create(podOf('tolerant', s, { tolerations: [{ key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }] }));
    await pods(s).create(podOf('intolerant', s));
    assert.equal(await nodeOf(s, 'tolerant'), 'taints-gpu');
    assert.match(await unschedulableMessage(s, 'intolerant'), /1 node\(s\) had untolerated taint \{gpu: true\}/);
  });

  test('node affinity and pod affinity', async () => {
    const s = await scenario('affinity');
    await addNode('affinity-a', s, { labels: { zone: 'a', disk: 'ssd' } });
    await addNode('affinity-b', s, { labels: { zone: 'b', disk: 'hdd' } });
    await pods(s).create(podOf('ssd', s, { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } } } }, { app: 'db' }));
    assert.equal(await nodeOf(s, 'ssd'), 'affinity-a');
    await pods(s).create(podOf('near-db', s, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }] } } }));
    assert.equal(await nodeOf(s, 'near-db'), 'affinity-a');
    await pods(s).create(podOf('nvme', s, { nodeSelector: { ...s.label, disk: 'nvme' } }));
    assert.match(await unschedulableMessage(s, 'nvme'), /node\(s\) didn't match Pod's node affinity\/selector/);
  });

  test('pod anti-affinity: one per host', async () => {
    const s = await scenario('anti');
    await addNode('anti-1', s);
    await addNode('anti-2', s);
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: hostname }] } };
    for (const n of ['web-1', 'web-2', 'web-3']) await pods(s).create(podOf(n, s, { affinity: anti }, { app: 'web' }));
    const placed = await waitFor('two of three pods bound', async () => {
      const list = (await pods(s).list()).items.filter((p: any) => p.spec.nodeName);
      return list.length === 2 && list;
    }, bound);
    assert.deepEqual(placed.map((p: any) => p.spec.nodeName).sort(), ['anti-1', 'anti-2']);
    const waiting = (await pods(s).list()).items.find((p: any) => !p.spec.nodeName)!;
    assert.match(await unschedulableMessage(s, waiting.metadata.name), /2 node\(s\) didn't match pod anti-affinity rules/);
  });

  test('topology spread: a hard constraint keeps zones within maxSkew', async () => {
    const s = await scenario('spread');
    await addNode('spread-a1', s, { labels: { zone: 'a' } });
    await addNode('spread-a2', s, { labels: { zone: 'a' } });
    await addNode('spread-b1', s, { labels: { zone: 'b' } });
    const spread = [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }];
    for (let i = 0; i < 6; i++) await pods(s).create(podOf(`s-${i}`, s, { topologySpreadConstraints: spread }, { app: 'spread' }));
    const placed = await waitFor('all six bound', async () => {
      const list = (await pods(s).list()).items.filter((p: any) => p.spec.nodeName);
      return list.length === 6 && list;
    }, bound);
    const inB = placed.filter((p: any) => p.spec.nodeName === 'spread-b1').length;
    assert.equal(inB, 3, 'zone b (one node) holds as many as zone a (two nodes)');
  });

  test('resources: requests against allocatable, and the pod count', async () => {
    const s = await scenario('resources');
    await addNode('resources-1', s, { cpu: '2', pods: '3' });
    await pods(s).create(podOf('r-1', s, {}, {}, '1500m'));
    assert.equal(await nodeOf(s, 'r-1'), 'resources-1');
    await pods(s).create(podOf('r-2', s, {}, {}, '1'));
    assert.match(await unschedulableMessage(s, 'r-2'), /1 Insufficient cpu/);
    await pods(s).create(podOf('r-3', s, { initContainers: [{ name: 'i', image: 'busybox', resources: { requests: { cpu: '3' } } }] }));
    assert.match(await unschedulableMessage(s, 'r-3'), /1 Insufficient cpu/);
    await pods(s).delete('r-1', { gracePeriodSeconds: 0 });
    // the deletion moves the waiting pods back: r-2 fits now
    assert.equal(await nodeOf(s, 'r-2'), 'resources-1');
  });

  test('host ports', async () => {
    const s = await scenario('ports');
    await addNode('ports-1', s);
    const withPort = (name: string) => podOf(name, s, { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
    await pods(s).create(withPort('p-1'));
    assert.equal(await nodeOf(s, 'p-1'), 'ports-1');
    await pods(s).create(withPort('p-2'));
    assert.match(await unschedulableMessage(s, 'p-2'), /1 node\(s\) didn't have free ports for the requested pod ports/);
  });

  /** a CSI volume pre-bound to a claim of the same name in the scenario's namespace, once the binder has bound them */
  async function boundVolume(s: Scenario, name: string, labels: Record<string, string> = {}) {
    const claims = client.resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, s.namespace);
    const claim = await claims.create({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: name, resources: { requests: { storage: '1Gi' } } },
    });
    await client.resource({ group: '', version: 'v1', resource: 'persistentvolumes' }).create({
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, labels },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '', persistentVolumeReclaimPolicy: 'Retain',
        csi: { driver: 'block.csi.example', volumeHandle: `handle-${name}` }, claimRef: { namespace: s.namespace, name, uid: claim.metadata.uid },
      },
    });
    await waitFor(`claim ${name} Bound`, async () => (await claims.get(name)).status?.phase === 'Bound', bound);
  }
  const withClaim = (name: string, s: Scenario, claim: string, spec: Record<string, unknown> = {}) =>
    podOf(name, s, { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }], ...spec });
  const onNode = (s: Scenario, node: string) => ({ nodeSelector: { ...s.label, [hostname]: node } });

  test('VolumeZone: a pod whose volume is in a zone goes to a node of that zone, and fits no node of another', async () => {
    const s = await scenario('zones');
    const zone = `topology.${env.server.names.labelDomain}/zone`;
    await addNode('zones-a', s, { labels: { [zone]: 'zone-a' } });
    await addNode('zones-b', s, { labels: { [zone]: 'zone-b' } });
    await boundVolume(s, 'zones-in-a', { [zone]: 'zone-a' });
    await pods(s).create(withClaim('follows', s, 'zones-in-a'));
    assert.equal(await nodeOf(s, 'follows'), 'zones-a');
    await pods(s).create(withClaim('elsewhere', s, 'zones-in-a', onNode(s, 'zones-b')));
    // the other scenarios' nodes count too (as many as ran before): only this scenario's part of the message is checked
    const message = await unschedulableMessage(s, 'elsewhere');
    assert.match(message, /nodes are available: .*\b1 node\(s\) had no available volume zone\b/);
    assert.doesNotMatch(message, /volume zone.*preemption: .*No preemption victims/);
  });

  test('NodeVolumeLimits: a node whose CSINode allows one volume of the driver takes no second one', async () => {
    const s = await scenario('limits');
    const csiNodes = client.resource({ group: env.server.names.group('storage'), version: 'v1', resource: 'csinodes' });
    for (const n of ['limits-full', 'limits-room']) {
      await csiNodes.create({ metadata: { name: n }, spec: { drivers: [{ name: 'block.csi.example', nodeID: n, allocatable: { count: 1 } }] } });
    }
    await addNode('limits-full', s);
    await addNode('limits-room', s);
    for (const v of ['limits-1', 'limits-2', 'limits-3']) await boundVolume(s, v);
    await pods(s).create(withClaim('first', s, 'limits-1', onNode(s, 'limits-full')));
    assert.equal(await nodeOf(s, 'first'), 'limits-full');
    await pods(s).create(withClaim('second', s, 'limits-2'));
    assert.equal(await nodeOf(s, 'second'), 'limits-room');
    await pods(s).create(withClaim('third', s, 'limits-3', onNode(s, 'limits-full')));
    // preemption could make room: nothing of lower priority is there to remove
    assert.match(await unschedulableMessage(s, 'third'), /nodes are available: 1 node\(s\) exceed max volume count, .*preemption: .*\b1 No preemption victims found for incoming pod\b/);
  });
});

describe('preemption, with nodes of the node agent in fake mode', () => {
  let env: KubectlEnv;
  let client: Client;
  let agent: RunningAgent;
  let root: string;

  before(async () => {
    env = await startKubectlEnv('1.27', 'k8s.io', await startTestServer({ apiDomain: 'k8s.io', scheduler: true, flags: agentlessNodeFlags }));
    client = await clientFromFile(env.server.kubeconfig, { qps: 0 });
    await ensureDefaultServiceAccount(client);
    root = tempDir('sched-agent-');
    // two simulated nodes of 8 CPUs, 6 of them reserved: 2 allocatable each
    const { options } = await parseAgentOptions([
      `--clusterconfig=${env.server.kubeconfig}`, '--runtime=fake', '--fake-nodes=2', '--hostname-override=pre', `--root-dir=${root}`,
      '--node-status-update-frequency=200ms', '--system-reserved=cpu=6', '--api-domain=k8s.io',
    ]);
    agent = await runAgent(options, { info() {}, warn() {} }, { leaseDurationSeconds: 1, relistMs: 50 });
  });
  after(async () => {
    await agent?.stop();
    client?.close();
    await env?.close();
    await env?.server.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('a high-priority pod preempts the fewest lower-priority pods, is nominated, and runs in their place', async () => {
    const group = `${env.server.names.group('scheduling')}/v1`;
    const classes = client.resource({ group: env.server.names.group('scheduling'), version: 'v1', resource: 'priorityclasses' });
    await classes.create({ apiVersion: group, kind: 'PriorityClass', metadata: { name: 'low' }, value: 10 });
    await classes.create({ apiVersion: group, kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 });
    const pods = client.resource(podsRef, 'default');
    const nodes = client.resource(nodesRef);
    await waitFor('both nodes Ready and untainted', async () => {
      const list = (await nodes.list()).items.filter((n: any) => n.metadata.name.startsWith('pre-'));
      return list.length === 2 && list.every((n: any) => n.status?.allocatable?.cpu === '2' && !(n.spec?.taints ?? []).length);
    }, bound);
    const spec = (cls: string, cpu: string) => ({
      priorityClassName: cls, terminationGracePeriodSeconds: 0,
      containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }],
    });
    // pre-0 and pre-1 each hold two low pods of 1 CPU
    for (let i = 0; i < 4; i++) await pods.create({ metadata: { name: `low-${i}` }, spec: spec('low', '1') });
    await waitFor('the low pods Running', async () => {
      const list = (await pods.list()).items.filter((p: any) => p.metadata.name.startsWith('low-'));
      return list.every((p: any) => p.status?.phase === 'Running') && list.length === 4;
    }, bound);
    await pods.create({ metadata: { name: 'urgent' }, spec: spec('high', '1500m') });
    const nominated = await waitFor('urgent nominated', async () => (await pods.get('urgent')).status?.nominatedNodeName, bound);
    const running = await waitFor('urgent Running', async () => {
      const p = await pods.get('urgent');
      return p.status?.phase === 'Running' && p;
    }, bound);
    assert.equal(running.spec.nodeName, nominated);
    // the two low pods of that node were preempted; those of the other node were not
    const left = (await pods.list()).items.filter((p: any) => p.metadata.name.startsWith('low-'));
    assert.equal(left.length, 2);
    assert.ok(left.every((p: any) => p.spec.nodeName !== nominated));
    const events = (await client.resource(eventsRef, 'default').list()).items;
    const preempted = events.filter((e: any) => e.reason === 'Preempted');
    assert.equal(preempted.length, 2);
    assert.ok(preempted.every((e: any) => e.message === `Preempted by a pod on node ${nominated}`));
    // the attempt that preempted: no room anywhere, and nothing more to say since preemption found a node
    assert.ok(events.some((e: any) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'urgent' && e.message === '0/2 nodes are available: 2 Insufficient cpu.'));
  });
});
