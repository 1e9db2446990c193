import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { request, createServer } from 'node:https';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { ensureFrontProxyCa, ensurePki, files, frontProxyFiles, readCertificateRequest, signCertificate, type Pki } from './pki.js';
import { ipBytes } from './certificates.js';

const serverAuth = '1.3.6.1.5.5.7.3.1';
const clientAuth = '1.3.6.1.5.5.7.3.2';
const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'pki-test-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('ensurePki, first boot', () => {
  let dir: string;
  let pki: Pki;
  before(async () => {
    dir = join(root, 'first');
    pki = await ensurePki(dir, { hosts: ['api.example.test', '10.0.0.1'] });
  });

  // start-up time is measured by the API benchmark, not asserted here
  test('writes all six files, keys with mode 0600', () => {
    assert.equal(pki.written.length, 6);
    for (const f of Object.values(files)) assert.ok(existsSync(join(dir, f)), f);
    for (const f of [files.caKey, files.serverKey, files.adminKey]) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  });

  test('the chain verifies with node:crypto', () => {
    const ca = new X509Certificate(pki.caCertPem);
    const server = new X509Certificate(pki.serverCertPem);
    const admin = new X509Certificate(pki.adminCertPem);
    assert.equal(ca.ca, true);
    assert.ok(ca.checkIssued(ca) && ca.verify(ca.publicKey), 'CA is self-signed');
    for (const leaf of [server, admin]) {
      assert.equal(leaf.ca, false);
      assert.ok(leaf.checkIssued(ca));
      assert.ok(leaf.verify(ca.publicKey));
      assert.ok(leaf.checkPrivateKey(createPrivateKey(leaf === server ? pki.serverKeyPem : pki.adminKeyPem)));
    }
    assert.equal(createPublicKey(pki.caKeyPem).asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const years = (new Date(ca.validTo).getTime() - Date.now()) / (365 * 24 * 3600e3);
    assert.ok(years > 9.9 && years < 10.1, `CA valid for ${years} years`);
  });

  test('SANs and extended key usages', () => {
    const server = new X509Certificate(pki.serverCertPem);
    const admin = new X509Certificate(pki.adminCertPem);
    const sans = server.subjectAltName!.split(', ');
    for (const want of ['DNS:api.example.test', 'DNS:localhost', `DNS:${hostname()}`, 'IP Address:10.0.0.1', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) {
      assert.ok(sans.includes(want), `${want} in ${server.subjectAltName}`);
    }
    assert.deepEqual(server.keyUsage, [serverAuth]);
    assert.deepEqual(admin.keyUsage, [clientAuth]);
    assert.deepEqual(admin.subject.split('\n').sort(), ['CN=admin', 'O=system:masters']);
    assert.equal(admin.subjectAltName, undefined);
  });

  test('an independent parser reads the extensions the same way', () => {
    const ca = new x509.X509Certificate(pki.caCertPem);
    const server = new x509.X509Certificate(pki.serverCertPem);
    const bc = ca.getExtension('2.5.29.19');
    assert.ok(bc && new x509.BasicConstraintsExtension(bc.rawData).ca && bc.critical);
    const ku = new x509.KeyUsagesExtension(server.getExtension('2.5.29.15')!.rawData);
    assert.equal(ku.usages, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    const caKu = new x509.KeyUsagesExtension(ca.getExtension('2.5.29.15')!.rawData);
    assert.ok(caKu.usages & x509.KeyUsageFlags.keyCertSign);
    const aki = new x509.AuthorityKeyIdentifierExtension(server.getExtension('2.5.29.35')!.rawData);
    const ski = new x509.SubjectKeyIdentifierExtension(ca.getExtension('2.5.29.14')!.rawData);
    assert.equal(aki.keyId, ski.keyId);
  });

  test('openssl verifies the chain', { skip: !hasOpenssl && 'openssl not installed' }, () => {
    const out = execFileSync('openssl', ['verify', '-CAfile', join(dir, files.caCert), join(dir, files.serverCert), join(dir, files.adminCert)], { encoding: 'utf8' });
    assert.match(out, /apiserver\.crt: OK/);
    assert.match(out, /admin\.crt: OK/);
  });

  test('TLS: a server with the serving certificate sees the admin client as CN=admin, O=system:masters', async () => {
    const server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      for (const host of ['127.0.0.1', 'localhost']) {
        const body = await new Promise<string>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', servername: host === 'localhost' ? host : undefined, port, path: '/', ca: pki.caCertPem, cert: pki.adminCertPem, key: pki.adminKeyPem, agent: false,
            checkServerIdentity: (_h, cert) => (new X509Certificate(cert.raw).checkHost(host) || new X509Certificate(cert.raw).checkIP(host) ? undefined : new Error(`not valid for ${host}`)) }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c)).on('end', () => resolve(text));
          });
          req.on('error', reject).end();
        });
        assert.deepEqual(JSON.parse(body), { cn: 'admin', o: 'system:masters' }, host);
      }
      // a client without a certificate is turned away at the handshake
      await assert.rejects(
        new Promise((resolve, reject) => request({ host: '127.0.0.1', port, ca: pki.caCertPem, agent: false }, resolve).on('error', reject).end()),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('ensurePki, later boots', () => {
  test('the front-proxy CA is kept: a later boot loads it, and one that is not a CA with its key is made again', async () => {
    const dir = join(root, 'front-proxy');
    const a = await ensureFrontProxyCa(dir);
    assert.deepEqual(a.written.sort(), [join(dir, frontProxyFiles.caCert), join(dir, frontProxyFiles.caKey)].sort());
    assert.ok(new X509Certificate(a.certPem).ca);
    const b = await ensureFrontProxyCa(dir);
    assert.deepEqual([b.written, b.certPem, b.keyPem], [[], a.certPem, a.keyPem]);
    await writeFile(join(dir, frontProxyFiles.caKey), (await ensurePki(join(root, 'front-proxy-other'), { hosts: [] })).caKeyPem);
    const c = await ensureFrontProxyCa(dir);
    assert.equal(c.written.length, 2);
    assert.notEqual(c.certPem, a.certPem);
  });

  test('a second call loads instead of regenerating', async () => {
    const dir = join(root, 'reload');
    const a = await ensurePki(dir, { hosts: [] });
    const t0 = performance.now();
    const b = await ensurePki(dir, { hosts: [] });
    console.log(`PKI load on a later boot: ${(performance.now() - t0).toFixed(1)} ms`);
    assert.deepEqual(b.written, []);
    assert.equal(b.caCertPem, a.caCertPem);
    assert.equal(b.serverCertPem, a.serverCertPem);
    assert.equal(b.adminKeyPem, a.adminKeyPem);
  });

  test('a new host reissues only the serving certificate', async () => {
    const dir = join(root, 'hosts');
    const a = await ensurePki(dir, { hosts: ['one.test'] });
    const b = await ensurePki(dir, { hosts: ['one.test', 'two.test'] });
    assert.deepEqual(b.written.sort(), [join(dir, files.serverCert), join(dir, files.serverKey)].sort());
    assert.equal(b.caCertPem, a.caCertPem);
    assert.equal(b.adminCertPem, a.adminCertPem);
    assert.ok(new X509Certificate(b.serverCertPem).checkHost('two.test'));
  });

  test('a key that does not match its certificate is replaced', async () => {
    const dir = join(root, 'mismatch');
    const a = await ensurePki(dir, { hosts: [] });
    await writeFile(join(dir, files.adminKey), generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const b = await ensurePki(dir, { hosts: [] });
    assert.deepEqual(b.written.sort(), [join(dir, files.adminCert), join(dir, files.adminKey)].sort());
    assert.notEqual(b.adminCertPem, a.adminCertPem);
    assert.equal(b.caCertPem, a.caCertPem);
  });

  test('a CA that is there but unusable stops with nothing changed, whatever is wrong with it', async () => {
    const dir = join(root, 'broken-ca');
    await ensurePki(dir, { hosts: [] });
    const snapshot = async (): Promise<Record<string, string>> =>
      Object.fromEntries(await Promise.all(Object.values(files).map(async f => [f, await readFile(join(dir, f), 'utf8').catch(() => '')])));
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const damage: Array<[string, RegExp, () => Promise<void>]> = [
      ['garbage', /not a certificate with its matching private key/, () => writeFile(join(dir, files.caCert), 'not a certificate')],
      ['another key', /not a certificate with its matching private key/, () => writeFile(join(dir, files.caKey), other)],
      ['no key', /ca\.key is missing/, () => unlink(join(dir, files.caKey))],
      ['a leaf in its place', /not a CA certificate/, async () => {
        await writeFile(join(dir, files.caCert), await readFile(join(dir, files.adminCert)));
        await writeFile(join(dir, files.caKey), await readFile(join(dir, files.adminKey)));
      }],
    ];
    for (const [what, message, harm] of damage) {
      const good = await snapshot();
      await harm();
      const broken = await snapshot();
      await assert.rejects(ensurePki(dir, { hosts: ['new.test'] }), message, what);
      assert.deepEqual(await snapshot(), broken, `${what}: nothing written`);
      for (const [f, text] of Object.entries(good)) await writeFile(join(dir, f), text);
    }
  });

  test('a CA whose first writing stopped between its key and its certificate is made anew', async () => {
    const dir = join(root, 'half-written-ca');
    const a = await ensurePki(dir, { hosts: [] });
    await writeFile(join(dir, `${files.caCert}.tmp`), a.caCertPem.slice(0, 100));
    await unlink(join(dir, files.caCert));
    const b = await ensurePki(dir, { hosts: [] });
    assert.equal(b.written.length, 6);
    assert.notEqual(b.caCertPem, a.caCertPem);
    assert.ok(new X509Certificate(b.adminCertPem).verify(new X509Certificate(b.caCertPem).publicKey));
    assert.equal(existsSync(join(dir, `${files.caCert}.tmp`)), false);
  });

  test('a CA with both files gone is made anew, with everything issued from it', async () => {
    const dir = join(root, 'lost-ca');
    const a = await ensurePki(dir, { hosts: [] });
    await unlink(join(dir, files.caKey));
    await unlink(join(dir, files.caCert));
    await writeFile(join(dir, files.serverCert), 'not a certificate');
    const b = await ensurePki(dir, { hosts: [] });
    assert.equal(b.written.length, 6);
    assert.notEqual(b.caCertPem, a.caCertPem);
    assert.ok(new X509Certificate(b.serverCertPem).checkIssued(new X509Certificate(b.caCertPem)));
    assert.ok(new X509Certificate(b.adminCertPem).verify(new X509Certificate(b.caCertPem).publicKey));
  });
});

describe('signCertificate', () => {
  let ca: { certPem: string; keyPem: string };
  before(async () => {
    const p = await ensurePki(join(root, 'signer'), { hosts: [] });
    ca = { certPem: p.caCertPem, keyPem: p.caKeyPem };
  });

  test('for a public key, with names, usages and TTL', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = await signCertificate(ca, {
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
      commonName: 'system:node:n1', organizations: ['system:nodes'], usages: ['digital signature', 'client auth', 'server auth'],
      ttlSeconds: 3600, dnsNames: ['n1.test'], ips: ['192.168.1.10', 'fd00::1'],
    });
    const cert = new X509Certificate(pem);
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
    assert.deepEqual(cert.subject.split('\n').sort(), ['CN=system:node:n1', 'O=system:nodes']);
    assert.deepEqual(cert.keyUsage?.sort(), [serverAuth, clientAuth].sort());
    assert.equal(cert.subjectAltName?.toLowerCase(), 'dns:n1.test, ip address:192.168.1.10, ip address:fd00:0:0:0:0:0:0:1');
    const lifetime = new Date(cert.validTo).getTime() - Date.now();
    assert.ok(lifetime > 3500e3 && lifetime <= 3600e3 + 1000, `lifetime ${lifetime}`);
    assert.ok(cert.checkIssued(new X509Certificate(ca.certPem)));
  });

  test('for a PKCS #10 request made by openssl: names come from the request and its signature is checked', { skip: !hasOpenssl && 'openssl not installed' }, async () => {
    const dir = mkdtempSync(join(root, 'csr-'));
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'r.csr'),
      '-subj', '/O=system:nodes/CN=system:node:n2', '-addext', 'subjectAltName=DNS:n2.test,IP:10.1.2.3'], { stdio: 'ignore' });
    const csrPem = await readFile(join(dir, 'r.csr'), 'utf8');
    const pem = await signCertificate(ca, { csrPem, usages: ['digital signature', 'key encipherment', 'client auth'], ttlSeconds: 600 });
    const cert = new X509Certificate(pem);
    assert.deepEqual(cert.subject.split('\n').sort(), ['CN=system:node:n2', 'O=system:nodes']);
    assert.equal(cert.subjectAltName, 'DNS:n2.test, IP Address:10.1.2.3');
    assert.ok(cert.checkPrivateKey(createPrivateKey(await readFile(join(dir, 'k.pem'), 'utf8'))));
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));

    // a request whose signature was tampered with is refused
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5]! ^= 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    writeFileSync(join(dir, 'bad.csr'), tampered);
    await assert.rejects(signCertificate(ca, { csrPem: tampered, usages: ['client auth'], ttlSeconds: 600 }), /signature|verify|parse|length|ASN/i);
  });

  test('for a request: the whole subject carries over in the reference\'s order; no key usage asked, no keyUsage extension', { skip: !hasOpenssl && 'openssl not installed' }, async () => {
    const dir = mkdtempSync(join(root, 'csr-'));
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'r.csr'),
      '-subj', '/CN=ignored/CN=alice/OU=platform/O=devs/O=ops/L=Berlin/C=DE/emailAddress=alice@example.com/serialNumber=7'], { stdio: 'ignore' });
    const csrPem = await readFile(join(dir, 'r.csr'), 'utf8');
    const cert = new X509Certificate(await signCertificate(ca, { csrPem, usages: ['client auth'], ttlSeconds: 600 }));
    // country first, organizations before units, then the last common name and the serial number; the email address is not kept
    assert.deepEqual(cert.subject.split('\n'), ['C=DE', 'L=Berlin', 'O=devs', 'O=ops', 'OU=platform', 'CN=alice', 'serialNumber=7']);
    assert.deepEqual(cert.keyUsage, [clientAuth]);
    assert.equal(new x509.X509Certificate(cert.raw).getExtension('2.5.29.15'), null);
    const named = new X509Certificate(await signCertificate(ca, { csrPem, commonName: 'bob', usages: ['digital signature', 'client auth'], ttlSeconds: 600 }));
    assert.deepEqual(named.subject.split('\n'), ['O=devs', 'O=ops', 'CN=bob'], 'names given replace the request\'s subject');
    assert.ok(new x509.X509Certificate(named.raw).getExtension('2.5.29.15')?.critical);
    // what the approver and signers check is the common name the certificate gets
    assert.equal((await readCertificateRequest(csrPem)).commonName, 'alice');
  });

  test('validity never outlasts the CA; unknown usages and missing keys are refused', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = await signCertificate(ca, { publicKey, commonName: 'long', usages: ['client auth'], ttlSeconds: 100 * 365 * 24 * 3600 });
    assert.equal(new X509Certificate(pem).validTo, new X509Certificate(ca.certPem).validTo);
    await assert.rejects(signCertificate(ca, { publicKey, commonName: 'x', usages: ['teleport' as 'any'], ttlSeconds: 60 }), /unknown key usages: teleport/);
    await assert.rejects(signCertificate(ca, { usages: ['client auth'], ttlSeconds: 60 }), /publicKey or csrPem/);
  });
});

test('IP addresses become SAN bytes', () => {
  assert.equal(ipBytes('127.0.0.1').toString('hex'), '7f000001');
  assert.equal(ipBytes('::1').toString('hex'), '00000000000000000000000000000001');
  assert.equal(ipBytes('fd00:1::2').toString('hex'), 'fd000001000000000000000000000002');
  assert.equal(ipBytes('::ffff:10.0.0.1').toString('hex'), '00000000000000000000ffff0a000001');
  assert.equal(ipBytes('2001:db8:0:0:1:0:0:1').toString('hex'), '20010db8000000000001000000000001');
  assert.throws(() => ipBytes('not-an-ip'), /not an IP/);
});
