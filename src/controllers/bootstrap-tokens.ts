// What the bootstrap-token controllers share: reading a bootstrap token Secret (type `bootstrap.<domain>/token`,
// named `bootstrap-token-<id>` in the system namespace) and when it expires.
import { timeProblem } from '../api/meta.js';
import type { Secret } from './types.js';
import type { ControllerContext } from './context.js';

export const bootstrapTokenType = (ctx: Pick<ControllerContext, 'names'>) => `bootstrap.${ctx.names.labelDomain}/token`;

export interface BootstrapToken { id: string; secret: string; expiresAt?: number; signing: boolean }

const field = (s: Secret, key: string) => (s.data?.[key] === undefined ? undefined : Buffer.from(s.data[key]!, 'base64').toString('utf8'));

/** the token a Secret holds; undefined when it is not a well-formed bootstrap token Secret */
export function bootstrapToken(ctx: Pick<ControllerContext, 'names'>, s: Secret): BootstrapToken | undefined {
  if (s.type !== bootstrapTokenType(ctx) || s.metadata.namespace !== ctx.names.systemNamespace) return undefined;
  const id = field(s, 'token-id');
  const secret = field(s, 'token-secret');
  if (!id || !secret || !/^[a-z0-9]{6}$/.test(id) || !/^[a-z0-9]{16}$/.test(secret) || s.metadata.name !== `bootstrap-token-${id}`) return undefined;
  return { id, secret, expiresAt: tokenExpiry(s), signing: field(s, 'usage-bootstrap-signing') === 'true' };
}

/**
 * When a bootstrap token Secret expires, read as the reference reads it: undefined without `expiration`, and 0
 * (long expired) when it is not an RFC 3339 time, such as a date alone.
 */
export function tokenExpiry(s: Secret): number | undefined {
  const expiration = field(s, 'expiration');
  if (!expiration) return undefined;
  const at = timeProblem(expiration) ? NaN : Date.parse(expiration);
  return Number.isNaN(at) ? 0 : at;
}

export const expired = (t: BootstrapToken, now = Date.now()) => t.expiresAt !== undefined && t.expiresAt <= now;
