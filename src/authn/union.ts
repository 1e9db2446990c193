// The union of authenticators: the first success decides, every authenticated user joins
// system:authenticated, a credential no authenticator accepts is 401, and no credential at all is anonymous (a client
// certificate without a common name names no one: it is no credential, as the reference's authenticator passes it over).
// An authenticator that refuses a credential of its kind does not end the search: as in the reference, the ones after
// it are asked too (a webhook may accept a token the OpenID authenticator refused), and the refusal is the answer
// only when none accepts.
import type { Authenticator } from './types.js';
import { anonymousUser, authenticatedGroup, bearerCredential, webSocketBearer } from './types.js';
import { unauthorized } from '../api/status.js';
import { commonNameOf } from './x509.js';
import type { AuthnRequest, AuthnResult } from '../api/auth.js';

export function unionAuthenticator(authenticators: Authenticator[], anonymous: boolean) {
  return async (req: AuthnRequest): Promise<AuthnResult> => {
    let refusal: unknown;
    for (const a of authenticators) {
      let user: AuthnResult | undefined;
      try {
        user = await a.authenticate(req);
      } catch (e) {
        refusal ??= e;
        continue;
      }
      if (user) {
        const member = user.groups.includes(authenticatedGroup) || user.username === anonymousUser.username
          ? user : { ...user, groups: [...user.groups, authenticatedGroup] };
        // a token in a WebSocket handshake is this server's credential: the handshake goes on without it
        const { protocols } = webSocketBearer(req);
        return protocols === undefined ? member : { ...member, webSocketProtocols: protocols };
      }
    }
    if (refusal) throw refusal;
    // a bearer token no one accepts is 401; another scheme (Basic), or a header the reference does not read as a
    // bearer token (two spaces before it), is no credential: the request is anonymous, with a warning for the latter
    const bearer = bearerCredential(req);
    if (bearer.token !== undefined || bearer.error || req.peerCertificateError || (req.peerCertificate && commonNameOf(req.peerCertificate))) throw unauthorized();
    if (!anonymous) throw unauthorized();
    return bearer.warning ? { ...anonymousUser, warnings: [bearer.warning] } : anonymousUser;
  };
}
