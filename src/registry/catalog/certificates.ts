// certificates/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/certificates-v1.js';
import { define, only, readWrite } from './define.js';
import * as c from './columns.js';

export const certificatesResources: ResourceDefinition[] = [
  define({
    group: 'certificates', domainGroup: true, resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest',
    shortNames: ['csr'], namespaced: false, versions: only('v1', s.certificateSigningRequest),
    subresources: { approval: { verbs: readWrite }, status: { verbs: readWrite } },
    columns: c.csrColumns,
  }),
];
