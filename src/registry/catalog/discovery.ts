// discovery/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/discovery-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

export const discoveryResources: ResourceDefinition[] = [
  define({
    group: 'discovery', domainGroup: true, resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true,
    versions: only('v1', s.endpointSlice), columns: c.endpointSliceColumns,
  }),
];
