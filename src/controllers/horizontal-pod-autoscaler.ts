// The horizontal pod autoscaler: every --horizontal-pod-autoscaler-sync-period (15 s) each HorizontalPodAutoscaler's target is scaled (through its scale
// subresource) to what its Resource metrics ask for, read from the resource metrics API: for a utilization target,
// ceil(ready pods × current/target utilization of the pods' requests), left alone within a 10% tolerance; the
// largest of the metrics' counts wins, held within minReplicas and maxReplicas, no higher than double (or 4 more)
// at a step, and lowered only to the highest count recommended within the scale-down stabilization window (5 min by
// default). Pods, Object, External and ContainerResource metrics need metrics APIs this server does not serve: the
// autoscaler says so in its ScalingActive condition and leaves the target alone. Two autoscalers whose targets select
// the same pods would fight over them: each of them then reports AmbiguousSelector and scales nothing.
import { milliUnits, wholeUnits } from '../api/quantity.js';
import { resourceRef } from '../client/rest-client.js';
import { isNotFound } from '../client/rest-client.js';
import type { MetricSpec, MetricStatus, HorizontalPodAutoscalerCondition } from '../api/types/autoscaling-v2.js';
import { splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { HorizontalPodAutoscaler, Pod } from './types.js';
import { matchLabels, parseLabelSelector, type LabelSelector } from '../api/selectors.js';

const tolerance = 0.1;
const defaultDownscaleWindowSeconds = 300;

interface Scale { metadata: { resourceVersion?: string }; spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } }
interface PodUsage { name: string; containers: Array<{ name: string; usage: Record<string, string> }> }
interface Recommendation { at: number; replicas: number }

/** what one metric asks for: a replica count and the status it reports, or why it cannot tell */
type MetricResult = { replicas: number; status: MetricStatus; text: string } | { error: string; reason: string };

export const horizontalPodAutoscalerController: Controller = {
  name: 'horizontalpodautoscaling',
  component: 'horizontal-pod-autoscaler',
  start(ctx) {
    const hpaRef = resourceRef<HorizontalPodAutoscaler>('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler');
    const hpas = ctx.informers.informer(hpaRef);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const recommendations = new Map<string, Recommendation[]>();
    const targetSelectors = new Map<string, LabelSelector>();
    const queue = startQueue(ctx, async (key) => {
      const hpa = hpas.get(key);
      if (!hpa) { recommendations.delete(key); targetSelectors.delete(key); return; }
      await reconcile(ctx, hpa, key, (ns) => pods.list().filter((p) => p.metadata.namespace === ns), { recommendations, targetSelectors });
      return { requeueAfterMs: ctx.settings.hpaSyncPeriodMs };
    });
    hpas.addHandler({ added: (h) => queue.add(keyOf(h)), updated: (_, h) => queue.add(keyOf(h)), deleted: (h) => queue.add(keyOf(h)) });
  },
};

const keyOf = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace}/${o.metadata.name}`;

/** what the controller remembers between syncs, by autoscaler key: recent recommendations, and the selector of each
 *  autoscaler's target as last read from its scale */
interface Memory { recommendations: Map<string, Recommendation[]>; targetSelectors: Map<string, LabelSelector> }

async function reconcile(ctx: ControllerContext, hpa: HorizontalPodAutoscaler, key: string, podsIn: (ns: string) => Pod[],
  { recommendations, targetSelectors }: Memory) {
  const [namespace, name] = splitKey(key);
  const ref = hpa.spec.scaleTargetRef;
  const conditions: HorizontalPodAutoscalerCondition[] = [];
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string) =>
    conditions.push({ type, status, reason, message, lastTransitionTime: transitionTime(hpa, type, status) });
  const scalePath = await scalePathOf(ctx, namespace!, ref);
  if (!scalePath) {
    condition('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: no scale subresource for ${ref.kind} in ${ref.apiVersion}`);
    return writeStatus(ctx, hpa, { currentReplicas: hpa.status?.currentReplicas ?? 0, desiredReplicas: hpa.status?.desiredReplicas ?? 0, conditions });
  }
  let scale: Scale;
  try { scale = await ctx.client.request<Scale>({ method: 'GET', path: scalePath }); } catch (e) {
    if (!isNotFound(e)) throw e;
    ctx.recorder.event(withKind(hpa), 'Warning', 'FailedGetScale', `${ref.kind.toLowerCase()}s "${ref.name}" not found`);
    condition('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${ref.kind.toLowerCase()}s "${ref.name}" not found`);
    return writeStatus(ctx, hpa, { currentReplicas: hpa.status?.currentReplicas ?? 0, desiredReplicas: hpa.status?.desiredReplicas ?? 0, conditions });
  }
  const current = scale.spec?.replicas ?? 0;
  const min = hpa.spec.minReplicas ?? 1;
  const max = hpa.spec.maxReplicas;
  if (current === 0 && min !== 0) {
    condition('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    return writeStatus(ctx, hpa, { currentReplicas: 0, desiredReplicas: 0, conditions });
  }

  const selector = scale.status?.selector ? parseLabelSelector(scale.status.selector) : undefined;
  if (selector) targetSelectors.set(key, selector); else targetSelectors.delete(key);
  const underSelector = selector ? podsIn(namespace!).filter((p) => matchLabels(selector, p.metadata.labels ?? {})) : [];
  const rivals = autoscalersOf(underSelector, namespace!, targetSelectors);
  if (rivals.length > 1) {
    const message = `pods by selector ${scale.status!.selector} are controlled by multiple HPAs: [${rivals.join(' ')}]`;
    ctx.recorder.event(withKind(hpa), 'Warning', 'AmbiguousSelector', message);
    condition('AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale');
    condition('ScalingActive', 'False', 'AmbiguousSelector', message);
    return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? current, conditions });
  }
  const selected = underSelector.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded');
  const usage = selector ? await podUsage(ctx, namespace!, scale.status!.selector!) : new Map<string, PodUsage>();
  const results = (hpa.spec.metrics ?? []).map((m) => metricReplicas(m, selected, usage, current));
  const counted = results.filter((r): r is Extract<MetricResult, { replicas: number }> => 'replicas' in r);
  const failed = results.find((r): r is Extract<MetricResult, { error: string }> => 'error' in r);
  if (!counted.length) {
    const reason = failed?.reason ?? 'FailedGetResourceMetric';
    const message = failed?.error ?? 'no metrics to scale on';
    ctx.recorder.event(withKind(hpa), 'Warning', reason, message);
    condition('AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale');
    condition('ScalingActive', 'False', reason, `the HPA was unable to compute the replica count: ${message}`);
    return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? current, conditions });
  }
  const best = counted.reduce((a, b) => (b.replicas > a.replicas ? b : a));

  // stabilization: up to the lowest count recommended within the up window, down to the highest within the down window
  const now = Date.now();
  const upWindowMs = (hpa.spec.behavior?.scaleUp?.stabilizationWindowSeconds ?? 0) * 1000;
  const downWindowMs = (hpa.spec.behavior?.scaleDown?.stabilizationWindowSeconds ?? defaultDownscaleWindowSeconds) * 1000;
  const history = (recommendations.get(key) ?? []).filter((r) => now - r.at <= Math.max(upWindowMs, downWindowMs));
  history.push({ at: now, replicas: best.replicas });
  recommendations.set(key, history);
  const upFloor = Math.min(...history.filter((r) => now - r.at <= upWindowMs).map((r) => r.replicas));
  const downCeiling = Math.max(...history.filter((r) => now - r.at <= downWindowMs).map((r) => r.replicas));
  let desired = current;
  if (desired < upFloor) desired = upFloor;
  if (desired > downCeiling) desired = downCeiling;
  // the default scale-up policies: at most 4 pods or 100% more per period, whichever is more
  const upLimit = Math.max(current * 2, current + 4);
  let limited: 'TooFewReplicas' | 'TooManyReplicas' | 'ScaleUpLimit' | undefined;
  if (desired > upLimit) { desired = upLimit; limited = 'ScaleUpLimit'; }
  if (desired > max) { desired = max; limited = 'TooManyReplicas'; }
  if (desired < min) { desired = min; limited = 'TooFewReplicas'; }

  condition('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${best.text}`);
  condition('ScalingLimited', limited ? 'True' : 'False', limited ?? 'DesiredWithinRange',
    limited === 'TooManyReplicas' ? 'the desired replica count is more than the maximum replica count'
      : limited === 'TooFewReplicas' ? 'the desired replica count is less than the minimum replica count'
        : limited === 'ScaleUpLimit' ? 'the desired replica count is increasing faster than the maximum scale rate'
          : 'the desired count is within the acceptable range');
  let lastScaleTime = hpa.status?.lastScaleTime;
  if (desired !== current) {
    await ctx.client.request({ method: 'PUT', path: scalePath, body: { ...scale, spec: { ...scale.spec, replicas: desired } } });
    lastScaleTime = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    const reason = desired > current ? `${best.text} above target` : 'All metrics below target';
    ctx.recorder.event(withKind(hpa), 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    conditions.unshift({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}`, lastTransitionTime: transitionTime(hpa, 'AbleToScale', 'True') });
  } else {
    conditions.unshift({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size', lastTransitionTime: transitionTime(hpa, 'AbleToScale', 'True') });
  }
  return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: desired, currentMetrics: counted.map((r) => r.status), conditions, ...(lastScaleTime ? { lastScaleTime } : {}) });
}

/** the autoscalers (keys, sorted) whose targets select any of these pods of a namespace */
function autoscalersOf(pods: Pod[], namespace: string, targetSelectors: Map<string, LabelSelector>): string[] {
  const found: string[] = [];
  for (const [key, selector] of targetSelectors) {
    if (key.startsWith(`${namespace}/`) && pods.some((p) => matchLabels(selector, p.metadata.labels ?? {}))) found.push(key);
  }
  return found.sort();
}

/** the replicas one Resource metric asks for, from the selected pods' usage and requests */
function metricReplicas(m: MetricSpec, pods: Pod[], usage: Map<string, PodUsage>, current: number): MetricResult {
  if (m.type !== 'Resource' || !m.resource) {
    return { reason: `FailedGet${m.type}Metric`, error: `${m.type} metrics are not served by this server's metrics API` };
  }
  const resource = m.resource.name;
  const amount = resource === 'cpu' ? milliUnits : wholeUnits;
  let used = 0, requested = 0, counted = 0;
  for (const pod of pods) {
    const u = usage.get(pod.metadata.name!);
    if (!u || pod.status?.phase !== 'Running') continue;
    for (const c of pod.spec.containers) {
      const request = c.resources?.requests?.[resource];
      if (m.resource.target.type === 'Utilization' && request === undefined)
        return { reason: 'FailedGetResourceMetric', error: `failed to get ${resource} utilization: missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}` };
      requested += amount(request ?? 0);
    }
    for (const c of u.containers) used += amount(c.usage[resource] ?? 0);
    counted++;
  }
  if (!counted) return { reason: 'FailedGetResourceMetric', error: `failed to get ${resource} utilization: did not receive metrics for targeted pods (pods might be unready)` };
  const average = used / counted;
  const averageValue = resource === 'cpu' ? `${Math.round(average)}m` : String(Math.round(average));
  if (m.resource.target.type === 'Utilization') {
    const utilization = Math.floor((used * 100) / requested);
    const target = m.resource.target.averageUtilization ?? 80;
    const ratio = utilization / target;
    const replicas = Math.abs(1 - ratio) <= tolerance ? current : Math.ceil(ratio * counted);
    return { replicas, text: `${resource} resource utilization (percentage of request)`,
      status: { type: 'Resource', resource: { name: resource, current: { averageUtilization: utilization, averageValue } } } };
  }
  const target = amount(m.resource.target.averageValue ?? 0);
  const ratio = target > 0 ? average / target : 0;
  const replicas = Math.abs(1 - ratio) <= tolerance ? current : Math.ceil(used / target);
  return { replicas, text: `${resource} resource`, status: { type: 'Resource', resource: { name: resource, current: { averageValue } } } };
}

/** the pods' usage from the resource metrics API, by pod name */
async function podUsage(ctx: ControllerContext, namespace: string, labelSelector: string): Promise<Map<string, PodUsage>> {
  const list = await ctx.client.request<{ items: Array<{ metadata: { name: string }; containers?: PodUsage['containers'] }> }>({
    method: 'GET', path: `/apis/${ctx.names.group('metrics')}/v1beta1/namespaces/${namespace}/pods`, query: { labelSelector },
  }).catch(() => ({ items: [] }));
  return new Map(list.items.map((i) => [i.metadata.name, { name: i.metadata.name, containers: i.containers ?? [] }]));
}

/** the path of the target's scale subresource, found through discovery by the reference's kind and group */
async function scalePathOf(ctx: ControllerContext, namespace: string, ref: { apiVersion?: string; kind: string; name: string }): Promise<string | undefined> {
  const [group, version] = ref.apiVersion?.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion ?? 'v1'];
  const found = (await ctx.discover()).find((r) => r.group === group && r.version === version && r.kind === ref.kind && r.subresources.includes('scale'));
  if (!found) return undefined;
  return `${found.group ? `/apis/${found.group}` : '/api'}/${found.version}/namespaces/${namespace}/${found.resource}/${ref.name}/scale`;
}

/** a condition keeps its transition time while its status stays */
function transitionTime(hpa: HorizontalPodAutoscaler, type: string, status: string): string {
  const before = hpa.status?.conditions?.find((c) => c.type === type);
  return before && before.status === status && before.lastTransitionTime ? before.lastTransitionTime : new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

const withKind = (hpa: HorizontalPodAutoscaler) => ({ ...hpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });

async function writeStatus(ctx: ControllerContext, hpa: HorizontalPodAutoscaler, status: NonNullable<HorizontalPodAutoscaler['status']>) {
  const next = { ...status, ...(hpa.metadata.generation !== undefined ? { observedGeneration: hpa.metadata.generation } : {}) };
  if (JSON.stringify(next) === JSON.stringify(hpa.status)) return;
  await ctx.client.request({
    method: 'PUT', path: `/apis/autoscaling/v2/namespaces/${hpa.metadata.namespace}/horizontalpodautoscalers/${hpa.metadata.name}/status`,
    body: { ...withKind(hpa), status: next },
  }).catch((e) => { if (!isNotFound(e)) throw e; });
}
