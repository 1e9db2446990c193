// Namespace deletion against a real server with its controller manager: what the namespace's status says while
// it cannot finish, and that it finishes once what held it is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { waitFor } from '../support/wait.js';

const namespacesRef = { group: '', version: 'v1', resource: 'namespaces' };
const condition = (ns: any, type: string) => (ns.status?.conditions ?? []).find((c: any) => c.type === type);

describe('namespace deletion', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({ apiServiceCheckIntervalMs: 100 });
    client = await clientFromFile(server.kubeconfig);
  });
  after(async () => { client?.close(); await server?.close(); });

  test('an aggregated API the server cannot reach holds a deleted namespace, with the reference\'s discovery failure condition, until it goes', async () => {
    const apiServices = client.resource({ group: server.names.group('apiregistration'), version: 'v1', resource: 'apiservices' });
    await apiServices.create({ metadata: { name: 'v1beta1.unreachable.example.com' }, spec: {
      group: 'unreachable.example.com', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true,
      service: { namespace: 'default', name: 'nothing', port: 443 },
    } });
    await waitFor('the API service unavailable', async () => (await apiServices.get('v1beta1.unreachable.example.com')).status?.conditions
      ?.some((c: any) => c.type === 'Available' && c.status === 'False'));
    const namespaces = client.resource(namespacesRef);
    await namespaces.create({ metadata: { name: 'behind-unreachable' } });
    await namespaces.delete('behind-unreachable');
    // its content may live in that API: the namespace waits, and says why
    const ns = await waitFor('the discovery failure condition', async () => {
      const n = await namespaces.get('behind-unreachable');
      return condition(n, 'NamespaceDeletionDiscoveryFailure')?.status === 'True' && n;
    });
    assert.deepEqual(condition(ns, 'NamespaceDeletionDiscoveryFailure'), { ...condition(ns, 'NamespaceDeletionDiscoveryFailure'), reason: 'DiscoveryFailed',
      message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: unreachable.example.com/v1beta1: stale GroupVersion discovery: unreachable.example.com/v1beta1' });
    assert.equal(condition(ns, 'NamespaceContentRemaining')?.status, 'False');
    assert.equal(ns.status.phase, 'Terminating');
    await apiServices.delete('v1beta1.unreachable.example.com');
    await waitFor('the namespace gone', () => namespaces.get('behind-unreachable').then(() => false, () => true));
  });

  test('a namespace created with finalizers of its own, or an empty list, has the server\'s too: its content goes, then it waits on /finalize', async () => {
    const namespaces = client.resource(namespacesRef);
    const vendor = server.names.vendor;
    const empty = await namespaces.create({ metadata: { name: 'empty-finalizers' }, spec: { finalizers: [] } });
    assert.deepEqual(empty.spec.finalizers, [vendor]);
    const own = await namespaces.create({ metadata: { name: 'own-finalizer' }, spec: { finalizers: ['example.com/custom'] } });
    assert.deepEqual(own.spec.finalizers, ['example.com/custom', vendor]);
    const configMaps = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'own-finalizer');
    await configMaps.create({ metadata: { name: 'content' } });
    await namespaces.delete('own-finalizer');
    // the server's finalizer goes once the content is gone; the namespace's own stays until its owner removes it
    const waiting = await waitFor('the server\'s finalizer removed', async () => {
      const n = await namespaces.get('own-finalizer');
      return !n.spec.finalizers.includes(vendor) && n;
    });
    assert.deepEqual(waiting.spec.finalizers, ['example.com/custom']);
    // a namespace's deletion has a time and no grace period, as the reference marks it
    assert.ok(waiting.metadata.deletionTimestamp);
    assert.equal(waiting.metadata.deletionGracePeriodSeconds, undefined);
    await assert.rejects(configMaps.get('content'), /not found/);
    await client.request({ method: 'PUT', path: '/api/v1/namespaces/own-finalizer/finalize', body: { ...waiting, spec: { finalizers: [] } } });
    await waitFor('the namespace gone', () => namespaces.get('own-finalizer').then(() => false, () => true));
  });

  test('a webhook refusing the deletion of its content holds a namespace, with the reference\'s content failure and remaining conditions, until it goes', async () => {
    const webhooks = client.resource({ group: server.names.group('admissionregistration'), version: 'v1', resource: 'validatingwebhookconfigurations' });
    const namespaces = client.resource(namespacesRef);
    await namespaces.create({ metadata: { name: 'behind-webhook', labels: { 'held-by': 'webhook' } } });
    await client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'behind-webhook').create({ metadata: { name: 'content' } });
    await webhooks.create({ metadata: { name: 'refuse-deletes' }, webhooks: [{
      name: 'refuse.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 1,
      namespaceSelector: { matchLabels: { 'held-by': 'webhook' } },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }],
      clientConfig: { service: { namespace: 'default', name: 'nothing', port: 443 } },
    }] });
    await namespaces.delete('behind-webhook');
    const ns = await waitFor('the content failure condition', async () => {
      const n = await namespaces.get('behind-webhook');
      return condition(n, 'NamespaceDeletionContentFailure')?.status === 'True' && n;
    });
    const failure = condition(ns, 'NamespaceDeletionContentFailure');
    assert.equal(failure.reason, 'ContentDeletionFailed');
    // the failed request's own message, with no name of ours in front
    assert.match(failure.message, /^Failed to delete all resource types, 1 remaining: Internal error occurred: failed calling webhook "refuse\.example\.com"/);
    // a resource that failed is said there only, as the reference says it
    assert.equal(condition(ns, 'NamespaceContentRemaining').status, 'False');
    await webhooks.delete('refuse-deletes');
    await waitFor('the namespace gone', () => namespaces.get('behind-webhook').then(() => false, () => true));
  });
});
