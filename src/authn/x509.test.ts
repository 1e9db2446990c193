// Client certificates name the user by the subject's common name, the last of several as the reference reads it,
// and the groups by all its organizations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerCertificate } from 'node:tls';
import { x509Authenticator } from './x509.js';

const presenting = (subject: Record<string, string | string[]>) => ({ headers: {}, peerCertificate: { subject } as unknown as PeerCertificate });

test('the last common name is the user; every organization a group; no common name, no user', async () => {
  assert.deepEqual(await x509Authenticator.authenticate(presenting({ CN: ['system:node:a', 'alice'], O: ['devs', 'ops'] })), { username: 'alice', groups: ['devs', 'ops'] });
  assert.deepEqual(await x509Authenticator.authenticate(presenting({ CN: 'bob', O: 'devs' })), { username: 'bob', groups: ['devs'] });
  assert.equal(await x509Authenticator.authenticate(presenting({ O: 'devs' })), undefined);
});
