// policy/v1 pod disruption budgets: how many of a set of pods an eviction may take down (evictions are a pods subresource).
import type { Stored } from '../../../../api/meta.js';
import type { PodDisruptionBudget } from '../../../../api/types/policy-v1.js';
import * as s from '../../../../api/schemas/policy-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, intOrPercent, invalid, isSet, labelSelector, oneOf } from '../../../validation/fields.js';
import { statusCounts } from '../../../validation/workload.js';
import { define, only, status } from '../../define.js';
import { age, column, n } from '../../columns.js';

function validatePdb(pdb: PodDisruptionBudget): Causes {
  const s = pdb.spec ?? {};
  const out: Causes = [];
  if (isSet(s.minAvailable) && isSet(s.maxUnavailable)) out.push(invalid('spec', s, 'minAvailable and maxUnavailable cannot be both set'));
  out.push(...intOrPercent('spec.minAvailable', s.minAvailable), ...intOrPercent('spec.maxUnavailable', s.maxUnavailable));
  out.push(...labelSelector('spec.selector', s.selector));
  if (isSet(s.unhealthyPodEvictionPolicy))
    out.push(...oneOf('spec.unhealthyPodEvictionPolicy', s.unhealthyPodEvictionPolicy, ['AlwaysAllow', 'IfHealthyBudget']));
  return out;
}

export const strategy = defineStrategy<Stored<PodDisruptionBudget>>({
  prepareForCreate(pdb) { pdb.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }; },
  validate: validatePdb,
  validateUpdate: validatePdb,
  validateStatusUpdate: pdb => statusCounts(pdb.status, ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'observedGeneration']),
});

const columns: TableColumn<PodDisruptionBudget>[] = [
  column('Min Available', 'string', o => String(o.spec?.minAvailable ?? 'N/A'), 'The minimum number of pods that must be available.'),
  column('Max Unavailable', 'string', o => String(o.spec?.maxUnavailable ?? 'N/A'), 'The maximum number of pods that may be unavailable.'),
  column('Allowed Disruptions', 'integer', o => n(o.status?.disruptionsAllowed), 'Calculated number of pods that may be disrupted at this time.'),
  age,
];

export const definition = define<PodDisruptionBudget>({
  group: 'policy', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', shortNames: ['pdb'], namespaced: true,
  versions: only('v1', s.podDisruptionBudget), subresources: status, strategy, columns,
});
