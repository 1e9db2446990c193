// apiregistration/v1: aggregated API services.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/apiregistration-v1.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

export const apiregistrationResources: ResourceDefinition[] = [
  define({
    group: 'apiregistration', domainGroup: true, resource: 'apiservices', kind: 'APIService',
    categories: ['api-extensions'], namespaced: false,
    versions: only('v1', s.apiService), subresources: status, columns: c.apiServiceColumns,
  }),
];
