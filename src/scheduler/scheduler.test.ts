// The scheduler's cycle against an in-memory cluster: filters, scores, the failure message, the queue's
// re-tries on cluster events, preemption and profiles.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeCluster, hostnameLabel, names, node, pod, zoneLabel } from './testing/cluster.js';
import { fitErrorMessage, numFeasibleNodesToFind } from './schedule-one.js';

describe('scheduling: filters and the failure message', () => {
  test('a pod is bound to a node that fits, with a Scheduled event', async () => {
    const c = fakeCluster({ nodes: [node('n1')] });
    c.add(pod('web', { cpu: '500m' }));
    await c.run();
    assert.equal(c.nodeOf('web'), 'n1');
    assert.deepEqual(c.events.map((e) => [e.type, e.reason, e.note]), [['Normal', 'Scheduled', 'Successfully assigned default/web to n1']]);
  });

  test('no node fits: the reference message counts the reasons per node, and preemption says why it cannot help', async () => {
    const c = fakeCluster({
      nodes: [node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), node('n2', { cpu: '1' }), node('n3', { cpu: '1' })],
    });
    c.add(pod('big', { cpu: '2' }));
    await c.run();
    const expected = '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..';
    assert.equal(c.nodeOf('big'), undefined);
    assert.equal(c.message('big'), expected);
    const cond = c.pods.get('default/big')!.status!.conditions![0]!;
    assert.deepEqual([cond.type, cond.status, cond.reason], ['PodScheduled', 'False', 'Unschedulable']);
    assert.deepEqual(c.events.map((e) => [e.type, e.reason, e.note]), [['Warning', 'FailedScheduling', expected]]);
  });

  test('no nodes at all', async () => {
    const c = fakeCluster();
    c.add(pod('lonely'));
    await c.run();
    assert.equal(c.message('lonely'), 'no nodes available to schedule pods');
  });

  test('pods of other schedulers are left alone', async () => {
    const c = fakeCluster({ nodes: [node('n1')] });
    c.add(pod('theirs', { schedulerName: 'other-scheduler' }));
    await c.run();
    assert.equal(c.nodeOf('theirs'), undefined);
    assert.equal(c.pods.get('default/theirs')!.status!.conditions, undefined);
    assert.deepEqual(c.events, []);
  });

  test('tolerations let a pod onto a tainted node; NoExecute counts, PreferNoSchedule does not filter', async () => {
    const c = fakeCluster({
      nodes: [node('n1', { taints: [{ key: 'a', value: 'x', effect: 'NoExecute' }] }), node('n2', { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] })],
      profiles: [{ plugins: { score: { disabled: [{ name: '*' }] } } }],
    });
    c.add(pod('tolerant', { tolerations: [{ key: 'a', operator: 'Equal', value: 'x', effect: 'NoExecute' }], nodeSelector: { [hostnameLabel]: 'n1' } }),
      pod('any', { nodeSelector: { [hostnameLabel]: 'n2' } }), pod('blocked', { nodeSelector: { [hostnameLabel]: 'n1' } }));
    await c.run();
    assert.equal(c.nodeOf('tolerant'), 'n1');
    assert.equal(c.nodeOf('any'), 'n2');
    assert.match(c.message('blocked')!, /^0\/2 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 1 node\(s\) had untolerated taint \{a: x\}\./);
  });

  test('cordoned nodes take only pods that tolerate the unschedulable taint', async () => {
    const c = fakeCluster({ nodes: [node('n1', { unschedulable: true })] });
    c.add(pod('p1'), pod('p2', { tolerations: [{ key: `node.${names.labelDomain}/unschedulable`, operator: 'Exists', effect: 'NoSchedule' }] }));
    await c.run();
    assert.equal(c.nodeOf('p1'), undefined);
    assert.match(c.message('p1')!, /1 node\(s\) were unschedulable/);
    assert.equal(c.nodeOf('p2'), 'n1');
  });

  test('required node affinity: expressions (In, Gt), fields, and nodeSelector together', async () => {
    const c = fakeCluster({ nodes: [node('n1', { labels: { disk: 'ssd', gen: '3' } }), node('n2', { labels: { disk: 'ssd', gen: '5' } }), node('n3')] });
    const required = (terms: object[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
    c.add(
      pod('gt4', { affinity: required([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }]) as any }),
      pod('named', { affinity: required([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n3'] }] }]) as any }),
      pod('ssd-gen3', { nodeSelector: { disk: 'ssd' }, affinity: required([{ matchExpressions: [{ key: 'gen', operator: 'In', values: ['3'] }] }]) as any }),
      pod('none', { affinity: required([{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['hdd'] }] }]) as any }),
    );
    await c.run();
    assert.equal(c.nodeOf('gt4'), 'n2');
    assert.equal(c.nodeOf('named'), 'n3');
    assert.equal(c.nodeOf('ssd-gen3'), 'n1');
    assert.match(c.message('none')!, /^0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./);
  });

  test('resources: init containers and overhead count; several shortages are all named; the pod count is a limit', async () => {
    const c = fakeCluster({ nodes: [node('n1', { cpu: '2', memory: '1Gi', pods: '2' })] });
    c.add(pod('init-heavy', { cpu: '100m', initContainers: [{ name: 'i', resources: { requests: { cpu: '3' } } }] }));
    c.add(pod('overhead', { cpu: '1900m', overhead: { cpu: '200m' } }));
    c.add(pod('both', { cpu: '3', memory: '2Gi' }));
    await c.run();
    assert.match(c.message('init-heavy')!, /1 Insufficient cpu\./);
    assert.match(c.message('overhead')!, /1 Insufficient cpu\./);
    assert.match(c.message('both')!, /1 Insufficient cpu, 1 Insufficient memory\./);
    c.add(pod('a', { cpu: '100m' }), pod('b', { cpu: '100m' }), pod('c', { cpu: '100m' }));
    await c.run();
    assert.deepEqual(['a', 'b', 'c'].map((n) => c.nodeOf(n)).filter(Boolean).length, 2);
    assert.ok(['a', 'b', 'c'].some((n) => /1 Too many pods\./.test(c.message(n) ?? '')));
  });

  test('host ports: a second pod asking for the same port goes elsewhere or waits', async () => {
    const c = fakeCluster({ nodes: [node('n1'), node('n2')] });
    c.add(pod('p1', { hostPorts: [8080] }), pod('p2', { hostPorts: [8080] }), pod('p3', { hostPorts: [8080] }));
    await c.run();
    const placed = ['p1', 'p2', 'p3'].map((n) => c.nodeOf(n));
    assert.equal(new Set(placed.filter(Boolean)).size, 2);
    const waiting = ['p1', 'p2', 'p3'].find((n) => !c.nodeOf(n))!;
    assert.match(c.message(waiting)!, /2 node\(s\) didn't have free ports for the requested pod ports\./);
  });
});

describe('scheduling: pod affinity, anti-affinity and topology spread', () => {
  const zoned = () => [
    node('a1', { labels: { [zoneLabel]: 'a' } }), node('a2', { labels: { [zoneLabel]: 'a' } }),
    node('b1', { labels: { [zoneLabel]: 'b' } }), node('b2', { labels: { [zoneLabel]: 'b' } }),
  ];
  const term = (labels: Record<string, string>, topologyKey: string) => ({ labelSelector: { matchLabels: labels }, topologyKey });

  test('required affinity places a pod in the zone of the pods it selects; the first of a self-selecting group goes anywhere', async () => {
    const c = fakeCluster({ nodes: zoned() });
    c.add(pod('db', { labels: { app: 'db' }, nodeName: 'b2' }));
    c.add(pod('web', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }, zoneLabel)] } } }));
    c.add(pod('cache', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'nothing' }, zoneLabel)] } } }));
    c.add(pod('first', { labels: { grp: 'x' }, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ grp: 'x' }, zoneLabel)] } } }));
    await c.run();
    assert.match(c.nodeOf('web')!, /^b/);
    assert.ok(c.nodeOf('first'));
    assert.equal(c.nodeOf('cache'), undefined);
    assert.match(c.message('cache')!, /4 node\(s\) didn't match pod affinity rules/);
  });

  test('required anti-affinity: one per host; the existing pods\' anti-affinity is respected too', async () => {
    const c = fakeCluster({ nodes: zoned() });
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' }, hostnameLabel)] } };
    for (let i = 0; i < 5; i++) c.add(pod(`web-${i}`, { labels: { app: 'web' }, affinity: anti }));
    await c.run();
    const hosts = [0, 1, 2, 3, 4].map((i) => c.nodeOf(`web-${i}`)).filter(Boolean);
    assert.equal(hosts.length, 4);
    assert.equal(new Set(hosts).size, 4);
    const left = [0, 1, 2, 3, 4].find((i) => !c.nodeOf(`web-${i}`))!;
    assert.match(c.message(`web-${left}`)!, /4 node\(s\) didn't match pod anti-affinity rules/);
    // a plain pod labelled app=web is kept away by the placed pods' anti-affinity
    c.add(pod('plain', { labels: { app: 'web' } }));
    await c.run();
    assert.match(c.message('plain')!, /4 node\(s\) didn't satisfy existing pods anti-affinity rules/);
  });

  test('hard topology spread keeps zones within maxSkew', async () => {
    const c = fakeCluster({ nodes: zoned() });
    const spread = [{ maxSkew: 1, topologyKey: zoneLabel, whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'x' } } }];
    c.add(pod('pre-1', { labels: { app: 'x' }, nodeName: 'a1' }), pod('pre-2', { labels: { app: 'x' }, nodeName: 'a2' }));
    c.add(pod('next', { labels: { app: 'x' }, spread }));
    await c.run();
    assert.match(c.nodeOf('next')!, /^b/);
    for (let i = 0; i < 3; i++) c.add(pod(`more-${i}`, { labels: { app: 'x' }, spread }));
    await c.run();
    const zones = { a: 0, b: 0 };
    for (const p of c.pods.values()) if (p.metadata.labels?.app === 'x' && p.spec.nodeName) zones[p.spec.nodeName[0] as 'a' | 'b']++;
    assert.ok(Math.abs(zones.a - zones.b) <= 1, JSON.stringify(zones));
  });

  test('a hard constraint on a key no node has: missing required label', async () => {
    const c = fakeCluster({ nodes: [node('n1')] });
    c.add(pod('p', { labels: { app: 'x' }, spread: [{ maxSkew: 1, topologyKey: 'rack', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'x' } } }] }));
    await c.run();
    assert.equal(c.message('p'), "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). "
      + 'preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling..');
  });

  test('the pods of a ReplicaSet are spread over hosts by default', async () => {
    const nodes = [node('n1'), node('n2'), node('n3')];
    const rs = { metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } } } };
    const c = fakeCluster({ nodes, selecting: [rs] });
    for (let i = 0; i < 6; i++) c.add(pod(`web-${i}`, { labels: { app: 'web' } }));
    await c.run();
    const perNode = new Map<string, number>();
    for (let i = 0; i < 6; i++) perNode.set(c.nodeOf(`web-${i}`)!, (perNode.get(c.nodeOf(`web-${i}`)!) ?? 0) + 1);
    assert.deepEqual([...perNode.values()].sort(), [2, 2, 2]);
  });

  test('soft spread (ScheduleAnyway) prefers the emptier zone but never blocks', async () => {
    const c = fakeCluster({ nodes: zoned() });
    const spread = [{ maxSkew: 1, topologyKey: zoneLabel, whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: { app: 'y' } } }];
    c.add(pod('y-0', { labels: { app: 'y' }, nodeName: 'a1' }), pod('y-1', { labels: { app: 'y' }, nodeName: 'a2' }));
    c.add(pod('y-2', { labels: { app: 'y' }, spread }));
    await c.run();
    assert.match(c.nodeOf('y-2')!, /^b/);
  });
});

describe('scheduling: scores', () => {
  test('LeastAllocated sends a pod to the emptier node; preferred affinity and PreferNoSchedule taints weigh in', async () => {
    const c = fakeCluster({ nodes: [node('busy'), node('idle')] });
    c.add(pod('hog', { cpu: '3', memory: '20Gi', nodeName: 'busy' }));
    c.add(pod('p', { cpu: '100m' }));
    await c.run();
    assert.equal(c.nodeOf('p'), 'idle');

    const d = fakeCluster({ nodes: [node('plain'), node('fast', { labels: { disk: 'ssd' } }), node('soft', { labels: { disk: 'ssd' }, taints: [{ key: 'x', effect: 'PreferNoSchedule' }] })] });
    d.add(pod('q', { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } } }));
    await d.run();
    assert.equal(d.nodeOf('q'), 'fast');
  });

  test('preferred pod affinity pulls towards the selected pods, anti-affinity pushes away', async () => {
    const c = fakeCluster({ nodes: [node('n1'), node('n2'), node('n3')] });
    c.add(pod('cache', { labels: { app: 'cache' }, nodeName: 'n2' }));
    c.add(pod('near', { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: hostnameLabel } }] } } }));
    c.add(pod('far', { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: hostnameLabel } }] } } }));
    await c.run();
    assert.equal(c.nodeOf('near'), 'n2');
    assert.notEqual(c.nodeOf('far'), 'n2');
  });

  test('InterPodAffinity ignorePreferredTermsOfExistingPods: placed pods\' preferred terms no longer pull a pod that has none of its own', async () => {
    const magnet = { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'newcomer' } }, topologyKey: hostnameLabel } }] } } };
    for (const ignore of [false, true]) {
      const c = fakeCluster({ nodes: [node('n1'), node('n2'), node('n3')],
        profiles: [{ pluginConfig: [{ name: 'InterPodAffinity', args: { ignorePreferredTermsOfExistingPods: ignore } }] }] });
      c.add(pod('magnet', { ...magnet, nodeName: 'n2' }));
      c.add(pod('newcomer', { labels: { app: 'newcomer' } }));
      await c.run();
      if (ignore) assert.notEqual(c.nodeOf('newcomer'), 'n2', 'the emptier nodes win');
      else assert.equal(c.nodeOf('newcomer'), 'n2', 'the placed pod\'s preferred affinity pulls');
    }
  });
});

describe('scheduling: the queue', () => {
  test('an unschedulable pod is tried again when a node is added, and when a pod is deleted', async () => {
    const c = fakeCluster({ nodes: [node('small', { cpu: '1' })] });
    c.add(pod('filler', { cpu: '800m', nodeName: 'small' }));
    c.add(pod('waits', { cpu: '500m' }));
    await c.run();
    assert.equal(c.nodeOf('waits'), undefined);
    assert.deepEqual(c.s.queue.counts(), { active: 0, backoff: 0, unschedulable: 1 });
    // a status write of its own does not move it
    await c.run();
    assert.equal(c.s.queue.counts().unschedulable, 1);
    c.s.podDeleted(c.pods.get('default/filler')!);
    c.pods.delete('default/filler');
    await c.run();
    assert.equal(c.nodeOf('waits'), 'small');

    c.add(pod('bigger', { cpu: '2' }));
    await c.run();
    assert.equal(c.nodeOf('bigger'), undefined);
    c.s.nodeAdded(node('large', { cpu: '8' }));
    await c.run();
    assert.equal(c.nodeOf('bigger'), 'large');
  });

  test('higher priority pods are tried first', async () => {
    const c = fakeCluster({ nodes: [node('one', { cpu: '1' })] });
    c.add(pod('low', { cpu: '1', priority: 1 }), pod('high', { cpu: '1', priority: 100 }));
    await c.run();
    assert.equal(c.nodeOf('high'), 'one');
    assert.equal(c.nodeOf('low'), undefined);
  });

  test('scheduling gates hold a pod until they are removed', async () => {
    const c = fakeCluster({ nodes: [node('n1')] });
    const gated = pod('gated', { gates: ['wait-for-me'] });
    c.add(gated);
    await c.run();
    assert.equal(c.nodeOf('gated'), undefined);
    assert.deepEqual(c.events, []);
    const open = { ...gated, spec: { ...gated.spec, schedulingGates: [] } };
    c.pods.set('default/gated', open);
    c.s.podUpdated(gated, open);
    await c.run();
    assert.equal(c.nodeOf('gated'), 'n1');
  });

  test('a failed binding forgets the assumed pod and tries again', async () => {
    let refusals = 1;
    const c = fakeCluster({ nodes: [node('n1')], failBind: () => refusals-- > 0 });
    c.add(pod('flaky'));
    await c.s.loop.next();
    await c.s.loop.drain();
    assert.equal(c.nodeOf('flaky'), undefined);
    assert.equal(c.s.cache.podCount, 0);
    assert.ok(c.events.some((e) => e.reason === 'FailedScheduling' && /binding refused/.test(e.note)));
    assert.equal(c.s.queue.counts().backoff, 1);
    await c.run();
    assert.equal(c.nodeOf('flaky'), 'n1');
  });
});

describe('scheduling: preemption', () => {
  test('lower-priority pods are preempted: the fewest, the least important; the pod is nominated and then bound', async () => {
    const c = fakeCluster({ nodes: [node('n1', { cpu: '2' }), node('n2', { cpu: '2' })] });
    c.add(pod('v-low', { cpu: '1', priority: 3, nodeName: 'n1' }), pod('v-mid', { cpu: '1', priority: 5, nodeName: 'n1' }));
    c.add(pod('w-high', { cpu: '1', priority: 50, nodeName: 'n2' }), pod('w-low', { cpu: '1', priority: 1, nodeName: 'n2' }));
    c.add(pod('urgent', { cpu: '1', priority: 10 }));
    await c.run();
    // one victim on either node (v-mid is reprieved on n1); n2's victim has the lower priority
    assert.deepEqual(c.deleted, ['default/w-low']);
    assert.equal(c.pods.get('default/urgent')!.status!.nominatedNodeName, 'n2');
    assert.equal(c.message('urgent'), '0/2 nodes are available: 2 Insufficient cpu.');
    assert.ok(c.events.some((e) => e.pod === 'default/w-low' && e.reason === 'Preempted' && e.note === 'Preempted by a pod on node n2'));
    // the victim's deletion moved the pod back: it is bound to the nominated node
    assert.equal(c.nodeOf('urgent'), 'n2');
  });

  test('preemptionPolicy Never and pods with nothing to preempt', async () => {
    const c = fakeCluster({ nodes: [node('n1', { cpu: '1' })] });
    c.add(pod('low', { cpu: '1', priority: 0, nodeName: 'n1' }));
    c.add(pod('polite', { cpu: '1', priority: 100, preemptionPolicy: 'Never' }));
    await c.run();
    assert.equal(c.message('polite'), '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
    assert.deepEqual(c.deleted, []);
  });

  test('pods protected by a disruption budget are spared when another node needs no violation', async () => {
    const pdb = { metadata: { name: 'keep', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'kept' } } }, status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } };
    const c = fakeCluster({ nodes: [node('n1', { cpu: '1' }), node('n2', { cpu: '1' })], pdbs: [pdb] });
    c.add(pod('kept', { cpu: '1', labels: { app: 'kept' }, nodeName: 'n1' }));
    c.add(pod('free', { cpu: '1', priority: 5, nodeName: 'n2' }));
    c.add(pod('urgent', { cpu: '1', priority: 10 }));
    await c.run();
    assert.deepEqual(c.deleted, ['default/free']);
    assert.equal(c.nodeOf('urgent'), 'n2');
  });
});

describe('scheduling: how many nodes are evaluated', () => {
  test('the reference\'s adaptive percentage', () => {
    assert.equal(numFeasibleNodesToFind(undefined, 50), 50);
    assert.equal(numFeasibleNodesToFind(undefined, 100), 100);
    assert.equal(numFeasibleNodesToFind(undefined, 1000), 420);
    assert.equal(numFeasibleNodesToFind(undefined, 5000), 500);
    assert.equal(numFeasibleNodesToFind(undefined, 6000), 300);
    assert.equal(numFeasibleNodesToFind(10, 500), 100);
    assert.equal(numFeasibleNodesToFind(100, 5000), 5000);
  });

  test('with 300 nodes and 50% only some nodes are filtered, in turns', async () => {
    const nodes = Array.from({ length: 300 }, (_, i) => node(`n${i}`));
    const c = fakeCluster({ nodes, percentageOfNodesToScore: 50 });
    c.add(pod('p'));
    await c.run();
    assert.ok(c.nodeOf('p'));
  });

  test('a profile\'s percentageOfNodesToScore of 0 means the adaptive share, whatever the global setting', async () => {
    // the one node a pod prefers comes last: found only when every node is evaluated
    const nodes = Array.from({ length: 300 }, (_, i) => node(`n${i}`, i === 299 ? { labels: { best: 'yes' } } : {}));
    const prefersBest = { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'best', operator: 'In' as const, values: ['yes'] }] } }] } } };
    for (const profile of [undefined, 0]) {
      const c = fakeCluster({ nodes, percentageOfNodesToScore: 100, profiles: [{ percentageOfNodesToScore: profile }] });
      c.add(pod('p', prefersBest));
      await c.run();
      if (profile === undefined) assert.equal(c.nodeOf('p'), 'n299', 'the global 100% evaluates every node');
      else assert.notEqual(c.nodeOf('p'), 'n299', 'adaptive: 48% of 300 nodes, from the first');
    }
  });

  test('the histogram is sorted as strings, with PreFilter messages in place of node reasons', () => {
    const statuses = new Map([
      ['a', { code: 'Unschedulable' as const, reasons: ['Insufficient memory', 'Insufficient cpu'] }],
      ['b', { code: 'Unschedulable' as const, reasons: ['Insufficient cpu'] }],
    ]);
    assert.equal(fitErrorMessage(2, { statuses, unschedulablePlugins: new Set() }), '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.');
    assert.equal(fitErrorMessage(2, { statuses, unschedulablePlugins: new Set(), preFilterMsg: 'x' }), '0/2 nodes are available: x.');
  });
});
