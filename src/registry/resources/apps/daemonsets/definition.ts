// apps/v1 daemon sets: one pod per node.
import type { Stored } from '../../../../api/meta.js';
import { canonicalJson } from '../../../../api/json.js';
import type { DaemonSet, DaemonSetSpec } from '../../../../api/types/apps-v1.js';
import * as s from '../../../../api/schemas/apps-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import { nonNegative, oneOf } from '../../../validation/fields.js';
import { always, rollingUpdate, selectorAndTemplate, selectorImmutable, statusCounts } from '../../../validation/workload.js';
import { define, only, statusSubresource } from '../../define.js';
import { age, column, formatLabelSelector, formatLabels, n, workloadWide } from '../../columns.js';

function defaultDaemonSet(ds: DaemonSet) {
  const s = specOf(ds);
  fill(s, { revisionHistoryLimit: 10 });
  const us = s.updateStrategy ??= {};
  fill(us, { type: 'RollingUpdate' });
  if (us.type === 'RollingUpdate') fill(us.rollingUpdate ??= {}, { maxUnavailable: 1, maxSurge: 0 });
  defaultTemplate(s.template);
}

function validateDaemonSet(ds: DaemonSet) {
  const s: Partial<DaemonSetSpec> = ds.spec ?? {};
  const out = selectorAndTemplate(s, 'daemonset', { restartPolicies: always, noActiveDeadline: 'DaemonSet' });
  const us = s.updateStrategy ?? {};
  out.push(...oneOf('spec.updateStrategy.type', us.type, ['OnDelete', 'RollingUpdate']));
  if (us.type === 'RollingUpdate' && us.rollingUpdate) out.push(...rollingUpdate('spec.updateStrategy.rollingUpdate', us.rollingUpdate, 'DaemonSet'));
  out.push(...nonNegative('spec.minReadySeconds', s.minReadySeconds), ...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit));
  return out;
}

/** the reference's template generation of apps/v1 daemon sets, kept in an annotation: 1 at create, one more with each
 *  change of the template; its controller labels pods with it (`pod-template-generation`) */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

const templateGeneration = (ds: DaemonSet) => {
  const n = Number(ds.metadata?.annotations?.[templateGenerationAnnotation]);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};
function setTemplateGeneration(ds: Stored<DaemonSet>, generation: number) {
  const annotations = { ...ds.metadata.annotations };
  if (generation > 0) annotations[templateGenerationAnnotation] = String(generation);
  else delete annotations[templateGenerationAnnotation];
  ds.metadata.annotations = Object.keys(annotations).length ? annotations : undefined;
  if (!ds.metadata.annotations) delete ds.metadata.annotations;
}

export const strategy = defineStrategy<Stored<DaemonSet>>({
  defaults: defaultDaemonSet,
  podSpecs: ds => [['spec.template.spec', ds.spec?.template?.spec]],
  prepareForCreate(ds) {
    ds.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    setTemplateGeneration(ds, Math.max(1, templateGeneration(ds)));
  },
  // the generation is the server's: kept from the stored object, one more when the template changes
  prepareForUpdate(ds, old) {
    const changed = canonicalJson(ds.spec?.template) !== canonicalJson(old.spec?.template);
    setTemplateGeneration(ds, templateGeneration(old) + (changed ? 1 : 0));
  },
  validate: validateDaemonSet,
  validateUpdate: (ds, old) => [...validateDaemonSet(ds), ...selectorImmutable(ds, old)],
  validateStatusUpdate: ds => statusCounts(ds.status, ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady',
    'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount']),
});

const columns: TableColumn<DaemonSet>[] = [
  column('Desired', 'integer', o => n(o.status?.desiredNumberScheduled), 'The total number of nodes that should be running the daemon pod.'),
  column('Current', 'integer', o => n(o.status?.currentNumberScheduled), 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
  column('Ready', 'integer', o => n(o.status?.numberReady), 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
  column('Up-to-date', 'integer', o => n(o.status?.updatedNumberScheduled), 'The total number of nodes that are running updated daemon pod'),
  column('Available', 'integer', o => n(o.status?.numberAvailable), 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
  column('Node Selector', 'string', o => formatLabels(o.spec?.template?.spec?.nodeSelector), 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
  age,
  ...workloadWide<DaemonSet>(o => o.spec?.template?.spec, o => formatLabelSelector(o.spec?.selector)),
];

export const definition = define<DaemonSet>({
  group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', shortNames: ['ds'], categories: ['all'], namespaced: true,
  versions: only('v1', s.daemonSet), subresources: { status: statusSubresource }, strategy, columns,
});
