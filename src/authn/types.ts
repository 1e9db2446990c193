// Authentication: who is asking. Each authenticator is one module; the union tries them in order.
import type { AuthnRequest, AuthnResult, UserInfo } from '../api/auth.js';

export interface Authenticator {
  /** undefined: not this authenticator's kind of credential; throw Unauthorized: a credential of its kind, but invalid */
  authenticate(req: AuthnRequest): Promise<AuthnResult | undefined> | AuthnResult | undefined;
}

export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
export const authenticatedGroup = 'system:authenticated';

/** what the reference warns about a header whose token follows two spaces (the token is not read) */
export const spaceBeforeTokenWarning = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/**
 * The `Authorization` header read as the reference reads it: trimmed, split at single spaces into at most three
 * parts; the scheme `bearer` in any case, then the second part is the token (what follows a further space is
 * ignored). Another scheme, no token, or a token after two spaces is no bearer credential at all. Header bytes
 * are read as UTF-8, as the reference reads them (Node hands them over as Latin-1).
 */
export function bearerCredential(req: AuthnRequest): { token?: string; warning?: string } {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return {};
  const parts = h.trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return {};
  if (!parts[1]) return parts.length > 2 ? { warning: spaceBeforeTokenWarning } : {};
  const token = /[^\x00-\x7f]/.test(parts[1]) ? Buffer.from(parts[1], 'latin1').toString('utf8') : parts[1];
  return { token };
}

/** the token of an `Authorization: Bearer` header, or undefined when there is none */
export function bearerToken(req: AuthnRequest): string | undefined {
  return bearerCredential(req).token;
}
