// Authentication: who is asking. Each authenticator is one module; the union tries them in order.
import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate } from 'node:tls';
import type { UserInfo } from '../server/context.js';

export interface AuthnRequest {
  headers: IncomingHttpHeaders;
  /** the verified client certificate, when one was presented and chains to the client CA */
  peerCertificate?: PeerCertificate;
  /** a client certificate was presented but did not verify */
  peerCertificateError?: string;
  /** audiences a token must be meant for (a TokenReview's spec.audiences); default: the API audiences */
  audiences?: string[];
}

/** a user, and for tokens the requested audiences the token is good for */
export type AuthnResult = UserInfo & { audiences?: string[] };

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

/** a token audience check: the requested audiences the token's audiences cover (empty when none) */
export const intersect = (wanted: readonly string[], have: readonly string[]) => wanted.filter(a => have.includes(a));
