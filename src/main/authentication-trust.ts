// The data of the extension-apiserver-authentication ConfigMap when several API servers share one store: each
// server adds what it trusts to what is already published, as the reference's cluster-authentication-trust
// controller does, so a backend that reads the ConfigMap trusts the front proxy of every server (each makes its own
// front-proxy CA unless given one) and not only of the one that started last. Certificates are kept once each, in
// the order first published, and those expired for more than five minutes are dropped; header and name lists are
// unions. The request-header keys are written only when a request-header CA is left.
import { X509Certificate } from 'node:crypto';
import { pemBlocksOfType } from '../util/pem.js';

export interface AuthenticationInfo {
  clientCaPem: string;
  requestHeaderCaPem: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

const keys = {
  clientCa: 'client-ca-file', requestHeaderCa: 'requestheader-client-ca-file', allowedNames: 'requestheader-allowed-names',
  usernameHeaders: 'requestheader-username-headers', groupHeaders: 'requestheader-group-headers', extraHeaderPrefixes: 'requestheader-extra-headers-prefix',
} as const;

const expirySlackMs = 5 * 60_000;

/** the certificates of PEM bundles, each once, leaving out malformed ones and those expired beyond the slack */
function combinedCertificates(bundles: string[], now: number): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const block of bundles.flatMap(b => pemBlocksOfType(b, 'CERTIFICATE'))) {
    let cert: X509Certificate;
    try { cert = new X509Certificate(block); } catch { continue; }
    if (Date.parse(cert.validTo) + expirySlackMs <= now) continue;
    const raw = cert.raw.toString('base64');
    if (seen.has(raw)) continue;
    seen.add(raw);
    out.push(cert.toString());
  }
  return out.join('');
}

/** a published JSON list of strings; anything else counts as none */
function publishedList(text: string | undefined): string[] {
  if (!text) return [];
  try { const v: unknown = JSON.parse(text); return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []; } catch { return []; }
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

/** the ConfigMap data that trusts both what is published and what this server adds */
export function combinedAuthenticationData(published: Record<string, string> | undefined, own: AuthenticationInfo, now = Date.now()): Record<string, string> {
  const cur = published ?? {};
  const data: Record<string, string> = {};
  const clientCa = combinedCertificates([cur[keys.clientCa] ?? '', own.clientCaPem], now);
  if (clientCa) data[keys.clientCa] = clientCa;
  const requestHeaderCa = combinedCertificates([cur[keys.requestHeaderCa] ?? '', own.requestHeaderCaPem], now);
  if (!requestHeaderCa) return data;
  const list = (key: string, mine: string[]) => JSON.stringify(union(publishedList(cur[key]), mine));
  data[keys.usernameHeaders] = list(keys.usernameHeaders, own.usernameHeaders);
  data[keys.groupHeaders] = list(keys.groupHeaders, own.groupHeaders);
  data[keys.extraHeaderPrefixes] = list(keys.extraHeaderPrefixes, own.extraHeaderPrefixes);
  data[keys.requestHeaderCa] = requestHeaderCa;
  data[keys.allowedNames] = list(keys.allowedNames, own.allowedNames);
  return data;
}
