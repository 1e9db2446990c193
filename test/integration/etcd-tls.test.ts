// etcd over TLS, as production clusters run it: members that serve https and require client certificates
// (--client-cert-auth). The server connects with --etcd-cafile, --etcd-certfile and --etcd-keyfile, and its writes,
// reads and watches work; without a client certificate it does not start, and says why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resourceRef } from '../../src/client/rest-client.js';
import type { ConfigMap } from '../../src/api/types/core-v1.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';

const program = fileURLToPath(new URL('../../bin/apiserver.js', import.meta.url));

describe('etcd over TLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'etcd-tls-'));
  const file = (name: string, pem: string) => { const path = join(dir, name); writeFileSync(path, pem, { mode: 0o600 }); return path; };
  let etcd: EtcdServer;
  let server: TestServer | undefined;
  let files: Record<'ca' | 'clientCert' | 'clientKey', string>;

  before(async () => {
    const ca = createCertificateAuthority('etcd-ca', 3600);
    const serving = generateKeyPair();
    const client = generateKeyPair();
    files = {
      ca: file('ca.crt', ca.certPem),
      clientCert: file('client.crt', issueLeaf(ca, client.publicKey, { commonName: 'apiserver-etcd-client', usages: ['digital signature', 'key encipherment', 'client auth'], ttlSeconds: 3600 })),
      clientKey: file('client.key', client.keyPem),
    };
    etcd = await startEtcd({
      certFile: file('server.crt', issueLeaf(ca, serving.publicKey, { commonName: 'etcd', ips: ['127.0.0.1'], dnsNames: ['localhost'], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 })),
      keyFile: file('server.key', serving.keyPem),
      clientCaFile: files.ca, clientCertFile: files.clientCert, clientKeyFile: files.clientKey,
    });
  });
  after(async () => {
    await server?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with the CA and a client certificate the server stores, reads and watches through etcd', { timeout: 60_000 }, async () => {
    assert.match(etcd.endpoint, /^https:/);
    server = await startTestServer({ storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: '/tls-test',
      flags: [`--etcd-cafile=${files.ca}`, `--etcd-certfile=${files.clientCert}`, `--etcd-keyfile=${files.clientKey}`] });
    const configMaps = server.client.resource(resourceRef<ConfigMap>('', 'v1', 'configmaps', 'ConfigMap'), 'default');
    const created = await configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-tls' }, data: { a: '1' } });
    const updated = await configMaps.update({ ...created, data: { a: '2' } });
    assert.equal((await configMaps.get('over-tls')).data?.a, '2');
    // a quorum read goes to etcd itself
    const list = await configMaps.list({ fieldSelector: 'metadata.name=over-tls' });
    assert.equal(list.items[0]?.metadata?.resourceVersion, updated.metadata?.resourceVersion);
  });

  test('without a client certificate the server does not start, and names etcd', { timeout: 60_000 }, async () => {
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = execFile(process.execPath, [program, '--storage-backend=etcd', `--etcd-servers=${etcd.endpoint}`,
        `--etcd-cafile=${files.ca}`, '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'no-cert')}`], { timeout: 45_000 },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, text: stdout + stderr }));
    });
    assert.equal(out.code, 1, out.text);
    assert.match(out.text, /etcd/i);
  });
});
