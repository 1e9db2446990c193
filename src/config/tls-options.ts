// The serving TLS flags in the reference's spelling (Go's names for versions and cipher suites) as Node's TLS takes
// them (OpenSSL's names). TLS 1.3 suites are accepted and always on, as in the reference, where they cannot be chosen.
import { getCiphers } from 'node:tls';
import { FlagError } from './flags.js';

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export const tlsVersions: Record<string, TlsVersion> = {
  VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3',
};

/** TLS 1.2 and older suites: Go's (IANA) name → OpenSSL's */
const suites: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  // the reference's insecure ones: accepted, as there
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
};
const tls13Suites = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** the OpenSSL suites Node's TLS library has (OpenSSL 3 has no RC4 nor 3DES; Go's TLS, the reference's, still has them) */
const available = (openssl: string) => getCiphers().includes(openssl.toLowerCase());

/** the suites named that the reference would offer but this server's TLS library cannot: left out, with a warning */
export function unavailableCipherSuites(names: readonly string[]): string[] {
  return names.filter(n => suites[n] && !available(suites[n]!));
}

/** --tls-cipher-suites as an OpenSSL cipher list (undefined: Node's defaults); an unknown name is refused */
export function opensslCiphers(names: readonly string[]): string | undefined {
  if (!names.length) return undefined;
  const unknown = names.filter(n => !suites[n] && !tls13Suites.includes(n));
  if (unknown.length) throw new FlagError(`invalid argument for flag --tls-cipher-suites: unsupported cipher suite name: ${unknown.join(', ')}`);
  const older = [...new Set(names.map(n => suites[n]).filter((s): s is string => !!s && available(s)))];
  return [...tls13Suites, ...older].join(':');
}

export const tlsVersionHelp = Object.keys(tlsVersions).join(', ');
export const cipherSuiteNames = [...Object.keys(suites), ...tls13Suites];

/** one --tls-sni-cert-key: a certificate and key, and the names it is served for (none: the certificate's own names) */
export interface NamedCertKey { certFile: string; keyFile: string; names: string[] }

/** `cert,key` or `cert,key:name1,name2` (names may be `*.` wildcards), as the reference reads the flag */
export function parseNamedCertKey(value: string): NamedCertKey {
  const colon = value.indexOf(':');
  const files = (colon < 0 ? value : value.slice(0, colon)).split(',').map(f => f.trim());
  if (files.length !== 2 || !files[0] || !files[1])
    throw new FlagError(`invalid value ${JSON.stringify(value)} for flag --tls-sni-cert-key: expected comma separated certificate and key file paths`);
  const names = colon < 0 ? [] : value.slice(colon + 1).split(',').map(n => n.trim()).filter(Boolean);
  return { certFile: files[0], keyFile: files[1], names };
}
