// The CSR cleaner: certificate requests do not pile up. A request that was approved, denied or failed goes an
// hour after that decision, one still pending after a day, and one whose issued certificate has expired at once,
// as in the reference.
import { X509Certificate } from 'node:crypto';
import { ignoreNotFound, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { CertificateSigningRequest } from './types.js';

const decidedTtlMs = 3_600_000;
const pendingTtlMs = 24 * 3_600_000;

/** when the request is to go */
export function csrDeadline(csr: CertificateSigningRequest): number {
  const created = Date.parse(csr.metadata.creationTimestamp ?? '') || Date.now();
  let deadline = created + pendingTtlMs;
  for (const c of csr.status?.conditions ?? []) {
    if (!['Approved', 'Denied', 'Failed'].includes(c.type)) continue;
    const at = Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? '') || created;
    deadline = Math.min(deadline, at + decidedTtlMs);
  }
  if (csr.status?.certificate) {
    try {
      const cert = new X509Certificate(Buffer.from(csr.status.certificate, 'base64'));
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
      if (left > 0) return { requeueAfterMs: Math.min(left + 10, 24 * 3_600_000) };
      await client.delete(name, { preconditions: { uid: csr.metadata.uid } }).catch(ignoreNotFound);
    });
    csrs.addHandler({ added: (c) => queue.add(c.metadata.name!), updated: (_, c) => queue.add(c.metadata.name!) });
  },
};
