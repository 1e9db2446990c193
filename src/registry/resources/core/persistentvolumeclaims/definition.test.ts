import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from '../../../../api/types/core-v1.js';
import { create, ctx, strategyOf, update } from '../../testing/strategy.js';

test('PVC spec is immutable except the requested size', async () => {
  const pvcs = strategyOf('', 'persistentvolumeclaims');
  const { obj } = await create<PersistentVolumeClaim>(pvcs, { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  obj.status = { phase: 'Bound' };
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.resources!.requests!.storage = '2Gi'; }), []);
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.accessModes = ['ReadWriteMany']; }),
    ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
});

test('a claim that named no class may be given one, once, unless it used the beta annotation', async () => {
  const pvcs = strategyOf('', 'persistentvolumeclaims');
  const spec = { accessModes: ['ReadWriteOnce' as const], resources: { requests: { storage: '1Gi' } } };
  const { obj } = await create<PersistentVolumeClaim>(pvcs, { spec });
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.storageClassName = 'standard'; }), []);
  const named = await create<PersistentVolumeClaim>(pvcs, { spec: { ...spec, storageClassName: 'standard' } });
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, named.obj, o => { o.spec!.storageClassName = 'other'; }),
    ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
  const beta = await create<PersistentVolumeClaim>(pvcs, { metadata: { annotations: { [`volume.beta.${ctx.names.labelDomain}/storage-class`]: 'x' } }, spec });
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, beta.obj, o => { o.spec!.storageClassName = 'standard'; }),
    ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
});

test('only a bound claim may be resized, and never shrunk', async () => {
  const pvcs = strategyOf('', 'persistentvolumeclaims');
  const { obj } = await create<PersistentVolumeClaim>(pvcs, { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.resources!.requests!.storage = '2Gi'; }),
    ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
  obj.status = { phase: 'Bound' };
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.resources!.requests!.storage = '1024Mi'; }), []);
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.resources!.requests!.storage = '500Mi'; }),
    ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
});

test('dataSource and dataSourceRef are kept in step and checked as the reference does', async () => {
  const pvcs = strategyOf('', 'persistentvolumeclaims');
  const spec = { accessModes: ['ReadWriteOnce' as const], resources: { requests: { storage: '1Gi' } } };
  const fromClaim = await create<PersistentVolumeClaim>(pvcs, { spec: { ...spec, dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } } });
  assert.deepEqual(fromClaim.causes, []);
  assert.deepEqual(fromClaim.obj.spec?.dataSourceRef, { kind: 'PersistentVolumeClaim', name: 'src' });
  const populated = await create<PersistentVolumeClaim>(pvcs, { spec: { ...spec, dataSourceRef: { apiGroup: 'example.com', kind: 'Image', name: 'i' } } });
  assert.deepEqual(populated.causes, []);
  assert.deepEqual(populated.obj.spec?.dataSource, { apiGroup: 'example.com', kind: 'Image', name: 'i' });
  // another namespace needs the CrossNamespaceVolumeDataSource feature (alpha, off): the reference is dropped
  const elsewhere = await create<PersistentVolumeClaim>(pvcs, { spec: { ...spec, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src', namespace: 'other' } } });
  assert.deepEqual(elsewhere.causes, []);
  assert.equal(elsewhere.obj.spec?.dataSourceRef, undefined);
  assert.equal(elsewhere.obj.spec?.dataSource, undefined);
  assert.deepEqual((await create(pvcs, { spec: { ...spec, dataSource: { kind: 'Pod', name: 'p' } } })).causes, [
    `spec.dataSource: Invalid value: "Pod": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
    `spec.dataSourceRef: Invalid value: "Pod": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
  ]);
  assert.deepEqual((await create(pvcs, { spec: { ...spec, dataSource: { apiGroup: 'snapshot.example.com', kind: 'VolumeSnapshot', name: 's' },
    dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src' } } })).causes, ['spec: Invalid value: "dataSource": must match dataSourceRef']);
});
