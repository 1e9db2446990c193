// The garbage collector against a real server: background, orphan and foreground deletion by the owner
// references of any resource, and dependents of owners that went while no collector ran.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { startControllerManager } from '../../src/controllers/manager.js';
import { defaultControllerManagerOptions } from '../../src/config/controller-manager-options.js';
import { controllerManagerSettings } from '../../src/main/embedded-controller-manager.js';
import { waitFor } from '../support/cluster.js';

const cms = { group: '', version: 'v1', resource: 'configmaps' };
const secrets = { group: '', version: 'v1', resource: 'secrets' };
const quiet = { info() {}, warn() {}, error() {} };

const owned = (name: string, owner: any, block = false, finalizers?: string[]) => ({
  apiVersion: 'v1', kind: 'Secret',
  metadata: { name, ...(finalizers ? { finalizers } : {}), ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid, ...(block ? { blockOwnerDeletion: true } : {}) }] },
});

describe('garbage collector', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer();
    client = await clientFromFile(server.kubeconfig);
  });
  after(async () => { client?.close(); await server?.close(); });

  const gone = (r: any, name: string) => client.resource(r, 'default').get(name).then(() => false, () => true);

  test('background: the dependent goes after its owner', async () => {
    const owner = await client.resource(cms, 'default').create({ metadata: { name: 'bg-owner' } });
    await client.resource(secrets, 'default').create(owned('bg-dep', owner));
    await client.resource(cms, 'default').delete('bg-owner', { propagationPolicy: 'Background' });
    await waitFor('the dependent collected', () => gone(secrets, 'bg-dep'));
  });

  test('a dependent with another live owner keeps living, without the reference to the gone one', async () => {
    const a = await client.resource(cms, 'default').create({ metadata: { name: 'two-a' } });
    const b = await client.resource(cms, 'default').create({ metadata: { name: 'two-b' } });
    const dep = owned('two-dep', a);
    dep.metadata.ownerReferences.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'two-b', uid: b.metadata.uid });
    await client.resource(secrets, 'default').create(dep);
    await client.resource(cms, 'default').delete('two-a');
    await waitFor('the reference removed', async () => {
      const s = await client.resource(secrets, 'default').get('two-dep');
      return s.metadata.ownerReferences.length === 1 && s.metadata.ownerReferences[0].name === 'two-b';
    });
  });

  test('orphan: the owner goes, the dependent stays without its reference', async () => {
    const owner = await client.resource(cms, 'default').create({ metadata: { name: 'or-owner' } });
    await client.resource(secrets, 'default').create(owned('or-dep', owner));
    const deleting = await client.resource(cms, 'default').delete('or-owner', { propagationPolicy: 'Orphan' });
    assert.ok(deleting.metadata.finalizers.includes('orphan'), 'the orphan finalizer holds the owner first');
    await waitFor('the owner gone', () => gone(cms, 'or-owner'));
    const dep = await client.resource(secrets, 'default').get('or-dep');
    assert.equal(dep.metadata.ownerReferences, undefined);
  });

  test('foreground: the owner waits for its blocking dependents', async () => {
    const owner = await client.resource(cms, 'default').create({ metadata: { name: 'fg-owner' } });
    await client.resource(secrets, 'default').create(owned('fg-dep', owner, true, ['test.example/hold']));
    const deleting = await client.resource(cms, 'default').delete('fg-owner', { propagationPolicy: 'Foreground' });
    assert.ok(deleting.metadata.finalizers.includes('foregroundDeletion'));
    await waitFor('the dependent being deleted', async () => !!(await client.resource(secrets, 'default').get('fg-dep')).metadata.deletionTimestamp);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok((await client.resource(cms, 'default').get('fg-owner')).metadata.deletionTimestamp, 'the owner is still there');
    await client.resource(secrets, 'default').patch('fg-dep', { metadata: { finalizers: null } });
    await waitFor('the owner gone', () => gone(cms, 'fg-owner'));
  });

  test('an owner reference to an object of another namespace is dangling: the dependent goes, with an OwnerRefInvalidNamespace event', async () => {
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'gc-elsewhere' } });
    const owner = await client.resource(cms, 'gc-elsewhere').create({ metadata: { name: 'far-owner' } });
    const dep = await client.resource(secrets, 'default').create(owned('far-dep', owner));
    await waitFor('the dependent collected', () => gone(secrets, 'far-dep'));
    const event = await waitFor('the event', async () => (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
      .find((e: any) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject?.uid === dep.metadata.uid));
    assert.equal(event.type, 'Warning');
    assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: default, name: far-owner, uid: ${owner.metadata.uid}] does not exist in namespace "default"`);
    assert.ok(await client.resource(cms, 'gc-elsewhere').get('far-owner'), 'the other namespace\'s object stays');
    // a cluster-scoped dependent naming a namespaced owner is said to be wrong too, but kept: there is nowhere to look
    const volumes = { group: '', version: 'v1', resource: 'persistentvolumes' };
    const volume = await client.resource(volumes).create({ metadata: { name: 'gc-far-volume', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'far-owner', uid: owner.metadata.uid }] },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/srv/gc-far' } } });
    await waitFor('its event', async () => (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
      .some((e: any) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject?.uid === volume.metadata.uid));
    // the dependent in default went after its event was recorded; the same collector has had its look at this one
    const sentinel = await client.resource(secrets, 'default').create(owned('far-sentinel', { metadata: { name: 'none', uid: '00000000-0000-0000-0000-00000000dead' } }));
    await waitFor('a later dangling dependent collected', () => gone(secrets, sentinel.metadata.name));
    assert.ok(await client.resource(volumes).get('gc-far-volume'), 'the cluster-scoped dependent stays');
    await client.resource(volumes).delete('gc-far-volume');
  });

  test('a dependent of a custom object defined just before is collected when its owner goes, without waiting for the next periodic discovery', async () => {
    const crds = client.resource({ group: server.names.group('apiextensions'), version: 'v1', resource: 'customresourcedefinitions' });
    await crds.create({ metadata: { name: 'gizmos.gc.example.com' }, spec: {
      group: 'gc.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    } });
    const gizmos = { group: 'gc.example.com', version: 'v1', resource: 'gizmos' };
    const owner = await waitFor('the custom resource served', () => client.resource(gizmos, 'default')
      .create({ apiVersion: 'gc.example.com/v1', kind: 'Gizmo', metadata: { name: 'gizmo-owner' } }).catch(() => undefined));
    await client.resource(secrets, 'default').create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gizmo-dep',
      ownerReferences: [{ apiVersion: 'gc.example.com/v1', kind: 'Gizmo', name: 'gizmo-owner', uid: owner.metadata.uid }] } });
    await client.resource(gizmos, 'default').delete('gizmo-owner');
    await waitFor('the dependent collected', () => gone(secrets, 'gizmo-dep'));
    await crds.delete('gizmos.gc.example.com');
  });

  test('dependents of owners deleted while no collector ran are collected when one starts', async () => {
    const quietServer = await startTestServer({ flags: ['--controller-manager=false'] });
    const c = await clientFromFile(quietServer.kubeconfig);
    try {
      const owner = await c.resource(cms, 'default').create({ metadata: { name: 'down-owner' } });
      await c.resource(secrets, 'default').create(owned('down-dep', owner));
      await c.resource(cms, 'default').delete('down-owner', { propagationPolicy: 'Background' });
      assert.ok(await c.resource(secrets, 'default').get('down-dep'));
      const cm = startControllerManager({ ...controllerManagerSettings(defaultControllerManagerOptions()), controllers: ['garbagecollector'], client: c, log: quiet });
      await waitFor('collected', () => c.resource(secrets, 'default').get('down-dep').then(() => false, () => true));
      await cm.stop();
    } finally {
      c.close();
      await quietServer.close();
    }
  });
});
