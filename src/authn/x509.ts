// Client certificates: the subject's common name is the user, its organizations are the groups.
// A certificate that did not verify is no credential here; the union answers 401 if nothing else accepts the request.
import type { Authenticator } from './types.js';
import { unauthorized } from '../server/status.js';

export const x509Authenticator: Authenticator = {
  authenticate(req) {
    const cert = req.peerCertificate;
    if (req.peerCertificateError || !cert?.subject) return undefined;
    const cn = cert.subject.CN;
    const username = Array.isArray(cn) ? cn[0] : cn;
    if (!username) throw unauthorized('Unauthorized: client certificate has no common name');
    const o = cert.subject.O;
    const groups = o === undefined ? [] : Array.isArray(o) ? [...o] : [o];
    return { username, groups };
  },
};
