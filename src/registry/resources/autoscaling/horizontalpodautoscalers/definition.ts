// autoscaling HorizontalPodAutoscalers, served at v2 (preferred, stored) and v1, each converted to the other
// (conversion.ts): a v1 body's one CPU target is stored as a v2 metric.
import type { ApiObject, Stored } from '../../../../api/meta.js';
import type * as v1 from '../../../../api/types/autoscaling-v1.js';
import type * as v2 from '../../../../api/types/autoscaling-v2.js';
import * as s from '../../../../api/schemas/autoscaling.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { type Causes, invalid, isInt, isSet, oneOf, required } from '../../../validation/fields.js';
import { statusCounts } from '../../../validation/workload.js';
import { define, status } from '../../define.js';
import { age, column, n } from '../../columns.js';
import { convertHorizontalPodAutoscalers, v2FormOf } from './conversion.js';

/** an autoscaler in either version's form */
interface Hpa extends Omit<v2.HorizontalPodAutoscaler, 'apiVersion' | 'spec' | 'status'> {
  apiVersion?: string;
  spec?: Partial<v2.HorizontalPodAutoscalerSpec> & Partial<v1.HorizontalPodAutoscalerSpec>;
  status?: Partial<v2.HorizontalPodAutoscalerStatus> & Partial<v1.HorizontalPodAutoscalerStatus>;
}

const scaleUpDefaults = (): v2.HPAScalingRules => ({
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});
const scaleDownDefaults = (): v2.HPAScalingRules => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

function defaultHpa(hpa: Hpa) {
  const s = specOf(hpa);
  fill(s, { minReplicas: 1 });
  // the v2 form gets the 80% CPU default (a v1 body gets it on its way to storage, as a v2 object)
  if (!hpa.apiVersion?.endsWith('/v1') && !(s.metrics ?? []).length)
    s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  if (s.behavior && typeof s.behavior === 'object') {
    s.behavior.scaleUp = fill(s.behavior.scaleUp ?? {}, scaleUpDefaults());
    s.behavior.scaleDown = fill(s.behavior.scaleDown ?? {}, scaleDownDefaults());
  }
}

function validateHpa(hpa: Hpa): Causes {
  const s = hpa.spec ?? {};
  const out: Causes = [];
  const ref = s.scaleTargetRef;
  if (!ref?.kind) out.push(required('spec.scaleTargetRef.kind'));
  if (!ref?.name) out.push(required('spec.scaleTargetRef.name'));
  if (isSet(s.minReplicas) && s.minReplicas < 1) out.push(invalid('spec.minReplicas', s.minReplicas, 'must be greater than or equal to 1'));
  if (!isInt(s.maxReplicas) || s.maxReplicas < 1) out.push(invalid('spec.maxReplicas', s.maxReplicas ?? 0, 'must be greater than 0'));
  else if (isSet(s.minReplicas) && s.maxReplicas < s.minReplicas)
    out.push(invalid('spec.maxReplicas', s.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  if (isSet(s.targetCPUUtilizationPercentage) && s.targetCPUUtilizationPercentage < 1)
    out.push(invalid('spec.targetCPUUtilizationPercentage', s.targetCPUUtilizationPercentage, 'must be greater than 0'));
  for (const [i, m] of (s.metrics ?? []).entries())
    out.push(...oneOf(`spec.metrics[${i}].type`, m?.type, ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']));
  for (const dir of ['scaleUp', 'scaleDown'] as const) {
    const rules = s.behavior?.[dir];
    if (!rules) continue;
    const at = `spec.behavior.${dir}`;
    if (isSet(rules.selectPolicy)) out.push(...oneOf(`${at}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
    if (isSet(rules.stabilizationWindowSeconds) && !(rules.stabilizationWindowSeconds >= 0 && rules.stabilizationWindowSeconds <= 3600))
      out.push(invalid(`${at}.stabilizationWindowSeconds`, rules.stabilizationWindowSeconds, 'must be less than or equal to 3600'));
    for (const [i, p] of (rules.policies ?? []).entries()) {
      out.push(...oneOf(`${at}.policies[${i}].type`, p?.type, ['Percent', 'Pods']));
      if (!(p?.value > 0)) out.push(invalid(`${at}.policies[${i}].value`, p?.value ?? 0, 'must be greater than zero'));
      if (!(p?.periodSeconds > 0 && p.periodSeconds <= 1800)) out.push(invalid(`${at}.policies[${i}].periodSeconds`, p?.periodSeconds ?? 0, 'must be greater than zero and less than or equal to 1800'));
    }
  }
  return out;
}

export const strategy = defineStrategy<Stored<Hpa>>({
  generation: false,
  defaults: defaultHpa,
  prepareForCreate(hpa) { hpa.status = { desiredReplicas: 0 }; },
  validate: validateHpa,
  validateUpdate: validateHpa,
  validateStatusUpdate: hpa => statusCounts(hpa.status, ['currentReplicas', 'desiredReplicas']),
});

/** the field of a metric that holds its source, by the metric's type */
const sources = {
  ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource',
} as const satisfies Record<v2.MetricSpec['type'], Exclude<keyof v2.MetricSpec, 'type'>>;

/** one metric's current/target: utilization in percent (<auto> without a target), else the average value, else the
 * value; an External or Object metric's average says (avg), as the reference prints them */
function metricTarget(m: v2.MetricSpec, status: v2.MetricStatus | undefined): string {
  const source = sources[m.type];
  if (!source) return '<unknown type>';
  const target: Partial<v2.MetricTarget> = m[source]?.target ?? {};
  const cur: v2.MetricValueStatus | undefined = status?.[source]?.current;
  const avg = m.type === 'External' || m.type === 'Object' ? ' (avg)' : '';
  if (target.averageValue !== undefined && target.averageValue !== null) return `${cur?.averageValue ?? '<unknown>'}/${target.averageValue}${avg}`;
  if (m.type === 'Resource' || m.type === 'ContainerResource') {
    const current = cur?.averageUtilization === undefined || cur.averageUtilization === null ? '<unknown>' : `${cur.averageUtilization}%`;
    return `${current}/${target.averageUtilization === undefined || target.averageUtilization === null ? '<auto>' : `${target.averageUtilization}%`}`;
  }
  return `${cur?.value ?? '<unknown>'}/${target.value ?? ''}`;
}

/** the Targets cell: current/target per metric, at most the first two */
function hpaTargets(served: Hpa): string {
  // autoscaling/v1 carries one CPU target and keeps the other metrics in annotations: the reference prints either
  // version from one form, every metric included
  const hpa = served.apiVersion?.endsWith('/v1') ? v2FormOf(served as unknown as ApiObject) as Hpa : served;
  const metrics = hpa.spec?.metrics ?? [];
  if (!metrics.length) return '<none>';
  const current = hpa.status?.currentMetrics ?? [];
  const cells = metrics.map((m, i) => metricTarget(m, current[i]));
  return cells.length > 2 ? `${cells.slice(0, 2).join(', ')} + ${cells.length - 2} more...` : cells.join(', ');
}

const columns: TableColumn<Hpa>[] = [
  column('Reference', 'string', o => `${o.spec?.scaleTargetRef?.kind ?? ''}/${o.spec?.scaleTargetRef?.name ?? ''}`, 'Reference to the target resource'),
  column('Targets', 'string', hpaTargets, 'Targets of the autoscaler'),
  column('MinPods', 'string', o => String(o.spec?.minReplicas ?? '<unset>'), 'Minimum number of replicas'),
  column('MaxPods', 'integer', o => n(o.spec?.maxReplicas), 'Maximum number of replicas'),
  column('Replicas', 'integer', o => n(o.status?.currentReplicas), 'Current number of replicas'),
  age,
];

export const definition = define<Hpa>({
  group: 'autoscaling', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', shortNames: ['hpa'],
  categories: ['all'], namespaced: true,
  versions: [
    { name: 'v2', served: true, storage: true, schema: s.horizontalPodAutoscalerV2 },
    { name: 'v1', served: true, storage: false, schema: s.horizontalPodAutoscalerV1 },
  ],
  subresources: status, strategy, columns, convert: convertHorizontalPodAutoscalers,
});
