import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from '../../../../api/types/core-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';

test('PVC spec is immutable except the requested size', async () => {
  const pvcs = strategyOf('', 'persistentvolumeclaims');
  const { obj } = await create<PersistentVolumeClaim>(pvcs, { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.resources!.requests!.storage = '2Gi'; }), []);
  assert.deepEqual(await update<PersistentVolumeClaim>(pvcs, obj, o => { o.spec!.accessModes = ['ReadWriteMany']; }),
    ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
});
