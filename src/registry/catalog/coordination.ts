// coordination/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/coordination-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

export const coordinationResources: ResourceDefinition[] = [
  define({
    group: 'coordination', domainGroup: true, resource: 'leases', kind: 'Lease', namespaced: true,
    versions: only('v1', s.lease), columns: c.leaseColumns,
  }),
];
