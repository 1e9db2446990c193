// scheduling/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/scheduling-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

export const schedulingResources: ResourceDefinition[] = [
  define({
    group: 'scheduling', domainGroup: true, resource: 'priorityclasses', kind: 'PriorityClass', shortNames: ['pc'],
    namespaced: false, versions: only('v1', s.priorityClass), columns: c.priorityClassColumns,
  }),
];
