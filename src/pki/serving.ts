// A program's serving certificate: the files it was given, else a self-signed pair kept in its certificate
// directory (made on first start, made again once expired), as the reference's components do with --cert-dir.
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from './certificates.js';

export interface ServingFiles {
  /** --tls-cert-file and --tls-private-key-file */
  certFile?: string;
  keyFile?: string;
  /** where a self-signed pair is kept, as `<name>.crt` and `<name>.key` */
  certDir: string;
  name: string;
  dnsNames: string[];
  ips: string[];
}

/** the certificate (with its issuer, when self-signed) and key, PEM */
export async function servingPair(o: ServingFiles): Promise<{ cert: string; key: string }> {
  if (o.certFile && o.keyFile) return { cert: await readFile(o.certFile, 'utf8'), key: await readFile(o.keyFile, 'utf8') };
  const certFile = join(o.certDir, `${o.name}.crt`);
  const keyFile = join(o.certDir, `${o.name}.key`);
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = await readFile(certFile, 'utf8');
    if (new Date(new X509Certificate(cert).validTo).getTime() > Date.now()) return { cert, key: await readFile(keyFile, 'utf8') };
  }
  const now = Math.floor(Date.now() / 1000);
  const ca = createCertificateAuthority(`${o.dnsNames[0] ?? o.name}-ca@${now}`, 365 * 86400);
  const pair = generateKeyPair();
  const leaf = issueLeaf(ca, pair.publicKey, { commonName: `${o.dnsNames[0] ?? o.name}@${now}`, usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 365 * 86400, dnsNames: o.dnsNames, ips: o.ips });
  await mkdir(o.certDir, { recursive: true });
  await writeFile(certFile, leaf + ca.certPem, { mode: 0o644 });
  await writeFile(keyFile, pair.keyPem, { mode: 0o600 });
  return { cert: leaf + ca.certPem, key: pair.keyPem };
}
