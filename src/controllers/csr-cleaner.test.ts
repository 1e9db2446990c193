// When a certificate request is cleaned up: a day when pending, an hour after a decision, at once when its certificate expired.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csrDeadline } from './csr-cleaner.js';
import { createCertificateAuthority } from '../pki/certificates.js';
import type { CertificateSigningRequest } from './types.js';

const created = '2026-01-01T00:00:00Z';
const csr = (status?: CertificateSigningRequest['status']): CertificateSigningRequest =>
  ({ metadata: { name: 'c', creationTimestamp: created }, spec: { request: '', signerName: 'x/y' }, status });

test('pending a day, decided an hour, expired certificate at once', () => {
  assert.equal(csrDeadline(csr()), Date.parse(created) + 24 * 3_600_000);
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T02:00:00Z' }] })), Date.parse('2026-01-01T03:00:00Z'));
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2026-01-01T00:30:00Z' }] })), Date.parse('2026-01-01T01:30:00Z'));
  const { certPem } = createCertificateAuthority('short', 60);
  const issued = { ...csr({ certificate: Buffer.from(certPem).toString('base64') }) };
  issued.metadata.creationTimestamp = new Date().toISOString();
  const deadline = csrDeadline(issued);
  assert.ok(deadline > Date.now() && deadline <= Date.now() + 61_000, 'the certificate expiry');
});
