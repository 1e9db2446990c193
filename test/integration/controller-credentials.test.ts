// Controllers acting as their own service accounts (--use-service-account-credentials, RBAC): each must do its work
// with no more than the verbs the default policy's role for it grants.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';

const jobsRef = { group: 'batch', version: 'v1', resource: 'jobs' };
const podsRef = { group: '', version: 'v1', resource: 'pods' };

describe('controllers with their own credentials', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ nodes: 1, flags: ['--authorization-mode=Node,RBAC', '--use-service-account-credentials=true'] });
  });
  after(async () => { await cluster?.close(); });

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
