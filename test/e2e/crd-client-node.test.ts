// Tried as an operator author would: @kubernetes/client-node 1.4.0, unmodified, installs a realistic operator CRD
// (two versions, status and scale subresources, printer columns, validation rules) on a k8s.io-mode server and
// drives its objects through CustomObjectsApi: create, get, list, merge patch, status patch, scale, watch, delete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException, ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, Watch, loadYaml, setHeaderOptions,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { waitFor } from '../support/wait.js';
import { database, operatorCrd, operatorGroup as group, operatorPlural as plural } from './operator-crd.js';

async function failure(call: Promise<unknown>): Promise<{ code: number; status: any }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    return { code: err.code, status: typeof err.body === 'string' ? JSON.parse(err.body) : err.body };
  }
  assert.fail('the call succeeded');
}

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('an operator CRD through client-node 1.4.0 CustomObjectsApi (k8s.io mode)', { concurrency: 1 }, () => {
  let server: TestServer;
  let objects: CustomObjectsApi;
  let kc: KubeConfig;
  const namespace = 'payments';
  const ref = (name: string, version = 'v1') => ({ group, version, namespace, plural, name });

  before(async () => {
    server = await startTestServer({ apiDomain: 'k8s.io' });
    kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    objects = kc.makeApiClient(CustomObjectsApi);
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    const crds = kc.makeApiClient(ApiextensionsV1Api);
    // loaded from its YAML as an operator ships it: client-node's typed form keeps `default` and the CEL rules
    const body = loadYaml<V1CustomResourceDefinition>(stringify(operatorCrd('apiextensions.k8s.io')));
    await crds.createCustomResourceDefinition({ body });
    // the server's definition controller establishes it as soon as a busy machine lets it
    await waitFor('the CRD Established', async () => (await crds.readCustomResourceDefinition({ name: `${plural}.${group}` }))
      .status?.conditions?.some(c => c.type === 'Established' && c.status === 'True'), 60_000, 25);
  });
  after(async () => { await server?.close(); });

  test('create with defaults, get at both versions, list by label', async () => {
    const created = await objects.createNamespacedCustomObject({ group, version: 'v1', namespace, plural, body: database(namespace, 'orders', { engine: 'postgres', replicas: 3 }) });
    assert.deepEqual(created.spec, { engine: 'postgres', replicas: 3, version: '16' }, 'defaults applied');
    assert.equal(created.metadata.generation, 1);
    const got = await objects.getNamespacedCustomObject(ref('orders'));
    assert.equal(got.metadata.uid, created.metadata.uid);
    const alpha = await objects.getNamespacedCustomObject(ref('orders', 'v1alpha1'));
    assert.equal(alpha.apiVersion, `${group}/v1alpha1`);
    assert.deepEqual(alpha.spec, got.spec);
    await objects.createNamespacedCustomObject({ group, version: 'v1alpha1', namespace, plural, body: { ...database(namespace, 'ledger', { engine: 'mysql' }, 'v1alpha1'), metadata: { name: 'ledger', namespace } } });
    const all = await objects.listNamespacedCustomObject({ group, version: 'v1', namespace, plural });
    assert.deepEqual(all.items.map((i: any) => [i.metadata.name, i.apiVersion]), [['ledger', `${group}/v1`], ['orders', `${group}/v1`]]);
    const team = await objects.listNamespacedCustomObject({ group, version: 'v1', namespace, plural, labelSelector: 'team=payments' });
    assert.deepEqual(team.items.map((i: any) => i.metadata.name), ['orders']);
  });

  test('merge patch, status patch and scale', async () => {
    const patched = await objects.patchNamespacedCustomObject({ ...ref('orders'), body: { spec: { replicas: 4, backup: { enabled: true, schedule: '0 3 * * *' } } } }, merge);
    assert.equal(patched.spec.replicas, 4);
    assert.equal(patched.metadata.generation, 2);
    const status = await objects.patchNamespacedCustomObjectStatus({
      ...ref('orders'),
      body: { status: { phase: 'Ready', readyReplicas: 4, selector: 'app=orders', conditions: [{ type: 'Ready', status: 'True', reason: 'AllReplicasReady' }] } },
    }, merge);
    assert.equal(status.status.phase, 'Ready');
    assert.equal(status.metadata.generation, 2, 'status writes do not move generation');
    const ignored = await objects.patchNamespacedCustomObjectStatus({ ...ref('orders'), body: { spec: { replicas: 9 } } }, merge);
    assert.equal(ignored.spec.replicas, 4, 'spec is not written through status');
    const scale = await objects.getNamespacedCustomObjectScale(ref('orders'));
    assert.deepEqual([scale.spec.replicas, scale.status.replicas, scale.status.selector], [4, 4, 'app=orders']);
    await objects.patchNamespacedCustomObjectScale({ ...ref('orders'), body: { spec: { replicas: 5 } } }, merge);
    assert.equal((await objects.getNamespacedCustomObject(ref('orders'))).spec.replicas, 5);
  });

  test('validation rules and schema errors come back as 422 with their messages', async () => {
    const many = await failure(objects.patchNamespacedCustomObject({ ...ref('ledger'), body: { spec: { replicas: 6 } } }, merge));
    assert.equal(many.code, 422);
    assert.match(many.status.message, /mysql clusters allow at most 5 replicas/);
    const schedule = await failure(objects.patchNamespacedCustomObject({ ...ref('ledger'), body: { spec: { backup: { enabled: true } } } }, merge));
    assert.match(schedule.status.message, /a schedule is required when backups are enabled/);
    const engine = await failure(objects.patchNamespacedCustomObject({ ...ref('ledger'), body: { spec: { engine: 'postgres' } } }, merge));
    assert.match(engine.status.message, /engine is immutable/);
    const bad = await failure(objects.createNamespacedCustomObject({ group, version: 'v1', namespace, plural, body: database(namespace, 'x', { engine: 'oracle', storage: { size: 'lots' } }) }));
    assert.equal(bad.code, 422);
    assert.deepEqual(bad.status.details.causes.map((c: any) => c.field).sort(), ['spec.engine', 'spec.storage.size']);
    // v1alpha1 carries no rules: its own schema validates writes made through it
    const alpha = await objects.patchNamespacedCustomObject({ ...ref('ledger', 'v1alpha1'), body: { spec: { replicas: 6 } } }, merge);
    assert.equal(alpha.spec.replicas, 6);
  });

  test('watch sees changes; delete removes objects', async () => {
    const seen: Array<[string, string, number]> = [];
    const req = await new Watch(kc).watch(`/apis/${group}/v1/namespaces/${namespace}/${plural}`, { resourceVersion: '0' },
      (type, obj: any) => seen.push([type, obj.metadata.name, obj.spec.replicas]), () => {});
    try {
      await objects.patchNamespacedCustomObject({ ...ref('orders'), body: { spec: { replicas: 2 } } }, merge);
      await objects.deleteNamespacedCustomObject(ref('ledger'));
      await waitFor('four watch events', () => seen.length >= 4, 60_000, 20);
      assert.deepEqual(seen, [['ADDED', 'ledger', 6], ['ADDED', 'orders', 5], ['MODIFIED', 'orders', 2], ['DELETED', 'ledger', 6]]);
    } finally {
      req.abort();
    }
    await objects.deleteNamespacedCustomObject(ref('orders'));
    const left = await objects.listNamespacedCustomObject({ group, version: 'v1', namespace, plural });
    assert.deepEqual(left.items, []);
    const gone = await failure(objects.getNamespacedCustomObject(ref('orders')));
    assert.equal(gone.code, 404);
  });
});
