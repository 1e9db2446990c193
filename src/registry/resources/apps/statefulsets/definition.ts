// apps/v1 stateful sets: ordered pods with stable names and their own volume claims.
import type { Stored } from '../../../../api/meta.js';
import type { StatefulSet, StatefulSetSpec } from '../../../../api/types/apps-v1.js';
import * as s from '../../../../api/schemas/apps-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultClaimSpec, defaultEmbeddedMetadata, defaultTemplate } from '../../../defaults/pod-spec.js';
import { type Causes, forbidden, invalid, nonNegative, oneOf, sameJson } from '../../../validation/fields.js';
import { always, replicaStatus, selectorAndTemplate } from '../../../validation/workload.js';
import { define, only, statusSubresource } from '../../define.js';
import { scale } from '../../scale.js';
import { age, column, n, workloadWide } from '../../columns.js';

function defaultStatefulSet(ss: StatefulSet) {
  const s = specOf(ss);
  fill(s, { replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10 });
  const us = s.updateStrategy ??= {};
  fill(us, { type: 'RollingUpdate' });
  if (us.type === 'RollingUpdate') fill(us.rollingUpdate ??= {}, { partition: 0 });
  fill(s.persistentVolumeClaimRetentionPolicy ??= {}, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  for (const claim of Array.isArray(s.volumeClaimTemplates) ? s.volumeClaimTemplates : []) {
    if (!claim || typeof claim !== 'object') continue;
    defaultEmbeddedMetadata(claim);
    defaultClaimSpec(claim.spec ??= {});
    fill(claim.status ??= {}, { phase: 'Pending' });
  }
  defaultTemplate(s.template);
}

const retention = ['Retain', 'Delete'];

function validateStatefulSet(ss: StatefulSet): Causes {
  const s: Partial<StatefulSetSpec> = ss.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds)];
  out.push(...oneOf('spec.podManagementPolicy', s.podManagementPolicy, ['OrderedReady', 'Parallel']));
  const us = s.updateStrategy ?? {};
  out.push(...oneOf('spec.updateStrategy.type', us.type, ['RollingUpdate', 'OnDelete']));
  if (us.type === 'OnDelete' && us.rollingUpdate) out.push(invalid('spec.updateStrategy.rollingUpdate', us.rollingUpdate, 'only allowed for updateStrategy \'RollingUpdate\''));
  if (us.rollingUpdate) out.push(...nonNegative('spec.updateStrategy.rollingUpdate.partition', us.rollingUpdate.partition));
  const pr = s.persistentVolumeClaimRetentionPolicy ?? {};
  out.push(...oneOf('spec.persistentVolumeClaimRetentionPolicy.whenDeleted', pr.whenDeleted, retention));
  out.push(...oneOf('spec.persistentVolumeClaimRetentionPolicy.whenScaled', pr.whenScaled, retention));
  out.push(...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit));
  if (s.ordinals) out.push(...nonNegative('spec.ordinals.start', s.ordinals.start));
  const claimTemplates = (Array.isArray(s.volumeClaimTemplates) ? s.volumeClaimTemplates : [])
    .map(t => t?.metadata?.name).filter((name): name is string => !!name);
  out.push(...selectorAndTemplate(s, 'statefulset', { restartPolicies: always, noActiveDeadline: 'StatefulSet', extraVolumes: claimTemplates }));
  return out;
}

/** a StatefulSet's spec may change only in these fields */
const statefulSetMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSetUpdate(ss: StatefulSet, old: StatefulSet): Causes {
  const out = validateStatefulSet(ss);
  const strip = (s: StatefulSetSpec | undefined) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !statefulSetMutable.includes(k)));
  if (!sameJson(strip(ss.spec), strip(old.spec)))
    out.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  return out;
}

export const strategy = defineStrategy<Stored<StatefulSet>>({
  defaults: defaultStatefulSet,
  podSpecs: ss => [['spec.template.spec', ss.spec?.template?.spec]],
  prepareForCreate(ss) { ss.status = { replicas: 0, availableReplicas: 0 }; },
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  validateStatusUpdate: sts => replicaStatus(sts.status,
    ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
    ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'], 'status.readyReplicas'),
});

const columns: TableColumn<StatefulSet>[] = [
  column('Ready', 'string', o => `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`, 'Number of the pod with ready state'),
  age,
  ...workloadWide<StatefulSet>(o => o.spec?.template?.spec),
];

export const definition = define<StatefulSet>({
  group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts'], categories: ['all'], namespaced: true,
  versions: only('v1', s.statefulSet), subresources: { scale, status: statusSubresource }, strategy, columns,
});
