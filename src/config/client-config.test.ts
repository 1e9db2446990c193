import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ensurePki, type Pki } from '../pki/pki.js';
import { ClientConfigError, loadClientConfig, writeAdminClientConfig } from './client-config.js';

const run = promisify(execFile);
const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';

let dir: string;
let pki: Pki;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'client-config-test-'));
  pki = await ensurePki(join(dir, 'pki'), { hosts: [] });
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('admin client configuration', () => {
  test('written in the reference format, privately, with embedded credentials and a current context', async () => {
    const path = join(dir, 'admin.kubeconfig');
    await writeAdminClientConfig(path, { server: 'https://127.0.0.1:6443', caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem, clusterName: 'local', userName: 'admin', contextName: 'admin@local' });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const doc = parse(readFileSync(path, 'utf8'));
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.kind, 'Config');
    assert.equal(doc['current-context'], 'admin@local');
    assert.deepEqual(doc.contexts, [{ name: 'admin@local', context: { cluster: 'local', user: 'admin' } }]);
    assert.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
    assert.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.caCertPem);
    assert.equal(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString(), pki.adminKeyPem);

    const loaded = await loadClientConfig(path);
    assert.deepEqual(loaded, {
      contextName: 'admin@local', clusterName: 'local', userName: 'admin', server: 'https://127.0.0.1:6443',
      caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem,
    });
  });

  test('a hand-written file: several contexts, file references relative to the file, tokens, exec', async () => {
    const sub = join(dir, 'hand');
    mkdirSync(join(sub, 'certs'), { recursive: true });
    writeFileSync(join(sub, 'certs', 'ca.crt'), pki.caCertPem);
    writeFileSync(join(sub, 'certs', 'admin.crt'), pki.adminCertPem);
    writeFileSync(join(sub, 'certs', 'admin.key'), pki.adminKeyPem);
    writeFileSync(join(sub, 'token'), 'abc.def\n');
    const path = join(sub, 'config');
    writeFileSync(path, `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: api.internal
- name: dev
  cluster:
    server: https://dev.test
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate: certs/admin.crt
    client-key: ${join(sub, 'certs', 'admin.key')}
- name: bot
  user:
    tokenFile: token
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
      args: [--audience, x]
- name: plain
  user:
    token: t0ken
contexts:
- name: prod-admin
  context: {cluster: prod, user: admin, namespace: kube-x}
- name: dev-bot
  context: {cluster: dev, user: bot}
- name: dev-sso
  context: {cluster: dev, user: sso}
- name: dev-plain
  context: {cluster: dev, user: plain}
current-context: prod-admin
`);
    const prod = await loadClientConfig(path);
    assert.equal(prod.server, 'https://10.0.0.1:6443');
    assert.equal(prod.caPem, pki.caCertPem);
    assert.equal(prod.certPem, pki.adminCertPem);
    assert.equal(prod.keyPem, pki.adminKeyPem);
    assert.equal(prod.namespace, 'kube-x');
    assert.equal(prod.tlsServerName, 'api.internal');
    assert.equal(prod.insecureSkipTLSVerify, undefined);

    const bot = await loadClientConfig(path, { context: 'dev-bot' });
    assert.equal(bot.token, 'abc.def');
    assert.equal(bot.insecureSkipTLSVerify, true);
    assert.equal(bot.caPem, undefined);

    const sso = await loadClientConfig(path, { context: 'dev-sso' });
    assert.equal(sso.exec?.command, join(sub, 'bin', 'get-token'));
    assert.deepEqual(sso.exec?.args, ['--audience', 'x']);
    assert.equal((await loadClientConfig(path, { context: 'dev-plain' })).token, 't0ken');
  });

  test('errors name what is missing', async () => {
    const path = join(dir, 'broken');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts:\n- name: c\n  context: {cluster: gone, user: u}\n');
    await assert.rejects(loadClientConfig(path), (e: Error) => e instanceof ClientConfigError && /no current context is set/.test(e.message));
    await assert.rejects(loadClientConfig(path, { context: 'other' }), /context "other" not found in /);
    await assert.rejects(loadClientConfig(path, { context: 'c' }), /cluster "gone" not found in /);
    writeFileSync(path, 'a: [unclosed');
    await assert.rejects(loadClientConfig(path, { context: 'c' }), /not valid YAML/);
  });

  test('the reference CLI understands the written file', { skip: !existsSync(kubectl) && 'kubectl.1.32 not installed' }, async () => {
    const path = join(dir, 'for-kubectl.kubeconfig');
    await writeAdminClientConfig(path, { server: 'https://127.0.0.1:6443', caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem, contextName: 'admin@local', clusterName: 'local', userName: 'admin' });
    const out = JSON.parse(execFileSync(kubectl, ['--kubeconfig', path, 'config', 'view', '--minify', '--raw', '-o', 'json'], { encoding: 'utf8', env: { ...process.env, HOME: dir } }));
    assert.equal(out['current-context'], 'admin@local');
    assert.equal(out.clusters[0].cluster.server, 'https://127.0.0.1:6443');
    assert.equal(out.users[0].name, 'admin');
    assert.equal(Buffer.from(out.users[0].user['client-certificate-data'], 'base64').toString(), pki.adminCertPem);
    assert.equal(Buffer.from(out.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.caCertPem);
  });

  test('the reference CLI completes a TLS handshake with the generated certificates and presents the admin identity', { skip: !existsSync(kubectl) && 'kubectl.1.32 not installed' }, async () => {
    const server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, user: peer.subject.CN, group: peer.subject.O }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const path = join(dir, 'live.kubeconfig');
      const port = (server.address() as AddressInfo).port;
      await writeAdminClientConfig(path, { server: `https://127.0.0.1:${port}`, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem });
      const { stdout } = await run(kubectl, ['--kubeconfig', path, 'get', '--raw', '/whoami'], { encoding: 'utf8', env: { ...process.env, HOME: dir }, timeout: 20_000 });
      assert.deepEqual(JSON.parse(stdout), { path: '/whoami', user: 'admin', group: 'system:masters' });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
