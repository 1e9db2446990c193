// A large ReplicaSet against the server with its in-process controller manager: it reaches its count in
// several bursts even when the manager loses its lease in the middle (inside the API server's process the
// manager stands for election again, since no supervisor starts a fresh one), and a create the server refused
// is tried again with back-off, with no other event to set it off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { nowMicroTime } from '../../src/api/meta.js';
import { waitFor } from '../support/cluster.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const rsRef = { group: 'apps', version: 'v1', resource: 'replicasets' };
const REPLICAS = 2000;
// a deadline for a failing run only; the conditions decide when each step is done
const LONG = 10 * 60_000;

const replicaSet = (name: string, replicas: number, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } } },
});

describe('ReplicaSets at scale', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({
      // a short lease, so that a lost one is taken back quickly; no client-side limit slows the creates
      flags: ['--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period=500ms', '--kube-api-qps=1000', '--kube-api-burst=1000'],
    });
    client = await clientFromFile(server.kubeconfig, { qps: 0 });
  });
  after(async () => {
    client?.close();
    await server?.close();
  });

  const activePods = async (app: string) => (await client.resource(podsRef, 'default').list({ labelSelector: `app=${app}` })).items
    .filter((p: any) => !p.metadata.deletionTimestamp).length;

  test('a refused create is tried again with back-off, with no other event to set it off', async () => {
    const sets = client.resource(rsRef, 'default');
    // a webhook that cannot be reached, failing closed, refuses the pods with the same message every time
    const webhooks = client.resource({ group: server.names.group('admissionregistration'), version: 'v1', resource: 'validatingwebhookconfigurations' });
    await webhooks.create({
      metadata: { name: 'unreachable' },
      webhooks: [{
        name: 'unreachable.example.com', failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 1,
        clientConfig: { url: 'https://127.0.0.1:1/refuse' }, objectSelector: { matchLabels: { app: 'later' } },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      }],
    });
    await sets.create(replicaSet('later', 3));
    const failed = await waitFor('ReplicaFailure', async () => (await sets.get('later')).status?.conditions?.find((c: any) => c.type === 'ReplicaFailure'), LONG);
    assert.equal(failed.reason, 'FailedCreate');
    assert.match(failed.message, /failed calling webhook "unreachable.example.com"/);
    assert.equal(await activePods('later'), 0);

    // nothing the ReplicaSet controller watches changes: only its own retry brings the pods
    await webhooks.delete('unreachable');
    const rs = await waitFor('3 replicas', async () => {
      const cur = await sets.get('later');
      return cur.status?.replicas === 3 && cur;
    }, LONG);
    assert.equal(rs.status.conditions, undefined);
    assert.equal(await activePods('later'), 3);
  });

  test(`${REPLICAS} replicas, while the controller manager loses its lease and takes it back`, async () => {
    const leases = client.resource({ group: server.names.group('coordination'), version: 'v1', resource: 'leases' }, server.names.systemNamespace);
    const first = await waitFor('the controller manager leads', async () => (await leases.get('kube-controller-manager')).spec?.holderIdentity);
    const sets = client.resource(rsRef, 'default');
    await sets.create(replicaSet('big', REPLICAS));
    await waitFor('creation under way', async () => (await activePods('big')) >= 100, LONG);

    // another candidate takes the lease: the manager's controllers stop at its next renewal
    await leases.modify('kube-controller-manager', (lease: any) => {
      const now = nowMicroTime();
      lease.spec = { ...lease.spec, holderIdentity: 'someone-else', acquireTime: now, renewTime: now, leaseDurationSeconds: 2, leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 };
      return lease;
    });
    // nobody renews it for someone-else: the manager takes it back once it expires, and carries on
    await waitFor('the lease back', async () => (await leases.get('kube-controller-manager')).spec?.holderIdentity === first, LONG);
    const rs = await waitFor(`${REPLICAS} replicas`, async () => {
      const cur = await sets.get('big');
      return cur.status?.replicas === REPLICAS && (await activePods('big')) === REPLICAS && cur;
    }, LONG, 500);
    assert.equal(rs.status.fullyLabeledReplicas, REPLICAS);
    assert.equal(rs.status.observedGeneration, rs.metadata.generation);
  });
});
