// The scheduling queue and the cache on their own: back-off doubling to its cap, the unschedulable set
// left by interested events only or after its maximum wait, nominations, and the cache's assumed pods.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSchedulingQueue } from './queue.js';
import { createSchedulerCache } from './cache.js';
import { podInfo } from './node-info.js';
import type { ClusterEvent } from './framework.js';
import { node, pod, zoneLabel } from './testing/cluster.js';

function queue(events: Record<string, ClusterEvent[]> = {}) {
  let clock = 1_000_000;
  const q = createSchedulingQueue({
    less: (a, b) => (a.info.pod.spec.priority ?? 0) > (b.info.pod.spec.priority ?? 0) || a.timestamp < b.timestamp,
    preEnqueue: (p) => (p.spec.schedulingGates?.length ? { code: 'UnschedulableAndUnresolvable', reasons: ['gated'], plugin: 'SchedulingGates' } : undefined),
    eventsOf: (plugin) => events[plugin] ?? [],
    namespaceLabels: () => undefined,
    now: () => clock,
  });
  return { q, advance: (ms: number) => { clock += ms; } };
}

describe('the scheduling queue', () => {
  test('pops by priority, then by arrival', async () => {
    const { q, advance } = queue();
    q.add(pod('a', { priority: 1 }));
    advance(1);
    q.add(pod('b', { priority: 5 }));
    advance(1);
    q.add(pod('c', { priority: 1 }));
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await q.pop())!.info.pod.metadata.name);
    assert.deepEqual(order, ['b', 'a', 'c']);
    assert.equal(q.cycle, 3);
  });

  test('a failed pod backs off 1 s, doubling per attempt up to 10 s', async () => {
    const { q, advance } = queue();
    q.add(pod('a'));
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const p = (await q.pop())!;
      q.requeue(p, q.cycle, true);
      let waited = 0;
      while (!q.counts().active) {
        advance(500);
        waited += 500;
        q.flush();
      }
      waits.push(waited);
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 10000, 10000]);
  });

  test('an unschedulable pod waits for an event its plugins care about, or five minutes', async () => {
    const { q, advance } = queue({ NodeResourcesFit: ['Pod/Delete', 'Node/Add'], TaintToleration: ['Node/UpdateNodeTaint'] });
    q.add(pod('a'));
    const p = (await q.pop())!;
    p.unschedulablePlugins = new Set(['TaintToleration']);
    q.requeue(p, q.cycle, false);
    assert.deepEqual(q.counts(), { active: 0, backoff: 0, unschedulable: 1 });
    q.moveOnEvent('Pod/Delete');
    assert.equal(q.counts().unschedulable, 1, 'not an event TaintToleration registered');
    advance(20_000);
    q.moveOnEvent('Node/UpdateNodeTaint');
    assert.equal(q.counts().active, 1);
    const again = (await q.pop())!;
    again.unschedulablePlugins = new Set(['NodeResourcesFit']);
    q.requeue(again, q.cycle, false);
    advance(5 * 60_000 + 1);
    q.flush();
    assert.equal(q.counts().active, 1, 'moved after waiting five minutes');
  });

  test('an event during a pod\'s own attempt sends it to back-off rather than to wait', async () => {
    const { q, advance } = queue({ NodeResourcesFit: ['Node/Add'] });
    q.add(pod('a'));
    const p = (await q.pop())!;
    q.moveOnEvent('Node/Add');
    p.unschedulablePlugins = new Set(['NodeResourcesFit']);
    q.requeue(p, q.cycle, false);
    assert.deepEqual(q.counts(), { active: 0, backoff: 1, unschedulable: 0 });
    advance(1000);
    q.flush();
    assert.equal(q.counts().active, 1);
  });

  test('status-only updates leave a waiting pod where it is; a spec or label change moves it', async () => {
    const { q } = queue();
    const original = pod('a');
    q.add(original);
    const p = (await q.pop())!;
    q.requeue(p, q.cycle, false);
    const withStatus = { ...original, metadata: { ...original.metadata, resourceVersion: '9' }, status: { phase: 'Pending' as const, conditions: [{ type: 'PodScheduled', status: 'False' }] } };
    q.update(original, withStatus);
    assert.equal(q.counts().unschedulable, 1);
    const relabelled = { ...withStatus, metadata: { ...withStatus.metadata, labels: { x: 'y' } } };
    q.update(withStatus, relabelled);
    assert.equal(q.counts().unschedulable, 0);
  });

  test('gated pods wait until their gates are gone; deleted pods leave every queue and their nomination', async () => {
    const { q } = queue({ SchedulingGates: ['Pod/Update'] });
    const gated = pod('g', { gates: ['x'] });
    q.add(gated);
    assert.deepEqual(q.counts(), { active: 0, backoff: 0, unschedulable: 1 });
    q.update(gated, { ...gated, spec: { ...gated.spec, schedulingGates: [] } });
    assert.equal(q.counts().active, 1);
    const nominated = pod('n', { nominatedNodeName: 'n1' });
    q.add(nominated);
    assert.deepEqual(q.nominatedPods('n1').map((i) => i.pod.metadata.name), ['n']);
    q.delete(nominated);
    assert.deepEqual(q.nominatedPods('n1'), []);
  });
});

describe('the scheduler cache', () => {
  test('assumed pods count on their node until confirmed or forgotten', () => {
    const c = createSchedulerCache([zoneLabel]);
    c.addNode(node('n1'));
    const p = podInfo(pod('a', { cpu: '1' }));
    c.assume(p, 'n1');
    assert.ok(c.isAssumed(p.pod));
    assert.equal(c.node('n1')!.requested.cpu, 1000);
    c.forget(p);
    assert.equal(c.node('n1')!.requested.cpu, 0);
    c.assume(p, 'n1');
    c.addPod({ ...p.pod, spec: { ...p.pod.spec, nodeName: 'n1' } });
    assert.ok(!c.isAssumed(p.pod));
    assert.equal(c.node('n1')!.pods.length, 1);
    c.forget(p);
    assert.equal(c.node('n1')!.pods.length, 1, 'a confirmed pod is not forgotten');
    c.removePod(p.pod);
    assert.equal(c.node('n1')!.pods.length, 0);
  });

  test('pods that arrive before their node are kept for it; nodes are listed zone by zone', () => {
    const c = createSchedulerCache([zoneLabel]);
    c.addPod(pod('early', { cpu: '2', nodeName: 'late' }));
    assert.equal(c.node('late'), undefined);
    c.addNode(node('late'));
    assert.equal(c.node('late')!.requested.cpu, 2000);
    for (const [n, z] of [['a1', 'a'], ['a2', 'a'], ['b1', 'b'], ['b2', 'b']]) c.addNode(node(n!, { labels: { [zoneLabel]: z! } }));
    assert.deepEqual(c.nodes().map((n) => n.name), ['late', 'a1', 'b1', 'a2', 'b2']);
    c.removeNode(node('a1'));
    assert.deepEqual(c.nodes().map((n) => n.name), ['late', 'a2', 'b1', 'b2']);
  });
});
