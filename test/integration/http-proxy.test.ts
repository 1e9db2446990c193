// The proxy's requests to HTTPS targets: the TLS context made for a trust, certificate and key is used again by the
// requests that have the same ones, and only by those. A target that answers out of turn ends its request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ensurePki } from '../../src/pki/pki.js';
import { forwardRequest } from '../../src/util/http-proxy.js';
import { startTestServer } from '../../src/testing.js';

test('requests to an HTTPS target present their own client certificate and check the target against their own trust', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-test-'));
  const pki = await ensurePki(join(dir, 'a'), { hosts: [] });
  const other = await ensurePki(join(dir, 'b'), { hosts: [] });
  // the target asks for a client certificate and tells who presented it
  const server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    res.end(socket.authorized ? socket.getPeerCertificate().subject.CN : 'anonymous');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const ask = async (tls: { caPem?: string; certPem?: string; keyPem?: string }) => {
    const res = await forwardRequest({ url, tls: { ...tls, rejectUnauthorized: true } }, 'GET', {}, undefined);
    let body = '';
    for await (const chunk of res) body += chunk;
    return body;
  };
  try {
    const admin = { caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem };
    const adminName = await ask(admin);
    assert.notEqual(adminName, 'anonymous');
    // the same credentials again, then none, then the same trust with a certificate the target does not trust
    assert.equal(await ask(admin), adminName);
    assert.equal(await ask({ caPem: pki.caCertPem }), 'anonymous');
    assert.equal(await ask({ caPem: pki.caCertPem, certPem: other.adminCertPem, keyPem: other.adminKeyPem }), 'anonymous');
    assert.equal(await ask(admin), adminName);
    // a trust the target's certificate is not signed by fails, before and after the trusted one was used
    await assert.rejects(ask({ caPem: other.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem }), /self[- ]signed|unable to verify|certificate/i);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a proxied target that switches protocols for a plain request is a 503, not a request left waiting for ever', { timeout: 60_000 }, async () => {
  const server = await startTestServer();
  // the target answers every request with a 101 to a protocol nobody asked for
  const target = createNetServer(s => { s.on('error', () => undefined); s.once('data', () => s.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: foo\r\n\r\nbytes of foo')); });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const auth = { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem };
  const call = (path: string, method = 'GET', body?: string, contentType = 'application/json') => new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { ...auth, method, headers: { 'content-type': contentType } }, res => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ code: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
  try {
    assert.equal((await call('/api/v1/nodes', 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'switcher' } }))).code, 201);
    const addresses = JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] } });
    assert.equal((await call('/api/v1/nodes/switcher/status', 'PATCH', addresses, 'application/merge-patch+json')).code, 200);
    const port = (target.address() as AddressInfo).port;
    for (let i = 0; i < 2; i++) {
      const answer = await call(`/api/v1/nodes/http:switcher:${port}/proxy/any`);
      assert.equal(answer.code, 503, answer.body);
      assert.match(JSON.parse(answer.body).message, /switched protocols/);
    }
  } finally {
    target.close();
    await server.close();
  }
});
