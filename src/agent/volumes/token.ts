// Service-account tokens of projected volumes: requested with the TokenRequest API for the pod's
// account, bound to the pod, for the audience and lifetime the volume asks; a token is requested again
// once 80% of its lifetime has passed or it is older than a day, as the reference agent does.

import type { AgentPod, ServiceAccountTokenProjection } from '../objects.js';
import type { VolumeContext } from './types.js';

const day = 86_400_000;
const defaultExpirationSeconds = 3600;

export function needsRenewal(t: { issuedAt: number; expiresAt: number }, now: number): boolean {
  const ttl = t.expiresAt - t.issuedAt;
  return now >= t.expiresAt - ttl * 0.2 || now >= t.issuedAt + day;
}

export async function serviceAccountToken(pod: AgentPod, key: string, src: ServiceAccountTokenProjection, ctx: VolumeContext): Promise<string> {
  const cached = ctx.tokens.get(key);
  const now = ctx.now();
  if (cached && !needsRenewal(cached, now)) return cached.token;
  if (!ctx.client) throw new Error('cannot request a service account token: the agent runs without an API server (standalone mode)');
  const account = pod.spec.serviceAccountName || 'default';
  const group = ctx.names.group('authentication');
  const review = await ctx.client.request<{ status?: { token?: string; expirationTimestamp?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace)}/serviceaccounts/${encodeURIComponent(account)}/token`,
    body: {
      apiVersion: `${group}/v1`, kind: 'TokenRequest',
      spec: {
        audiences: src.audience ? [src.audience] : [],
        expirationSeconds: src.expirationSeconds ?? defaultExpirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
      },
    },
  });
  const token = review.status?.token;
  if (!token) throw new Error(`the token request for service account ${pod.metadata.namespace}/${account} returned no token`);
  const expiresAt = Date.parse(review.status?.expirationTimestamp ?? '') || now + (src.expirationSeconds ?? defaultExpirationSeconds) * 1000;
  ctx.tokens.set(key, { token, issuedAt: now, expiresAt });
  return token;
}
