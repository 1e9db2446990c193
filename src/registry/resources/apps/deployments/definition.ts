// apps/v1 deployments: rolling or recreating updates of a replica set's template.
import type { Stored } from '../../../../api/meta.js';
import type { Deployment, DeploymentSpec } from '../../../../api/types/apps-v1.js';
import * as s from '../../../../api/schemas/apps-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import { type Causes, forbidden, invalid, isSet, nonNegative, oneOf } from '../../../validation/fields.js';
import { always, replicaStatus, rollingUpdate, selectorAndTemplate, selectorImmutable } from '../../../validation/workload.js';
import { define, only, statusSubresource } from '../../define.js';
import { scale } from '../../scale.js';
import { age, column, formatLabelSelector, n, workloadWide } from '../../columns.js';

function defaultDeployment(d: Deployment) {
  const s = specOf(d);
  fill(s, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  const st = s.strategy ??= {};
  fill(st, { type: 'RollingUpdate' });
  if (st.type === 'RollingUpdate') fill(st.rollingUpdate ??= {}, { maxUnavailable: '25%', maxSurge: '25%' });
  defaultTemplate(s.template);
}

function validateDeployment(d: Deployment): Causes {
  const s: Partial<DeploymentSpec> = d.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas)];
  out.push(...selectorAndTemplate(s, 'deployment', { restartPolicies: always, noActiveDeadline: 'ReplicaSet' }));
  const st = s.strategy ?? {};
  out.push(...oneOf('spec.strategy.type', st.type, ['Recreate', 'RollingUpdate']));
  if (st.type === 'Recreate' && st.rollingUpdate)
    out.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  if (st.type === 'RollingUpdate' && st.rollingUpdate) out.push(...rollingUpdate('spec.strategy.rollingUpdate', st.rollingUpdate, 'Deployment'));
  out.push(...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit), ...nonNegative('spec.minReadySeconds', s.minReadySeconds));
  if (isSet(s.progressDeadlineSeconds)) {
    out.push(...nonNegative('spec.progressDeadlineSeconds', s.progressDeadlineSeconds));
    if (s.progressDeadlineSeconds <= (s.minReadySeconds ?? 0))
      out.push(invalid('spec.progressDeadlineSeconds', s.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return out;
}

export const strategy = defineStrategy<Stored<Deployment>>({
  defaults: defaultDeployment,
  podSpecs: d => [['spec.template.spec', d.spec?.template?.spec]],
  prepareForCreate(d) { d.status = {}; },
  validate: validateDeployment,
  validateUpdate: (d, old) => [...validateDeployment(d), ...selectorImmutable(d, old)],
  validateStatusUpdate: d => replicaStatus(d.status as Record<string, unknown> | undefined,
    ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'],
    ['updatedReplicas', 'readyReplicas', 'availableReplicas']),
});

const columns: TableColumn<Deployment>[] = [
  column('Ready', 'string', o => `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`, 'Number of the pod with ready state'),
  column('Up-to-date', 'integer', o => n(o.status?.updatedReplicas), 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
  column('Available', 'integer', o => n(o.status?.availableReplicas), 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
  age,
  ...workloadWide<Deployment>(o => o.spec?.template?.spec, o => formatLabelSelector(o.spec?.selector)),
];

export const definition = define<Deployment>({
  group: 'apps', resource: 'deployments', kind: 'Deployment', shortNames: ['deploy'], categories: ['all'], namespaced: true,
  versions: only('v1', s.deployment), subresources: { scale, status: statusSubresource }, strategy, columns,
});
