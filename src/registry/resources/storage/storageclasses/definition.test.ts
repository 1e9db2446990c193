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

test('a StorageClass\'s allowedTopologies are checked as the reference does', async () => {
  const sc = strategyOf('storage', 'storageclasses');
  const zone = (values: string[], key = 'topology.example.com/zone') => ({ matchLabelExpressions: [{ key, values }] });
  assert.deepEqual((await create(sc, { provisioner: 'example.com/disk', allowedTopologies: [zone(['a', 'b'])] })).causes, []);
  assert.deepEqual((await create(sc, { provisioner: 'example.com/disk', allowedTopologies: [
    zone([]), zone(['a', 'a'], 'bad key'), { matchLabelExpressions: [zone(['a']).matchLabelExpressions[0], zone(['b']).matchLabelExpressions[0]] },
    zone(['b', 'a']), zone(['a', 'b']),
  ] })).causes, [
    'allowedTopologies[0].matchLabelExpressions[0].values: Required value',
    'allowedTopologies[1].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
    'allowedTopologies[1].matchLabelExpressions[0].key: Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'allowedTopologies[2].matchLabelExpressions[1].key: Duplicate value: "topology.example.com/zone"',
    'allowedTopologies[4].matchLabelExpressions: Duplicate value: ""',
  ]);
});
