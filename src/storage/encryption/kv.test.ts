import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { naming } from '../../api/naming.js';
import { openMemoryKV } from '../memory/kv.js';
import { createObjectStore } from '../objects.js';
import { objectStoreContract } from '../testing/object-store-contract.js';
import { backendNames, openBackend } from '../testing/backends.js';
import { isStorageError, type WatchEvent } from '../types.js';
import { loadEncryptionConfig, parseEncryptionConfig, reloadingEncryptionConfig, type EncryptionRules } from './config.js';
import { encryptingKV } from './kv.js';

const names = naming('k8s.io');
const secret32 = Buffer.alloc(32, 7).toString('base64');
const configOf = (resources: string[], providers: unknown[]) => JSON.stringify({
  apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources, providers }],
});
const aescbc = (name: string, secret = secret32) => ({ aescbc: { keys: [{ name, secret }] } });
const raw = (v: Uint8Array | undefined) => Buffer.from(v ?? []).toString('latin1');
const secret = (name: string, value = 'c2VjcmV0LXZhbHVl') => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, data: { v: value } });

for (const name of backendNames) {
  objectStoreContract(`object store over an encrypting ${name} store (every resource, aesgcm)`, async () => {
    const inner = await openBackend(name);
    const rules = await parseEncryptionConfig(configOf(['*.*'], [{ aesgcm: { keys: [{ name: 'k', secret: secret32 }] } }]), names);
    const kv = encryptingKV(inner.kv, () => rules);
    return { store: createObjectStore(kv), kv, close: inner.close };
  });
}

test('configured resources are stored encrypted and read, listed and watched in plain; others are untouched', async () => {
  const inner = openMemoryKV();
  const kv = encryptingKV(inner, (rules => () => rules)(await parseEncryptionConfig(configOf(['secrets'], [aescbc('key1')]), names)));
  const store = createObjectStore(kv);
  const events: WatchEvent[] = [];
  const w = kv.watch('/registry/', {}, { onEvents: e => events.push(...e), onError: e => assert.fail(e) });
  await store.create('/registry/core/secrets/default/s1', secret('s1'));
  await store.create('/registry/core/configmaps/default/c1', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' } });
  const stored = raw((await inner.get('/registry/core/secrets/default/s1')).kv?.value);
  assert.ok(stored.startsWith('k8s:enc:aescbc:v1:key1:'), stored);
  assert.ok(!stored.includes('c2VjcmV0LXZhbHVl'));
  assert.ok(raw((await inner.get('/registry/core/configmaps/default/c1')).kv?.value).startsWith('{'));
  assert.deepEqual((await store.get('/registry/core/secrets/default/s1'))?.obj.data, { v: 'c2VjcmV0LXZhbHVl' });
  assert.deepEqual((await store.list('/registry/core/secrets/')).items.map(i => i.obj.metadata.name), ['s1']);
  assert.deepEqual((await store.list('/registry/core/configmaps/default/')).items.map(i => i.obj.metadata.name), ['c1']);
  assert.deepEqual((await store.list('/registry/')).items.map(i => i.obj.metadata.name), ['c1', 's1']);
  await store.update('/registry/core/secrets/default/s1', cur => ({ put: { ...cur!.obj, data: { v: 'bmV3' } } }));
  await store.delete('/registry/core/secrets/default/s1');
  const secretEvents = events.filter(e => e.kv.key.includes('secrets'));
  assert.equal(secretEvents.length, 3);
  assert.ok(raw(secretEvents[0].kv.value).startsWith('{'));
  assert.ok(raw(secretEvents[1].prevKv?.value).includes('c2VjcmV0LXZhbHVl'));
  assert.ok(raw(secretEvents[2].prevKv?.value).includes('bmV3'));
  w.close();
});

test('a value no configured key opens fails as that object\'s read, naming the key; a stale value is written anew', async () => {
  const inner = openMemoryKV();
  let rules: EncryptionRules = await parseEncryptionConfig(configOf(['secrets'], [aescbc('key1')]), names);
  const kv = encryptingKV(inner, () => rules);
  const store = createObjectStore(kv);
  await store.create('/registry/core/secrets/default/s1', secret('s1'));

  rules = await parseEncryptionConfig(configOf(['secrets'], [aescbc('key2', Buffer.alloc(32, 9).toString('base64'))]), names);
  const read = await store.get('/registry/core/secrets/default/s1');
  assert.throws(() => read!.obj, (e: Error) => isStorageError(e, 'Internal')
    && /no matching key was found for the provided aescbc transformer/.test(e.message) && /aescbc v1 key "key1"/.test(e.message));

  // identity first, the old key second: readable, and a write of the unchanged object stores it in plain
  rules = await parseEncryptionConfig(configOf(['secrets'], [{ identity: {} }, aescbc('key1')]), names);
  const cur = await store.get('/registry/core/secrets/default/s1');
  assert.deepEqual(cur!.obj.data, { v: 'c2VjcmV0LXZhbHVl' });
  await store.update('/registry/core/secrets/default/s1', c => ({ put: c!.obj }));
  assert.ok(raw((await inner.get('/registry/core/secrets/default/s1')).kv?.value).startsWith('{'));
  // an unchanged write of a value already in the writing form writes nothing
  const rev = (await inner.get('/registry/core/secrets/default/s1')).kv!.modRevision;
  await store.update('/registry/core/secrets/default/s1', c => ({ put: c!.obj }));
  assert.equal((await inner.get('/registry/core/secrets/default/s1')).kv!.modRevision, rev);
});

test('without any configuration an encrypted value is a clear error, not a JSON parse failure', async () => {
  const inner = openMemoryKV();
  const rules = await parseEncryptionConfig(configOf(['secrets'], [aescbc('key1')]), names);
  await createObjectStore(encryptingKV(inner, () => rules)).create('/registry/core/secrets/default/s1', secret('s1'));
  const read = await createObjectStore(inner).get('/registry/core/secrets/default/s1');
  assert.throws(() => read!.obj, /unable to transform key "\/registry\/core\/secrets\/default\/s1": identity transformer tried to read encrypted data \(the value is encrypted with aescbc v1 key "key1"/);
});

test('configuration: wildcards, order, and the reference\'s validation errors', async () => {
  const rules = await parseEncryptionConfig(JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration',
    resources: [
      { resources: ['secrets', 'deployments.apps'], providers: [aescbc('a')] },
      { resources: ['*.apps'], providers: [{ secretbox: { keys: [{ name: 'b', secret: secret32 }] } }] },
      { resources: ['*.*'], providers: [{ identity: {} }] },
    ],
  }), names);
  assert.equal(rules.providersFor('', 'secrets')?.[0].kind, 'aescbc');
  assert.equal(rules.providersFor('apps', 'deployments')?.[0].kind, 'aescbc');
  assert.equal(rules.providersFor('apps', 'statefulsets')?.[0].kind, 'secretbox');
  assert.equal(rules.providersFor('', 'configmaps')?.[0].kind, 'identity');
  const none = await parseEncryptionConfig(configOf(['*.'], [aescbc('a')]), names);
  assert.equal(none.providersFor('', 'pods')?.[0].kind, 'aescbc');
  assert.equal(none.providersFor('apps', 'deployments'), undefined);

  const refused = async (text: string, message: RegExp) => assert.rejects(parseEncryptionConfig(text, names), message);
  await refused(configOf(['secrets', '*.'], [aescbc('a')]), /using overlapping resources such as 'secrets' and '\*\.' in the same resource list is not allowed/);
  await refused(configOf(['secrets', 'secrets'], [aescbc('a')]), /the same resource cannot be specified multiple times/);
  await refused(configOf(['*'], [aescbc('a')]), /use '\*\.' to encrypt all the resources from core API group or \*\.\* to encrypt all resources/);
  await refused(configOf(['Secrets'], [aescbc('a')]), /resource name should not contain capital letters/);
  await refused(configOf(['pods.*'], [aescbc('a')]), /encrypting the same resource across groups is not supported/);
  await refused(configOf(['events.events.k8s.io'], [aescbc('a')]), /stored using the 'events' API group/);
  await refused(configOf(['secrets'], []), /resources\[0\]\.providers: Required value/);
  await refused(configOf(['secrets'], [aescbc('a', Buffer.alloc(20).toString('base64'))]), /secret is not of the expected length, got 20, expected one of \[16 24 32\]/);
  await refused(configOf(['secrets'], [aescbc('a', 'not base64!')]), /secrets must be base64 encoded/);
  await refused(configOf(['secrets'], [{ identity: {}, aescbc: { keys: [] } }]), /more than one provider specified in a single element/);
  await refused(configOf(['secrets'], [{ kms: { apiVersion: 'v2', name: 'p', endpoint: 'unix:///kms.sock' } }]), /KMS plugins are not supported/);
  await refused(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [
    { resources: ['*.*'], providers: [{ identity: {} }] }, { resources: ['secrets'], providers: [aescbc('a')] }] }),
  /resource "secrets" is masked by earlier rule "\*\.\*"/);
  await refused(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [
    { resources: ['*.'], providers: [{ identity: {} }] }, { resources: ['*.'], providers: [aescbc('a')] }] }),
  /resource "\*\." is masked by earlier rule "\*\."/);
  // the same resource in two entries: the providers of both, in order
  const twice = await parseEncryptionConfig(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [
    { resources: ['secrets'], providers: [aescbc('a')] }, { resources: ['secrets'], providers: [{ identity: {} }] }] }), names);
  assert.deepEqual(twice.providersFor('', 'secrets')?.map(p => p.kind), ['aescbc', 'identity']);
  await refused(JSON.stringify({ apiVersion: 'v1', kind: 'Config', resources: [] }), /expected kind EncryptionConfiguration of apiVersion apiserver.config.k8s.io\/v1/);
  await refused(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'EncryptionConfiguration', resources: [] }), /expected kind EncryptionConfiguration/);
  // the older kind the reference still reads
  const older = await parseEncryptionConfig(JSON.stringify({ apiVersion: 'v1', kind: 'EncryptionConfig', resources: [{ resources: ['secrets'], providers: [aescbc('a')] }] }), names);
  assert.equal(older.providersFor('', 'secrets')?.[0].kind, 'aescbc');
  await refused('', /empty/);
  // YAML, as the reference's files are written
  const yamlRules = await parseEncryptionConfig(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys:
            - name: key1
              secret: ${secret32}
      - identity: {}
`, names);
  assert.deepEqual(yamlRules.providersFor('', 'secrets')?.map(p => p.kind), ['aesgcm', 'identity']);
});

test('in the project\'s own API domain the prefix carries its vendor word', async () => {
  const own = naming('cluster.io');
  const rules = await parseEncryptionConfig(JSON.stringify({
    apiVersion: own.group('apiserver.config') + '/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: [aescbc('key1')] }],
  }), own);
  const inner = openMemoryKV();
  const store = createObjectStore(encryptingKV(inner, () => rules));
  await store.create('/registry/core/secrets/default/s1', secret('s1'));
  assert.ok(raw((await inner.get('/registry/core/secrets/default/s1')).kv?.value).startsWith('cluster:enc:aescbc:v1:key1:'));
  assert.deepEqual((await store.get('/registry/core/secrets/default/s1'))?.obj.data, { v: 'c2VjcmV0LXZhbHVl' });
  // a store without the configuration says what it found
  const plainRead = await createObjectStore(inner).get('/registry/core/secrets/default/s1');
  assert.throws(() => plainRead!.obj, /identity transformer tried to read encrypted data \(the value is encrypted with aescbc v1 key "key1"/);
});

test('automatic reload: a changed file that parses replaces the rules; a broken one is reported and the rules stay', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'encryption-reload-'));
  const path = join(dir, 'config.json');
  try {
    writeFileSync(path, configOf(['secrets'], [aescbc('key1')]));
    const initial = await loadEncryptionConfig(path, names);
    const reports: Array<Error | undefined> = [];
    const reloading = reloadingEncryptionConfig(path, names, initial, { intervalMs: 20, onReload: e => reports.push(e) });
    const until = async (what: string, ok: () => boolean) => {
      for (const started = Date.now(); !ok(); await new Promise(r => setTimeout(r, 20)))
        if (Date.now() - started > 10_000) assert.fail(`timed out waiting for ${what}`);
    };
    try {
      writeFileSync(path, configOf(['secrets'], [aescbc('key2'), aescbc('key1')]));
      await until('the new rules', () => reloading.current() !== initial);
      assert.deepEqual(reloading.current().providersFor('', 'secrets')?.map(p => p.keys[0].name), ['key2', 'key1']);
      const good = reloading.current();
      writeFileSync(path, configOf(['Secrets'], [aescbc('key3')]));
      await until('the report of the broken file', () => reports.some(e => e));
      assert.match(String(reports.find(e => e)?.message), /resource name should not contain capital letters/);
      assert.equal(reloading.current(), good);
    } finally { reloading.stop(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
