// core/v1 replication controllers: the older replica set, with an equality selector.
import type { Stored } from '../../../../api/meta.js';
import type { ReplicationController, ReplicationControllerSpec } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { selectorMatches } from '../../../../api/selectors.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import { type Causes, invalid, labels, nonNegative, required } from '../../../validation/fields.js';
import { validateTemplate } from '../../../validation/pod-spec.js';
import { always, replicaStatus } from '../../../validation/workload.js';
import { define, only, statusSubresource } from '../../define.js';
import { scale } from '../../scale.js';
import { formatLabels, workloadWide } from '../../columns.js';
import { replicaColumns } from '../../apps/replicasets/definition.js';

function defaultReplicationController(rc: Stored<ReplicationController>) {
  const s = specOf(rc);
  const templateLabels = s.template?.metadata?.labels;
  if (templateLabels) {
    if (Object.keys(s.selector ?? {}).length === 0) s.selector = { ...templateLabels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...templateLabels };
  }
  fill(s, { replicas: 1 });
  defaultTemplate(s.template);
}

function validateReplicationController(rc: ReplicationController): Causes {
  const s: ReplicationControllerSpec = rc.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds)];
  const selector = s.selector ?? {};
  if (Object.keys(selector).length === 0) out.push(required('spec.selector'));
  else out.push(...labels('spec.selector', selector));
  if (!s.template) out.push(required('spec.template'));
  else {
    if (Object.keys(selector).length && !selectorMatches({ matchLabels: selector }, s.template.metadata?.labels))
      out.push(invalid('spec.template.metadata.labels', s.template.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    out.push(...validateTemplate('spec.template', s.template, { restartPolicies: always, noActiveDeadline: 'ReplicationController' }));
  }
  return out;
}

export const strategy = defineStrategy<Stored<ReplicationController>>({
  orphanDependentsByDefault: true,
  selectableFields: { 'status.replicas': rc => String(rc.status?.replicas ?? 0) },
  defaults: defaultReplicationController,
  podSpecs: rc => [['spec.template.spec', rc.spec?.template?.spec]],
  prepareForCreate(rc) { rc.status = { replicas: 0 }; },
  validate: validateReplicationController,
  validateUpdate: validateReplicationController,
  validateStatusUpdate: rc => replicaStatus(rc.status, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
});

export const definition = define<ReplicationController>({
  group: '', resource: 'replicationcontrollers', kind: 'ReplicationController', shortNames: ['rc'], categories: ['all'],
  namespaced: true, versions: only('v1', s.replicationController),
  subresources: { scale, status: statusSubresource }, strategy,
  columns: [...replicaColumns, ...workloadWide<ReplicationController>(o => o.spec?.template?.spec, o => formatLabels(o.spec?.selector))],
});
