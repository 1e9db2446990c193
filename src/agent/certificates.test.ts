// The agent's client certificate: when it is renewed (70 to 84 % of its life), and reading a certificate with
// its key from one PEM file as the certificate directory keeps them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPublicKey } from 'node:crypto';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../pki/certificates.js';
import { readKeyPair, rotationDeadline } from './certificates.js';

const ca = createCertificateAuthority('test-ca', 3600);
const key = generateKeyPair();
const certPem = issueLeaf(ca, key.publicKey, { commonName: 'system:node:n', organizations: ['system:nodes'], usages: ['digital signature', 'client auth'], ttlSeconds: 1000 });

test('renewal falls between 70 and 84 % of the life, by the jitter', () => {
  const cert = new X509Certificate(certPem);
  const from = Date.parse(cert.validFrom);
  const life = Date.parse(cert.validTo) - from;
  const pair = { certPem, keyPem: key.keyPem };
  assert.equal(rotationDeadline(pair, 0), from + 0.7 * life);
  assert.equal(rotationDeadline(pair, 1), from + 0.84 * life);
  for (let i = 0; i < 100; i++) {
    const at = (rotationDeadline(pair) - from) / life;
    assert.ok(at >= 0.7 && at <= 0.84, String(at));
  }
});

test('a certificate and its key are read from one PEM text; a key of another certificate is refused', () => {
  const pair = readKeyPair(`${certPem}${key.keyPem}`);
  assert.ok(pair);
  assert.equal(createPublicKey(pair.keyPem).export({ type: 'spki', format: 'pem' }), key.publicKey.export({ type: 'spki', format: 'pem' }));
  assert.equal(readKeyPair(certPem, generateKeyPair().keyPem), undefined);
  assert.equal(readKeyPair('no pem here'), undefined);
});
