// CertificateSigningRequests: the requester is recorded from the request, the spec never changes after create,
// approval and the issued certificate arrive through their own subresources.
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import type { Stored } from '../../../../api/meta.js';
import { apiDomains, naming } from '../../../../api/naming.js';
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from '../../../../api/types/certificates-v1.js';
import { knownUsages } from '../../../../pki/certificates.js';
import * as der from '../../../../pki/der.js';
import { pemBlocks as pemBlockTexts } from '../../../../util/pem.js';
import { defineStrategy } from '../../../strategy.js';
import { specOf } from '../../../defaults/fill.js';
import { type Causes, duplicate, forbidden, invalid, isInt, notSupported, required } from '../../../validation/fields.js';
import { nameProblems } from '../../../validation/object-meta.js';

type Csr = Stored<CertificateSigningRequest>;

const sortedUsages = [...knownUsages].sort();
/** condition types that may only be True */
const trueOnly = ['Approved', 'Denied', 'Failed'];
const conditionStatuses = ['False', 'True', 'Unknown'];
/** v1 refuses the legacy signer; the strategy has no server names at validation time, so every API domain's spelling is refused */
const legacySigners = apiDomains.map(d => naming(d).label('legacy-unknown'));

interface PemBlock { type: string; headers: boolean; bytes: Buffer }

/** PEM blocks in order, as Go's pem.Decode finds them (text around the blocks is ignored) */
function pemBlocks(text: string): PemBlock[] {
  return pemBlockTexts(text).map(({ type, body }) => {
    const lines = body.split(/\r?\n/);
    const headers = lines.some(l => l.includes(':'));
    return { type, headers, bytes: Buffer.from(lines.filter(l => !l.includes(':')).join(''), 'base64') };
  });
}

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A value the reference holds as bytes, printed as Go prints a byte slice. Written byte by byte into one buffer:
 * a request of megabytes is printed in milliseconds (a string per byte, joined, held the event loop for seconds).
 */
export function goBytes(b: Buffer): string {
  const out = Buffer.allocUnsafe(b.length * 6);
  let end = 0;
  for (let i = 0; i < b.length; i++) {
    const x = b[i]!;
    out[end++] = 0x30; out[end++] = 0x78; // 0x
    if (x >= 16) out[end++] = hexDigits[x >> 4]!;
    out[end++] = hexDigits[x & 15]!;
    out[end++] = 0x2c; out[end++] = 0x20; // ", "
  }
  return `[]byte{${out.toString('latin1', 0, Math.max(0, end - 2))}}`;
}

/** hash of a signature algorithm the reference verifies, by OID; null for algorithms that hash nothing themselves */
const signatureHashes: Record<string, string | null> = {
  '1.2.840.10045.4.3.2': 'sha256', '1.2.840.10045.4.3.3': 'sha384', '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.11': 'sha256', '1.2.840.113549.1.1.12': 'sha384', '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.113549.1.1.5': 'sha1', '1.2.840.10045.4.1': 'sha1', '1.3.101.112': null,
};

/** why a PEM certificate request is unusable, or '' when it parses and its signature holds */
export function certificateRequestProblem(pem: Buffer): string {
  const block = pemBlocks(pem.toString('latin1'))[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const b = block.bytes;
  let info: der.Node, algorithm: string, signature: Buffer, spki: Buffer;
  try {
    const top = der.read(b);
    if (top.end !== b.length) return 'asn1: syntax error: trailing data';
    const [infoNode, algNode, sigNode] = der.children(b, top);
    info = infoNode!;
    algorithm = der.readOid(b, der.children(b, algNode!)[0]!);
    signature = der.content(b, sigNode!).subarray(1);
    spki = der.whole(b, der.children(b, info)[2]!);
  } catch {
    return 'asn1: structure error: the request is malformed';
  }
  if (!(algorithm in signatureHashes)) return 'x509: cannot verify signature: algorithm unimplemented';
  try {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    if (verify(signatureHashes[algorithm], der.whole(b, info), key, signature)) return '';
    return key.asymmetricKeyType === 'ec' ? 'x509: ECDSA verification failure'
      : key.asymmetricKeyType === 'ed25519' ? 'x509: Ed25519 verification failure' : 'crypto/rsa: verification error';
  } catch {
    return 'x509: cannot verify signature: the public key is unusable';
  }
}

/** why status.certificate (PEM) is unusable, or '' when empty or made of CERTIFICATE blocks only */
export function issuedCertificateProblem(pem: Buffer): string {
  if (!pem.length) return '';
  const blocks = pemBlocks(pem.toString('latin1'));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    try { new X509Certificate(block.bytes); } catch { return 'x509: malformed certificate'; }
  }
  return blocks.length ? '' : 'must contain at least one CERTIFICATE PEM block';
}

const fromBase64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : '', 'base64');

/** a signer name: `<domain>/<path>`, the domain a DNS name with at least two labels */
function signerName(at: string, name: string): Causes {
  if (!name) return [required(at, 'signerName must be provided')];
  const parts = name.split('/');
  if (parts.length !== 2) return [invalid(at, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, path] = parts as [string, string];
  const out: Causes = [];
  if (domain.length > 253) out.push({ reason: 'FieldValueTooLong', field: at, message: 'Too long: must have at most 253 bytes' });
  const domainLabels = domain.split('.');
  const badLabel = domainLabels.find(l => nameProblems(l, 'dns-label').length || !l);
  if (badLabel !== undefined) for (const p of badLabel ? nameProblems(badLabel, 'dns-label') : [labelPattern])
    out.push(invalid(at, domain, `validating label ${JSON.stringify(badLabel)}: ${p}`));
  if (domainLabels.length < 2) out.push(invalid(at, domain, 'should be a domain with at least two segments separated by dots'));
  const badPath = path.split('.').find(l => nameProblems(l, 'dns-subdomain').length || !l);
  if (badPath !== undefined) for (const p of badPath ? nameProblems(badPath, 'dns-subdomain') : [subdomainPattern])
    out.push(invalid(at, path, `validating label ${JSON.stringify(badPath)}: ${p}`));
  if (name.length > 571) out.push({ reason: 'FieldValueTooLong', field: at, message: 'Too long: must have at most 571 bytes' });
  return out;
}
const labelPattern = nameProblems('-', 'dns-label')[0]!;
const subdomainPattern = nameProblems('-', 'dns-subdomain')[0]!;

function conditions(csr: Csr): Causes {
  const out: Causes = [];
  const seen = new Set<string>();
  let approved = false, denied = false;
  for (const [i, c] of (csr.status?.conditions ?? []).entries()) {
    const at = `status.conditions[${i}]`;
    const type = c?.type ?? '';
    if (!type) out.push(required(`${at}.type`));
    const allowed = trueOnly.includes(type) ? ['True'] : conditionStatuses;
    if (!c?.status) out.push(required(`${at}.status`));
    else if (!allowed.includes(c.status)) out.push(notSupported(`${at}.status`, c.status, allowed));
    if ((type === 'Approved' && denied) || (type === 'Denied' && approved))
      out.push(invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    approved ||= type === 'Approved';
    denied ||= type === 'Denied';
    if (seen.has(type)) out.push(duplicate(`${at}.type`, type));
    seen.add(type);
  }
  return out;
}

/** a Duplicate cause for each value seen before in the list, found in one pass (a search before each was quadratic) */
export function duplicateCauses(field: string, values: readonly unknown[]): Causes {
  const seen = new Set<unknown>();
  const out: Causes = [];
  for (const [i, v] of values.entries()) if (seen.has(v)) out.push(duplicate(`${field}[${i}]`, v)); else seen.add(v);
  return out;
}

function validateCsr(csr: Csr): Causes {
  const s: Partial<Csr['spec']> = csr.spec ?? {};
  const out: Causes = [];
  const request = fromBase64(s.request);
  const problem = certificateRequestProblem(request);
  if (problem) out.push({ ...invalid('spec.request', '', problem), message: `Invalid value: ${goBytes(request)}: ${problem}` });
  const usages: unknown[] = s.usages ?? [];
  if (!usages.length) out.push(required('spec.usages', 'usages must be provided'));
  for (const [i, u] of usages.entries()) if (!knownUsages.includes(u as never)) out.push(notSupported(`spec.usages[${i}]`, u, sortedUsages));
  out.push(...duplicateCauses('spec.usages', usages));
  if (legacySigners.includes(s.signerName ?? ''))
    out.push(invalid('spec.signerName', s.signerName, 'the legacy signerName is not allowed via this API version'));
  else out.push(...signerName('spec.signerName', s.signerName ?? ''));
  if (isInt(s.expirationSeconds) && s.expirationSeconds < 600)
    out.push(invalid('spec.expirationSeconds', s.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  out.push(...conditions(csr));
  const certProblem = issuedCertificateProblem(fromBase64(csr.status?.certificate));
  if (certProblem) out.push(invalid('status.certificate', '<certificate data>', certProblem));
  return out;
}

const conditionsOf = (csr: Csr, type: string): CertificateSigningRequestCondition[] => (csr.status?.conditions ?? []).filter(c => c?.type === type);

/** the held conditions of a type in place of those sent, when as many are sent (adding or removing one is refused by validation) */
function keepConditions(next: Csr, old: Csr, type: string): void {
  const sent = (next.status?.conditions ?? []).flatMap((c, i) => (c?.type === type ? [i] : []));
  const held = conditionsOf(old, type);
  if (sent.length !== held.length) return;
  sent.forEach((at, i) => { next.status!.conditions![at] = structuredClone(held[i]!); });
}

/** the rules of every update: a problem the stored object already has is tolerated; a decision is never removed */
function validateAnyUpdate(next: Csr, old: Csr): Causes {
  const known = new Set(validateCsr(old).map(c => `${c.field}\n${c.message}`));
  const out = validateCsr(next).filter(c => !known.has(`${c.field}\n${c.message}`));
  for (const t of trueOnly)
    if (conditionsOf(next, t).length < conditionsOf(old, t).length) out.push(forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  return out;
}

/** update rules outside approval: besides those of every update, Approved and Denied are neither added nor changed */
function validateCsrUpdate(next: Csr, old: Csr, via: 'main' | 'status'): Causes {
  const out = validateAnyUpdate(next, old);
  for (const t of ['Approved', 'Denied']) {
    const [now, was] = [conditionsOf(next, t), conditionsOf(old, t)];
    if (now.length > was.length) out.push(forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
    else if (now.length === was.length && JSON.stringify(now) !== JSON.stringify(was))
      out.push(forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
  }
  const [cert, oldCert] = [next.status?.certificate ?? '', old.status?.certificate ?? ''];
  if (cert !== oldCert) {
    if (via === 'main') out.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) out.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return out;
}

export const strategy = defineStrategy<Csr>({
  generation: false,
  nameRule: 'path-segment',
  selectableFields: { 'spec.signerName': o => o.spec?.signerName },
  prepareForCreate(csr, ctx) {
    csr.status = {};
    const spec = specOf(csr);
    for (const f of ['username', 'uid', 'groups', 'extra'] as const) delete spec[f];
    const user = ctx.user;
    if (!user) return;
    if (user.username) spec.username = user.username;
    if (user.uid) spec.uid = user.uid;
    if (user.groups?.length) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) spec.extra = structuredClone(user.extra);
  },
  // only metadata changes through the main resource
  prepareForUpdate(csr, old) {
    csr.spec = old.spec;
    if (old.status === undefined) delete csr.status; else csr.status = old.status;
  },
  // through /status, the decisions held stay as they were when as many are sent (a signer writing its certificate
  // may send them back with its own spelling of the times); a condition written without times (kubectl certificate
  // approve sends no lastTransitionTime) gets them from the server: now, or the transition time of the same
  // condition already held
  prepareForSubresourceUpdate(subresource, csr, old, ctx) {
    if (subresource === 'status') for (const t of ['Approved', 'Denied']) keepConditions(csr, old, t);
    // the held transition times by type and status, the first of each, looked up once per condition (a search of
    // the held conditions for each sent one would be quadratic in what a client may send)
    const held = new Map<string, string>();
    for (const o of old.status?.conditions ?? []) {
      const key = o && `${o.type}\u0000${o.status}`;
      if (key && o.lastTransitionTime && !held.has(key)) held.set(key, o.lastTransitionTime);
    }
    for (const c of csr.status?.conditions ?? []) {
      if (!c || typeof c !== 'object') continue;
      if (!c.lastUpdateTime) c.lastUpdateTime = ctx.now;
      if (!c.lastTransitionTime) c.lastTransitionTime = held.get(`${c.type}\u0000${c.status}`) ?? ctx.now;
    }
  },
  validate: csr => validateCsr(csr),
  validateUpdate: (csr, old) => validateCsrUpdate(csr, old, 'main'),
  validateStatusUpdate: (csr, old) => validateCsrUpdate(csr, old, 'status'),
  // approval adds Approved or Denied, but may not hold both, nor take one away
  validateSubresourceUpdate: (subresource, csr, old) => (subresource === 'approval' ? validateAnyUpdate(csr, old) : []),
});
