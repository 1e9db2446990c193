// CertificateSubjectRestriction: the API server's client signer never issues certificates in the
// privileged group, which would bypass authorization altogether.
import { definePlugin } from '../types.js';
import type { CertificateSigningRequest, CertificateSigningRequestSpec } from '../../api/types/certificates-v1.js';
import { readCertificateRequest } from '../../pki/certificates.js';
import { refuse } from '../util.js';
import { privilegedGroup } from '../../api/auth.js';

export default definePlugin({
  name: 'CertificateSubjectRestriction',
  defaultOn: true,
  create: ({ names }) => {
    const group = names.group('certificates');
    // the signer keeps its reference name under the label domain, as the bootstrap approver roles name it
    const signer = `${names.labelDomain}/kube-apiserver-client`;
    return {
      name: 'CertificateSubjectRestriction',
      operations: ['CREATE'],
      resources: [[group, 'certificatesigningrequests']],
      async validate(a) {
        if (a.group !== group || a.resource !== 'certificatesigningrequests' || a.subresource !== '' || !a.object) return;
        const spec: Partial<CertificateSigningRequestSpec> = (a.object as Partial<CertificateSigningRequest>).spec ?? {};
        if (spec.signerName !== signer) return;
        let organizations: string[];
        try {
          organizations = (await readCertificateRequest(Buffer.from(String(spec.request ?? ''), 'base64').toString('utf8'))).organizations;
        } catch (e) {
          throw refuse(a, `failed to parse CSR: ${(e as Error).message}`);
        }
        if (organizations.includes(privilegedGroup)) throw refuse(a, `use of ${signer} signer with ${privilegedGroup} group is not allowed`);
      },
    };
  },
});
