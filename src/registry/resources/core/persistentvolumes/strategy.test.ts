import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from '../../../../api/types/core-v1.js';
import { create, ctx, strategyOf, update } from '../../testing/strategy.js';

test('PersistentVolume defaults and source rules', async () => {
  const pv = await create<PersistentVolume>(strategyOf('', 'persistentvolumes'),
    { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' }, nfs: { server: 'n', path: '/' } } });
  assert.equal(pv.obj.spec?.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(pv.obj.spec?.volumeMode, 'Filesystem');
  assert.deepEqual(pv.causes, ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
});

const onNode = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'example.com/host', operator: 'In', values: ['n1'] }] }] } };

test('PersistentVolume causes as the reference words them: bare access modes, a capacity of storage only, volumeMode unprefixed', async () => {
  const pvs = strategyOf('', 'persistentvolumes');
  assert.deepEqual((await create(pvs, { spec: {} })).causes, [
    'spec.accessModes: Required value',
    'spec.capacity: Required value',
    'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
    'spec: Required value: must specify a volume type',
  ]);
  assert.deepEqual((await create(pvs, { spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '0' }, local: { path: '/d' }, nodeAffinity: onNode } })).causes,
    ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']);
  const old = (await create<PersistentVolume>(pvs, { spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/d' } } })).obj;
  assert.deepEqual(await update<PersistentVolume>(pvs, old, o => { o.spec!.volumeMode = 'Block'; }), ['volumeMode: Invalid value: "Block": field is immutable']);
});

test('a local volume needs node affinity, and a hostPath of / may not be recycled', async () => {
  const pvs = strategyOf('', 'persistentvolumes');
  const base = { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
  assert.deepEqual((await create(pvs, { spec: { ...base, local: { path: '/d' } } })).causes,
    ['spec.nodeAffinity: Required value: Local volume requires node affinity']);
  assert.deepEqual((await create(pvs, { spec: { ...base, local: { path: '/d' }, nodeAffinity: {} } })).causes,
    ['spec.nodeAffinity.required: Required value: must specify required node constraints']);
  assert.deepEqual((await create(pvs, { spec: { ...base, local: { path: '/d' }, nodeAffinity: onNode } })).causes, []);
  assert.deepEqual((await create(pvs, { spec: { ...base, hostPath: { path: '/' }, persistentVolumeReclaimPolicy: 'Recycle' } })).causes,
    ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]);
  assert.deepEqual((await create(pvs, { spec: { ...base, hostPath: { path: '/srv' }, persistentVolumeReclaimPolicy: 'Recycle' } })).causes, []);
});

test('the beta mount-options annotation is refused on volume kinds that never took it', async () => {
  const pvs = strategyOf('', 'persistentvolumes');
  const annotations = { [`volume.beta.${ctx.names.labelDomain}/mount-options`]: 'ro' };
  const base = { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
  assert.deepEqual((await create(pvs, { metadata: { annotations }, spec: { ...base, hostPath: { path: '/d' } } })).causes,
    [`metadata.annotations.volume.beta.${ctx.names.labelDomain}/mount-options: Forbidden: may not specify mount options for this volume type`]);
  assert.deepEqual((await create(pvs, { metadata: { annotations }, spec: { ...base, nfs: { server: 's', path: '/x' } } })).causes, []);
});
