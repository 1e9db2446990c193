// The workload controllers against a real server, with simulated nodes: Deployments roll through
// ReplicaSets, ReplicaSets and ReplicationControllers keep their pod counts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { fakeAnnotation } from '../../src/agent/options.js';

const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };
const rsRef = { group: 'apps', version: 'v1', resource: 'replicasets' };
const podsRef = { group: '', version: 'v1', resource: 'pods' };

const deployment = (name: string, replicas: number, image = 'web:1', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } }, ...extra },
});

describe('workload controllers', () => {
  let cluster: TestCluster;
  before(async () => { cluster = await startTestCluster({ nodes: 3 }); });
  after(async () => { await cluster?.close(); });

  const running = async (selector: string) => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: selector })).items
    .filter((p: any) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);

  test('a Deployment runs its replicas through a ReplicaSet and reports them available', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.create(deployment('web', 3));
    const d = await waitFor('3 available', async () => {
      const cur = await deps.get('web');
      return cur.status?.availableReplicas === 3 && cur.status.updatedReplicas === 3 && cur;
    });
    assert.equal(d.status.observedGeneration, d.metadata.generation);
    // the reference's counts are omitempty integers: none unavailable is no field, not a 0
    assert.ok(!('unavailableReplicas' in d.status), JSON.stringify(d.status));
    // in the reference's order: a condition whose reason changes goes to the end, and Progressing changed last
    const conditions = d.status.conditions.map((c: any) => [c.type, c.reason]);
    assert.deepEqual(conditions, [['Available', 'MinimumReplicasAvailable'], ['Progressing', 'NewReplicaSetAvailable']]);
    const rss = (await cluster.client.resource(rsRef, 'default').list({ labelSelector: 'app=web' })).items;
    assert.equal(rss.length, 1);
    const hash = rss[0].metadata.labels['pod-template-hash'];
    assert.ok(hash);
    assert.equal(rss[0].metadata.name, `web-${hash}`);
    assert.equal(rss[0].metadata.ownerReferences[0].uid, d.metadata.uid);
    const pods = await running('app=web');
    assert.equal(pods.length, 3);
    assert.ok(pods.every((p: any) => p.metadata.labels['pod-template-hash'] === hash && p.metadata.ownerReferences[0].name === rss[0].metadata.name));
  });

  test('scale up and down', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.patch('web', { spec: { replicas: 5 } });
    await waitFor('5 running', async () => (await running('app=web')).length === 5 && (await deps.get('web')).status.availableReplicas === 5);
    await deps.patch('web', { spec: { replicas: 2 } });
    await waitFor('2 pods', async () => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'app=web' })).items
      .filter((p: any) => !p.metadata.deletionTimestamp).length === 2 && (await deps.get('web')).status.replicas === 2);
  });

  test('a condition that changes reason moves to the end of the list, as with the reference (a scale-up past maxUnavailable flips Available)', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.create(deployment('order', 1, 'o:1'));
    const types = (d: any) => (d.status?.conditions ?? []).map((c: any) => `${c.type}/${c.reason}`);
    await waitFor('rolled out', async () => types(await deps.get('order')).join() === 'Available/MinimumReplicasAvailable,Progressing/NewReplicaSetAvailable');
    // 4 replicas with maxUnavailable 25% (1) need 3 available: 1 is not enough until the new pods are up; a scale is
    // not a rollout, so Progressing stays as it was while Available goes False and back to True
    await deps.patch('order', { spec: { replicas: 4 } });
    await waitFor('Available False', async () => types(await deps.get('order')).includes('Available/MinimumReplicasUnavailable'));
    const d = await waitFor('4 available', async () => { const cur = await deps.get('order'); return cur.status?.availableReplicas === 4 && cur; });
    assert.deepEqual(types(d), ['Progressing/NewReplicaSetAvailable', 'Available/MinimumReplicasAvailable']);
    await deps.delete('order');
  });

  test('a Deployment scaled to zero leaves its zero counts out of its status, as the reference\'s omitempty integers are', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.create(deployment('zero', 1));
    await waitFor('1 available', async () => (await deps.get('zero')).status?.availableReplicas === 1);
    await deps.patch('zero', { spec: { replicas: 0 } });
    const d = await waitFor('scaled to 0', async () => {
      const cur = await deps.get('zero');
      return cur.status.observedGeneration === cur.metadata.generation && !('replicas' in cur.status) && cur;
    });
    for (const f of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) assert.ok(!(f in d.status), `${f}: ${JSON.stringify(d.status)}`);
    assert.equal(d.status.conditions.find((c: any) => c.type === 'Progressing').reason, 'NewReplicaSetAvailable');
    // the ReplicaSet's replicas has no omitempty and stays, at 0; its other counts go
    const rs = await waitFor('rs at 0', async () => {
      const [cur] = (await cluster.client.resource(rsRef, 'default').list({ labelSelector: 'app=zero' })).items;
      return cur?.status?.replicas === 0 && cur.status.observedGeneration === cur.metadata.generation && cur;
    });
    assert.deepEqual(Object.keys(rs.status).sort(), ['observedGeneration', 'replicas']);
  });

  test('a new template rolls to a second ReplicaSet with revision 2; the old one is scaled to 0', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.patch('web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'web:2' }] } } } }, 'strategic');
    await waitFor('rolled', async () => {
      const d = await deps.get('web');
      return d.status.updatedReplicas === 2 && d.status.replicas === 2 && d.status.availableReplicas === 2 && d.status.observedGeneration === d.metadata.generation;
    });
    const rss = (await cluster.client.resource(rsRef, 'default').list({ labelSelector: 'app=web' })).items;
    assert.equal(rss.length, 2);
    const byRevision = Object.fromEntries(rss.map((rs: any) => [rs.metadata.annotations[`deployment.${cluster.server.names.labelDomain}/revision`], rs]));
    assert.equal(byRevision['1'].spec.replicas, 0);
    assert.equal(byRevision['2'].spec.replicas, 2);
    assert.equal(byRevision['2'].spec.template.spec.containers[0].image, 'web:2');
    const d = await deps.get('web');
    assert.equal(d.metadata.annotations[`deployment.${cluster.server.names.labelDomain}/revision`], '2');
  });

  test('an annotation added to the Deployment after its rollout reaches its current ReplicaSet (rollout history shows a late change-cause)', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    const revision = `deployment.${cluster.server.names.labelDomain}/revision`;
    await deps.patch('web', { metadata: { annotations: { 'kubernetes.io/change-cause': 'image web:2' } } });
    const rss = await waitFor('copied', async () => {
      const list = (await cluster.client.resource(rsRef, 'default').list({ labelSelector: 'app=web' })).items;
      return list.some((rs: any) => rs.metadata.annotations?.['kubernetes.io/change-cause'] === 'image web:2') && list;
    });
    const byRevision = Object.fromEntries(rss.map((rs: any) => [rs.metadata.annotations[revision], rs]));
    assert.equal(byRevision['2'].metadata.annotations['kubernetes.io/change-cause'], 'image web:2');
    assert.equal(byRevision['1'].metadata.annotations['kubernetes.io/change-cause'], undefined);
  });

  test('Recreate: the old pods go before new ones start', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    await deps.create(deployment('recreate', 2, 'r:1', { strategy: { type: 'Recreate' } }));
    await waitFor('2 available', async () => (await deps.get('recreate')).status?.availableReplicas === 2);
    const oldPods = new Set((await running('app=recreate')).map((p: any) => p.metadata.name));
    await deps.patch('recreate', { spec: { template: { spec: { containers: [{ name: 'c', image: 'r:2' }] } } } }, 'strategic');
    // while the rollout goes on, old and new pods are never both running
    let overlap = false;
    await waitFor('rolled', async () => {
      const pods = (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'app=recreate' })).items;
      const oldLeft = pods.some((p: any) => oldPods.has(p.metadata.name));
      const newRunning = pods.some((p: any) => !oldPods.has(p.metadata.name) && p.status?.phase === 'Running');
      if (oldLeft && newRunning) overlap = true;
      const d = await deps.get('recreate');
      return d.status.updatedReplicas === 2 && d.status.availableReplicas === 2 && d.status.replicas === 2;
    });
    assert.equal(overlap, false);
  });

  test('scaling in the middle of a rollout shares the change between the ReplicaSets in proportion to their sizes', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    const rss = cluster.client.resource(rsRef, 'default');
    const desiredAnnotation = `deployment.${cluster.server.names.labelDomain}/desired-replicas`;
    await deps.create(deployment('spread', 10, 's:1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }));
    await waitFor('10 available', async () => (await deps.get('spread')).status?.availableReplicas === 10);
    // the new pods never become ready, so the rollout stops at 8 old and 5 new (13 = 10 + maxSurge, 8 = 10 - maxUnavailable)
    const probe = { exec: { command: ['true'] }, periodSeconds: 1 };
    await deps.patch('spread', { spec: { template: {
      metadata: { annotations: { [fakeAnnotation(cluster.server.names, 'ready')]: 'false' } },
      spec: { containers: [{ name: 'c', image: 's:2', readinessProbe: probe }] },
    } } }, 'strategic');
    /** the old and the new ReplicaSet's sizes once both were last scaled for `replicas` */
    const sizesFor = (replicas: number) => waitFor(`both ReplicaSets scaled for ${replicas}`, async () => {
      const list = (await rss.list({ labelSelector: 'app=spread' })).items;
      const byImage = Object.fromEntries(list.map((rs: any) => [rs.spec.template.spec.containers[0].image, rs]));
      const [old, cur] = [byImage['s:1'], byImage['s:2']];
      if (!old || !cur || list.some((rs: any) => rs.metadata.annotations[desiredAnnotation] !== String(replicas))) return undefined;
      return { old: old.spec.replicas, new: cur.spec.replicas };
    });
    await waitFor('old 8 and new 5', async () => {
      const s = await sizesFor(10);
      return s.old === 8 && s.new === 5;
    });
    // 10 more allowed (23 = 20 + maxSurge, from 13): 8 * 23/13 = 14.2 -> 14 and 5 * 23/13 = 8.8 -> 9
    await deps.patch('spread', { spec: { replicas: 20 } });
    assert.deepEqual(await sizesFor(20), { old: 14, new: 9 });
    // and again from there (33 from 23): 14 * 33/23 = 20.1 -> 20 and 9 * 33/23 = 12.9 -> 13
    await deps.patch('spread', { spec: { replicas: 30 } });
    assert.deepEqual(await sizesFor(30), { old: 20, new: 13 });
  });

  test('progress deadline: a scale from zero long after the rollout is not timed out; a timed-out rollout whose pods come up is complete', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    const progressing = (d: any) => d.status?.conditions?.find((c: any) => c.type === 'Progressing');
    // the deadline (1 s) passes after the rollout of 0 replicas finished; then a scale to 1 is no rollout to time
    await deps.create(deployment('late', 0, 'l:1', { progressDeadlineSeconds: 1 }));
    const done = await waitFor('rolled out', async () => { const d = await deps.get('late'); return progressing(d)?.reason === 'NewReplicaSetAvailable' && progressing(d); });
    await waitFor('the deadline passed', () => Date.now() > Date.parse(done.lastUpdateTime) + 2000);
    await deps.patch('late', { spec: { replicas: 1 } });
    const scaled = await waitFor('scaled', async () => {
      const d = await deps.get('late');
      return d.status.observedGeneration === d.metadata.generation && d.status.availableReplicas === 1 && d;
    });
    assert.equal(progressing(scaled).reason, 'NewReplicaSetAvailable', JSON.stringify(scaled.status));
    // a pod ready only after its probe's initial delay (5 s) times the rollout out (1 s without progress); once it is
    // ready, the rollout is complete after all
    const probe = { exec: { command: ['true'] }, initialDelaySeconds: 5, periodSeconds: 1 };
    await deps.create(deployment('slow', 1, 's:1', { progressDeadlineSeconds: 1, template: {
      metadata: { labels: { app: 'slow' } }, spec: { containers: [{ name: 'c', image: 's:1', readinessProbe: probe }] } } }));
    await waitFor('timed out', async () => progressing(await deps.get('slow'))?.reason === 'ProgressDeadlineExceeded');
    const cond = await waitFor('complete', async () => { const c = progressing(await deps.get('slow')); return c?.reason === 'NewReplicaSetAvailable' && c; });
    assert.equal(cond.status, 'True');
  });

  test('a timed-out rollout that is then paused keeps its ProgressDeadlineExceeded condition, as with the reference', async () => {
    const deps = cluster.client.resource(deploymentsRef, 'default');
    const progressing = (d: any) => d.status?.conditions?.find((c: any) => c.type === 'Progressing');
    await deps.create(deployment('stuck', 1, 'st:1', { progressDeadlineSeconds: 1, template: {
      metadata: { labels: { app: 'stuck' }, annotations: { [fakeAnnotation(cluster.server.names, 'ready')]: 'false' } }, spec: { containers: [{ name: 'c', image: 'st:1', readinessProbe: { exec: { command: ['true'] } } }] } } }));
    await waitFor('timed out', async () => progressing(await deps.get('stuck'))?.reason === 'ProgressDeadlineExceeded');
    await deps.patch('stuck', { spec: { paused: true } });
    const paused = await waitFor('the pause observed', async () => { const d = await deps.get('stuck'); return d.status?.observedGeneration === d.metadata.generation && d; });
    assert.equal(progressing(paused).reason, 'ProgressDeadlineExceeded', JSON.stringify(paused.status));
    await deps.delete('stuck');
  });

  test('a ReplicationController keeps its count, replacing a deleted pod', async () => {
    const rcs = cluster.client.resource({ group: '', version: 'v1', resource: 'replicationcontrollers' }, 'default');
    await rcs.create({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' },
      spec: { replicas: 2, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } });
    await waitFor('2 ready', async () => (await rcs.get('rc')).status?.readyReplicas === 2);
    const [victim] = await running('app=rc');
    await cluster.client.resource(podsRef, 'default').delete(victim.metadata.name, { gracePeriodSeconds: 0 });
    await waitFor('replaced', async () => {
      const pods = await running('app=rc');
      return pods.length === 2 && !pods.some((p: any) => p.metadata.name === victim.metadata.name);
    });
  });
});
