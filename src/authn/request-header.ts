// The authenticating proxy: once its client certificate chains to the request-header CA (and its name is
// allowed), headers it sets name the user, the groups and extra attributes.
import { readFileSync } from 'node:fs';
import type { Authenticator } from './types.js';
import { publicKeysFromPem } from './jwt.js';
import { certificatesIn, chainsTo } from './x509.js';

const values = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export interface RequestHeaderOptions {
  clientCaFile: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeadersPrefixes: string[];
}

export function requestHeaderAuthenticator(o: RequestHeaderOptions): Authenticator {
  const pem = readFileSync(o.clientCaFile, 'utf8');
  publicKeysFromPem(pem, o.clientCaFile);
  const cas = certificatesIn(pem);
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
      // keys are the proxy's client's: __proto__ or constructor must be plain keys
      const extra: Record<string, string[]> = Object.create(null);
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
