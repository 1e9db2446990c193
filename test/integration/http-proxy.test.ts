// The proxy's requests to HTTPS targets: the TLS context made for a trust, certificate and key is used again by the
// requests that have the same ones, and only by those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ensurePki } from '../../src/pki/pki.js';
import { forwardRequest } from '../../src/util/http-proxy.js';

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
