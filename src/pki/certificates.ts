// Issuing X.509 certificates with node:crypto: EC P-256 keys (fast to generate), certificates
// written with the small DER writer, and certificate requests (PKCS #10) read with @peculiar/x509,
// which is loaded only when a request is actually signed.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as der from './der.js';

/** A signer: the CA's certificate and private key, PEM. */
export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

/** Key usages as the certificates API spells them (`spec.usages` of a CertificateSigningRequest). */
export type KeyUsage =
  | 'signing' | 'digital signature' | 'content commitment' | 'key encipherment' | 'key agreement' | 'data encipherment'
  | 'cert sign' | 'crl sign' | 'encipher only' | 'decipher only' | 'any' | 'server auth' | 'client auth' | 'code signing'
  | 'email protection' | 's/mime' | 'ipsec end system' | 'ipsec tunnel' | 'ipsec user' | 'timestamping' | 'ocsp signing'
  | 'microsoft sgc' | 'netscape sgc';

/** bit positions in the keyUsage BIT STRING (RFC 5280 §4.2.1.3) */
const keyUsageBits: Partial<Record<KeyUsage, number>> = {
  signing: 0, 'digital signature': 0, 'content commitment': 1, 'key encipherment': 2, 'data encipherment': 3,
  'key agreement': 4, 'cert sign': 5, 'crl sign': 6, 'encipher only': 7, 'decipher only': 8,
};

const extKeyUsageOids: Partial<Record<KeyUsage, string>> = {
  any: '2.5.29.37.0', 'server auth': '1.3.6.1.5.5.7.3.1', 'client auth': '1.3.6.1.5.5.7.3.2', 'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4', 's/mime': '1.3.6.1.5.5.7.3.4', 'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6', 'ipsec user': '1.3.6.1.5.5.7.3.7', timestamping: '1.3.6.1.5.5.7.3.8',
  'ocsp signing': '1.3.6.1.5.5.7.3.9', 'microsoft sgc': '1.3.6.1.4.1.311.10.3.3', 'netscape sgc': '2.16.840.1.113730.4.1',
};

export const knownUsages = Object.freeze([...Object.keys(keyUsageBits), ...Object.keys(extKeyUsageOids)]) as readonly KeyUsage[];

const oids = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaSha256: '1.2.840.10045.4.3.2',
  rsaSha256: '1.2.840.113549.1.1.11',
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
};

/** Clock skew allowance: certificates are valid from a few minutes before they are issued. */
const backdateMs = 5 * 60_000;

export interface KeyPairPem {
  keyPem: string;
  publicKey: KeyObject;
}

export function generateKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKey };
}

/** A subject attribute: its type (an OID) and value. */
export type SubjectAttribute = readonly [oid: string, value: string];

export interface CertificateTemplate {
  commonName: string;
  organizations?: readonly string[];
  /** the whole subject, in order; when given, it is the subject instead of commonName and organizations */
  subject?: readonly SubjectAttribute[];
  usages: readonly KeyUsage[];
  ttlSeconds: number;
  dnsNames?: readonly string[];
  ips?: readonly string[];
  uris?: readonly string[];
  emailAddresses?: readonly string[];
}

/** A self-signed CA: returns the certificate and its new private key. */
export function createCertificateAuthority(commonName: string, ttlSeconds: number): CertificateAuthority {
  const { keyPem, publicKey } = generateKeyPair();
  const key = createPrivateKey(keyPem);
  const subject = name(commonName, []);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = subjectKeyId(spki);
  const extensions = [
    extension(oids.basicConstraints, true, der.sequence(der.booleanTrue())),
    extension(oids.keyUsage, true, keyUsageValue(['digital signature', 'key encipherment', 'cert sign'])),
    extension(oids.subjectKeyId, false, der.octetString(keyId)),
  ];
  const now = Date.now();
  const certPem = issue({ subject, issuer: subject, spki, extensions, notBefore: now - backdateMs, notAfter: now + ttlSeconds * 1000, signer: key });
  return { certPem, keyPem };
}

/**
 * Signs a leaf certificate for a public key (PEM, DER SPKI or KeyObject) or for a PKCS #10 request.
 * Names not given are taken from the request. The validity never outlasts the CA's.
 */
export async function signCertificate(
  ca: CertificateAuthority,
  req: Partial<CertificateTemplate> & Pick<CertificateTemplate, 'usages' | 'ttlSeconds'> & { publicKey?: KeyObject | string; csrPem?: string },
): Promise<string> {
  let publicKey: KeyObject;
  let t: CertificateTemplate;
  if (req.csrPem) {
    const csr = await readCertificateRequest(req.csrPem);
    publicKey = csr.publicKey;
    t = {
      ...req,
      commonName: req.commonName ?? csr.commonName,
      organizations: req.organizations ?? csr.organizations,
      // the request's subject as the reference's signer carries it over, unless names were given
      subject: req.subject ?? (req.commonName === undefined && req.organizations === undefined ? csr.subject : undefined),
      dnsNames: req.dnsNames ?? csr.dnsNames,
      ips: req.ips ?? csr.ips,
      uris: req.uris ?? csr.uris,
      emailAddresses: req.emailAddresses ?? csr.emailAddresses,
    };
  } else if (req.publicKey) {
    publicKey = typeof req.publicKey === 'string' ? createPublicKey(req.publicKey) : req.publicKey;
    if (req.commonName === undefined) throw new Error('signCertificate: commonName is required with a public key');
    t = { ...req, commonName: req.commonName };
  } else {
    throw new Error('signCertificate: give publicKey or csrPem');
  }
  return issueLeaf(ca, publicKey, t);
}

/** The synchronous core of signCertificate, for a key in hand. */
export function issueLeaf(ca: CertificateAuthority, publicKey: KeyObject, t: CertificateTemplate): string {
  const unknown = t.usages.filter((u) => !knownUsages.includes(u));
  if (unknown.length) throw new Error(`unknown key usages: ${unknown.join(', ')}`);
  const caCert = new X509Certificate(ca.certPem);
  const caFields = certificateFields(caCert.raw);
  const extensions = [extension(oids.basicConstraints, true, der.sequence())];
  // no key usage asked for (say client auth alone): no keyUsage extension, as Go's x509 writes such a template
  if (t.usages.some((u) => keyUsageBits[u] !== undefined)) extensions.push(extension(oids.keyUsage, true, keyUsageValue(t.usages)));
  const ekus = [...new Set(t.usages.map((u) => extKeyUsageOids[u]).filter((o): o is string => !!o))];
  if (ekus.length) extensions.push(extension(oids.extKeyUsage, false, der.sequence(...ekus.map(der.oid))));
  if (caFields.subjectKeyId) extensions.push(extension(oids.authorityKeyId, false, der.sequence(der.implicit(0, caFields.subjectKeyId))));
  const altNames = [
    ...(t.emailAddresses ?? []).map((e) => der.implicit(1, Buffer.from(e, 'ascii'))),
    ...(t.dnsNames ?? []).map((d) => der.implicit(2, Buffer.from(d, 'ascii'))),
    ...(t.uris ?? []).map((u) => der.implicit(6, Buffer.from(u, 'ascii'))),
    ...(t.ips ?? []).map((ip) => der.implicit(7, ipBytes(ip))),
  ];
  if (altNames.length) extensions.push(extension(oids.subjectAltName, false, der.sequence(...altNames)));
  const now = Date.now();
  const notAfter = Math.min(now + t.ttlSeconds * 1000, new Date(caCert.validTo).getTime());
  return issue({
    subject: t.subject ? rdnSequence(t.subject) : name(t.commonName, t.organizations ?? []),
    issuer: caFields.subject,
    spki: publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
    notBefore: now - backdateMs,
    notAfter,
    signer: createPrivateKey(ca.keyPem),
  });
}

function issue(c: { subject: Buffer; issuer: Buffer; spki: Buffer; extensions: Buffer[]; notBefore: number; notAfter: number; signer: KeyObject }): string {
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // positive
  const signatureAlgorithm = c.signer.asymmetricKeyType === 'rsa' ? der.sequence(der.oid(oids.rsaSha256), der.nullValue()) : der.sequence(der.oid(oids.ecdsaSha256));
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)), // v3
    der.unsignedInteger(serial),
    signatureAlgorithm,
    c.issuer,
    der.sequence(der.time(new Date(c.notBefore)), der.time(new Date(c.notAfter))),
    c.subject,
    c.spki,
    der.explicit(3, der.sequence(...c.extensions)),
  );
  const signature = sign('sha256', tbs, c.signer);
  const cert = der.sequence(tbs, signatureAlgorithm, der.bitString(signature));
  return toPem('CERTIFICATE', cert);
}

function name(commonName: string, organizations: readonly string[]): Buffer {
  return rdnSequence([...organizations.map((o) => [oids.organization, o] as const), [oids.commonName, commonName] as const]);
}

/** a Name with one attribute in each relative name */
function rdnSequence(attributes: readonly SubjectAttribute[]): Buffer {
  return der.sequence(...attributes.map(([type, value]) => der.set(der.sequence(der.oid(type), der.utf8(value)))));
}

/**
 * The subject attributes a certificate signed for a request keeps, in the order they are written: those Go's
 * pkix.Name holds, as the reference's signer re-encodes the request's subject (others, such as an email address
 * in the subject, are dropped; the common name and serial number are the last of each).
 */
const keptSubject: ReadonlyArray<{ oid: string; single?: true }> = [
  { oid: '2.5.4.6' }, { oid: '2.5.4.8' }, { oid: '2.5.4.7' }, { oid: '2.5.4.9' }, { oid: '2.5.4.17' }, // C, ST, L, STREET, postalCode
  { oid: oids.organization }, { oid: '2.5.4.11' }, { oid: oids.commonName, single: true }, { oid: '2.5.4.5', single: true }, // O, OU, CN, serialNumber
];

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? der.sequence(der.oid(id), der.booleanTrue(), der.octetString(value)) : der.sequence(der.oid(id), der.octetString(value));
}

function keyUsageValue(usages: readonly KeyUsage[]): Buffer {
  const bits = usages.map((u) => keyUsageBits[u]).filter((b): b is number => b !== undefined);
  if (bits.length === 0) bits.push(0); // digital signature, so the extension is never empty
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[b >> 3]! |= 0x80 >> (b & 7);
  return der.bitString(bytes, bytes.length * 8 - highest - 1);
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function subjectKeyId(spki: Buffer): Buffer {
  const [, keyBits] = der.children(spki, der.read(spki));
  return createHash('sha1').update(der.content(spki, keyBits!).subarray(1)).digest();
}

export function ipBytes(ip: string): Buffer {
  const family = isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6) throw new Error(`not an IP address: ${ip}`);
  let text = ip.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number);
    text = text.slice(0, -dotted[1]!.length) + `${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** The raw subject name and subject key identifier of a certificate, needed to issue under it. */
export function certificateFields(certDer: Uint8Array): { subject: Buffer; subjectKeyId?: Buffer } {
  const [tbs] = der.children(certDer, der.read(certDer));
  const fields = der.children(certDer, tbs!);
  const at = fields[0]!.tag === 0xa0 ? 1 : 0; // optional version
  const subject = der.whole(certDer, fields[at + 4]!);
  const extensionsWrapper = fields.find((f) => f.tag === 0xa3);
  if (!extensionsWrapper) return { subject };
  const [list] = der.children(certDer, extensionsWrapper);
  for (const ext of der.children(certDer, list!)) {
    const parts = der.children(certDer, ext);
    if (der.readOid(certDer, parts[0]!) !== oids.subjectKeyId) continue;
    const value = der.content(certDer, parts[parts.length - 1]!);
    return { subject, subjectKeyId: der.content(value, der.read(value)) };
  }
  return { subject };
}

export interface CertificateRequest {
  commonName: string;
  organizations: string[];
  /** the subject a certificate for this request gets */
  subject: SubjectAttribute[];
  dnsNames: string[];
  ips: string[];
  uris: string[];
  emailAddresses: string[];
  publicKey: KeyObject;
}

/** Parses and verifies a PKCS #10 request. */
export async function readCertificateRequest(csrPem: string): Promise<CertificateRequest> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const { webcrypto } = await import('node:crypto');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  if (!(await csr.verify())) throw new Error('the certificate request signature does not verify');
  const subject = csr.subjectName;
  const out: CertificateRequest = {
    // the last, as Go reads a name (and as the certificate signed for it carries)
    commonName: subject.getField('CN').at(-1) ?? '',
    organizations: subject.getField('O'),
    subject: keptSubject.flatMap(({ oid, single }) => {
      const values = subject.getField(oid);
      return (single ? values.slice(-1).filter(Boolean) : values).map((v) => [oid, v] as const);
    }),
    dnsNames: [], ips: [], uris: [], emailAddresses: [],
    publicKey: createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' }),
  };
  // by OID: class lookups fail under ESM (research notes, libs.md §7)
  const san = csr.getExtension(oids.subjectAltName);
  if (san) {
    for (const n of new x509.SubjectAlternativeNameExtension(san.rawData).names.items) {
      if (n.type === 'dns') out.dnsNames.push(n.value);
      else if (n.type === 'ip') out.ips.push(n.value);
      else if (n.type === 'url') out.uris.push(n.value);
      else if (n.type === 'email') out.emailAddresses.push(n.value);
    }
  }
  return out;
}

/**
 * A PKCS #10 request for an EC P-256 key (PEM, PKCS #8), signed by it: the subject's common name and
 * organizations, and DNS names and IP addresses as alternative names when given.
 */
export async function createCertificateRequest(keyPem: string, subject: { commonName: string; organizations?: string[]; dnsNames?: string[]; ips?: string[] }): Promise<string> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const { webcrypto } = await import('node:crypto');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const key = createPrivateKey(keyPem);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), algorithm, false, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']),
  } as CryptoKeyPair;
  const altNames = [...(subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(subject.ips ?? []).map((value) => ({ type: 'ip' as const, value }))];
  // the name is built from parts, so that a comma or an equals sign in a value stays part of that value
  const name = [{ CN: [subject.commonName] }, ...(subject.organizations ?? []).map((o) => ({ O: [o] }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name, keys, signingAlgorithm: algorithm,
    extensions: altNames.length ? [new x509.SubjectAlternativeNameExtension(altNames)] : [],
  });
  return csr.toString('pem');
}

export function toPem(label: string, derBytes: Uint8Array): string {
  const b64 = Buffer.from(derBytes).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
