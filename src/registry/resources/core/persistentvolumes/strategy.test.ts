import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from '../../../../api/types/core-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('PersistentVolume defaults and source rules', async () => {
  const pv = await create<PersistentVolume>(strategyOf('', 'persistentvolumes'),
    { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' }, nfs: { server: 'n', path: '/' } } });
  assert.equal(pv.obj.spec?.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(pv.obj.spec?.volumeMode, 'Filesystem');
  assert.deepEqual(pv.causes, ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
});
