// Authentication: who is asking. Each authenticator is one module; the union tries them in order.
import type { AuthnRequest, AuthnResult, UserInfo } from '../api/auth.js';

export interface Authenticator {
  /** undefined: not this authenticator's kind of credential; throw Unauthorized: a credential of its kind, but invalid */
  authenticate(req: AuthnRequest): Promise<AuthnResult | undefined> | AuthnResult | undefined;
}

export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
export const authenticatedGroup = 'system:authenticated';

/** the token of an `Authorization: Bearer` header, or undefined when there is none */
export function bearerToken(req: AuthnRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}
