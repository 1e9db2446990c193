// certificates/v1 CertificateSigningRequests: decisions arrive through approval, the certificate through status.
import type { CertificateSigningRequest } from '../../../../api/types/certificates-v1.js';
import * as s from '../../../../api/schemas/certificates-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only, readWrite, statusSubresource } from '../../define.js';
import { age, column, humanDuration } from '../../columns.js';
import { strategy } from './strategy.js';

/** as the reference prints it: Denied over Approved over Pending, then Failed and Issued when they hold; a condition counts by its type alone */
export function csrCondition(o: CertificateSigningRequest): string {
  const types = new Set((o.status?.conditions ?? []).map(c => c?.type));
  const decision = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  return [decision, ...(types.has('Failed') ? ['Failed'] : []), ...(o.status?.certificate ? ['Issued'] : [])].join(',');
}

const columns: TableColumn<CertificateSigningRequest>[] = [
  age,
  column('SignerName', 'string', o => o.spec?.signerName ?? '', 'The signer of the certificate.'),
  column('Requestor', 'string', o => o.spec?.username ?? '', 'Name of the user which submitted the request.'),
  column('RequestedDuration', 'string', o => (o.spec?.expirationSeconds ? humanDuration(o.spec.expirationSeconds * 1000) : '<none>'), 'Requested duration of the certificate.'),
  column('Condition', 'string', csrCondition, 'State of the request (Pending, Approved, Denied, Issued, Failed).'),
];

export const definition = define<CertificateSigningRequest>({
  group: 'certificates', domainGroup: true, resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest',
  shortNames: ['csr'], namespaced: false, versions: only('v1', s.certificateSigningRequest),
  subresources: { approval: { verbs: readWrite, changes: [['status', 'conditions']] }, status: statusSubresource },
  strategy, columns,
});
