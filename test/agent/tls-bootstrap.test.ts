// The agent's TLS bootstrap when an administrator approves by hand: the request is named as the reference's node
// agent names it (`node-csr-` and a digest of its key and content), and an agent restarted before the approval
// (its key kept in --cert-dir) waits for that same request instead of making another that nobody approved.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientCertificates, type ClientCertificateSettings } from '../../src/agent/certificates.js';
import { tempDir, waitFor } from './helpers.js';

let server: TestServer;
before(async () => {
  // no auto-approval: the administrator decides
  server = await startTestServer({ flags: ['--controllers=*,-csrapproving'] });
});
after(() => server.close());

test('a restarted agent waits for the request it made before; one approval serves both', async () => {
  const csrs = { group: server.names.group('certificates'), version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
  const root = tempDir('agent-tls-bootstrap-');
  const settings: ClientCertificateSettings = {
    names: server.names, nodeName: 'n1', clusterconfig: join(root, 'agent.conf'), bootstrapConfig: server.kubeconfig, certDir: join(root, 'pki'), rotate: false,
  };
  const log = { info() {}, warn() {} };
  const done: string[] = [];
  const run = (label: string, s: ClientCertificateSettings) => clientCertificates(s, log).then((c) => { done.push(label); return c; });
  const first = run('first', settings);
  const made: any = await waitFor('the bootstrap request', async () => (await server.client.resource(csrs).list()).items[0]);
  assert.match(made.metadata.name, /^node-csr-[A-Za-z0-9_-]{43}$/);
  // the same agent again, as after a restart: its --cert-dir holds the key, and so its request waits; a copy of the
  // folder and another --clusterconfig, so that the two runs of this process do not write the same files at once
  const restarted = { ...settings, clusterconfig: join(root, 'restarted.conf'), certDir: join(root, 'pki-restarted') };
  mkdirSync(restarted.certDir);
  copyFileSync(join(settings.certDir, 'agent-client.key.tmp'), join(restarted.certDir, 'agent-client.key.tmp'));
  const second = run('second', restarted);
  await server.client.request({
    method: 'PUT', path: `/apis/${csrs.group}/v1/certificatesigningrequests/${made.metadata.name}/approval`,
    body: { ...made, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Admin', message: 'by hand' }] } },
  });
  await waitFor('both agents to have the certificate', () => done.length === 2);
  const [a, b] = await Promise.all([first, second]);
  assert.deepEqual((await server.client.resource(csrs).list()).items.map((c: any) => c.metadata.name), [made.metadata.name], 'one request');
  assert.equal((await b!.credentials.get()).certPem, (await a!.credentials.get()).certPem);
  assert.equal(new X509Certificate((await a!.credentials.get()).certPem!).subject.split('\n').sort().join(','), 'CN=system:node:n1,O=system:nodes');
});
