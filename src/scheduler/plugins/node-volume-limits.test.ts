// NodeVolumeLimits against the in-memory cluster: a node's CSINode limits how many volumes of a driver its pods use;
// a volume shared by pods counts once, a claim not yet bound counts as its class's provisioner's, generic ephemeral
// volumes count through their claims, and other drivers and non-CSI volumes do not count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { volumeAnnotations, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../api/volumes.js';
import { fakeCluster, hostnameLabel, names, node, pod } from '../testing/cluster.js';
import type { CSINode, Pod } from '../types.js';
import { csiAttachLimitKey } from './node-volume-limits.js';

const a = volumeAnnotations(names);
const driver = 'block.csi.example';

function world() {
  const volumes = new Map<string, PersistentVolume>();
  const claims = new Map<string, PersistentVolumeClaim>();
  const classes = new Map<string, StorageClass>([
    ['block', { metadata: { name: 'block' }, provisioner: driver, volumeBindingMode: 'WaitForFirstConsumer' }],
  ]);
  const csiNodes = new Map<string, CSINode>();
  const limit = (nodeName: string, count: number, name = driver) =>
    csiNodes.set(nodeName, { metadata: { name: nodeName }, spec: { drivers: [{ name, nodeID: nodeName, allocatable: { count } }] } });
  /** a volume bound to a claim of the same name: of the CSI driver given, or a host path */
  const addBound = (name: string, csiDriver: string | null = driver) => {
    volumes.set(name, {
      metadata: { name, uid: `uid-pv-${name}` },
      spec: {
        capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '',
        ...(csiDriver ? { csi: { driver: csiDriver, volumeHandle: `handle-${name}` } } : { hostPath: { path: `/data/${name}` } }),
        claimRef: { namespace: 'default', name, uid: `uid-${name}` },
      },
      status: { phase: 'Bound' },
    });
    claims.set(`default/${name}`, {
      metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: { [a.bindCompleted]: 'yes' } },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } }, volumeName: name },
    });
  };
  return { volumes, claims, classes, csiNodes, limit, addBound };
}

const using = (p: Pod, ...claimNames: string[]) => {
  p.spec.volumes = claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  return p;
};
const to = (n: string) => ({ nodeSelector: { [hostnameLabel]: n } });

test('a node at its CSINode limit takes no pod with another volume of the driver; a shared volume counts once', async () => {
  const w = world();
  w.limit('n1', 2);
  for (const v of ['one', 'two', 'three']) w.addBound(v);
  w.addBound('other-driver', 'file.csi.example');
  w.addBound('host', null);
  const c = fakeCluster({ nodes: [node('n1')], volumes: w.volumes, claims: w.claims, classes: w.classes, csiNodes: w.csiNodes });
  c.add(using(pod('running', { nodeName: 'n1' }), 'one', 'two'));
  c.add(using(pod('over'), 'three'), using(pod('shares'), 'two'), using(pod('not-counted'), 'other-driver', 'host'));
  await c.run();
  assert.equal(c.nodeOf('over'), undefined);
  assert.match(c.message('over') ?? '', /^0\/1 nodes are available: 1 node\(s\) exceed max volume count\./);
  assert.equal(c.nodeOf('shares'), 'n1', c.message('shares'));
  assert.equal(c.nodeOf('not-counted'), 'n1', c.message('not-counted'));
});

test('the pod goes to the node with room; unbound and ephemeral claims count as volumes of their class\'s driver', async () => {
  const w = world();
  w.limit('full', 1);
  w.limit('room', 3);
  w.addBound('used');
  w.claims.set('default/later', {
    metadata: { name: 'later', namespace: 'default', uid: 'uid-later' },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'block', resources: { requests: { storage: '1Gi' } } },
  });
  const c = fakeCluster({ nodes: [node('full'), node('room')], volumes: w.volumes, claims: w.claims, classes: w.classes, csiNodes: w.csiNodes });
  c.add(using(pod('running', { nodeName: 'full' }), 'used'));
  // no provisioner in this test: the claim is not bound, so only the filters are watched (VolumeBinding would wait)
  const profiles = [{ plugins: { multiPoint: { disabled: [{ name: 'VolumeBinding' }] } } }];
  const d = fakeCluster({ nodes: [node('full'), node('room')], volumes: w.volumes, claims: w.claims, classes: w.classes, csiNodes: w.csiNodes, profiles });
  d.add(using(pod('running', { nodeName: 'full' }), 'used'));
  const ephemeral = pod('ephemeral', to('full'));
  ephemeral.spec.volumes = [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'block', resources: { requests: { storage: '1Gi' } } } } } }];
  w.claims.set('default/ephemeral-scratch', {
    metadata: { name: 'ephemeral-scratch', namespace: 'default', uid: 'uid-eph', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'ephemeral', uid: ephemeral.metadata.uid!, controller: true }] },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'block', resources: { requests: { storage: '1Gi' } } },
  });
  d.add(using(pod('unbound'), 'later'), ephemeral);
  await d.run();
  assert.equal(d.nodeOf('unbound'), 'room');
  assert.equal(d.nodeOf('ephemeral'), undefined);
  assert.match(d.message('ephemeral') ?? '', /^0\/2 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 1 node\(s\) exceed max volume count\./);
  // and with VolumeBinding on, a bound volume too
  w.addBound('next');
  c.add(using(pod('bound'), 'next'));
  await c.run();
  assert.equal(c.nodeOf('bound'), 'room');
});

test('a limit from the node\'s attachable-volumes-csi-<driver> allocatable; the limit key of a long driver name is shortened', async () => {
  const w = world();
  w.addBound('used');
  w.addBound('new');
  const c = fakeCluster({ nodes: [node('n1', { extra: { [csiAttachLimitKey(driver)]: '1' } })], volumes: w.volumes, claims: w.claims, classes: w.classes });
  c.add(using(pod('running', { nodeName: 'n1' }), 'used'), using(pod('over'), 'new'));
  await c.run();
  assert.match(c.message('over') ?? '', /^0\/1 nodes are available: 1 node\(s\) exceed max volume count\./);
  assert.equal(csiAttachLimitKey(driver), `attachable-volumes-csi-${driver}`);
  const long = 'a-very-long-csi-driver-name.storage.vendor.example.com';
  const key = csiAttachLimitKey(long);
  assert.equal(key.length, 62);
  assert.ok(key.startsWith(`attachable-volumes-csi-${long.slice(0, 23)}`));
  assert.match(key.slice(-16), /^[0-9a-f]{16}$/);
});
