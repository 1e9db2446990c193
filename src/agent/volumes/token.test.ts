import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../api/naming.js';
import type { Client } from '../../client/rest-client.js';
import type { AgentPod } from '../objects.js';
import { needsRenewal, serviceAccountToken } from './token.js';
import type { VolumeContext } from './types.js';

test('a token is renewed after 80% of its lifetime or a day, whichever comes first', () => {
  const t = { issuedAt: 0, expiresAt: 3600_000 };
  assert.equal(needsRenewal(t, 2879_000), false);
  assert.equal(needsRenewal(t, 2880_000), true);
  assert.equal(needsRenewal({ issuedAt: 0, expiresAt: 7 * 86_400_000 }, 86_400_000), true);
});

test('TokenRequest for the pod\'s account, bound to the pod, with the audience and lifetime of the volume; kept until due', async () => {
  const requests: { path: string; body: any }[] = [];
  let now = 1_000_000;
  const client = {
    async request({ path, body }: { path: string; body: any }) {
      requests.push({ path, body });
      return { status: { token: `token-${requests.length}`, expirationTimestamp: new Date(now + body.spec.expirationSeconds * 1000).toISOString() } };
    },
  } as unknown as Client;
  const ctx = { client, names: naming(), tokens: new Map(), now: () => now } as unknown as VolumeContext;
  const pod: AgentPod = { metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { serviceAccountName: 'robot', containers: [] } };
  const src = { path: 'token', audience: 'vault', expirationSeconds: 1000 };
  assert.equal(await serviceAccountToken(pod, 'k', src, ctx), 'token-1');
  assert.equal(requests[0]!.path, '/api/v1/namespaces/shop/serviceaccounts/robot/token');
  assert.deepEqual(requests[0]!.body.spec, { audiences: ['vault'], expirationSeconds: 1000, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u1' } });
  now += 700_000;
  assert.equal(await serviceAccountToken(pod, 'k', src, ctx), 'token-1', 'not due yet');
  now += 200_000;
  assert.equal(await serviceAccountToken(pod, 'k', src, ctx), 'token-2', 'past 80% of its lifetime');
});
