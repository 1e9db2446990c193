// The authenticating proxy: once its client certificate chains to the request-header CA (and its name is
// allowed), headers it sets name the user, the groups and extra attributes.
import { readFileSync } from 'node:fs';
import type { Authenticator } from './types.js';
import type { AuthnRequest } from '../api/auth.js';
import { publicKeysFromPem } from './jwt.js';
import { certificatesIn, chainsTo } from './x509.js';

const values = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** each value of each header, in order, as sent: a repeated header is several values, and a comma in one is kept */
function headerPairs(req: AuthnRequest): Array<[string, string]> {
  const raw = req.rawHeaders;
  if (!raw) return Object.entries(req.headers).flatMap(([k, v]) => values(v).map(x => [k, x] as [string, string]));
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

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
      const sent = headerPairs(req);
      // the first header (in the flag's order) with a value names the user; its first value, as the reference reads it
      const username = userHeaders.map(h => sent.find(([k, v]) => k === h && v)?.[1]).find(v => v);
      const cert = req.peerCertificate;
      if (!username || !cert?.raw || !chainsTo(cert, cas)) return undefined;
      const cn = Array.isArray(cert.subject.CN) ? cert.subject.CN[0] : cert.subject.CN;
      if (o.allowedNames.length && !(cn && o.allowedNames.includes(cn))) return undefined;
      // every non-empty value is one group and every value one extra value, commas and all (an LDAP DN is one group)
      const groups = groupHeaders.flatMap(h => sent.filter(([k, v]) => k === h && v).map(([, v]) => v));
      // keys are the proxy's client's: __proto__ or constructor must be plain keys
      const extra: Record<string, string[]> = Object.create(null);
      for (const p of prefixes) {
        for (const [h, v] of sent) {
          if (!h.startsWith(p)) continue;
          let key = h.slice(p.length);
          try { key = decodeURIComponent(key); } catch { /* kept as sent */ }
          (extra[key] ??= []).push(v);
        }
      }
      return { username, groups, ...(Object.keys(extra).length ? { extra } : {}) };
    },
  };
}
