// What the bootstrap-token controllers share: reading a bootstrap token Secret (type `bootstrap.<domain>/token`,
// named `bootstrap-token-<id>` in the system namespace) and when it expires.
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
  const expiration = field(s, 'expiration');
  const expiresAt = expiration ? Date.parse(expiration) : undefined;
  return { id, secret, expiresAt: expiresAt === undefined ? undefined : Number.isNaN(expiresAt) ? 0 : expiresAt, signing: field(s, 'usage-bootstrap-signing') === 'true' };
}

export const expired = (t: BootstrapToken, now = Date.now()) => t.expiresAt !== undefined && t.expiresAt <= now;
