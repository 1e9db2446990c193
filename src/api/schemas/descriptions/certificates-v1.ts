// certificates/v1: certificate signing requests.
import { conditionFields, kind, type DescriptionTable } from './common.js';

export default {
  CertificateSigningRequest: kind('A CertificateSigningRequest asks a signer to issue an X.509 certificate for a key. It must be approved before the signer issues the certificate.', {
    spec: 'The request and who made it.',
    status: 'The approval decision and the issued certificate.',
  }),
  CertificateSigningRequestSpec: {
    '': 'What a CertificateSigningRequest asks for. Set on creation and never changed.',
    request: 'The PKCS#10 certificate request, PEM-encoded (base64 again in JSON).',
    signerName: 'The signer asked to sign, such as "{labels}/kube-apiserver-client" or "{labels}/kubelet-serving".',
    expirationSeconds: 'The certificate lifetime asked for; the signer may choose another. At least 600 seconds.',
    usages: 'The key usages asked for, such as "client auth", "server auth" and "digital signature".',
    username: 'The user who created the request; set by the server.',
    uid: 'The uid of the user who created the request; set by the server.',
    groups: 'The groups of the user who created the request; set by the server.',
    extra: 'More information about the user who created the request; set by the server.',
  },
  CertificateSigningRequestStatus: {
    '': 'The state of a CertificateSigningRequest.',
    conditions: 'The decisions on the request: Approved or Denied, and Failed if signing failed.',
    certificate: 'The issued certificate chain, PEM-encoded; set by the signer after approval, through the status subresource.',
  },
  CertificateSigningRequestCondition: {
    '': 'A decision on a CertificateSigningRequest.',
    ...conditionFields('request', '"Approved", "Denied" or "Failed"'),
    lastUpdateTime: 'When the condition was last updated.',
  },
} satisfies DescriptionTable;
