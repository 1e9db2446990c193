// node/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/node-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

export const nodeResources: ResourceDefinition[] = [
  define({
    group: 'node', domainGroup: true, resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false,
    versions: only('v1', s.runtimeClass), columns: c.runtimeClassColumns,
  }),
];
