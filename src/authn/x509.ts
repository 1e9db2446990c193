// Client certificates: the subject's common name is the user, its organizations are the groups.
import type { Authenticator } from './types.js';
import { unauthorized } from '../server/status.js';

export const x509Authenticator: Authenticator = {
  authenticate(req) {
    if (req.peerCertificateError) throw unauthorized(`Unauthorized: client certificate rejected: ${req.peerCertificateError}`);
    const cert = req.peerCertificate;
    if (!cert?.subject) return undefined;
    const cn = cert.subject.CN;
    const username = Array.isArray(cn) ? cn[0] : cn;
    if (!username) throw unauthorized('Unauthorized: client certificate has no common name');
    const o = cert.subject.O;
    const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
    return { username, groups };
  },
};
