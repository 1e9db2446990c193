// --tls-min-version and --tls-cipher-suites, as a TLS client sees them in the handshake; serving certificates of
// another CA (--tls-cert-file as kubeadm writes it) and --tls-sni-cert-key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { startTestServer, waitFor, type TestServer } from '../../src/testing.js';

/** the protocol and cipher a handshake agreed on, or the error that ended it */
function handshake(port: number, o: { maxVersion?: 'TLSv1.2' | 'TLSv1.3'; minVersion?: 'TLSv1.2' | 'TLSv1.3'; ciphers?: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...o }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
      socket.end();
    });
    socket.on('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('serving TLS flags', () => {
  let onlyTls13: TestServer;
  let oneSuite: TestServer;
  before(async () => {
    [onlyTls13, oneSuite] = await Promise.all([
      startTestServer({ flags: ['--tls-min-version=VersionTLS13'] }),
      startTestServer({ flags: ['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] }),
    ]);
  });
  after(async () => { await Promise.all([onlyTls13?.close(), oneSuite?.close()]); });

  test('--tls-min-version=VersionTLS13 refuses a TLS 1.2 client', async () => {
    assert.match(await handshake(onlyTls13.port, { maxVersion: 'TLSv1.2' }), /^error: .*(protocol version|alert)/i);
    assert.match(await handshake(onlyTls13.port, {}), /^TLSv1\.3 /);
  });

  test('--tls-cipher-suites offers only the suites named to TLS 1.2 clients; TLS 1.3 stays on', async () => {
    assert.match(await handshake(oneSuite.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), /^error: .*handshake failure/i);
    assert.equal(await handshake(oneSuite.port, { maxVersion: 'TLSv1.2' }), 'TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384');
    assert.match(await handshake(oneSuite.port, { minVersion: 'TLSv1.3' }), /^TLSv1\.3 TLS_/);
  });
});

/** the certificate the server presents to a client asking for servername, verified against ca (its chain, not its names) */
function servedCertificate(port: number, ca: string, servername?: string): Promise<PeerCertificate | string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca, ...(servername ? { servername } : {}), checkServerIdentity: () => undefined, ALPNProtocols: ['http/1.1'] }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('serving certificates of another CA', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-sni-'));
  const file = (name: string, pem: string) => { const path = join(dir, name); writeFileSync(path, pem, { mode: 0o600 }); return path; };
  const ca = createCertificateAuthority('kubernetes', 3600);
  /** a serving pair of the CA above, written to files */
  const pair = (name: string, o: { commonName: string; dnsNames?: string[]; ips?: string[] }) => {
    const key = generateKeyPair();
    const cert = issueLeaf(ca, key.publicKey, { ...o, usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 });
    return `${file(`${name}.crt`, cert)},${file(`${name}.key`, key.keyPem)}`;
  };
  let server: TestServer;
  before(async () => {
    const [certFile, keyFile] = pair('apiserver', { commonName: 'kube-apiserver', dnsNames: ['localhost'], ips: ['127.0.0.1'] }).split(',');
    server = await startTestServer({ flags: [`--tls-cert-file=${certFile}`, `--tls-private-key-file=${keyFile}`, `--client-ca-file=${file('ca.crt', ca.certPem)}`,
      `--tls-sni-cert-key=${pair('named', { commonName: 'named.example', dnsNames: ['alt.example'] })}`,
      `--tls-sni-cert-key=${pair('wild', { commonName: 'wild' })}:*.wild.example,exact.example`] });
  });
  after(async () => { await server?.close(); rmSync(dir, { recursive: true, force: true }); });

  test('clients get --tls-cert-file, or the --tls-sni-cert-key certificate of the name they ask for', async () => {
    const subject = async (servername?: string) => {
      const c = await servedCertificate(server.port, ca.certPem, servername);
      return typeof c === 'string' ? c : c.subject.CN;
    };
    assert.equal(await subject(), 'kube-apiserver');
    assert.equal(await subject('localhost'), 'kube-apiserver');
    // the names of a certificate given without names: its common name and its DNS names
    assert.equal(await subject('named.example'), 'named.example');
    assert.equal(await subject('alt.example'), 'named.example');
    // the names given on the flag, a wildcard covering one label
    assert.equal(await subject('exact.example'), 'wild');
    assert.equal(await subject('a.wild.example'), 'wild');
    assert.equal(await subject('a.b.wild.example'), 'kube-apiserver');
  });

  test('the server\'s own clients and its admin configuration still reach it: the controllers run', async () => {
    // the admin client configuration the server wrote
    const namespaces = server.client.resource({ group: '', version: 'v1', resource: 'namespaces' });
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foreign-ca' } });
    // the service account controller (in the server's process, its client on the loopback) makes the default account
    const accounts = server.client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'foreign-ca');
    await waitFor(() => accounts.get('default').then(() => true, () => false), { timeoutMs: 60_000, description: 'the default service account' });
  });
});

test('a start with a missing file of a TLS, client-CA, node-client or admission flag is refused naming the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-files-'));
  try {
    const missing = join(dir, 'missing');
    writeFileSync(join(dir, 'x.crt'), 'x');
    writeFileSync(join(dir, 'good.key'), generateKeyPair().keyPem);
    for (const [flags, message] of [
      [[`--tls-cert-file=${missing}`, `--tls-private-key-file=${join(dir, 'good.key')}`], /^Error: --tls-cert-file: cannot read .*missing: ENOENT/],
      // the serving key is also the service accounts' signing key when no other is given
      [[`--tls-cert-file=${join(dir, 'x.crt')}`, `--tls-private-key-file=${join(dir, 'x.crt')}`], /^Error: --tls-private-key-file: .*x\.crt holds no private key in PEM/],
      [[`--tls-cert-file=${join(dir, 'x.crt')}`, `--tls-private-key-file=${missing}`], /^Error: --tls-private-key-file: cannot read .*missing: ENOENT/],
      [[`--service-account-signing-key-file=${missing}`], /^Error: --service-account-signing-key-file: cannot read .*missing: ENOENT/],
      [[`--service-account-key-file=${missing}`], /^Error: --service-account-key-file: cannot read .*missing: ENOENT/],
      [[`--client-ca-file=${missing}`], /^Error: --client-ca-file: cannot read .*missing: ENOENT/],
      [[`--tls-sni-cert-key=${missing},${missing}`], /^Error: --tls-sni-cert-key: cannot read .*missing: ENOENT/],
      [[`--kubelet-certificate-authority=${missing}`], /^Error: --kubelet-certificate-authority: cannot read .*missing: ENOENT/],
      [[`--kubelet-client-certificate=${missing}`, `--kubelet-client-key=${missing}`], /^Error: --kubelet-client-certificate: cannot read .*missing: ENOENT/],
      [[`--admission-control-config-file=${missing}`], /^Error: --admission-control-config-file: cannot read .*missing: ENOENT/],
    ] as const) await assert.rejects(startTestServer({ flags: [...flags] }), message, flags.join(' '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
