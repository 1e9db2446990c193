import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StorageClass } from '../../../../api/types/storage-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';

test('a StorageClass gets the reference defaults and its validation', async () => {
  const sc = strategyOf('storage', 'storageclasses');
  const made = await create<StorageClass>(sc, { provisioner: 'example.com/disk' });
  assert.deepEqual(made.causes, []);
  assert.equal(made.obj.reclaimPolicy, 'Delete');
  assert.equal(made.obj.volumeBindingMode, 'Immediate');
  assert.deepEqual((await create(sc, { provisioner: '', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' })).causes, [
    'provisioner: Required value',
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
  ]);
  assert.deepEqual((await create(sc, { provisioner: 'Example.com/Disk' })).causes, []);
  assert.deepEqual((await create(sc, { provisioner: 'a b' })).causes.length, 1);
});

test('a StorageClass keeps its provisioner, parameters, reclaim policy and binding mode', async () => {
  const sc = strategyOf('storage', 'storageclasses');
  const old = (await create<StorageClass>(sc, { provisioner: 'example.com/disk', parameters: { type: 'ssd' } })).obj;
  assert.deepEqual(await update<StorageClass>(sc, old, o => { o.allowVolumeExpansion = true; o.metadata.labels = { a: 'b' }; }), []);
  assert.deepEqual(await update<StorageClass>(sc, old, o => {
    o.provisioner = 'example.com/other'; o.parameters = { type: 'hdd' }; o.reclaimPolicy = 'Retain'; o.volumeBindingMode = 'WaitForFirstConsumer';
  }), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
});
