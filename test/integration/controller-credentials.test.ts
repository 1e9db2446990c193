// Controllers acting as their own service accounts (--use-service-account-credentials, RBAC): each must do its work
// with no more than the verbs the default policy's role for it grants.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';

const namespacesRef = { group: '', version: 'v1', resource: 'namespaces' };
const configMapsRef = { group: '', version: 'v1', resource: 'configmaps' };
const jobsRef = { group: 'batch', version: 'v1', resource: 'jobs' };
const podsRef = { group: '', version: 'v1', resource: 'pods' };

describe('controllers with their own credentials', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ nodes: 1, flags: ['--authorization-mode=Node,RBAC', '--use-service-account-credentials=true'] });
  });
  after(async () => { await cluster?.close(); });

  test('a namespace held by an object with a finalizer says so in its status conditions', async () => {
    const namespaces = cluster.client.resource(namespacesRef);
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'held' } });
    const configMaps = cluster.client.resource(configMapsRef, 'held');
    await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keeper', finalizers: ['example.com/hold'] } });
    await namespaces.delete('held');
    const condition = (ns: any, type: string) => (ns.status?.conditions ?? []).find((c: any) => c.type === type);
    const ns = await waitFor('the deletion conditions', async () => {
      const n = await namespaces.get('held');
      return condition(n, 'NamespaceFinalizersRemaining')?.status === 'True' && condition(n, 'NamespaceContentRemaining')?.status === 'True' && n;
    });
    assert.equal(ns.status.phase, 'Terminating');
    assert.equal(condition(ns, 'NamespaceFinalizersRemaining').reason, 'SomeFinalizersRemain');
    assert.match(condition(ns, 'NamespaceFinalizersRemaining').message, /example\.com\/hold in 1 resource instances/);
    assert.equal(condition(ns, 'NamespaceContentRemaining').reason, 'SomeResourcesRemain');
    // named as the reference names them, the core group's with a bare dot
    assert.equal(condition(ns, 'NamespaceContentRemaining').message, 'Some resources are remaining: configmaps. has 1 resource instances');
    assert.equal(condition(ns, 'NamespaceDeletionDiscoveryFailure')?.status, 'False');
    assert.equal(condition(ns, 'NamespaceDeletionContentFailure')?.status, 'False');
    // let go of the object: the namespace finishes going
    await configMaps.patch('keeper', { metadata: { finalizers: null } }, 'merge');
    await waitFor('the namespace gone', () => namespaces.get('held').then(() => false, () => true));
  });

  test('deleting a running Job lets its pods go', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const pods = cluster.client.resource(podsRef, 'default');
    await waitFor('the default service account', () => cluster.client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'default').get('default').then(() => true, () => false));
    await jobs.create({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'sleeper' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '1000'] }] } } },
    });
    await waitFor('a running pod', async () => (await pods.list({ labelSelector: 'job-name=sleeper' })).items.some((p: any) => p.status?.phase === 'Running'));
    await jobs.delete('sleeper', { propagationPolicy: 'Background' });
    await waitFor('its pods gone', async () => (await pods.list({ labelSelector: 'job-name=sleeper' })).items.length === 0);
  });
});
