// The CSR approver: a node agent's request for its own client certificate (signer
// `<domain>/kube-apiserver-client-kubelet`, subject `system:node:<name>` in `system:nodes`, client usages only,
// no alternative names) is approved when the requester may ask for it, as the reference's csrapproving
// controller decides: renewing its own certificate needs `create` on `certificatesigningrequests/selfnodeclient`,
// asking for any node's (a bootstrap token) on `certificatesigningrequests/nodeclient`, which also serves a node
// that may not renew as itself; a SubjectAccessReview asks the server for each, again with back-off while neither
// allows it. Other requests wait for an administrator.
import { resourcePath } from '../client/rest-client.js';
import { readCertificateRequest, type CertificateRequest } from '../pki/pki.js';
import { startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { CertificateSigningRequest } from './types.js';

export const nodeGroup = 'system:nodes';
export const nodeUserPrefix = 'system:node:';

/** whether the usages are, as a set, one the reference takes from a node: with key encipherment (RSA keys) or without */
function nodeUsagesProblem(csr: CertificateSigningRequest, purpose: 'client auth' | 'server auth'): string | undefined {
  const withRsa = ['digital signature', 'key encipherment', purpose].sort();
  const given = new Set(csr.spec.usages ?? []);
  const matches = (set: string[]) => given.size === set.length && set.every((u) => given.has(u));
  // the message lists the set as Go prints a sorted string list
  return matches(withRsa) || matches(withRsa.filter((u) => u !== 'key encipherment')) ? undefined : `usages did not match [${withRsa.join(' ')}]`;
}

const onlyNodeGroup = (req: CertificateRequest) => req.organizations.length === 1 && req.organizations[0] === nodeGroup;

/** why a request is not a node's client certificate request (the reference's checks, in its order and words) */
export function kubeletClientProblem(csr: CertificateSigningRequest, req: CertificateRequest): string | undefined {
  if (!onlyNodeGroup(req)) return `subject organization is not ${nodeGroup}`;
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ips.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(nodeUserPrefix)) return `subject common name does not begin with ${nodeUserPrefix}`;
  return nodeUsagesProblem(csr, 'client auth');
}

/** why a request is not a node's serving certificate request (the reference's checks, in its order and words) */
export function kubeletServingProblem(csr: CertificateSigningRequest, req: CertificateRequest): string | undefined {
  if (!onlyNodeGroup(req)) return `subject organization is not ${nodeGroup}`;
  if (!req.dnsNames.length && !req.ips.length) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  return nodeUsagesProblem(csr, 'server auth') ?? (req.commonName.startsWith(nodeUserPrefix) ? undefined : `subject common name does not begin with ${nodeUserPrefix}`);
}

/**
 * What may approve a request, in the order asked, as the reference's recognizers: a node renewing its own
 * certificate (requester and subject the same) by `selfnodeclient`, then any node client request by `nodeclient`
 * (so a node that may not renew as itself is still approved when it may ask for any node). None for other requests.
 */
export function approvalGrounds(csr: CertificateSigningRequest, req: CertificateRequest): Array<{ subresource: string; message: string }> {
  if (kubeletClientProblem(csr, req)) return [];
  const ground = (subresource: string, what: string) => ({ subresource, message: `Auto approving ${what} client certificate after SubjectAccessReview.` });
  return [...(csr.spec.username === req.commonName ? [ground('selfnodeclient', 'self kubelet')] : []), ground('nodeclient', 'kubelet')];
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
      let req: CertificateRequest;
      try { req = await readCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8')); } catch { return; }
      const grounds = approvalGrounds(csr, req);
      for (const { subresource, message } of grounds) {
        if (!(await allowed(ctx, csr, subresource))) continue;
        const conditions = [...(csr.status?.conditions ?? []), {
          type: 'Approved', status: 'True', reason: 'AutoApproved', message,
          lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        }];
        await ctx.client.request({
          method: 'PUT', path: resourcePath(ctx.refs.certificateSigningRequests, undefined, name, 'approval'),
          body: { ...csr, status: { ...csr.status, conditions } },
        });
        return;
      }
      // looked at again with back-off, as the reference does: a binding made later (nodeclient for the bootstrap
      // tokens' group) still gets the request approved
      if (grounds.length) throw new Error(`recognized csr "${name}" as [${grounds.map((g) => g.subresource).join(' ')}] but subject access review was not approved`);
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
