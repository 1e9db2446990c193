// policy/v1: disruption budgets (evictions are a pods subresource).
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/policy-v1.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

export const policyResources: ResourceDefinition[] = [
  define({
    group: 'policy', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', shortNames: ['pdb'], namespaced: true,
    versions: only('v1', s.podDisruptionBudget), subresources: status, columns: c.pdbColumns,
  }),
];
