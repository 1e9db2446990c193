// The two forms of a HorizontalPodAutoscaler: v2 (stored) lists its metrics; v1 has one CPU utilization target
// and keeps what it has no field for in annotations (`autoscaling.alpha.<domain>/metrics`, `current-metrics`,
// `conditions`, `behavior`), in the older metric form of the v1 API, as the reference does, so a v1 client's
// read-modify-write keeps the other metrics, and `kubectl autoscale` (v1) and `kubectl describe hpa` (v2) agree.
import type { ApiObject } from '../../../../api/meta.js';
import type { Naming } from '../../../../api/naming.js';

type Json = Record<string, any>;

const annotationNames = (names: Naming) => {
  const at = (name: string) => `autoscaling.alpha.${names.labelDomain}/${name}`;
  return { metrics: at('metrics'), currentMetrics: at('current-metrics'), conditions: at('conditions'), behavior: at('behavior') };
};

const isCpuUtilization = (m: Json) =>
  m?.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.averageUtilization !== undefined;

const set = (o: Json, k: string, v: unknown) => { if (v !== undefined && v !== null) o[k] = v; };
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/**
 * A v2 metric (`part` target) or metric status (`part` current) in the v1 API's older form, which names the same
 * figures `targetAverageValue` in a metric and `currentAverageValue` in a status
 */
function metricPartToV1(m: Json, part: 'target' | 'current'): Json {
  const v: Json = m[sourceField(m.type)]?.[part] ?? {};
  const named = (rest: string) => `${part}${rest}`;
  switch (m.type) {
    case 'Resource': return { type: m.type, resource: defined({ name: m.resource?.name, [named('AverageUtilization')]: v.averageUtilization, [named('AverageValue')]: v.averageValue }) };
    case 'ContainerResource': return { type: m.type, containerResource: defined({ name: m.containerResource?.name, container: m.containerResource?.container, [named('AverageUtilization')]: v.averageUtilization, [named('AverageValue')]: v.averageValue }) };
    case 'Pods': return { type: m.type, pods: defined({ metricName: m.pods?.metric?.name, selector: m.pods?.metric?.selector, [named('AverageValue')]: v.averageValue }) };
    case 'Object': return { type: m.type, object: defined({ target: m.object?.describedObject, metricName: m.object?.metric?.name, selector: m.object?.metric?.selector, [named('Value')]: v.value, averageValue: v.averageValue }) };
    case 'External': return { type: m.type, external: defined({ metricName: m.external?.metric?.name, metricSelector: m.external?.metric?.selector, [named('Value')]: v.value, [named('AverageValue')]: v.averageValue }) };
    default: return m;
  }
}

/** a metric of the v1 API's older form in the v2 form */
function metricToV2(m: Json): Json {
  switch (m?.type) {
    case 'Resource': case 'ContainerResource': {
      const r = m.type === 'Resource' ? m.resource ?? {} : m.containerResource ?? {};
      const target = r.targetAverageUtilization === undefined
        ? defined({ type: 'AverageValue', averageValue: r.targetAverageValue })
        : defined({ type: 'Utilization', averageUtilization: r.targetAverageUtilization, averageValue: r.targetAverageValue });
      return { type: m.type, [sourceField(m.type)]: defined({ name: r.name, container: r.container, target }) };
    }
    case 'Pods': return { type: m.type, pods: { metric: defined({ name: m.pods?.metricName, selector: m.pods?.selector }), target: defined({ type: 'AverageValue', averageValue: m.pods?.targetAverageValue }) } };
    case 'Object': {
      const o = m.object ?? {};
      return { type: m.type, object: defined({ describedObject: o.target, metric: defined({ name: o.metricName, selector: o.selector }),
        target: defined({ type: o.averageValue === undefined ? 'Value' : 'AverageValue', value: o.targetValue, averageValue: o.averageValue }) }) };
    }
    case 'External': {
      const e = m.external ?? {};
      return { type: m.type, external: { metric: defined({ name: e.metricName, selector: e.metricSelector }),
        target: defined({ type: e.targetAverageValue === undefined ? 'Value' : 'AverageValue', value: e.targetValue, averageValue: e.targetAverageValue }) } };
    }
    default: return m;
  }
}

/** a metric status of the v1 API's older form in the v2 form */
function statusToV2(m: Json): Json {
  switch (m?.type) {
    case 'Resource': case 'ContainerResource': {
      const r = m.type === 'Resource' ? m.resource ?? {} : m.containerResource ?? {};
      return { type: m.type, [sourceField(m.type)]: defined({ name: r.name, container: r.container, current: defined({ averageUtilization: r.currentAverageUtilization, averageValue: r.currentAverageValue }) }) };
    }
    case 'Pods': return { type: m.type, pods: { metric: defined({ name: m.pods?.metricName, selector: m.pods?.selector }), current: defined({ averageValue: m.pods?.currentAverageValue }) } };
    case 'Object': return { type: m.type, object: defined({ describedObject: m.object?.target, metric: defined({ name: m.object?.metricName, selector: m.object?.selector }), current: defined({ value: m.object?.currentValue, averageValue: m.object?.averageValue }) }) };
    case 'External': return { type: m.type, external: { metric: defined({ name: m.external?.metricName, selector: m.external?.metricSelector }), current: defined({ value: m.external?.currentValue, averageValue: m.external?.currentAverageValue }) } };
    default: return m;
  }
}

function sourceField(type: string): string {
  return type === 'ContainerResource' ? 'containerResource' : String(type ?? '').charAt(0).toLowerCase() + String(type ?? '').slice(1);
}

function toV1(o: ApiObject, apiVersion: string, names: Naming): ApiObject {
  const a = annotationNames(names);
  const spec: Json = o.spec ?? {};
  const status: Json = o.status ?? {};
  const metrics: Json[] = Array.isArray(spec.metrics) ? spec.metrics : [];
  const current: Json[] = Array.isArray(status.currentMetrics) ? status.currentMetrics : [];
  const annotations: Record<string, string> = { ...o.metadata.annotations };
  const others = metrics.filter(m => !isCpuUtilization(m)).map(m => metricPartToV1(m, 'target'));
  if (others.length) annotations[a.metrics] = JSON.stringify(others);
  if (current.length) annotations[a.currentMetrics] = JSON.stringify(current.map(m => metricPartToV1(m, 'current')));
  if (spec.behavior) annotations[a.behavior] = JSON.stringify(spec.behavior);
  if (Array.isArray(status.conditions) && status.conditions.length) annotations[a.conditions] = JSON.stringify(status.conditions);
  const v1Spec: Json = {};
  set(v1Spec, 'scaleTargetRef', spec.scaleTargetRef);
  set(v1Spec, 'minReplicas', spec.minReplicas);
  set(v1Spec, 'maxReplicas', spec.maxReplicas);
  set(v1Spec, 'targetCPUUtilizationPercentage', metrics.find(isCpuUtilization)?.resource.target.averageUtilization);
  const v1Status: Json = {};
  set(v1Status, 'observedGeneration', status.observedGeneration);
  set(v1Status, 'lastScaleTime', status.lastScaleTime);
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  set(v1Status, 'currentCPUUtilizationPercentage',
    current.find(m => m?.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.current?.averageUtilization);
  const { annotations: _, ...rest } = o.metadata;
  const metadata = Object.keys(annotations).length ? { ...rest, annotations } : rest;
  return { ...o, apiVersion, metadata, spec: v1Spec, status: v1Status };
}

function toV2(o: ApiObject, apiVersion: string, names: Naming): ApiObject {
  const a = annotationNames(names);
  const spec: Json = o.spec ?? {};
  const status: Json = o.status ?? {};
  const annotations: Record<string, string> = { ...o.metadata.annotations };
  /** an annotation's JSON, taken out of the annotations when it parses */
  const take = (key: string): any => {
    if (annotations[key] === undefined) return undefined;
    try { const v = JSON.parse(annotations[key]!); delete annotations[key]; return v; } catch { return undefined; }
  };
  const others = take(a.metrics);
  const metrics: Json[] = Array.isArray(others) ? others.map(metricToV2) : [];
  if (spec.targetCPUUtilizationPercentage !== undefined && spec.targetCPUUtilizationPercentage !== null)
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  const v2Spec: Json = {};
  set(v2Spec, 'scaleTargetRef', spec.scaleTargetRef);
  set(v2Spec, 'minReplicas', spec.minReplicas);
  set(v2Spec, 'maxReplicas', spec.maxReplicas);
  // the v2 default, which the reference gives a v1 object when it reads it back from storage as v2
  v2Spec.metrics = metrics.length ? metrics : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  set(v2Spec, 'behavior', take(a.behavior));
  const v2Status: Json = {};
  set(v2Status, 'observedGeneration', status.observedGeneration);
  set(v2Status, 'lastScaleTime', status.lastScaleTime);
  set(v2Status, 'currentReplicas', status.currentReplicas);
  set(v2Status, 'desiredReplicas', status.desiredReplicas ?? 0);
  // the annotation holds every current metric, the CPU one included
  const current = take(a.currentMetrics);
  if (Array.isArray(current)) v2Status.currentMetrics = current.map(statusToV2);
  else if (status.currentCPUUtilizationPercentage !== undefined && status.currentCPUUtilizationPercentage !== null)
    v2Status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  set(v2Status, 'conditions', take(a.conditions));
  const { annotations: _, ...rest } = o.metadata;
  const metadata = Object.keys(annotations).length ? { ...rest, annotations } : rest;
  return { ...o, apiVersion, metadata, spec: v2Spec, status: v2Status };
}

/**
 * A v1 object in the v2 form, with the API domain its annotations are named in read from their names: for the Table,
 * which the reference prints from one form whichever version was asked for
 */
export function v2FormOf(o: ApiObject): ApiObject {
  const named = Object.keys(o.metadata.annotations ?? {}).map(k => /^autoscaling\.alpha\.(.+)\/(?:current-)?metrics$/.exec(k)).find(m => m);
  return toV2(o, o.apiVersion ?? '', { labelDomain: named?.[1] ?? '' } as Naming);
}

/** objects of either version to `toApiVersion` (autoscaling/v1 or autoscaling/v2) */
export async function convertHorizontalPodAutoscalers(objects: ApiObject[], toApiVersion: string, names: Naming): Promise<ApiObject[]> {
  return objects.map(o => {
    if (o.apiVersion === toApiVersion) return o;
    const v2 = o.apiVersion?.endsWith('/v1') ? toV2(o, toApiVersion.replace(/\/v1$/, '/v2'), names) : o;
    return toApiVersion.endsWith('/v1') ? toV1(v2, toApiVersion, names) : { ...v2, apiVersion: toApiVersion };
  });
}
