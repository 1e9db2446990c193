// StatefulSets, DaemonSets and disruption budgets against a real server with simulated nodes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { fakeAnnotation } from '../../src/agent/options.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const stsRef = { group: 'apps', version: 'v1', resource: 'statefulsets' };

describe('stateful and per-node workloads', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ nodes: 3 });
    // the claims of the StatefulSets' templates are bound to these before their pods can be scheduled
    for (let i = 0; i < 11; i++) {
      await cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumes' }).create({
        apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `stateful-${i}` },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/stateful-${i}` } },
      });
    }
  });
  after(async () => { await cluster?.close(); });

  const podsOf = async (selector: string) => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: selector })).items;
  const sts = (name: string, replicas: number, extra: Record<string, unknown> = {}, image = 'db:1') => ({
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name },
    spec: {
      replicas, serviceName: name, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image, volumeMounts: [{ name: 'data', mountPath: '/d' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...extra,
    },
  });

  test('StatefulSet: ordered pods with stable names and claims, each after the previous is ready', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    // a watch from before the create sees each pod appear only once the one before it is ready
    const podsApi = cluster.client.resource(podsRef, 'default');
    const from = (await podsApi.list()).metadata.resourceVersion;
    const stop = new AbortController();
    const seen: string[] = [];
    const readyBefore: boolean[] = [];
    const ready = new Set<string>();
    const watching = (async () => {
      for await (const e of podsApi.watch({ labelSelector: 'app=db', resourceVersion: from, signal: stop.signal })) {
        const p = e.object;
        if (e.type === 'ADDED') { readyBefore.push(seen.length === 0 || ready.has(seen.at(-1)!)); seen.push(p.metadata.name); }
        if ((p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')) ready.add(p.metadata.name);
      }
    })().catch(() => {});
    await sets.create(sts('db', 3));
    const done = await waitFor('3 ready', async () => { const s = await sets.get('db'); return s.status?.readyReplicas === 3 && s; });
    stop.abort();
    await watching;
    assert.deepEqual(seen, ['db-0', 'db-1', 'db-2']);
    assert.deepEqual(readyBefore, [true, true, true], 'each pod was created after the one before it was ready');
    const pods = (await podsOf('app=db')).sort((a: any, b: any) => a.metadata.name.localeCompare(b.metadata.name));
    assert.equal(pods[1].spec.hostname, 'db-1');
    assert.equal(pods[1].spec.subdomain, 'db');
    assert.equal(pods[1].spec.volumes.find((v: any) => v.name === 'data').persistentVolumeClaim.claimName, 'data-db-1');
    const claims = (await cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, 'default').list()).items.map((c: any) => c.metadata.name);
    for (const c of ['data-db-0', 'data-db-1', 'data-db-2']) assert.ok(claims.includes(c), c);
    assert.equal(done.status.currentRevision, done.status.updateRevision);
    assert.equal(pods[0].metadata.labels['controller-revision-hash'], done.status.updateRevision);
  });

  test('StatefulSet: a partitioned rolling update replaces only the ordinals at or above the partition, highest first', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    const before = await sets.get('db');
    await sets.patch('db', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: 'c', image: 'db:2' }] } } } }, 'strategic');
    const s = await waitFor('2 updated', async () => { const x = await sets.get('db'); return x.status?.updatedReplicas === 2 && x.status.readyReplicas === 3 && x; });
    assert.notEqual(s.status.updateRevision, before.status.updateRevision);
    const pods = Object.fromEntries((await podsOf('app=db')).map((p: any) => [p.metadata.name, p]));
    assert.equal(pods['db-0'].spec.containers[0].image, 'db:1');
    assert.equal(pods['db-1'].spec.containers[0].image, 'db:2');
    assert.equal(pods['db-2'].spec.containers[0].image, 'db:2');
    assert.equal(s.status.currentRevision, before.status.updateRevision, 'not all pods are updated: the current revision stays');
  });

  test('StatefulSet: scaling down removes the highest ordinals; the claims stay', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    await sets.patch('db', { spec: { replicas: 1 } });
    await waitFor('1 pod', async () => (await podsOf('app=db')).map((p: any) => p.metadata.name).join() === 'db-0');
    const claims = (await cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, 'default').list()).items.map((c: any) => c.metadata.name);
    assert.ok(claims.includes('data-db-2'));
  });

  test('StatefulSet claim retention: whenScaled Delete removes the claims of the pods scaled away, whenDeleted Delete those left with the set', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    const claimsApi = cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, 'default');
    const claimNames = async () => (await claimsApi.list()).items.map((c: any) => c.metadata.name).filter((n: string) => n.startsWith('data-gone-')).sort();
    const created = await sets.create(sts('gone', 3, { podManagementPolicy: 'Parallel', persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }));
    await waitFor('3 ready', async () => (await sets.get('gone')).status?.readyReplicas === 3);
    const claim = await claimsApi.get('data-gone-2');
    assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'gone', uid: created.metadata.uid }]);

    await sets.patch('gone', { spec: { replicas: 1 } });
    await waitFor('the claims of gone-1 and gone-2 deleted', async () => (await claimNames()).join() === 'data-gone-0');
    assert.deepEqual((await claimsApi.get('data-gone-0')).metadata.ownerReferences.map((r: any) => r.kind), ['StatefulSet']);

    await sets.delete('gone');
    await waitFor('the last claim deleted with the set', async () => (await claimNames()).length === 0);
  });

  test('StatefulSet claim retention: switching whenScaled to Delete moves the claim of a pod beyond the replicas to the pod', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    const claimsApi = cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumeclaims' }, 'default');
    await sets.create(sts('kept', 2, { podManagementPolicy: 'Parallel', persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' } }));
    await waitFor('2 ready', async () => (await sets.get('kept')).status?.readyReplicas === 2);
    assert.equal((await claimsApi.get('data-kept-1')).metadata.ownerReferences, undefined, 'Retain: no owner');
    await sets.patch('kept', { spec: { replicas: 1, persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' } } });
    await waitFor('the claim of kept-1 deleted with its pod', async () => !(await claimsApi.list()).items.some((c: any) => c.metadata.name === 'data-kept-1'));
    assert.equal((await claimsApi.get('data-kept-0')).metadata.ownerReferences, undefined, 'the claim of a pod in range stays unowned');
    await sets.delete('kept');
  });

  test('StatefulSet with Parallel management starts all pods at once', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    await sets.create(sts('par', 3, { podManagementPolicy: 'Parallel' }));
    await waitFor('3 ready', async () => (await sets.get('par')).status?.readyReplicas === 3);
  });

  test('StatefulSet with Parallel management: a rolling update replaces pods that never got ready (a broken template fixed)', async () => {
    const sets = cluster.client.resource(stsRef, 'default');
    const notReady = { [fakeAnnotation(cluster.server.names, 'ready')]: 'false' };
    const probe = { exec: { command: ['true'] } };
    await sets.create({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'fixed' },
      spec: {
        replicas: 3, serviceName: 'fixed', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'fixed' } },
        template: { metadata: { labels: { app: 'fixed' }, annotations: notReady }, spec: { containers: [{ name: 'c', image: 'x', readinessProbe: probe }] } },
      },
    });
    await waitFor('3 pods running, none ready', async () => {
      const pods = await podsOf('app=fixed');
      return pods.length === 3 && pods.every((p: any) => p.status?.phase === 'Running');
    });
    // the readiness fixed in the template: each old pod is replaced, highest first, though the lower ones are not ready
    await sets.patch('fixed', { spec: { template: { metadata: { annotations: null } } } }, 'merge');
    const s = await waitFor('3 updated and ready', async () => {
      const x = await sets.get('fixed');
      return x.status?.updatedReplicas === 3 && x.status.readyReplicas === 3 && x.status.currentRevision === x.status.updateRevision && x;
    });
    assert.equal(s.status.currentReplicas, 3);
  });

  test('zero counts: a StatefulSet scaled to 0 and a DaemonSet with no node to run on write only the counts without omitempty', async () => {
    const sets = cluster.client.resource({ group: 'apps', version: 'v1', resource: 'statefulsets' }, 'default');
    const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'z:1' }] } });
    await sets.create({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'zero' },
      spec: { replicas: 1, serviceName: 'zero', selector: { matchLabels: { app: 'zero' } }, template: template('zero') } });
    await waitFor('1 ready', async () => (await sets.get('zero')).status?.readyReplicas === 1);
    await sets.patch('zero', { spec: { replicas: 0 } });
    const set = await waitFor('scaled to 0', async () => {
      const cur = await sets.get('zero');
      return cur.status.observedGeneration === cur.metadata.generation && cur.status.replicas === 0 && cur;
    });
    assert.equal(set.status.availableReplicas, 0);
    for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) assert.ok(!(f in set.status), `${f}: ${JSON.stringify(set.status)}`);
    const dss = cluster.client.resource({ group: 'apps', version: 'v1', resource: 'daemonsets' }, 'default');
    await dss.create({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'nowhere' }, spec: {
      selector: { matchLabels: { app: 'nowhere' } }, template: { ...template('nowhere'), spec: { ...template('nowhere').spec, nodeSelector: { none: 'such' } } } } });
    const ds = await waitFor('observed', async () => { const d = await dss.get('nowhere'); return d.status?.observedGeneration === d.metadata.generation && d; });
    assert.deepEqual(ds.status, { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, observedGeneration: ds.metadata.generation });
  });

  test('DaemonSet: one pod per eligible node; a node it may not run on gets none', async () => {
    // taint one node so that the daemon (without a toleration) stays off it
    const nodes = cluster.client.resource({ group: '', version: 'v1', resource: 'nodes' });
    const tainted = cluster.nodes[2]!;
    const n = await nodes.get(tainted);
    await nodes.patch(tainted, { spec: { taints: [...(n.spec.taints ?? []), { key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } });
    const dss = cluster.client.resource({ group: 'apps', version: 'v1', resource: 'daemonsets' }, 'default');
    await dss.create({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: {
      selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'a:1' }] } } } });
    const ds = await waitFor('2 available', async () => { const d = await dss.get('agent'); return d.status?.numberAvailable === 2 && d; });
    assert.equal(ds.status.desiredNumberScheduled, 2);
    // no revision name collided, so no collision count is written
    assert.ok(!('collisionCount' in ds.status), JSON.stringify(ds.status));
    // the server's template generation, and the pods labelled with it, as the reference's
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '1');
    const pods = await podsOf('app=agent');
    assert.ok(pods.every((p: any) => p.metadata.labels['pod-template-generation'] === '1' && p.metadata.labels['controller-revision-hash']), JSON.stringify(pods.map((p: any) => p.metadata.labels)));
    assert.deepEqual(pods.map((p: any) => p.spec.nodeName).sort(), cluster.nodes.slice(0, 2).sort());
    // the taint goes: the third node gets its pod
    await nodes.patch(tainted, { spec: { taints: n.spec.taints ?? null } });
    await waitFor('3 available', async () => (await dss.get('agent')).status?.numberAvailable === 3);
    // a new template rolls node by node
    await dss.patch('agent', { spec: { template: { spec: { containers: [{ name: 'c', image: 'a:2' }] } } } }, 'strategic');
    await waitFor('updated everywhere', async () => {
      const d = await dss.get('agent');
      return d.status.observedGeneration === d.metadata.generation && d.status.updatedNumberScheduled === 3 && d.status.numberAvailable === 3
        && (await podsOf('app=agent')).filter((p: any) => !p.metadata.deletionTimestamp).length === 3;
    });
    assert.equal((await dss.get('agent')).metadata.annotations['deprecated.daemonset.template.generation'], '2');
    const live = (await podsOf('app=agent')).filter((p: any) => !p.metadata.deletionTimestamp);
    assert.deepEqual(live.map((p: any) => p.metadata.labels['pod-template-generation']), ['2', '2', '2']);
    // a change outside the template leaves it
    await dss.patch('agent', { spec: { minReadySeconds: 0, revisionHistoryLimit: 5 } });
    assert.equal((await dss.get('agent')).metadata.annotations['deprecated.daemonset.template.generation'], '2');
    // a NoSchedule taint keeps new pods off a node but leaves its running one (counted as misscheduled), as a node
    // that goes unreachable gets one; only a NoExecute taint the pod does not tolerate removes it
    const first = cluster.nodes[0]!;
    const taint = async (effect: string) => {
      const node = await nodes.get(first);
      await nodes.patch(first, { spec: { taints: [...(node.spec.taints ?? []), { key: 'maintenance', value: effect, effect }] } });
    };
    await taint('NoSchedule');
    await waitFor('one misscheduled', async () => { const d = await dss.get('agent'); return d.status.desiredNumberScheduled === 2 && d.status.numberMisscheduled === 1; });
    const kept = (await podsOf('app=agent')).filter((p: any) => p.spec.nodeName === first);
    assert.equal(kept.length, 1);
    assert.equal(kept[0].metadata.deletionTimestamp, undefined, 'the running daemon pod stays on a NoSchedule node');
    await taint('NoExecute');
    await waitFor('the pod leaves the NoExecute node', async () => (await podsOf('app=agent')).every((p: any) => p.spec.nodeName !== first || p.metadata.deletionTimestamp));
    await nodes.patch(first, { spec: { taints: (await nodes.get(first)).spec.taints.filter((t: any) => t.key !== 'maintenance') } });
  });

  test('DaemonSet with maxSurge: nodes whose old pod is not available get their new pod at once, beyond the surge', async () => {
    const dss = cluster.client.resource({ group: 'apps', version: 'v1', resource: 'daemonsets' }, 'default');
    const notReady = { [fakeAnnotation(cluster.server.names, 'ready')]: 'false' };
    const spec = { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'a:1', readinessProbe: { exec: { command: ['true'] } } }] };
    await dss.create({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'surging' }, spec: {
      selector: { matchLabels: { app: 'surging' } }, updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: { metadata: { labels: { app: 'surging' }, annotations: notReady }, spec } } });
    await waitFor('3 pods running, none ready', async () => {
      const d = await dss.get('surging');
      return d.status?.currentNumberScheduled === 3 && (await podsOf('app=surging')).filter((p: any) => p.status?.phase === 'Running').length === 3;
    });
    // the template fixed; the new pods take an hour to count as available, so the surge of 1 stays in use throughout
    await dss.patch('surging', { spec: { minReadySeconds: 3600, template: { metadata: { annotations: null } } } }, 'merge');
    await waitFor('a new pod on every node', async () => {
      const d = await dss.get('surging');
      return d.status?.observedGeneration === d.metadata.generation && d.status.updatedNumberScheduled === 3;
    });
    await dss.delete('surging');
  });

  test('PodDisruptionBudget status follows the healthy pods; evictions beyond it are refused', async () => {
    const pods = cluster.client.resource(podsRef, 'default');
    for (const name of ['g1', 'g2', 'g3']) await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'guarded' } }, spec: { containers: [{ name: 'c', image: 'g' }] } });
    const pdbs = cluster.client.resource({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'default');
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'guarded' } } } });
    const pdb = await waitFor('1 disruption allowed', async () => { const p = await pdbs.get('guarded'); return p.status?.disruptionsAllowed === 1 && p.status.currentHealthy === 3 && p; });
    assert.equal(pdb.status.expectedPods, 3);
    assert.equal(pdb.status.desiredHealthy, 2);
    assert.equal(pdb.status.conditions.find((c: any) => c.type === 'DisruptionAllowed').reason, 'SufficientPods');
    // two evictions at once: the budget lets exactly one through
    const results = await Promise.all(['g1', 'g2'].map((name) => cluster.client.request({
      method: 'POST', path: `/api/v1/namespaces/default/pods/${name}/eviction`,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } },
    }).then(() => 201, (e: any) => e.code)));
    assert.deepEqual(results.sort(), [201, 429]);
    await waitFor('no disruption left', async () => { const p = await pdbs.get('guarded'); return p.status.disruptionsAllowed === 0 && p.status.currentHealthy === 2; });
  });

  test('a budget by maxUnavailable counts the replicas of the pods\' controllers, leaving pods without one out and saying so in an event', async () => {
    const pods = cluster.client.resource(podsRef, 'default');
    const pdbs = cluster.client.resource({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'default');
    await cluster.client.resource({ group: 'apps', version: 'v1', resource: 'replicasets' }, 'default').create({
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'mixed' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'mixed', owned: 'yes' } }, template: { metadata: { labels: { app: 'mixed', owned: 'yes' } }, spec: { containers: [{ name: 'c', image: 'm' }] } } },
    });
    for (const name of ['loose1', 'loose2']) await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'mixed', loose: 'yes' } }, spec: { containers: [{ name: 'c', image: 'm' }] } });
    const ready = (selector: string, n: number) => waitFor(`${n} ready (${selector})`, async () => (await podsOf(selector))
      .filter((p: any) => p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length === n);
    await ready('app=mixed', 4);
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'mixed' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'mixed' } } } });
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'loose' }, spec: { maxUnavailable: 1, selector: { matchLabels: { loose: 'yes' } } } });
    // the ReplicaSet's 2 replicas are expected, all 4 selected pods are healthy
    const mixed = await waitFor('mixed counted', async () => { const b = await pdbs.get('mixed'); return b.status?.currentHealthy === 4 && b; });
    assert.deepEqual([mixed.status.expectedPods, mixed.status.desiredHealthy, mixed.status.disruptionsAllowed], [2, 1, 3]);
    const allowed = mixed.status.conditions.find((c: any) => c.type === 'DisruptionAllowed');
    assert.deepEqual([allowed.status, allowed.reason, allowed.observedGeneration], ['True', 'SufficientPods', 1]);
    // only pods without a controller: nothing expected, so nothing may go
    const loose = await waitFor('loose counted', async () => { const b = await pdbs.get('loose'); return b.status?.currentHealthy === 2 && b; });
    assert.deepEqual([loose.status.expectedPods, loose.status.desiredHealthy, loose.status.disruptionsAllowed], [0, 0, 0]);
    assert.equal(loose.status.conditions.find((c: any) => c.type === 'DisruptionAllowed').reason, 'InsufficientPods');
    const event = await waitFor('the UnmanagedPods event', async () => (await cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default')
      .list({ fieldSelector: 'involvedObject.name=loose,reason=UnmanagedPods' })).items[0]);
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^Pods selected by this PodDisruptionBudget \(selector: &LabelSelector\{MatchLabels:map\[string\]string\{loose: yes,\},MatchExpressions:\[\]LabelSelectorRequirement\{\},\}\) were found to be unmanaged/);
  });

  test('a budget by maxUnavailable counts the replicas of a custom resource with a scale subresource; a kind without one fails the sync', async () => {
    const apiextensions = cluster.server.names.group('apiextensions');
    const crds = cluster.client.resource({ group: apiextensions, version: 'v1', resource: 'customresourcedefinitions' });
    await crds.create({ apiVersion: `${apiextensions}/v1`, kind: 'CustomResourceDefinition', metadata: { name: 'flocks.example.com' }, spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'flocks', singular: 'flock', kind: 'Flock' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } }],
    } });
    const flocks = cluster.client.resource({ group: 'example.com', version: 'v1', resource: 'flocks' }, 'default');
    const flock = await waitFor('the Flock kind served', async () => flocks.create({ apiVersion: 'example.com/v1', kind: 'Flock', metadata: { name: 'birds' }, spec: { replicas: 3 } }).catch(() => undefined));
    const configMap = await cluster.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-scaled' } });
    const pods = cluster.client.resource(podsRef, 'default');
    const owned = (name: string, app: string, owner: any) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true }] },
    spec: { containers: [{ name: 'c', image: 'f' }] } });
    for (const name of ['bird1', 'bird2']) await pods.create(owned(name, 'birds', flock));
    await pods.create(owned('unscaled1', 'unscaled', configMap));
    const pdbs = cluster.client.resource({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'default');
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'birds' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'birds' } } } });
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'unscaled' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'unscaled' } } } });
    // the Flock wants 3: 2 desired healthy; the 2 pods it has are both needed
    const birds = await waitFor('the Flock counted', async () => { const b = await pdbs.get('birds'); return b.status?.expectedPods === 3 && b.status.currentHealthy === 2 && b; });
    assert.deepEqual([birds.status.desiredHealthy, birds.status.disruptionsAllowed], [2, 0]);
    const failed = await waitFor('the sync failure', async () => (await pdbs.get('unscaled')).status?.conditions?.find((c: any) => c.reason === 'SyncFailed'));
    assert.equal(failed.message, 'configmaps does not implement the scale subresource');
  });

  test('Eviction: pending and unready pods, by the budget\'s unhealthyPodEvictionPolicy', async () => {
    const pods = cluster.client.resource(podsRef, 'default');
    const pdbs = cluster.client.resource({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'default');
    const pod = (name: string, app: string, o: { unready?: boolean; pending?: boolean } = {}) => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name, labels: { app }, ...(o.unready ? { annotations: { [fakeAnnotation(cluster.server.names, 'ready')]: 'false' } } : {}) },
      spec: {
        containers: [{ name: 'c', image: 'g', readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 } }],
        ...(o.pending ? { nodeSelector: { nowhere: 'true' } } : {}),
      },
    });
    const evict = (name: string) => cluster.client.request({
      method: 'POST', path: `/api/v1/namespaces/default/pods/${name}/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } },
    }).then(() => 201, (e: any) => e.code);
    const ready = (name: string) => waitFor(`${name} ready`, async () => (await pods.get(name)).status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
    const running = (name: string) => waitFor(`${name} running`, async () => (await pods.get(name)).status?.phase === 'Running');

    // IfHealthyBudget (the default): an unready pod goes while the budget has its healthy pods, a ready one does not
    for (const p of [pod('h1', 'healthy'), pod('h2', 'healthy'), pod('h3', 'healthy', { unready: true }), pod('h4', 'healthy', { pending: true })]) await pods.create(p);
    await Promise.all([ready('h1'), ready('h2'), running('h3')]);
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'healthy' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'healthy' } } } });
    await waitFor('the budget counts 2 healthy', async () => { const b = await pdbs.get('healthy'); return b.status?.currentHealthy === 2 && b.status.desiredHealthy === 2 && b.status.observedGeneration === b.metadata.generation; });
    assert.equal(await evict('h1'), 429, 'a ready pod would break the budget');
    assert.equal(await evict('h3'), 201, 'an unready pod goes while the budget is healthy');
    assert.equal(await evict('h4'), 201, 'a pending pod needs no budget');

    // a budget short of healthy pods keeps an unready pod, unless it says AlwaysAllow
    for (const p of [pod('a1', 'short'), pod('a2', 'short', { unready: true })]) await pods.create(p);
    await Promise.all([ready('a1'), running('a2')]);
    await pdbs.create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'short' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'short' } } } });
    await waitFor('the budget counts 1 healthy', async () => { const b = await pdbs.get('short'); return b.status?.currentHealthy === 1 && b.status.observedGeneration === b.metadata.generation; });
    assert.equal(await evict('a2'), 429);
    await pdbs.patch('short', { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
    assert.equal(await evict('a2'), 201);
  });

  test('a cordoned node gets the unschedulable NoSchedule taint, and loses it when uncordoned', async () => {
    const nodes = cluster.client.resource({ group: '', version: 'v1', resource: 'nodes' });
    const target = cluster.nodes[2]!;
    const key = `node.${cluster.server.names.labelDomain}/unschedulable`;
    const ours = (n: any) => (n.spec.taints ?? []).filter((t: any) => t.key === key);
    await nodes.patch(target, { spec: { unschedulable: true } });
    try {
      const [taint] = await waitFor('the unschedulable taint', async () => { const t = ours(await nodes.get(target)); return t.length && t; });
      assert.equal(taint.effect, 'NoSchedule');
      assert.ok(taint.timeAdded, 'the controller says when it added the taint');
    } finally {
      await nodes.patch(target, { spec: { unschedulable: null } });
    }
    await waitFor('the taint removed', async () => ours(await nodes.get(target)).length === 0);
  });

  test('a NoExecute taint without timeAdded (as kubectl taint writes it) evicts a tolerating pod once its tolerationSeconds are up', async () => {
    const nodes = cluster.client.resource({ group: '', version: 'v1', resource: 'nodes' });
    const pods = cluster.client.resource(podsRef, 'default');
    const target = cluster.nodes[1]!;
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tolerant' }, spec: {
      nodeName: target, containers: [{ name: 'c', image: 't' }],
      tolerations: [{ key: 'going-away', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 }] } });
    await waitFor('tolerant running', async () => (await pods.get('tolerant')).status?.phase === 'Running');
    const node = await nodes.get(target);
    await nodes.patch(target, { spec: { taints: [...(node.spec.taints ?? []), { key: 'going-away', effect: 'NoExecute' }] } });
    try {
      const gone = await waitFor('tolerant evicted', async () => {
        const p = await pods.get('tolerant').catch(() => undefined);
        return (!p || p.metadata.deletionTimestamp) && (p ?? 'deleted');
      });
      if (gone !== 'deleted') assert.equal(gone.status.conditions.find((c: any) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
      // the eviction is reported by the taint controller, with no host, as the reference's controllers report
      const events = cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default');
      const event = await waitFor('the eviction event', async () => (await events.list({ fieldSelector: 'involvedObject.name=tolerant,reason=TaintManagerEviction' })).items[0]);
      assert.deepEqual([event.source, event.reportingComponent, event.reportingInstance, event.message],
        [{ component: 'taint-controller' }, 'taint-controller', '', 'Marking for deletion Pod default/tolerant']);
    } finally {
      await nodes.patch(target, { spec: { taints: (await nodes.get(target)).spec.taints.filter((t: any) => t.key !== 'going-away') } });
    }
  });
});
