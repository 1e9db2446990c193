// Which volume fits a claim: class, access modes, volume mode, capacity (the smallest that fits), selector, node
// affinity, and pre-binding on either side, as the binder and the scheduler both decide.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from './naming.js';
import {
  bindVolumeToClaim, claimClass, claimNamesClass, defaultClass, ephemeralClaimNotForPod, findMatchingVolume, isClaimFullyBound, volumeAnnotations,
  volumeFitsNode, volumeMismatch, type PersistentVolume, type PersistentVolumeClaim, type StorageClass,
} from './volumes.js';

const a = volumeAnnotations(naming('k8s.io'));

function pv(name: string, size: string, o: Partial<NonNullable<PersistentVolume['spec']>> & { labels?: Record<string, string>; phase?: string } = {}): PersistentVolume {
  const { labels, phase, ...spec } = o;
  return {
    metadata: { name, uid: `uid-${name}`, labels },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, ...spec },
    status: { phase: (phase ?? 'Available') as 'Available' },
  };
}
function claim(name: string, size: string, spec: NonNullable<PersistentVolumeClaim['spec']> = {}, meta: Partial<PersistentVolumeClaim['metadata']> = {}): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...meta },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...spec },
  };
}
const names = (v: PersistentVolume | undefined) => v?.metadata.name;

describe('findMatchingVolume', () => {
  test('the smallest volume whose capacity covers the request', () => {
    const vols = [pv('big', '10Gi'), pv('small', '1Gi'), pv('fits', '2Gi'), pv('exact', '1500Mi')];
    assert.equal(names(findMatchingVolume(claim('c', '1500Mi'), vols, a)), 'exact');
    assert.equal(names(findMatchingVolume(claim('c', '3Gi'), vols, a)), 'big');
    assert.equal(findMatchingVolume(claim('c', '11Gi'), vols, a), undefined);
  });

  test('class, access modes and volume mode must match; fewer extra access modes win over size', () => {
    const vols = [
      pv('fast', '1Gi', { storageClassName: 'fast' }),
      pv('rwx', '1Gi', { accessModes: ['ReadWriteMany'] }),
      pv('both', '1Gi', { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] }),
      pv('block', '1Gi', { volumeMode: 'Block' }),
      pv('plain', '5Gi'),
    ];
    assert.equal(names(findMatchingVolume(claim('c', '1Gi', { storageClassName: 'fast' }), vols, a)), 'fast');
    // no class asked: only volumes of no class
    assert.equal(names(findMatchingVolume(claim('c', '1Gi'), vols, a)), 'plain');
    assert.equal(names(findMatchingVolume(claim('c', '1Gi', { accessModes: ['ReadWriteMany'] }), vols, a)), 'rwx');
    assert.equal(names(findMatchingVolume(claim('c', '1Gi', { accessModes: ['ReadOnlyMany'] }), vols, a)), 'both');
    assert.equal(names(findMatchingVolume(claim('c', '1Gi', { volumeMode: 'Block' }), vols, a)), 'block');
    // the beta annotation names the class over the field
    assert.equal(claimClass(claim('c', '1Gi', { storageClassName: 'x' }, { annotations: { [a.betaStorageClass]: 'fast' } }), a), 'fast');
  });

  test('a label selector, volumes bound elsewhere, not yet Available or being deleted are left out', () => {
    const vols = [
      pv('taken', '1Gi', { claimRef: { namespace: 'ns', name: 'other', uid: 'u' } }),
      pv('new', '1Gi', { phase: 'Pending' }),
      { ...pv('going', '1Gi'), metadata: { name: 'going', deletionTimestamp: '2026-01-01T00:00:00Z' } },
      pv('ssd', '4Gi', { labels: { disk: 'ssd' } }),
      pv('hdd', '2Gi', { labels: { disk: 'hdd' } }),
    ];
    assert.equal(names(findMatchingVolume(claim('c', '1Gi', { selector: { matchLabels: { disk: 'ssd' } } }), vols, a)), 'ssd');
    assert.equal(names(findMatchingVolume(claim('c', '1Gi'), vols, a)), 'hdd');
    assert.equal(findMatchingVolume(claim('c', '1Gi', { selector: { matchLabels: { disk: 'nvme' } } }), vols, a), undefined);
  });

  test('a volume pre-bound to the claim wins over a smaller one, if big enough and of its class', () => {
    const prebound = pv('mine', '10Gi', { claimRef: { namespace: 'ns', name: 'c' } });
    const vols = [pv('small', '1Gi'), prebound];
    assert.equal(names(findMatchingVolume(claim('c', '1Gi'), vols, a)), 'mine');
    // the claimRef's uid must be the claim's when it has one
    assert.equal(names(findMatchingVolume(claim('c', '1Gi'), [pv('small', '1Gi'), pv('old', '10Gi', { claimRef: { namespace: 'ns', name: 'c', uid: 'gone' } })], a)), 'small');
    assert.equal(names(findMatchingVolume(claim('c', '20Gi'), vols, a)), undefined);
  });

  test('waiting for the first consumer: no node, only pre-bound volumes; with a node, only volumes its affinity allows', () => {
    const local = (name: string, host: string) => pv(name, '1Gi', {
      storageClassName: 'local', local: { path: '/mnt' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } },
    });
    const vols = [local('on-a', 'a'), local('on-b', 'b')];
    const c = claim('c', '1Gi', { storageClassName: 'local' });
    const node = (host: string) => ({ metadata: { name: host, labels: { 'kubernetes.io/hostname': host } } });
    assert.equal(findMatchingVolume(c, vols, a, { delayBinding: true }), undefined);
    assert.equal(names(findMatchingVolume(c, vols, a, { delayBinding: true, node: node('b') })), 'on-b');
    assert.equal(findMatchingVolume(c, vols, a, { delayBinding: true, node: node('z') }), undefined);
    assert.equal(findMatchingVolume(c, vols, a, { delayBinding: true, node: node('b'), excluded: new Set(['on-b']) }), undefined);
    assert.equal(volumeFitsNode(vols[0]!, node('a')), true);
    // required affinity with no terms fits no node
    assert.equal(volumeFitsNode(pv('x', '1Gi', { nodeAffinity: { required: { nodeSelectorTerms: [] } } }), node('a')), false);
  });
});

test('volumeMismatch explains why a volume the claim names cannot be bound', () => {
  assert.equal(volumeMismatch(pv('v', '1Gi'), claim('c', '2Gi'), a), 'requested PV is too small');
  assert.equal(volumeMismatch(pv('v', '1Gi', { storageClassName: 'x' }), claim('c', '1Gi'), a), 'storageClassName does not match');
  assert.equal(volumeMismatch(pv('v', '1Gi', { volumeMode: 'Block' }), claim('c', '1Gi'), a), 'incompatible volumeMode');
  assert.equal(volumeMismatch(pv('v', '1Gi'), claim('c', '1Gi', { accessModes: ['ReadWriteMany'] }), a), 'incompatible accessMode');
  assert.equal(volumeMismatch(pv('v', '1Gi'), claim('c', '1Gi'), a), undefined);
});

test('bindVolumeToClaim sets the claimRef and bound-by-controller once, and refuses a volume bound elsewhere', () => {
  const c = claim('c', '1Gi', {}, { resourceVersion: '7' });
  const bound = bindVolumeToClaim(pv('v', '1Gi'), c, a)!;
  assert.deepEqual(bound.spec?.claimRef, { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'ns', name: 'c', uid: 'uid-c', resourceVersion: '7' });
  assert.equal(bound.metadata.annotations?.[a.boundByController], 'yes');
  assert.equal(bindVolumeToClaim(structuredClone(bound), c, a), undefined);
  // pre-bound by the user: the uid is filled in, and the controller does not claim the binding
  const userBound = bindVolumeToClaim(pv('v', '1Gi', { claimRef: { namespace: 'ns', name: 'c' } }), c, a)!;
  assert.equal(userBound.spec?.claimRef?.uid, 'uid-c');
  assert.equal(userBound.metadata.annotations?.[a.boundByController], undefined);
  assert.throws(() => bindVolumeToClaim(pv('v', '1Gi', { claimRef: { namespace: 'ns', name: 'other' } }), c, a), /already bound to claim ns\/other/);
});

test('claims: fully bound, default class, ephemeral ownership', () => {
  assert.equal(isClaimFullyBound(claim('c', '1Gi', { volumeName: 'v' }), a), false);
  assert.equal(isClaimFullyBound(claim('c', '1Gi', { volumeName: 'v' }, { annotations: { [a.bindCompleted]: 'yes' } }), a), true);
  const cls = (name: string, isDefault?: string, created = '2026-01-01T00:00:00Z'): StorageClass =>
    ({ metadata: { name, creationTimestamp: created, annotations: isDefault ? { [a.defaultClass[0]!]: isDefault } : {} }, provisioner: 'x' });
  assert.equal(defaultClass([cls('a'), cls('b', 'true'), cls('c', 'false')], a)?.metadata.name, 'b');
  assert.equal(defaultClass([cls('a', 'true'), cls('b', 'true', '2026-02-01T00:00:00Z'), cls('c', 'true')], a)?.metadata.name, 'b', 'the newest default');
  assert.equal(defaultClass([cls('a')], a), undefined);
  assert.equal(claimNamesClass(claim('c', '1Gi', { storageClassName: '' }), a), true, "'' names the class of no class");
  assert.equal(claimNamesClass(claim('c', '1Gi'), a), false);
  const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid' } };
  const owned = claim('p-v', '1Gi', {}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'pod-uid', controller: true }] });
  assert.equal(ephemeralClaimNotForPod(pod, owned), undefined);
  assert.equal(ephemeralClaimNotForPod(pod, claim('p-v', '1Gi')), 'PVC ns/p-v was not created for pod ns/p (pod is not owner)');
});
