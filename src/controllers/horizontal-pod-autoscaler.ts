// The horizontal pod autoscaler: every --horizontal-pod-autoscaler-sync-period (15 s) each HorizontalPodAutoscaler's target is scaled (through its scale
// subresource) to what its Resource metrics ask for, read from the resource metrics API: for a utilization target,
// ceil(ready pods × current/target utilization of the pods' requests), left alone within a 10% tolerance; the
// largest of the metrics' counts wins. Without spec.behavior it is raised to the highest count recommended within
// the last 5 minutes, and held within minReplicas and maxReplicas, no higher than double (or 4) at a step; with
// behavior, the stabilization windows of both directions hold it and the scaling policies (Pods, Percent,
// selectPolicy) limit each step from the count at the start of their periods. A target outside [min, max] is
// brought to the bound whatever the metrics. Pods, Object, External and ContainerResource metrics need metrics APIs this server does not serve: the
// autoscaler says so in its ScalingActive condition and leaves the target alone. Two autoscalers whose targets select
// the same pods would fight over them: each of them then reports AmbiguousSelector and scales nothing.
import { canonicalQuantity, milliUnits, wholeUnits } from '../api/quantity.js';
import { resourceRef } from '../client/rest-client.js';
import { isNotFound } from '../client/rest-client.js';
import type { MetricSpec, MetricStatus, HorizontalPodAutoscalerBehavior, HorizontalPodAutoscalerCondition } from '../api/types/autoscaling-v2.js';
import { splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { HorizontalPodAutoscaler, Pod } from './types.js';
import { matchLabels, parseLabelSelector, type LabelSelector } from '../api/selectors.js';

const tolerance = 0.1;
const defaultDownscaleWindowSeconds = 300;

interface Scale { metadata: { resourceVersion?: string }; spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } }
interface PodUsage { name: string; containers: Array<{ name: string; usage: Record<string, string> }> }
interface Recommendation { at: number; replicas: number }
/** a rescale this controller made: when, and by how many replicas (up or down) */
interface ScaleEvent { at: number; change: number }

/** what one metric asks for: a replica count and the status it reports, or why it cannot tell */
type MetricResult = { replicas: number; status: MetricStatus; text: string } | { error: string; reason: string };

/** what the reference names a metric's value in its FailedComputeMetricsReplicas event */
const metricValueName = (m: MetricSpec) => m.type === 'Resource' ? `${m.resource?.name} resource metric value`
  : m.type === 'ContainerResource' ? `${m.containerResource?.name} container metric value` : `${m.type.toLowerCase()} metric value`;

export const horizontalPodAutoscalerController: Controller = {
  name: 'horizontalpodautoscaling',
  component: 'horizontal-pod-autoscaler',
  start(ctx) {
    const hpaRef = resourceRef<HorizontalPodAutoscaler>('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler');
    const hpas = ctx.informers.informer(hpaRef);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const memory: Memory = { recommendations: new Map(), targetSelectors: new Map(), scaleUps: new Map(), scaleDowns: new Map() };
    const queue = startQueue(ctx, async (key) => {
      const hpa = hpas.get(key);
      if (!hpa) { for (const m of Object.values(memory)) m.delete(key); return; }
      await reconcile(ctx, hpa, key, (ns) => pods.list().filter((p) => p.metadata.namespace === ns), memory);
      return { requeueAfterMs: ctx.settings.hpaSyncPeriodMs };
    });
    // As the reference, an autoscaler is looked at once a sync period, whatever changes it: a change (its own status
    // write among them) waits for the next turn, so one turn's rescale is not followed at once by another on metrics
    // that do not show the new pods yet.
    const later = (h: HorizontalPodAutoscaler) => queue.addAfter(keyOf(h), ctx.settings.hpaSyncPeriodMs);
    hpas.addHandler({ added: later, updated: (_, h) => later(h), deleted: (h) => queue.add(keyOf(h)) });
  },
};

const keyOf = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace}/${o.metadata.name}`;

/** what the controller remembers between syncs, by autoscaler key: recent recommendations, and the selector of each
 *  autoscaler's target as last read from its scale */
export interface Memory {
  recommendations: Map<string, Recommendation[]>; targetSelectors: Map<string, LabelSelector>;
  scaleUps: Map<string, ScaleEvent[]>; scaleDowns: Map<string, ScaleEvent[]>;
}

async function reconcile(ctx: ControllerContext, hpa: HorizontalPodAutoscaler, key: string, podsIn: (ns: string) => Pod[], memory: Memory) {
  const { targetSelectors } = memory;
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
  // a target outside [min, max] is brought to the bound first, whatever the metrics say (or fail to say)
  if (current > max || current < min) {
    const desired = current > max ? max : min;
    await ctx.client.request({ method: 'PUT', path: scalePath, body: { ...scale, spec: { ...scale.spec, replicas: desired } } });
    ctx.recorder.event(withKind(hpa), 'Normal', 'SuccessfulRescale',
      `New size: ${desired}; reason: Current number of replicas ${current > max ? 'above Spec.MaxReplicas' : 'below Spec.MinReplicas'}`);
    condition('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
    conditions.push(...(hpa.status?.conditions ?? []).filter((c) => c.type !== 'AbleToScale'));
    return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: desired, conditions, lastScaleTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
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
  const invalid = results.flatMap((r, i) => ('error' in r ? [{ ...r, spec: hpa.spec.metrics![i]! }] : []));
  for (const f of invalid) ctx.recorder.event(withKind(hpa), 'Warning', f.reason, f.error);
  const highest = counted.length ? counted.reduce((a, b) => (b.replicas > a.replicas ? b : a)) : undefined;
  // as the reference: no metric, or a metric missing while the others would scale down, leaves the target alone
  // (what the missing metric would ask for is not known)
  if (!highest || (invalid.length && highest.replicas < current)) {
    const first = invalid[0];
    const reason = first?.reason ?? 'FailedGetResourceMetric';
    const message = first?.error ?? 'no metrics to scale on';
    if (first) ctx.recorder.event(withKind(hpa), 'Warning', 'FailedComputeMetricsReplicas',
      `invalid metrics (${invalid.length} invalid out of ${results.length}), first error is: failed to get ${metricValueName(first.spec)}: ${message}`);
    condition('AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale');
    condition('ScalingActive', 'False', reason, `the HPA was unable to compute the replica count: ${message}`);
    return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? current, conditions });
  }
  const best = highest;
  const now = Date.now();
  const step = hpa.spec.behavior
    ? withBehavior(hpa.spec.behavior, key, current, best.replicas, min, max, memory, now)
    : withoutBehavior(key, current, best.replicas, min, max, memory, now);
  const desired = step.desired;
  condition('ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${best.text}`);
  condition('ScalingLimited', step.limited.status, step.limited.reason, step.limited.message);
  let lastScaleTime = hpa.status?.lastScaleTime;
  if (desired !== current) {
    await ctx.client.request({ method: 'PUT', path: scalePath, body: { ...scale, spec: { ...scale.spec, replicas: desired } } });
    lastScaleTime = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    if (hpa.spec.behavior) remember(desired > current ? memory.scaleUps : memory.scaleDowns, key, { at: now, change: Math.abs(desired - current) });
    const reason = best.replicas > current ? `${best.text} above target` : 'All metrics below target';
    ctx.recorder.event(withKind(hpa), 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    conditions.unshift({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}`, lastTransitionTime: transitionTime(hpa, 'AbleToScale', 'True') });
  } else {
    conditions.unshift({ type: 'AbleToScale', status: 'True', reason: step.able.reason, message: step.able.message, lastTransitionTime: transitionTime(hpa, 'AbleToScale', 'True') });
  }
  return writeStatus(ctx, hpa, { currentReplicas: current, desiredReplicas: desired, currentMetrics: counted.map((r) => r.status), conditions, ...(lastScaleTime ? { lastScaleTime } : {}) });
}

/** where one turn lands: the replica count, what the AbleToScale condition says when it does not rescale, and the ScalingLimited condition */
export interface Step { desired: number; able: { reason: string; message: string }; limited: { status: 'True' | 'False'; reason: string; message: string } }

const readyForNewScale = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const withinRange = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const limitMessages: Record<string, string> = {
  TooManyReplicas: 'the desired replica count is more than the maximum replica count',
  TooFewReplicas: 'the desired replica count is less than the minimum replica count',
  ScaleUpLimit: 'the desired replica count is increasing faster than the maximum scale rate',
  ScaleDownLimit: 'the desired replica count is decreasing faster than the maximum scale rate',
};

/** adds an entry at its time, dropping those older than `keepMs` (a policy's period is at most 30 minutes) */
function remember<T extends { at: number }>(byKey: Map<string, T[]>, key: string, entry: T, keepMs = 1_800_000) {
  byKey.set(key, [...(byKey.get(key) ?? []).filter((e) => entry.at - e.at <= keepMs), entry]);
}

/** the clamp of the result to the step limit and to [min, max], named as the reference names the limit that held */
function limitStep(stabilized: number, lowest: number, lowestReason: string, highest: number, highestReason: string): Step['limited'] & { desired: number } {
  if (stabilized < lowest) return { desired: lowest, status: 'True', reason: lowestReason, message: limitMessages[lowestReason]! };
  if (stabilized > highest) return { desired: highest, status: 'True', reason: highestReason, message: limitMessages[highestReason]! };
  return { desired: stabilized, status: 'False', ...withinRange };
}

/**
 * An autoscaler without behavior: the highest recommendation of the downscale stabilization window (5 minutes),
 * then at most double the current replicas (or 4) and within [min, max].
 */
export function withoutBehavior(key: string, current: number, proposed: number, min: number, max: number, memory: Memory, now: number): Step {
  const windowMs = defaultDownscaleWindowSeconds * 1000;
  const recent = (memory.recommendations.get(key) ?? []).filter((r) => now - r.at < windowMs);
  const stabilized = Math.max(proposed, ...recent.map((r) => r.replicas));
  remember(memory.recommendations, key, { at: now, replicas: proposed }, windowMs);
  const able = stabilized !== proposed
    ? { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
    : readyForNewScale;
  const upLimit = Math.max(2 * current, 4);
  const { desired, ...limited } = max > upLimit
    ? limitStep(stabilized, min, 'TooFewReplicas', upLimit, 'ScaleUpLimit')
    : limitStep(stabilized, min, 'TooFewReplicas', max, 'TooManyReplicas');
  return { desired, able, limited };
}

type Rules = NonNullable<HorizontalPodAutoscalerBehavior['scaleUp']>;
const defaultScaleUp: Rules = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const defaultScaleDown: Rules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** replicas added (or removed) by this controller's rescales within the last `periodSeconds` */
const changedWithin = (events: ScaleEvent[] | undefined, periodSeconds: number, now: number) =>
  (events ?? []).filter((e) => now - e.at < periodSeconds * 1000).reduce((n, e) => n + e.change, 0);

/**
 * The farthest the replicas may go in one direction under the rules' policies: each policy allows a change from
 * the count at the start of its period (Pods: a number, Percent: a share, rounded up when growing and down when
 * shrinking); selectPolicy Max takes the policy allowing the largest change, Min the smallest, Disabled none.
 */
function policyLimit(rules: Rules, up: boolean, current: number, key: string, memory: Memory, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const proposals = (rules.policies ?? []).map((p) => {
    const start = current - changedWithin(memory.scaleUps.get(key), p.periodSeconds, now) + changedWithin(memory.scaleDowns.get(key), p.periodSeconds, now);
    if (p.type === 'Pods') return up ? start + p.value : start - p.value;
    return up ? Math.ceil(start * (1 + p.value / 100)) : Math.trunc(start * (1 - p.value / 100));
  });
  if (!proposals.length) return current;
  const largestChange = rules.selectPolicy !== 'Min';
  return up === largestChange ? Math.max(...proposals) : Math.min(...proposals);
}

/**
 * An autoscaler with behavior: the recommendation is held between the lowest recommendation of the scale-up
 * stabilization window and the highest of the scale-down one, then the policies of its direction limit the step.
 */
export function withBehavior(behavior: HorizontalPodAutoscalerBehavior, key: string, current: number, proposed: number, min: number, max: number, memory: Memory, now: number): Step {
  const up = { ...defaultScaleUp, ...behavior.scaleUp };
  const down = { ...defaultScaleDown, ...behavior.scaleDown };
  const upWindowMs = (up.stabilizationWindowSeconds ?? 0) * 1000;
  const downWindowMs = (down.stabilizationWindowSeconds ?? defaultDownscaleWindowSeconds) * 1000;
  const past = memory.recommendations.get(key) ?? [];
  const upFloor = Math.min(proposed, ...past.filter((r) => now - r.at < upWindowMs).map((r) => r.replicas));
  const downCeiling = Math.max(proposed, ...past.filter((r) => now - r.at < downWindowMs).map((r) => r.replicas));
  const stabilized = Math.min(Math.max(current, upFloor), downCeiling);
  remember(memory.recommendations, key, { at: now, replicas: proposed }, Math.max(upWindowMs, downWindowMs));
  const able = stabilized === proposed ? readyForNewScale : proposed >= current
    ? { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
    : { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
  if (stabilized > current) {
    const upLimit = Math.max(current, policyLimit(up, true, current, key, memory, now));
    const { desired, ...limited } = max > upLimit ? limitStep(stabilized, -Infinity, '', upLimit, 'ScaleUpLimit') : limitStep(stabilized, -Infinity, '', max, 'TooManyReplicas');
    return { desired, able, limited };
  }
  if (stabilized < current) {
    const downLimit = Math.min(current, policyLimit(down, false, current, key, memory, now));
    const { desired, ...limited } = min < downLimit ? limitStep(stabilized, downLimit, 'ScaleDownLimit', Infinity, '') : limitStep(stabilized, min, 'TooFewReplicas', Infinity, '');
    return { desired, able, limited };
  }
  return { desired: stabilized, able, limited: { status: 'False', ...withinRange } };
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
export function metricReplicas(m: MetricSpec, pods: Pod[], usage: Map<string, PodUsage>, current: number): MetricResult {
  if (m.type !== 'Resource' || !m.resource) {
    return { reason: `FailedGet${m.type}Metric`, error: `${m.type} metrics are not served by this server's metrics API` };
  }
  const resource = m.resource.name;
  const amount = resource === 'cpu' ? milliUnits : wholeUnits;
  let used = 0, usedMilli = 0, requested = 0, counted = 0;
  for (const pod of pods) {
    const u = usage.get(pod.metadata.name!);
    if (!u || pod.status?.phase !== 'Running') continue;
    for (const c of pod.spec.containers) {
      const request = c.resources?.requests?.[resource];
      if (m.resource.target.type === 'Utilization' && request === undefined)
        return { reason: 'FailedGetResourceMetric', error: `failed to get ${resource} utilization: missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}` };
      requested += amount(request ?? 0);
    }
    for (const c of u.containers) { used += amount(c.usage[resource] ?? 0); usedMilli += milliUnits(c.usage[resource] ?? 0); }
    counted++;
  }
  if (!counted) return { reason: 'FailedGetResourceMetric', error: `failed to get ${resource} utilization: did not receive metrics for targeted pods (pods might be unready)` };
  const average = used / counted;
  // as the reference reports it: the average in thousandths of a unit for every resource, cut to a whole thousandth
  const averageValue = String(canonicalQuantity(`${Math.trunc(usedMilli / counted)}m`));
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
