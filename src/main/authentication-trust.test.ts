import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority } from '../pki/certificates.js';
import { pemBlocksOfType } from '../util/pem.js';
import { combinedAuthenticationData, type AuthenticationInfo } from './authentication-trust.js';

const day = 24 * 3600;
const cluster = createCertificateAuthority('cluster-ca', 365 * day);
const frontA = createCertificateAuthority('front-proxy-ca-a', 365 * day);
const frontB = createCertificateAuthority('front-proxy-ca-b', 365 * day);

const info = (front: string, more: Partial<AuthenticationInfo> = {}): AuthenticationInfo => ({
  clientCaPem: cluster.certPem, requestHeaderCaPem: front, allowedNames: ['front-proxy-client'],
  usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], ...more,
});
const subjects = (pem: string) => pemBlocksOfType(pem, 'CERTIFICATE').map(b => new X509Certificate(b).subject);

test('a second server adds its front-proxy CA to the one published, and the shared client CA stays once', () => {
  const first = combinedAuthenticationData(undefined, info(frontA.certPem));
  const second = combinedAuthenticationData(first, info(frontB.certPem, { usernameHeaders: ['X-User'], allowedNames: ['proxy-b'] }));
  assert.deepEqual(subjects(second['requestheader-client-ca-file']!), ['CN=front-proxy-ca-a', 'CN=front-proxy-ca-b']);
  assert.deepEqual(subjects(second['client-ca-file']!), ['CN=cluster-ca']);
  assert.equal(second['requestheader-username-headers'], '["X-Remote-User","X-User"]');
  assert.equal(second['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.equal(second['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  assert.equal(second['requestheader-allowed-names'], '["front-proxy-client","proxy-b"]');
  // publishing again what is there changes nothing
  assert.deepEqual(combinedAuthenticationData(second, info(frontA.certPem)), second);
});

test('expired certificates are dropped, and no request-header keys are written without a request-header CA', () => {
  const published = combinedAuthenticationData(undefined, info(frontA.certPem));
  const later = Date.now() + 400 * day * 1000;
  const renewed = createCertificateAuthority('cluster-ca-2', 800 * day);
  const data = combinedAuthenticationData(published, info('', { clientCaPem: renewed.certPem }), later);
  assert.deepEqual(data, { 'client-ca-file': renewed.certPem });
});

test('what is published but unreadable is left out, not a failure', () => {
  const data = combinedAuthenticationData({ 'client-ca-file': '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n', 'requestheader-username-headers': '{bad' }, info(frontA.certPem));
  assert.deepEqual(subjects(data['client-ca-file']!), ['CN=cluster-ca']);
  assert.equal(data['requestheader-username-headers'], '["X-Remote-User"]');
});
