// The authenticating proxy: once its client certificate chains to the request-header CA (and its name is
// allowed), headers it sets name the user, the groups and extra attributes.
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import type { RequestHeaderOptions } from '../config/apiserver-options.js';
import type { Authenticator } from './types.js';
import { publicKeysFromPem } from './jwt.js';

const values = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** true when the certificate or its presented chain is issued by one of the CAs */
function chainsTo(cert: PeerCertificate, cas: X509Certificate[]): boolean {
  const seen = new Set<PeerCertificate>();
  for (let c: PeerCertificate | undefined = cert; c && !seen.has(c); c = (c as { issuerCertificate?: PeerCertificate }).issuerCertificate) {
    seen.add(c);
    const x = new X509Certificate(c.raw);
    const now = Date.now();
    if (Date.parse(x.validFrom) > now || Date.parse(x.validTo) < now) return false;
    if (cas.some(ca => x.checkIssued(ca) && x.verify(ca.publicKey))) return true;
  }
  return false;
}

export function requestHeaderAuthenticator(o: RequestHeaderOptions): Authenticator {
  const pem = readFileSync(o.clientCaFile, 'utf8');
  publicKeysFromPem(pem, o.clientCaFile);
  const cas = (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(b => new X509Certificate(b));
  const lower = (l: string[]) => l.map(h => h.toLowerCase());
  const userHeaders = lower(o.usernameHeaders), groupHeaders = lower(o.groupHeaders), prefixes = lower(o.extraHeadersPrefixes);
  return {
    authenticate(req) {
      const username = userHeaders.map(h => values(req.headers[h])[0]).find(v => v);
      const cert = req.peerCertificate;
      if (!username || !cert?.raw || !chainsTo(cert, cas)) return undefined;
      const cn = Array.isArray(cert.subject.CN) ? cert.subject.CN[0] : cert.subject.CN;
      if (o.allowedNames.length && !(cn && o.allowedNames.includes(cn))) return undefined;
      const groups = groupHeaders.flatMap(h => values(req.headers[h]).flatMap(v => v.split(',')).map(s => s.trim()).filter(Boolean));
      const extra: Record<string, string[]> = {};
      for (const [h, v] of Object.entries(req.headers)) {
        const p = prefixes.find(p => h.startsWith(p));
        if (!p) continue;
        let key = h.slice(p.length).toLowerCase();
        try { key = decodeURIComponent(key); } catch { /* kept as sent */ }
        (extra[key] ??= []).push(...values(v).flatMap(x => x.split(',')).map(s => s.trim()));
      }
      return { username, groups, ...(Object.keys(extra).length ? { extra } : {}) };
    },
  };
}
