// Encryption at rest on real stores: a Secret written with --encryption-provider-config is stored sealed (read from
// SQLite's table and from etcd directly), served in plain, still readable after a restart that lists identity first,
// and a clear 500 naming the key, not a crash, after a restart without the configuration.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { ApiError } from '../../src/client/rest-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';

const secretsRef = { group: '', version: 'v1', resource: 'secrets' };
const configMapsRef = { group: '', version: 'v1', resource: 'configmaps' };
const plaintext = 'dG9wLXNlY3JldC12YWx1ZQ==';   // base64 of top-secret-value: what must not be in the store
const key1 = Buffer.alloc(32, 1).toString('base64');

function writeConfig(dir: string, name: string, providers: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration',
    resources: [{ resources: ['secrets'], providers }],
  }));
  return path;
}
const aescbc = { aescbc: { keys: [{ name: 'key1', secret: key1 }] } };
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { password: plaintext } });

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try { await p; } catch (e) { if (e instanceof ApiError) return e; throw e; }
  assert.fail('the request succeeded');
}

describe('encryption at rest on SQLite', () => {
  let dir: string;
  let dataDir: string;
  let server: TestServer | undefined;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'encryption-')); dataDir = join(dir, 'data'); });
  after(async () => { await server?.close(); rmSync(dir, { recursive: true, force: true }); });

  const start = async (flags: string[]) => {
    await server?.close();
    server = await startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'k8s.io', flags });
    return server;
  };
  /** the latest stored value of a key, read from SQLite's table (the server holds the store locked: it is closed) */
  const storedValue = async (key: string): Promise<string> => {
    await server?.close();
    server = undefined;
    const db = new Database(join(dataDir, 'store.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT value FROM kv_log WHERE name = ? ORDER BY id DESC LIMIT 1').get(key) as { value: Buffer } | undefined;
      return row ? Buffer.from(row.value).toString('latin1') : '';
    } finally { db.close(); }
  };

  test('a Secret is stored sealed with aescbc and served in plain; a ConfigMap is untouched', async () => {
    const config = `--encryption-provider-config=${writeConfig(dir, 'aescbc.json', [aescbc])}`;
    let s = await start([config]);
    await s.client.resource(secretsRef, 'default').create(secret('s1'));
    await s.client.resource(configMapsRef, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: plaintext } });
    assert.equal((await s.client.resource(secretsRef, 'default').get('s1')).data?.password, plaintext);
    const listed = await s.client.resource(secretsRef, 'default').list();
    assert.deepEqual(listed.items.filter(i => i.metadata.name === 's1').map(i => i.data?.password), [plaintext]);
    const metrics = await s.client.request<string>({ method: 'GET', path: '/metrics', accept: 'text/plain' });
    assert.match(String(metrics), /apiserver_storage_transformation_operations_total\{transformation_type="to_storage",transformer_prefix="k8s:enc:aescbc:v1:",status="OK"\} [1-9]/);
    const raw = await storedValue('/registry/core/secrets/default/s1');
    assert.ok(raw.startsWith('k8s:enc:aescbc:v1:key1:'), raw.slice(0, 40));
    assert.ok(!raw.includes(plaintext) && !raw.includes('top-secret-value'));
    assert.ok((await storedValue('/registry/core/configmaps/default/c1')).includes(plaintext));

    // an update is sealed again
    s = await start([config]);
    await s.client.resource(secretsRef, 'default').patch('s1', { metadata: { labels: { changed: 'yes' } } });
    assert.equal((await s.client.resource(secretsRef, 'default').get('s1')).metadata.labels?.changed, 'yes');
    assert.ok((await storedValue('/registry/core/secrets/default/s1')).startsWith('k8s:enc:aescbc:v1:key1:'));
  });

  test('restarted with identity first and aescbc second: old Secrets are readable, new ones stored in plain', async () => {
    const s = await start([`--encryption-provider-config=${writeConfig(dir, 'decrypt.json', [{ identity: {} }, aescbc])}`]);
    assert.equal((await s.client.resource(secretsRef, 'default').get('s1')).data?.password, plaintext);
    await s.client.resource(secretsRef, 'default').create(secret('s2'));
    // a replace of the unchanged object rewrites it with the first provider (the reference's way to migrate)
    const cur = await s.client.resource(secretsRef, 'default').get('s1');
    await s.client.resource(secretsRef, 'default').update(cur);
    assert.ok((await storedValue('/registry/core/secrets/default/s2')).includes(plaintext));
    assert.ok((await storedValue('/registry/core/secrets/default/s1')).startsWith('{'));
  });

  test('restarted without the configuration: reading a sealed Secret is a 500 that names the key, and the server goes on', async () => {
    let s = await start([`--encryption-provider-config=${writeConfig(dir, 'aescbc.json', [aescbc])}`]);
    await s.client.resource(secretsRef, 'default').create(secret('sealed'));
    s = await start([]);
    const e = await rejection(s.client.resource(secretsRef, 'default').get('sealed'));
    assert.equal(e.code, 500);
    assert.equal(e.reason, 'InternalError');
    assert.match(e.message, /identity transformer tried to read encrypted data/);
    assert.match(e.message, /aescbc v1 key "key1"/);
    const listing = await rejection(s.client.resource(secretsRef, 'default').list());
    assert.equal(listing.code, 500);
    // a watch that reaches the object ends with its error (an ERROR event), as a watch of the reference's storage does
    const watching = await rejection((async () => {
      for await (const _ of s.client.resource(secretsRef, 'default').watch({ resourceVersion: '0', timeoutSeconds: 30 })) { /* events before it */ }
    })());
    assert.equal(watching.code, 500);
    assert.match(watching.message, /identity transformer tried to read encrypted data/);
    // unmodified kubectl shows the reference's kind of error
    const kubectl127 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
    if (existsSync(kubectl127)) {
      const r = await new Promise<{ code: number; stderr: string }>(resolve => execFile(kubectl127,
        ['--kubeconfig', s.kubeconfig, '--cache-dir', join(dir, 'kubectl-cache'), 'get', 'secret', 'sealed', '-n', 'default'],
        (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr })));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Error from server \(InternalError\): Internal error occurred: unable to transform key "\/registry\/core\/secrets\/default\/sealed": identity transformer tried to read encrypted data/);
    }
    // plain objects are served as before, and the server is healthy
    assert.equal((await s.client.resource(secretsRef, 'default').get('s1')).data?.password, plaintext);
    assert.equal((await s.client.resource(configMapsRef, 'default').get('c1')).data?.a, plaintext);
    assert.equal(await s.client.request<string>({ method: 'GET', path: '/readyz', accept: 'text/plain' }), 'ok');
  });

  test('a configuration the reference refuses stops the start with its error', async () => {
    await server?.close();
    server = undefined;
    const bad = writeConfig(dir, 'bad.json', [{ aescbc: { keys: [{ name: 'k', secret: Buffer.alloc(20).toString('base64') }] } }]);
    await assert.rejects(startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'k8s.io', flags: [`--encryption-provider-config=${bad}`] }),
      /secret is not of the expected length, got 20, expected one of \[16 24 32\]/);
    const kms = writeConfig(dir, 'kms.json', [{ kms: { apiVersion: 'v2', name: 'plugin', endpoint: 'unix:///tmp/kms.sock' } }]);
    await assert.rejects(startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'k8s.io', flags: [`--encryption-provider-config=${kms}`] }),
      /KMS plugins are not supported/);
  });
});

describe('encryption at rest on etcd', () => {
  let etcd: EtcdServer;
  let dir: string;
  before(async () => { etcd = await startEtcd(); dir = mkdtempSync(join(tmpdir(), 'encryption-etcd-')); });
  after(async () => { await etcd?.stop(); rmSync(dir, { recursive: true, force: true }); });

  test('a Secret is stored sealed with aesgcm in etcd and served in plain', async () => {
    const config = writeConfig(dir, 'aesgcm.json', [{ aesgcm: { keys: [{ name: 'gcm1', secret: key1 }] } }]);
    const s = await startTestServer({ storage: 'etcd', etcdServers: [etcd.endpoint], apiDomain: 'k8s.io', flags: [`--encryption-provider-config=${config}`] });
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      await s.client.resource(secretsRef, 'default').create(secret('e1'));
      const stored = await client.get('/registry/core/secrets/default/e1').buffer();
      assert.ok(stored, 'the key is in etcd');
      assert.ok(stored.toString('latin1').startsWith('k8s:enc:aesgcm:v1:gcm1:'));
      assert.ok(!stored.toString('latin1').includes(plaintext));
      assert.equal((await s.client.resource(secretsRef, 'default').get('e1')).data?.password, plaintext);
    } finally {
      client.close();
      await s.close();
    }
  });
});
