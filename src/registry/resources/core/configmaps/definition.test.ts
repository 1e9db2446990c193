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

test('ConfigMap keys: dot rules and length, each refused with its path', async () => {
  const { causes } = await create(strategyOf('', 'configmaps'), { data: { '.': '1', '..a': '2', ['k'.repeat(254)]: '3', '.ok': '4', 'ok..': '5' } });
  assert.deepEqual(causes, [
    "data[.]: Invalid value: \".\": must not be '.'",
    "data[..a]: Invalid value: \"..a\": must not start with '..'",
    `data[${'k'.repeat(254)}]: Invalid value: "${'k'.repeat(254)}": must be no more than 253 characters`,
  ]);
});

test('ConfigMap size counts the bytes of its values, as the reference does', async () => {
  // 400,000 three-byte characters: 1.2 MB, over the 1 MiB limit though under it in characters
  const { causes } = await create(strategyOf('', 'configmaps'), { data: { k: '€'.repeat(400_000) } });
  assert.deepEqual(causes, [': Too long: must have at most 1048576 bytes']);
});

test('the size of a base64 value is its decoded size, counted or decoded', async () => {
  const { decodedLength } = await import('./keys.js');
  for (const v of ['', 'eA==', 'eHk=', 'eHl6', 'eHl6eA==', 'not base64!', 'eA', 'eA=', 'e A==', '====', '-_8=', 42, undefined])
    assert.equal(decodedLength(v), Buffer.from(String(v ?? ''), 'base64').length, String(v));
  const big = { data: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'x'.repeat(600)])) };
  assert.deepEqual((await create(strategyOf('', 'configmaps'), big)).causes, [': Too long: must have at most 1048576 bytes']);
});
