// VolumeBinding and VolumeRestrictions against the in-memory cluster: a WaitForFirstConsumer claim gets the smallest
// volume on the node chosen, a volume taken by one pod is not offered to the next, Immediate claims must be bound
// first, bound volumes keep pods to their nodes, and a ReadWriteOncePod claim serves one pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasAnnotation, volumeAnnotations, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../api/volumes.js';
import { fakeCluster, hostnameLabel, names, node, pod } from '../testing/cluster.js';
import type { Pod } from '../types.js';

const a = volumeAnnotations(names);
const onNode = (n: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: hostnameLabel, operator: 'In' as const, values: [n] }] }] } });

function world() {
  const volumes = new Map<string, PersistentVolume>();
  const claims = new Map<string, PersistentVolumeClaim>();
  const classes = new Map<string, StorageClass>([
    ['local', { metadata: { name: 'local' }, provisioner: a.noProvisioner, volumeBindingMode: 'WaitForFirstConsumer' }],
  ]);
  const addVolume = (name: string, size: string, nodeName: string | undefined, extra: Partial<NonNullable<PersistentVolume['spec']>> = {}) =>
    volumes.set(name, {
      metadata: { name, uid: `uid-${name}` },
      spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'local', local: { path: '/mnt' }, ...(nodeName ? { nodeAffinity: onNode(nodeName) } : {}), ...extra },
      status: { phase: 'Available' },
    });
  const addClaim = (name: string, o: { cls?: string; volumeName?: string; bound?: boolean; modes?: string[] } = {}) =>
    claims.set(`default/${name}`, {
      metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: o.bound ? { [a.bindCompleted]: 'yes' } : {} },
      spec: { accessModes: (o.modes ?? ['ReadWriteOnce']) as 'ReadWriteOnce'[], storageClassName: o.cls ?? 'local', resources: { requests: { storage: '1Gi' } }, ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
    });
  /** the binder's part: a claim whose volume names it is completed */
  const binder = setInterval(() => {
    for (const pv of volumes.values()) {
      const ref = pv.spec?.claimRef;
      const claim = ref && claims.get(`${ref.namespace}/${ref.name}`);
      if (claim && !hasAnnotation(claim.metadata, a.bindCompleted)) {
        claim.spec!.volumeName = pv.metadata.name;
        claim.metadata.annotations = { ...claim.metadata.annotations, [a.bindCompleted]: 'yes' };
      }
    }
  }, 5);
  return { volumes, claims, classes, addVolume, addClaim, stop: () => clearInterval(binder) };
}

const using = (p: Pod, ...claimNames: string[]) => {
  p.spec.volumes = claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  return p;
};

test('WaitForFirstConsumer: the smallest volume on the chosen node; one bound to a pod is not offered to the next', async () => {
  const w = world();
  try {
    w.addVolume('on-n1', '1Gi', 'n1');
    w.addVolume('n2-big', '5Gi', 'n2');
    w.addVolume('n2-small', '2Gi', 'n2');
    for (const c of ['first', 'second', 'third']) w.addClaim(c);
    const c = fakeCluster({ nodes: [node('n1'), node('n2')], volumes: w.volumes, claims: w.claims, classes: w.classes });
    // priorities fix the order
    const toN2 = (priority: number) => ({ nodeSelector: { [hostnameLabel]: 'n2' }, priority });
    c.add(using(pod('p1', toN2(3)), 'first'), using(pod('p2', toN2(2)), 'second'), using(pod('p3', toN2(1)), 'third'));
    await c.run();
    assert.equal(c.nodeOf('p1'), 'n2');
    assert.equal(c.nodeOf('p2'), 'n2');
    assert.equal(w.claims.get('default/first')!.spec!.volumeName, 'n2-small');
    assert.equal(w.claims.get('default/second')!.spec!.volumeName, 'n2-big');
    assert.equal(w.volumes.get('n2-small')!.metadata.annotations?.[a.boundByController], 'yes');
    assert.equal(c.nodeOf('p3'), undefined);
    assert.match(c.message('p3') ?? '', /^0\/2 nodes are available: 1 node\(s\) didn't find available persistent volumes to bind, 1 node\(s\) didn't match Pod's node affinity\/selector\./);
    assert.equal(w.volumes.get('on-n1')!.spec?.claimRef, undefined);
  } finally {
    w.stop();
  }
});

test('Immediate claims must be bound first; a missing claim is named; bound volumes keep pods to their node', async () => {
  const w = world();
  try {
    w.addVolume('fixed', '1Gi', 'n1', { storageClassName: '', claimRef: { namespace: 'default', name: 'bound', uid: 'uid-bound' } });
    w.addClaim('waiting', { cls: '' });
    w.addClaim('bound', { cls: '', volumeName: 'fixed', bound: true });
    const c = fakeCluster({ nodes: [node('n1'), node('n2')], volumes: w.volumes, claims: w.claims, classes: w.classes });
    c.add(using(pod('immediate'), 'waiting'), using(pod('missing'), 'nope'), using(pod('pinned'), 'bound'));
    c.add(using(pod('elsewhere', { nodeSelector: { [hostnameLabel]: 'n2' } }), 'bound'));
    await c.run();
    assert.match(c.message('immediate') ?? '', /^0\/2 nodes are available: pod has unbound immediate PersistentVolumeClaims\./);
    assert.match(c.message('missing') ?? '', /^0\/2 nodes are available: persistentvolumeclaim "nope" not found\./);
    assert.equal(c.nodeOf('pinned'), 'n1');
    assert.match(c.message('elsewhere') ?? '', /^0\/2 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 1 node\(s\) had volume node affinity conflict\./);
  } finally {
    w.stop();
  }
});

test('ReadWriteOncePod: a claim used by one pod keeps every other pod using it off every node', async () => {
  const w = world();
  try {
    w.addVolume('solo', '1Gi', undefined, { storageClassName: '', accessModes: ['ReadWriteOncePod'], claimRef: { namespace: 'default', name: 'solo', uid: 'uid-solo' } });
    w.addClaim('solo', { cls: '', volumeName: 'solo', bound: true, modes: ['ReadWriteOncePod'] });
    const c = fakeCluster({ nodes: [node('n1'), node('n2')], volumes: w.volumes, claims: w.claims, classes: w.classes });
    c.add(using(pod('one'), 'solo'));
    await c.run();
    assert.ok(c.nodeOf('one'));
    c.add(using(pod('two'), 'solo'));
    await c.run();
    assert.equal(c.nodeOf('two'), undefined);
    assert.match(c.message('two') ?? '', /^0\/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode\./);
  } finally {
    w.stop();
  }
});
