// The server's own certificates: a CA, a serving certificate and an admin client certificate.
// Kept in one directory. The CA is created when neither of its files is there; one that is there but unusable
// (unreadable, its key not matching, not a CA, expired) stops the server with nothing changed, since a new CA
// would silently invalidate every certificate it issued. The others are loaded when present and still good, and
// issued again when missing, broken, expiring, or (the serving certificate) no longer covering the names asked for.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { access, chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createCertificateAuthority, generateKeyPair, issueLeaf, type CertificateAuthority } from './certificates.js';

export { signCertificate, readCertificateRequest, createCertificateRequest, generateKeyPair, knownUsages, type KeyUsage, type CertificateAuthority, type CertificateRequest } from './certificates.js';

export interface Pki {
  dir: string;
  caCertPem: string;
  caKeyPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  /** the DNS names and IP addresses the serving certificate covers */
  serverNames: string[];
  /** files written by this call (empty when everything was loaded) */
  written: string[];
}

export const files = {
  caCert: 'ca.crt', caKey: 'ca.key',
  serverCert: 'apiserver.crt', serverKey: 'apiserver.key',
  adminCert: 'admin.crt', adminKey: 'admin.key',
} as const;

/** the files of the generated front-proxy CA, in the same directory */
export const frontProxyFiles = { caCert: 'front-proxy-ca.crt', caKey: 'front-proxy-ca.key' } as const;

export const adminUser = 'admin';
export const adminGroup = 'system:masters';

const day = 24 * 3600;
const caTtlSeconds = 10 * 365 * day;
const leafTtlSeconds = 365 * day;
/** certificates this close to expiry are reissued at start-up */
const renewBeforeMs = 30 * day * 1000;

export async function ensurePki(dir: string, opts: { hosts: readonly string[] }): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  const serverNames = [...new Set([...opts.hosts, 'localhost', '127.0.0.1', '::1', hostname()].filter(Boolean))];

  const ca = await loadCa(dir);
  const authority: CertificateAuthority = ca
    ? { certPem: ca.certPem, keyPem: ca.keyPem }
    : createCertificateAuthority(`apiserver-ca@${Math.floor(Date.now() / 1000)}`, caTtlSeconds);
  if (!ca) written.push(...(await writePair(dir, files.caCert, files.caKey, authority.certPem, authority.keyPem)));
  const caCert = ca?.cert ?? new X509Certificate(authority.certPem);

  const leaf = async (certFile: string, keyFile: string, good: (c: X509Certificate) => boolean, issue: (key: ReturnType<typeof generateKeyPair>) => string) => {
    const existing = ca ? await loadPair(dir, certFile, keyFile) : undefined;
    if (existing && existing.cert.checkIssued(caCert) && existing.cert.verify(caCert.publicKey) && fresh(existing.cert) && good(existing.cert)) {
      return { certPem: existing.certPem, keyPem: existing.keyPem };
    }
    const key = generateKeyPair();
    const certPem = issue(key);
    written.push(...(await writePair(dir, certFile, keyFile, certPem, key.keyPem)));
    return { certPem, keyPem: key.keyPem };
  };

  const server = await leaf(files.serverCert, files.serverKey, (c) => serverNames.every((n) => covers(c, n)), (key) =>
    issueLeaf(authority, key.publicKey, {
      commonName: 'apiserver',
      usages: ['digital signature', 'key encipherment', 'server auth'],
      ttlSeconds: leafTtlSeconds,
      dnsNames: serverNames.filter((n) => !isIP(n)),
      ips: serverNames.filter((n) => isIP(n)),
    }),
  );
  const admin = await leaf(files.adminCert, files.adminKey, (c) => c.subject.split('\n').sort().join('\n') === `CN=${adminUser}\nO=${adminGroup}`, (key) =>
    issueLeaf(authority, key.publicKey, {
      commonName: adminUser,
      organizations: [adminGroup],
      usages: ['digital signature', 'key encipherment', 'client auth'],
      ttlSeconds: leafTtlSeconds,
    }),
  );

  return {
    dir,
    caCertPem: authority.certPem,
    caKeyPem: authority.keyPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    adminCertPem: admin.certPem,
    adminKeyPem: admin.keyPem,
    serverNames,
    written,
  };
}

/**
 * The CA the aggregation layer's front-proxy client certificate is issued from, kept in the directory beside the
 * cluster CA so that a restart publishes the same one to backends rather than one more. One missing, unusable or
 * expiring is made again (backends learn the new one from the published ConfigMap).
 */
export async function ensureFrontProxyCa(dir: string): Promise<CertificateAuthority & { written: string[] }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const kept = await loadPair(dir, frontProxyFiles.caCert, frontProxyFiles.caKey);
  if (kept && kept.cert.ca && fresh(kept.cert)) return { certPem: kept.certPem, keyPem: kept.keyPem, written: [] };
  const ca = createCertificateAuthority(`front-proxy-ca@${Math.floor(Date.now() / 1000)}`, caTtlSeconds);
  return { ...ca, written: await writePair(dir, frontProxyFiles.caCert, frontProxyFiles.caKey, ca.certPem, ca.keyPem) };
}

/** the CA found in the directory, or undefined when neither of its files is there; an unusable one is an error */
async function loadCa(dir: string): Promise<LoadedPair | undefined> {
  const present = await Promise.all([files.caCert, files.caKey, `${files.caCert}.tmp`].map(f => access(join(dir, f)).then(() => true, () => false)));
  if (!present[0] && !present[1]) return undefined;
  // the key alone beside a temporary certificate: the first boot stopped while writing the pair (writePair writes the
  // key first), so nothing was ever issued from this CA
  if (!present[0] && present[2]) return undefined;
  const problem = (why: string) => new Error(`${join(dir, files.caCert)}: ${why}. Nothing was changed: restore the CA's certificate and key, ` +
    `or move ${dir} away to have a new CA made (the certificates and client configurations issued from the old one stop working)`);
  if (!present[0] || !present[1]) throw problem(`${present[0] ? files.caKey : files.caCert} is missing`);
  const ca = await loadPair(dir, files.caCert, files.caKey);
  if (!ca) throw problem(`not a certificate with its matching private key in ${files.caKey}`);
  if (!ca.cert.ca) throw problem('not a CA certificate');
  if (new Date(ca.cert.validTo).getTime() <= Date.now()) throw problem(`the CA expired on ${ca.cert.validTo}`);
  return ca;
}

interface LoadedPair {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
}

/** A certificate with its matching key, or nothing when either is missing or they do not belong together. */
async function loadPair(dir: string, certFile: string, keyFile: string): Promise<LoadedPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(join(dir, certFile), 'utf8'), readFile(join(dir, keyFile), 'utf8')]);
    const cert = new X509Certificate(certPem);
    return cert.checkPrivateKey(createPrivateKey(keyPem)) ? { certPem, keyPem, cert } : undefined;
  } catch {
    return undefined;
  }
}

function fresh(cert: X509Certificate): boolean {
  const now = Date.now();
  return new Date(cert.validFrom).getTime() <= now && new Date(cert.validTo).getTime() - renewBeforeMs > now;
}

function covers(cert: X509Certificate, host: string): boolean {
  return isIP(host) ? cert.checkIP(host) !== undefined : cert.checkHost(host) !== undefined;
}

/** Writes through a temporary name so a crash never leaves half a file; keys are private to the owner. */
async function writePair(dir: string, certFile: string, keyFile: string, certPem: string, keyPem: string): Promise<string[]> {
  const write = async (file: string, text: string, mode: number) => {
    const path = join(dir, file);
    await writeFile(`${path}.tmp`, text, { mode });
    await chmod(`${path}.tmp`, mode); // in case a stale temporary file had other permissions
    await rename(`${path}.tmp`, path);
    return path;
  };
  return [await write(keyFile, keyPem, 0o600), await write(certFile, certPem, 0o644)];
}

/** A client certificate from the CA for a component the server runs itself, held in memory only. */
export function issueClientCertificate(ca: CertificateAuthority, user: string, groups: readonly string[] = []): { certPem: string; keyPem: string } {
  const key = generateKeyPair();
  const certPem = issueLeaf(ca, key.publicKey, {
    commonName: user, organizations: groups, usages: ['digital signature', 'key encipherment', 'client auth'], ttlSeconds: leafTtlSeconds,
  });
  return { certPem, keyPem: key.keyPem };
}
