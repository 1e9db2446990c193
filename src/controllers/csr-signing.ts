// The CSR signer: an approved request to one of the signers this controller serves gets its certificate in
// `status.certificate`, signed by that signer's CA (--cluster-signing-*), valid for the shorter of
// `spec.expirationSeconds` and --cluster-signing-duration (less the 5 minutes it is backdated, when that is 8 hours
// or more; never past the CA). Each signer checks what it may sign; a request it refuses gets the Failed condition:
// - kube-apiserver-client: client certificates for any subject; usages client auth, digital signature, key encipherment;
// - kube-apiserver-client-kubelet: a node's client certificate (`system:node:<name>` in `system:nodes`, no alternative
//   names); usages exactly digital signature and client auth, with key encipherment or without;
// - kubelet-serving: a node's serving certificate, with DNS names or IP addresses only; usages exactly digital
//   signature and server auth, with key encipherment or without;
// - legacy-unknown: anything, as the reference (the v1 API does not take requests for it).
import { nowTimestamp } from '../api/meta.js';
import { isConflict, isNotFound } from '../client/rest-client.js';
import { readCertificateRequest, signCertificate, type CertificateRequest, type KeyUsage } from '../pki/pki.js';
import { startQueue } from './common.js';
import type { Controller } from './context.js';
import { kubeletClientProblem, kubeletServingProblem } from './csr-approving.js';
import type { CertificateSigningRequest } from './types.js';

type Check = (csr: CertificateSigningRequest, req: CertificateRequest) => string | undefined;

/** client certificates of any subject: client auth, and at most digital signature and key encipherment besides */
export function apiServerClientProblem(csr: CertificateSigningRequest): string | undefined {
  const usages = csr.spec.usages ?? [];
  const other = usages.find((u) => !['client auth', 'digital signature', 'key encipherment'].includes(u));
  if (other !== undefined) return `invalid usage for client certificate: ${other}`;
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** what each signer checks before it signs, with the reference's messages */
const checks: Record<string, Check> = {
  'kube-apiserver-client': (csr) => apiServerClientProblem(csr),
  'kube-apiserver-client-kubelet': kubeletClientProblem,
  'kubelet-serving': kubeletServingProblem,
  'legacy-unknown': () => undefined,
};

const hasCondition = (csr: CertificateSigningRequest, type: string) => (csr.status?.conditions ?? []).some((c) => c.type === type && c.status !== 'False');

export const csrSigningController: Controller = {
  name: 'csrsigning',
  component: 'certificate-controller',
  serviceAccount: 'certificate-controller',
  start(ctx) {
    const signers = new Map(Object.entries(ctx.settings.signers).map(([suffix, ca]) => [`${ctx.names.labelDomain}/${suffix}`, { ca, check: checks[suffix]! }]));
    if (!signers.size) { ctx.log.info('csrsigning: no signing CA (--cluster-signing-cert-file); not signing'); return; }
    const csrs = ctx.informers.informer(ctx.refs.certificateSigningRequests);
    const client = ctx.client.resource(ctx.refs.certificateSigningRequests);
    const queue = startQueue(ctx, async (name) => {
      const csr = csrs.get(name);
      const signer = csr && signers.get(csr.spec.signerName);
      if (!csr || !signer || csr.status?.certificate || !hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied') || hasCondition(csr, 'Failed')) return;
      const pem = Buffer.from(csr.spec.request, 'base64').toString('utf8');
      let problem: string | undefined;
      let req: CertificateRequest | undefined;
      try { req = await readCertificateRequest(pem); } catch (e) { problem = `unreadable request: ${(e as Error).message}`; }
      problem ??= signer.check(csr, req!);
      let status: CertificateSigningRequest['status'];
      if (problem) {
        status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: nowTimestamp() }] };
      } else {
        const requested = csr.spec.expirationSeconds ? csr.spec.expirationSeconds * 1000 : Infinity;
        const lifeSeconds = Math.floor(Math.min(requested, ctx.settings.clusterSigningDurationMs) / 1000);
        // certificates begin 5 minutes back (clock skew); a long one (8 hours or more) ends 5 minutes earlier to make up for it, as the reference's
        const ttlSeconds = lifeSeconds >= 8 * 3600 ? lifeSeconds - 300 : lifeSeconds;
        const certificate = await signCertificate(signer.ca, { csrPem: pem, usages: (csr.spec.usages ?? []) as KeyUsage[], ttlSeconds });
        status = { ...csr.status, certificate: Buffer.from(certificate).toString('base64') };
      }
      await client.status.update({ ...csr, status }).catch((e) => { if (!isConflict(e) && !isNotFound(e)) throw e; });
    });
    csrs.addHandler({ added: (c) => queue.add(c.metadata.name!), updated: (_, c) => queue.add(c.metadata.name!) });
  },
};
