// The union of authenticators: the first success decides, every authenticated user joins
// system:authenticated, a credential no authenticator accepts is 401, and no credential at all is anonymous (a client
// certificate without a common name names no one: it is no credential, as the reference's authenticator passes it over).
import type { Authenticator } from './types.js';
import { anonymousUser, authenticatedGroup, bearerCredential } from './types.js';
import { unauthorized } from '../api/status.js';
import { commonNameOf } from './x509.js';
import type { AuthnRequest, AuthnResult } from '../api/auth.js';

export function unionAuthenticator(authenticators: Authenticator[], anonymous: boolean) {
  return async (req: AuthnRequest): Promise<AuthnResult> => {
    for (const a of authenticators) {
      const user = await a.authenticate(req);
      if (user) {
        return user.groups.includes(authenticatedGroup) || user.username === anonymousUser.username
          ? user : { ...user, groups: [...user.groups, authenticatedGroup] };
      }
    }
    // a bearer token no one accepts is 401; another scheme (Basic), or a header the reference does not read as a
    // bearer token (two spaces before it), is no credential: the request is anonymous, with a warning for the latter
    const bearer = bearerCredential(req);
    if (bearer.token !== undefined || req.peerCertificateError || (req.peerCertificate && commonNameOf(req.peerCertificate))) throw unauthorized();
    if (!anonymous) throw unauthorized();
    return bearer.warning ? { ...anonymousUser, warnings: [bearer.warning] } : anonymousUser;
  };
}
