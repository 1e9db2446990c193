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
}

export interface Authenticator {
  /** undefined: not this authenticator's kind of credential; throw Unauthorized: a credential of its kind, but invalid */
  authenticate(req: AuthnRequest): Promise<UserInfo | undefined> | UserInfo | undefined;
}

export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
export const authenticatedGroup = 'system:authenticated';
