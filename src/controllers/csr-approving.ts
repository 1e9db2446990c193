// The CSR approver: a node agent's request for its own client certificate (signer
// `<domain>/kube-apiserver-client-kubelet`, subject `system:node:<name>` in `system:nodes`, client usages only,
// no alternative names) is approved when the requester may ask for it, as the reference's csrapproving
// controller decides: renewing its own certificate needs `create` on `certificatesigningrequests/selfnodeclient`,
// asking for any node's (a bootstrap token) on `certificatesigningrequests/nodeclient`; a SubjectAccessReview
// asks the server for each. Other requests wait for an administrator.
import { resourcePath } from '../client/rest-client.js';
import { readCertificateRequest } from '../pki/pki.js';
import { startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { CertificateSigningRequest } from './types.js';

export const nodeGroup = 'system:nodes';
export const nodeUserPrefix = 'system:node:';
const clientUsages = ['key encipherment', 'digital signature', 'client auth'];

/** whether the request is a node client certificate request by its content, or why not */
export async function nodeClientProblem(csr: CertificateSigningRequest): Promise<string | undefined> {
  let req;
  try { req = await readCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8')); } catch (e) { return `unreadable request: ${(e as Error).message}`; }
  if (req.organizations.length !== 1 || req.organizations[0] !== nodeGroup) return `subject organization is not ${nodeGroup}`;
  if (!req.commonName.startsWith(nodeUserPrefix)) return `subject common name does not begin with ${nodeUserPrefix}`;
  if (req.dnsNames.length || req.ips.length || req.emailAddresses.length || req.uris.length) return 'alternative names are not allowed';
  const usages = csr.spec.usages ?? [];
  if (!usages.includes('client auth') || usages.some((u) => !clientUsages.includes(u))) return `usages must be client auth, with at most ${clientUsages.slice(0, 2).join(' and ')}`;
  return undefined;
}

export const decided = (csr: CertificateSigningRequest) => (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');

export const csrApprovingController: Controller = {
  name: 'csrapproving',
  component: 'certificate-controller',
  serviceAccount: 'certificate-controller',
  start(ctx) {
    const signer = `${ctx.names.labelDomain}/kube-apiserver-client-kubelet`;
    const csrs = ctx.informers.informer(ctx.refs.certificateSigningRequests);
    const queue = startQueue(ctx, async (name) => {
      const csr = csrs.get(name);
      if (!csr || decided(csr) || csr.status?.certificate || csr.spec.signerName !== signer) return;
      if (await nodeClientProblem(csr)) return;
      const req = await readCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8'));
      const self = csr.spec.username === req.commonName;
      if (!(await allowed(ctx, csr, self ? 'selfnodeclient' : 'nodeclient'))) return;
      const conditions = [...(csr.status?.conditions ?? []), {
        type: 'Approved', status: 'True', reason: 'AutoApproved',
        message: `Auto approving ${self ? 'self' : 'kubelet'} client certificate after SubjectAccessReview.`,
        lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      }];
      await ctx.client.request({
        method: 'PUT', path: resourcePath(ctx.refs.certificateSigningRequests, undefined, name, 'approval'),
        body: { ...csr, status: { ...csr.status, conditions } },
      });
    });
    csrs.addHandler({ added: (c) => queue.add(c.metadata.name!), updated: (_, c) => queue.add(c.metadata.name!) });
  },
};

/** asks the server whether the requester may create the subresource that stands for this kind of request */
async function allowed(ctx: ControllerContext, csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
  const review = await ctx.client.request<{ status?: { allowed?: boolean } }>({
    method: 'POST', path: `/apis/${ctx.names.group('authorization')}/v1/subjectaccessreviews`,
    body: {
      apiVersion: `${ctx.names.group('authorization')}/v1`, kind: 'SubjectAccessReview',
      spec: {
        user: csr.spec.username, groups: csr.spec.groups, uid: csr.spec.uid, extra: csr.spec.extra,
        resourceAttributes: { group: ctx.names.group('certificates'), resource: 'certificatesigningrequests', verb: 'create', subresource },
      },
    },
  });
  return !!review.status?.allowed;
}
