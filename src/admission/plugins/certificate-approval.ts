// CertificateApproval: approving or denying a CertificateSigningRequest needs the `approve` verb on its
// signer (the `signers` resource, named by the signer or by `<domain>/*`).
import { definePlugin } from '../types.js';
import type { CertificateSigningRequest } from '../../api/types/certificates-v1.js';
import { refuse } from '../util.js';
import { signerAllowed } from './certificate-signing.js';

export default definePlugin({
  name: 'CertificateApproval',
  defaultOn: true,
  create: ({ authorizer, names }) => ({
    name: 'CertificateApproval',
    operations: ['UPDATE'],
    resources: [[names.group('certificates'), 'certificatesigningrequests']],
    async validate(a) {
      const group = names.group('certificates');
      if (a.group !== group || a.resource !== 'certificatesigningrequests' || a.subresource !== 'approval' || !a.object) return;
      const signer = (a.object as Partial<CertificateSigningRequest>).spec?.signerName ?? '';
      if (!await signerAllowed(authorizer, group, a.user, 'approve', signer))
        throw refuse(a, `user not permitted to approve requests with signerName "${signer}"`);
    },
  }),
});
