// Client certificates: the subject's common name is the user, its organizations are the groups.
// A certificate that did not verify is no credential here; the union answers 401 if nothing else accepts the request.
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { pemBlocksOfType } from '../util/pem.js';
import type { Authenticator } from './types.js';

export const certificatesIn = (pem: string) =>
  pemBlocksOfType(pem, 'CERTIFICATE').map(b => new X509Certificate(b));

/** true when the certificate, or the chain presented with it, is issued by one of the CAs and is current */
export function chainsTo(cert: PeerCertificate, cas: X509Certificate[]): boolean {
  const seen = new Set<PeerCertificate>();
  const now = Date.now();
  for (let c: PeerCertificate | undefined = cert; c?.raw && !seen.has(c); c = (c as { issuerCertificate?: PeerCertificate }).issuerCertificate) {
    seen.add(c);
    const x = new X509Certificate(c.raw);
    if (Date.parse(x.validFrom) > now || Date.parse(x.validTo) < now) return false;
    if (cas.some(ca => x.checkIssued(ca) && x.verify(ca.publicKey))) return true;
  }
  return false;
}

/**
 * Trusts the TLS layer's verification; with `clientCAs` (needed when the listener also accepts other CAs,
 * such as an authenticating proxy's) the certificate must chain to one of those.
 */
export function clientCertificateAuthenticator(clientCAs?: () => X509Certificate[]): Authenticator {
  return {
    authenticate(req) {
      const cert = req.peerCertificate;
      if (req.peerCertificateError || !cert?.subject) return undefined;
      if (clientCAs && !chainsTo(cert, clientCAs())) return undefined;
      const username = commonNameOf(cert);
      // no user without a common name: as the reference, the certificate is passed over (its groups with it), and the
      // request is judged by its other credentials, or is anonymous
      if (!username) return undefined;
      const o = cert.subject.O;
      const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
      return { username, groups };
    },
  };
}

/** the user a client certificate names: its subject's common name, the last when it has several (as Go reads a
 *  name, and as the reference's signer writes only that one); empty when it has none */
export function commonNameOf(cert: PeerCertificate): string {
  const cn = cert.subject?.CN;
  return (Array.isArray(cn) ? cn.at(-1) : cn) ?? '';
}

export const x509Authenticator = clientCertificateAuthenticator();
