// When a certificate request is cleaned up, as the reference: a day when it has no condition, an hour after it was
// denied or failed or approved and issued, at once when its issued certificate expired; never while approved and unsigned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csrDeadline } from './csr-cleaner.js';
import { createCertificateAuthority } from '../pki/certificates.js';
import type { CertificateSigningRequest } from './types.js';

const created = '2026-01-01T00:00:00Z';
const csr = (status?: CertificateSigningRequest['status']): CertificateSigningRequest =>
  ({ metadata: { name: 'c', creationTimestamp: created }, spec: { request: '', signerName: 'x/y' }, status });
const certificate = Buffer.from(createCertificateAuthority('long', 86_400).certPem).toString('base64');

test('no condition a day, denied or failed an hour, approved an hour once issued', () => {
  assert.equal(csrDeadline(csr()), Date.parse(created) + 24 * 3_600_000);
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: '2026-01-01T00:30:00Z' }] })), Date.parse('2026-01-01T01:30:00Z'));
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Failed', status: 'True', lastUpdateTime: '2026-01-01T02:00:00Z' }] })), Date.parse('2026-01-01T03:00:00Z'));
  const approved = { type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T02:00:00Z' };
  assert.equal(csrDeadline(csr({ conditions: [approved], certificate })), Date.parse('2026-01-01T03:00:00Z'));
  assert.equal(csrDeadline(csr({ conditions: [approved, { type: 'Failed', status: 'True', lastUpdateTime: '2026-01-01T02:10:00Z' }] })), Date.parse('2026-01-01T03:10:00Z'));
});

test('approved but not issued stays, whatever its age; a condition without a time starts no clock', () => {
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T02:00:00Z' }] })), Infinity);
  assert.equal(csrDeadline(csr({ conditions: [{ type: 'Denied', status: 'True' }] })), Infinity);
});

test('an approved request whose certificate expired goes at once', () => {
  const { certPem } = createCertificateAuthority('short', 60);
  const issued = csr({ conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: new Date().toISOString() }], certificate: Buffer.from(certPem).toString('base64') });
  const deadline = csrDeadline(issued);
  assert.ok(deadline > Date.now() && deadline <= Date.now() + 61_000, 'the certificate expiry');
});
