// apps/v1 replica sets: a count of pods from one template.
import type { Stored } from '../../../../api/meta.js';
import type { ReplicaSet, ReplicaSetSpec } from '../../../../api/types/apps-v1.js';
import type { ReplicationController } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/apps-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import { type Causes, nonNegative } from '../../../validation/fields.js';
import { always, replicaStatus, selectorAndTemplate, selectorImmutable } from '../../../validation/workload.js';
import { define, only, statusSubresource } from '../../define.js';
import { scale } from '../../scale.js';
import { age, column, formatLabelSelector, n, workloadWide } from '../../columns.js';

function defaultReplicaSet(rs: ReplicaSet) {
  const s = specOf(rs);
  fill(s, { replicas: 1 });
  defaultTemplate(s.template);
}

function validateReplicaSet(rs: ReplicaSet): Causes {
  const s: Partial<ReplicaSetSpec> = rs.spec ?? {};
  return [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds),
    ...selectorAndTemplate(s, 'deployment', { restartPolicies: always, noActiveDeadline: 'ReplicaSet' })];
}

export const strategy = defineStrategy<Stored<ReplicaSet>>({
  defaults: defaultReplicaSet,
  podSpecs: rs => [['spec.template.spec', rs.spec?.template?.spec]],
  prepareForCreate(rs) { rs.status = { replicas: 0 }; },
  validate: validateReplicaSet,
  validateUpdate: (rs, old) => [...validateReplicaSet(rs), ...selectorImmutable(rs, old)],
  validateStatusUpdate: rs => replicaStatus(rs.status as Record<string, unknown> | undefined,
    ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
});

/** Desired, Current and Ready: replication controllers print the same */
export const replicaColumns: TableColumn<ReplicaSet | ReplicationController>[] = [
  column('Desired', 'integer', o => n(o.spec?.replicas), 'Number of desired pods'),
  column('Current', 'integer', o => n(o.status?.replicas), 'Number of actual pods'),
  column('Ready', 'integer', o => n(o.status?.readyReplicas), 'Number of pods ready'),
  age,
];

export const definition = define<ReplicaSet>({
  group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', shortNames: ['rs'], categories: ['all'], namespaced: true,
  versions: only('v1', s.replicaSet), subresources: { scale, status: statusSubresource }, strategy,
  columns: [...replicaColumns, ...workloadWide<ReplicaSet>(o => o.spec?.template?.spec, o => formatLabelSelector(o.spec?.selector))],
});
