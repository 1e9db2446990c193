import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from '../../testing/strategy.js';

test('ConfigMap keys and binary data overlap', async () => {
  const { causes } = await create(strategyOf('', 'configmaps'), { data: { 'a b': '1', k: 'x' }, binaryData: { k: 'eA==' } });
  assert.deepEqual(causes, [
    'data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\' (e.g. \'key.name\',  or \'KEY_NAME\',  or \'key-name\', regex used for validation is \'[-._a-zA-Z0-9]+\')',
    'binaryData[k]: Invalid value: "k": duplicate of key present in data',
  ]);
});
