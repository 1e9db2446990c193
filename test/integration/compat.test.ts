// What clients written elsewhere depend on byte for byte or name for name: every boolean query parameter read as
// the reference reads it, error Status bodies as the reference writes them, and the reference's default RBAC
// objects, the same whatever the authorization mode.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';

let server: TestServer;
let client: Client;
before(async () => {
  server = await startTestServer({ apiDomain: 'k8s.io', bookmarkIntervalMs: 50, flags: ['--feature-gates=WatchList=true'] });
  client = createClient(server);
});
after(async () => { client?.close(); await server?.close(); });

// an empty value is true, as the reference's converter reads a parameter that is present
const trueSpellings = ['true', 'True', 'TRUE', '1', 'yes', 't', ''];
const falseSpellings = ['false', 'False', 'FALSE', '0'];
const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('boolean query parameters: anything but absent, 0 and false (any case) is true, an empty value too', () => {
  const ns = 'default';
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  before(async () => { await client.request('POST', base, { body: configMap('flags') }); });

  test('watch', async () => {
    for (const v of trueSpellings) {
      const w = await client.watch(`${base}?watch=${v}&fieldSelector=metadata.name%3Dflags`);
      const first = await w.next(5000);
      w.close();
      assert.equal(first?.type, 'ADDED', `watch=${v} streams events`);
    }
    for (const v of falseSpellings) {
      const r = await client.get(`${base}?watch=${v}`);
      assert.equal(r.json.kind, 'ConfigMapList', `watch=${v} lists`);
    }
  });

  test('allowWatchBookmarks', async () => {
    const list = await client.get(base);
    for (const v of ['True', '1']) {
      const w = await client.watch(`${base}?watch=1&allowWatchBookmarks=${v}&resourceVersion=${list.json.metadata.resourceVersion}`);
      const first = await w.next(5000);
      w.close();
      assert.equal(first?.type, 'BOOKMARK', `allowWatchBookmarks=${v}`);
    }
    const w = await client.watch(`${base}?watch=1&allowWatchBookmarks=False&resourceVersion=${list.json.metadata.resourceVersion}`);
    assert.equal(await w.next(300), undefined, 'allowWatchBookmarks=False sends none');
    w.close();
  });

  test('sendInitialEvents', async () => {
    const w = await client.watch(`${base}?watch=1&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=TRUE&fieldSelector=metadata.name%3Dflags`);
    const events = [await w.next(5000), await w.next(5000)];
    w.close();
    assert.deepEqual(events.map(e => e?.type), ['ADDED', 'BOOKMARK']);
    assert.equal(events[1]!.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    const empty = await client.watch(`${base}?watch=1&sendInitialEvents=&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dflags`);
    assert.equal((await empty.next(5000))?.type, 'ADDED', 'an empty sendInitialEvents is true');
    empty.close();
    const off = await client.watch(`${base}?watch=1&sendInitialEvents=False&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dflags`);
    assert.equal(await off.next(300), undefined, 'sendInitialEvents=False sends no initial events');
    off.close();
  });

  test('force (server-side apply)', async () => {
    const apply = (manager: string, value: string, force?: string) => client.request('PATCH',
      `${base}/applied?fieldManager=${manager}${force === undefined ? '' : `&force=${force}`}`,
      { body: JSON.stringify(configMap('applied', { key: value })), contentType: 'application/apply-patch+yaml' });
    assert.equal((await apply('one', 'a')).status, 201);
    for (const v of ['False', '0', 'false']) assert.equal((await apply('two', 'b', v)).status, 409, `force=${v}`);
    for (const [i, v] of ['True', '1', 'TRUE'].entries()) {
      const r = await apply(i % 2 ? 'one' : 'two', `forced-${i}`, v);
      assert.equal(r.status, 200, `force=${v}: ${r.body}`);
    }
  });

  test('orphanDependents', async () => {
    // an empty value is true, as the reference reads every boolean parameter
    for (const [v, orphan] of [['True', true], ['1', true], ['False', false], ['', true]] as const) {
      const name = `orphan-${v.toLowerCase() || 'empty'}`;
      await client.request('POST', base, { body: { ...configMap(name), metadata: { name, finalizers: ['example.com/hold'] } } });
      const r = await client.request('DELETE', `${base}/${name}?orphanDependents=${v}`);
      // the object stays (its finalizer): 202 for a cascading delete asked for as orphanDependents=false, as the reference
      assert.equal(r.status, orphan ? 200 : 202, r.body);
      assert.equal((r.json.metadata.finalizers ?? []).includes('orphan'), orphan, `orphanDependents=${v}`);
      await client.request('PATCH', `${base}/${name}`, { body: JSON.stringify({ metadata: { finalizers: null } }), contentType: 'application/merge-patch+json' });
    }
  });

  test('pretty (a strict boolean, as the reference reads it)', async () => {
    assert.match((await client.get(`${base}/flags?pretty=True`)).body, /^\{\n {2}"kind"/);
    assert.match((await client.get(`${base}/flags?pretty=1`)).body, /^\{\n/);
    assert.match((await client.get(`${base}/flags?pretty=False`)).body, /^\{"kind"/);
  });

  test('verbose (health: present is verbose, whatever its value)', async () => {
    for (const q of ['verbose', 'verbose=true', 'verbose=false']) assert.match((await client.get(`/readyz?${q}`)).body, /readyz check passed/, q);
    assert.equal((await client.get('/readyz')).body, 'ok');
  });
});

describe('error Status bodies, byte for byte as the reference writes them', () => {
  const base = '/api/v1/namespaces/default/configmaps';
  const status = (code: number, reason: string, message: string, details: string) =>
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":${JSON.stringify(message)},"reason":"${reason}","details":${details},"code":${code}}\n`;

  test('404 NotFound', async () => {
    const r = await client.get(`${base}/nope`);
    assert.equal(r.body, status(404, 'NotFound', 'configmaps "nope" not found', '{"name":"nope","kind":"configmaps"}'));
  });

  test('409 AlreadyExists', async () => {
    await client.request('POST', base, { body: configMap('twice') });
    const r = await client.request('POST', base, { body: configMap('twice') });
    assert.equal(r.body, status(409, 'AlreadyExists', 'configmaps "twice" already exists', '{"name":"twice","kind":"configmaps"}'));
  });

  test('422 Invalid', async () => {
    const r = await client.request('POST', base, { body: configMap('Bad_Name') });
    const why = 'Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', ' +
      'and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is ' +
      '\'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')';
    assert.equal(r.body, status(422, 'Invalid', `ConfigMap "Bad_Name" is invalid: metadata.name: ${why}`,
      `{"name":"Bad_Name","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":${JSON.stringify(why)},"field":"metadata.name"}]}`));
  });
});

describe('what client libraries recognise in the reference\'s answers', () => {
  const base = '/api/v1/namespaces/default/configmaps';

  test('a uid in the body: a PUT takes it as a precondition (409), a patch may not change it (422)', async () => {
    const made = await client.request('POST', base, { body: configMap('guarded') });
    const put = await client.request('PUT', `${base}/guarded`, { body: { ...configMap('guarded', { a: '1' }), metadata: { name: 'guarded', uid: 'other' } } });
    assert.equal(put.status, 409);
    assert.equal(put.json.message, `Operation cannot be fulfilled on configmaps "guarded": Precondition failed: UID in precondition: other, UID in object meta: ${made.json.metadata.uid}`);
    const patch = await client.request('PATCH', `${base}/guarded`, { body: { metadata: { uid: 'other', labels: { a: 'b' } } }, contentType: 'application/strategic-merge-patch+json' });
    assert.equal(patch.status, 422);
    assert.deepEqual(patch.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "other": field is immutable', field: 'metadata.uid' }]);
    const same = await client.request('PATCH', `${base}/guarded`, { body: { metadata: { uid: made.json.metadata.uid, labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(same.status, 200);
  });

  test('a server-side apply conflict names its causes FieldManagerConflict', async () => {
    const apply = (manager: string, value: string) => client.request('PATCH', `${base}/ssa-conflict?fieldManager=${manager}`,
      { body: configMap('ssa-conflict', { k: value }), contentType: 'application/apply-patch+yaml' });
    assert.equal((await apply('first', '1')).status, 201);
    const r = await apply('second', '2');
    assert.equal(r.status, 409);
    assert.deepEqual(r.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.k' }]);
  });

  test('a resourceVersion the server has not reached: the 504 carries the ResourceVersionTooLarge cause', async () => {
    const r = await client.get(`${base}?resourceVersion=99999999`);
    assert.equal(r.status, 504);
    assert.deepEqual(r.json.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
  });

  test('a create in a namespace being deleted: the 403 carries the NamespaceTerminating cause', async () => {
    assert.equal((await client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ending' } } })).status, 201);
    assert.equal((await client.request('POST', '/api/v1/namespaces/ending/configmaps', { body: { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } } })).status, 201);
    assert.equal((await client.request('DELETE', '/api/v1/namespaces/ending')).status, 200);
    const r = await client.request('POST', '/api/v1/namespaces/ending/configmaps', { body: configMap('late') });
    assert.equal(r.status, 403);
    assert.deepEqual(r.json.details.causes, [{ reason: 'NamespaceTerminating', message: 'namespace ending is being terminated', field: 'metadata.namespace' }]);
    await client.request('PATCH', '/api/v1/namespaces/ending/configmaps/held', { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  });

  test('a PUT creates a Service or a LimitRange that does not exist, as the reference allows', async () => {
    const svc = await client.request('PUT', '/api/v1/namespaces/default/services/put-made', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'put-made' }, spec: { ports: [{ port: 80 }] } } });
    assert.equal(svc.status, 201, svc.body);
    assert.ok(svc.json.spec.clusterIP, 'the created service got an address');
    const lr = await client.request('PUT', '/api/v1/namespaces/default/limitranges/put-made', { body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'put-made' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } } });
    assert.equal(lr.status, 201, lr.body);
    await client.request('DELETE', '/api/v1/namespaces/default/limitranges/put-made');
  });

  test('the log of a pod with no node yet is empty; a container it does not have is refused first', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unplaced' }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    assert.equal((await client.request('POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
    const log = await client.get('/api/v1/namespaces/default/pods/unplaced/log');
    assert.equal(log.status, 200);
    assert.equal(log.body, '');
    const wrong = await client.get('/api/v1/namespaces/default/pods/unplaced/log?container=zzz');
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.message, 'container zzz is not valid for pod unplaced');
  });
});

// The reference's default policy of 1.27, by name.
const clusterRoles127 = [
  'admin', 'cluster-admin', 'edit', 'view',
  'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:auth-delegator', 'system:basic-user',
  'system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
  'system:certificates.k8s.io:kube-apiserver-client-approver', 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
  'system:certificates.k8s.io:kubelet-serving-approver', 'system:certificates.k8s.io:legacy-unknown-approver',
  'system:discovery', 'system:heapster', 'system:kube-aggregator', 'system:kube-controller-manager', 'system:kube-dns', 'system:kube-scheduler',
  'system:kubelet-api-admin', 'system:monitoring', 'system:node', 'system:node-bootstrapper', 'system:node-problem-detector', 'system:node-proxier',
  'system:persistent-volume-provisioner', 'system:public-info-viewer', 'system:service-account-issuer-discovery', 'system:volume-scheduler',
];
const controllers127 = [
  'attachdetach-controller', 'certificate-controller', 'clusterrole-aggregation-controller', 'cronjob-controller', 'daemon-set-controller',
  'deployment-controller', 'disruption-controller', 'endpoint-controller', 'endpointslice-controller', 'endpointslicemirroring-controller',
  'ephemeral-volume-controller', 'expand-controller', 'generic-garbage-collector', 'horizontal-pod-autoscaler', 'job-controller',
  'namespace-controller', 'node-controller', 'persistent-volume-binder', 'pod-garbage-collector', 'pv-protection-controller',
  'pvc-protection-controller', 'replicaset-controller', 'replication-controller', 'resourcequota-controller', 'root-ca-cert-publisher',
  'route-controller', 'service-account-controller', 'service-controller', 'statefulset-controller', 'ttl-after-finished-controller', 'ttl-controller',
].map(c => `system:controller:${c}`);
const clusterRoleBindings127 = [
  'cluster-admin', 'system:basic-user', 'system:discovery', 'system:kube-controller-manager', 'system:kube-dns', 'system:kube-scheduler',
  'system:monitoring', 'system:node', 'system:node-proxier', 'system:public-info-viewer', 'system:service-account-issuer-discovery',
  'system:volume-scheduler', ...controllers127,
];
const namespaced127 = [
  'kube-public/system:controller:bootstrap-signer', 'kube-system/extension-apiserver-authentication-reader',
  'kube-system/system::leader-locking-kube-controller-manager', 'kube-system/system::leader-locking-kube-scheduler',
  'kube-system/system:controller:bootstrap-signer', 'kube-system/system:controller:cloud-provider', 'kube-system/system:controller:token-cleaner',
];
const namespacedBindings127 = namespaced127.map(n => n.replace('/extension-apiserver-authentication-reader', '/system::extension-apiserver-authentication-reader'));

describe('the default RBAC objects: the reference\'s set, whatever the authorization mode', () => {
  for (const mode of ['AlwaysAllow', 'Node,RBAC']) {
    test(`--authorization-mode=${mode}`, async () => {
      const s = mode === 'AlwaysAllow' ? server : await startTestServer({ apiDomain: 'k8s.io', flags: [`--authorization-mode=${mode}`] });
      const c = s === server ? client : createClient(s);
      try {
        const names = async (resource: string) => (await c.get(`/apis/rbac.authorization.k8s.io/v1/${resource}`)).json.items
          .map((o: any) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name)).sort();
        assert.deepEqual(await names('clusterroles'), [...clusterRoles127, ...controllers127].sort());
        assert.deepEqual(await names('clusterrolebindings'), clusterRoleBindings127.sort());
        assert.deepEqual(await names('roles'), namespaced127.sort());
        assert.deepEqual(await names('rolebindings'), namespacedBindings127.sort());
        const admin = (await c.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/admin')).json;
        assert.ok(admin.rules.length > 10, 'aggregated roles start with their rules filled in');
      } finally {
        if (s !== server) { c.close(); await s.close(); }
      }
    });
  }
});
