// The CSR cleaner: certificate requests do not pile up. As in the reference, a request goes an hour after it was
// denied or failed, or after it was approved once its certificate is issued; one with no condition at all after a
// day; an approved one whose issued certificate has expired at once. An approved request still waiting for its
// certificate (a signer outside the cluster, or one that is down) stays.
import { X509Certificate } from 'node:crypto';
import { ignoreNotFound, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { CertificateSigningRequest } from './types.js';

const decidedTtlMs = 3_600_000;
const pendingTtlMs = 24 * 3_600_000;

/** when the request is to go; Infinity while nothing in it says so */
export function csrDeadline(csr: CertificateSigningRequest): number {
  const conditions = csr.status?.conditions ?? [];
  const issued = !!csr.status?.certificate;
  let deadline = Infinity;
  // the reference ignores a time it does not have
  const after = (time: string | null | undefined, ttl: number) => { const at = Date.parse(time ?? ''); if (!Number.isNaN(at)) deadline = Math.min(deadline, at + ttl); };
  if (!conditions.length) after(csr.metadata.creationTimestamp, pendingTtlMs);
  for (const c of conditions) {
    if (c.type === 'Denied' || c.type === 'Failed' || (c.type === 'Approved' && issued)) after(c.lastUpdateTime, decidedTtlMs);
  }
  if (issued && conditions.some((c) => c.type === 'Approved')) {
    try {
      const cert = new X509Certificate(Buffer.from(csr.status!.certificate!, 'base64'));
      deadline = Math.min(deadline, Date.parse(cert.validTo));
    } catch { /* not a certificate we can read: the other deadlines apply */ }
  }
  return deadline;
}

export const csrCleanerController: Controller = {
  name: 'csrcleaner',
  component: 'csr-cleaner',
  // the reference's cleaner acts as the certificate controller
  serviceAccount: 'certificate-controller',
  start(ctx) {
    const csrs = ctx.informers.informer(ctx.refs.certificateSigningRequests);
    const client = ctx.client.resource(ctx.refs.certificateSigningRequests);
    const queue = startQueue(ctx, async (name) => {
      const csr = csrs.get(name);
      if (!csr || csr.metadata.deletionTimestamp) return;
      const left = csrDeadline(csr) - Date.now();
      if (left === Infinity) return;
      if (left > 0) return { requeueAfterMs: Math.min(left + 10, 24 * 3_600_000) };
      await client.delete(name, { preconditions: { uid: csr.metadata.uid } }).catch(ignoreNotFound);
    });
    csrs.addHandler({ added: (c) => queue.add(c.metadata.name!), updated: (_, c) => queue.add(c.metadata.name!) });
  },
};
