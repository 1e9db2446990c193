// One pod at a time, as the reference schedules: the scheduling cycle (PreFilter, Filter on enough
// nodes, PostFilter when none fits, PreScore, Score, the best node picked, the pod assumed there,
// Reserve, Permit) runs to its end before the next pod's; the binding cycle (PreBind, Bind, PostBind)
// of each pod goes on in the background, so bindings overlap with the next pods' cycles.
import { nowTimestamp } from '../api/meta.js';
import {
  isUnschedulable, newCycleState, type CycleState, type EventRecorder, type QueuedPodInfo, type SchedulerMetrics, type SchedulerWrites, type Status,
} from './framework.js';
import type { SchedulerCache } from './cache.js';
import { podInfo, podKey, type NodeInfo, type PodInfo } from './node-info.js';
import type { SchedulingQueue } from './queue.js';
import type { Framework } from './runtime.js';
import type { Pod, PodCondition } from './types.js';

/** below this many nodes every node is evaluated */
const minFeasibleNodesToFind = 100;
const minFeasibleNodesPercentageToFind = 5;
const basePercentageOfNodesToScore = 50;

export const noNodesAvailable = 'no nodes available to schedule pods';

/**
 * How many feasible nodes are enough: all of them in small clusters; otherwise the configured
 * percentage, or adaptively 50% less 1% per 125 nodes (at least 5%), and never fewer than 100.
 */
export function numFeasibleNodesToFind(percentage: number | undefined, numAllNodes: number): number {
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  let adaptive = percentage ?? 0;
  if (adaptive <= 0) {
    adaptive = basePercentageOfNodesToScore - Math.trunc(numAllNodes / 125);
    if (adaptive < minFeasibleNodesPercentageToFind) adaptive = minFeasibleNodesPercentageToFind;
  }
  if (adaptive >= 100) return numAllNodes;
  return Math.max(minFeasibleNodesToFind, Math.trunc((numAllNodes * adaptive) / 100));
}

/** why a pod fits nowhere: each node's status, and what PreFilter and PostFilter said */
export interface Diagnosis {
  statuses: Map<string, Status>;
  unschedulablePlugins: Set<string>;
  preFilterMsg?: string;
  postFilterMsg?: string;
}

/** `0/3 nodes are available: 1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu. preemption: ...` */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg) msg += ` ${d.preFilterMsg}.`;
  else {
    const counts = new Map<string, number>();
    for (const s of d.statuses.values()) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
    const histogram = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
    if (histogram.length) msg += ` ${histogram.join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}.`;
  return msg;
}

export interface SchedulerDeps {
  cache: SchedulerCache;
  queue: SchedulingQueue;
  /** profiles by scheduler name */
  frameworks: ReadonlyMap<string, Framework>;
  writes: SchedulerWrites;
  recorder: EventRecorder;
  /** the pod as the watch last reported it (undefined once deleted) */
  currentPod(key: string): Pod | undefined;
  /** the global percentageOfNodesToScore (undefined or 0: adaptive) */
  percentageOfNodesToScore?: number;
  /** binding cycles that may run at once before the next scheduling cycle waits */
  maxInFlightBindings?: number;
  metrics?: SchedulerMetrics;
  log: { info(m: string): void; warn(m: string): void };
}

type Failure = { status: Status; diagnosis?: Diagnosis; numAllNodes?: number; nominatedNodeName?: string };

export interface ScheduleOne {
  /** schedules the next pod of the queue; false once the queue is closed */
  next(): Promise<boolean>;
  /** resolves when the binding cycles under way have ended */
  drain(): Promise<void>;
}

export function scheduler(d: SchedulerDeps): ScheduleOne {
  let nextStartNodeIndex = 0;
  const inFlight = new Set<Promise<void>>();
  const maxInFlight = d.maxInFlightBindings ?? 512;
  /** resolves the next scheduling cycle waiting for a binding to end */
  let roomForOne: (() => void) | undefined;

  /** the nodes that pass every filter, enough of them to choose well, and why the others did not */
  function findNodesThatFit(fwk: Framework, state: CycleState, pod: PodInfo, nodes: NodeInfo[], diagnosis: Diagnosis): NodeInfo[] {
    const { result, status } = fwk.preFilter(state, pod, nodes);
    if (status) {
      if (!isUnschedulable(status)) throw new Error(status.reasons.join(', '));
      for (const n of nodes) diagnosis.statuses.set(n.name, status);
      diagnosis.preFilterMsg = status.reasons.join(', ');
      if (status.plugin) diagnosis.unschedulablePlugins.add(status.plugin);
      return [];
    }
    // a node nominated by an earlier preemption is tried first, and taken when it fits
    const nominated = pod.pod.status?.nominatedNodeName;
    if (nominated) {
      const n = d.cache.node(nominated);
      if (n && !fwk.filterWithNominated(state, pod, n, d.queue.nominatedPods(n.name))) return [n];
    }
    // nodes a PreFilter plugin ruled out are not evaluated (and, as in the reference, not counted in the reasons)
    const candidates = result.nodeNames ? nodes.filter((n) => result.nodeNames!.has(n.name)) : nodes;
    const wanted = numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? d.percentageOfNodesToScore, candidates.length);
    const feasible: NodeInfo[] = [];
    const start = candidates.length ? nextStartNodeIndex % candidates.length : 0;
    let processed = 0;
    for (; processed < candidates.length && feasible.length < wanted; processed++) {
      const n = candidates[(start + processed) % candidates.length]!;
      const s = fwk.filterWithNominated(state, pod, n, d.queue.nominatedPods(n.name));
      if (!s) feasible.push(n);
      else if (isUnschedulable(s)) {
        diagnosis.statuses.set(n.name, s);
        if (s.plugin) diagnosis.unschedulablePlugins.add(s.plugin);
      } else throw new Error(s.reasons.join(', '));
    }
    nextStartNodeIndex = (start + processed) % Math.max(1, candidates.length);
    return feasible;
  }

  /** the highest total score; ties are broken at random so equal nodes share the load */
  function selectHost(scores: { name: string; score: number }[]): string {
    let best = scores[0]!;
    let ties = 1;
    for (let i = 1; i < scores.length; i++) {
      const s = scores[i]!;
      if (s.score > best.score) { best = s; ties = 1; }
      else if (s.score === best.score && Math.random() * ++ties < 1) best = s;
    }
    return best.name;
  }

  /** the node for the pod, or why there is none */
  function schedulePod(fwk: Framework, state: CycleState, pod: PodInfo): { host: string } | Failure {
    const nodes = d.cache.nodes();
    if (!nodes.length) return { status: { code: 'UnschedulableAndUnresolvable', reasons: [noNodesAvailable] } };
    const diagnosis: Diagnosis = { statuses: new Map(), unschedulablePlugins: new Set() };
    const feasible = findNodesThatFit(fwk, state, pod, nodes, diagnosis);
    if (!feasible.length) return { status: { code: 'Unschedulable', reasons: [] }, diagnosis, numAllNodes: nodes.length };
    if (feasible.length === 1) return { host: feasible[0]!.name };
    const s = fwk.preScore(state, pod, feasible);
    if (s) throw new Error(s.reasons.join(', '));
    return { host: selectHost(fwk.score(state, pod, feasible)) };
  }

  async function handleFailure(fwk: Framework, p: QueuedPodInfo, cycle: number, f: Failure, started: number) {
    const unschedulable = isUnschedulable(f.status);
    d.metrics?.attempt(fwk.schedulerName, unschedulable ? 'unschedulable' : 'error', (performance.now() - started) / 1000);
    const message = f.diagnosis ? fitErrorMessage(f.numAllNodes ?? 0, f.diagnosis) : f.status.reasons.join(', ');
    const current = d.currentPod(p.info.key);
    // deleted meanwhile, or bound by someone else: nothing to report
    if (!current || current.metadata.uid !== p.info.pod.metadata.uid || current.spec.nodeName) return;
    p.info = podInfo(current);
    p.unschedulablePlugins = f.diagnosis?.unschedulablePlugins ?? new Set();
    d.queue.requeue(p, cycle, !unschedulable);
    if (f.nominatedNodeName !== undefined) d.queue.nominate(p.info, f.nominatedNodeName);
    if (!unschedulable) d.log.warn(`scheduling ${p.info.key}: ${message}`);
    d.recorder.event(current, undefined, 'Warning', 'FailedScheduling', 'Scheduling', message.slice(0, 1024));
    const condition: PodCondition = { type: 'PodScheduled', status: 'False', reason: unschedulable ? 'Unschedulable' : 'SchedulerError', message };
    await updatePodStatus(current, condition, f.nominatedNodeName).catch((e) => d.log.warn(`updating the status of ${p.info.key}: ${(e as Error).message}`));
  }

  /** writes the PodScheduled condition (and a nomination) unless the pod already shows them */
  async function updatePodStatus(pod: Pod, condition: PodCondition, nominatedNodeName: string | undefined) {
    const old = pod.status?.conditions?.find((c) => c.type === condition.type);
    const nominationChanges = nominatedNodeName !== undefined && (pod.status?.nominatedNodeName ?? '') !== nominatedNodeName;
    const same = old && old.status === condition.status && old.reason === condition.reason && old.message === condition.message;
    if (same && !nominationChanges) return;
    const lastTransitionTime = old && old.status === condition.status ? old.lastTransitionTime : nowTimestamp();
    const status: Record<string, unknown> = { conditions: [{ ...condition, lastProbeTime: null, lastTransitionTime }] };
    if (nominationChanges) status.nominatedNodeName = nominatedNodeName || null;
    await d.writes.patchPodStatus(pod, { status });
  }

  async function bindingCycle(fwk: Framework, state: CycleState, p: QueuedPodInfo, assumed: PodInfo, host: string, cycle: number, started: number) {
    const s = (await fwk.preBind(state, assumed, host)) ?? (await fwk.bind(state, assumed, host));
    if (s) {
      fwk.unreserve(state, assumed, host);
      d.cache.forget(assumed);
      // what the pod had taken is free again
      d.queue.moveOnEvent('Pod/Delete');
      return handleFailure(fwk, p, cycle, { status: s }, started);
    }
    fwk.postBind(state, assumed, host);
    d.metrics?.attempt(fwk.schedulerName, 'scheduled', (performance.now() - started) / 1000);
    d.recorder.event(p.info.pod, undefined, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${p.info.key} to ${host}`);
  }

  async function scheduleCycle(p: QueuedPodInfo) {
    const pod = p.info.pod;
    const fwk = d.frameworks.get(pod.spec.schedulerName ?? '');
    const cycle = d.queue.cycle;
    if (!fwk || pod.metadata.deletionTimestamp || d.cache.isAssumed(pod)) return;
    const started = performance.now();
    const state = newCycleState();
    let outcome: { host: string } | Failure;
    try {
      outcome = schedulePod(fwk, state, p.info);
    } catch (e) {
      outcome = { status: { code: 'Error', reasons: [(e as Error).message] } };
    }
    if (!('host' in outcome)) {
      if (outcome.diagnosis && isUnschedulable(outcome.status) && fwk.points.postFilter.length) {
        const { result, status } = await fwk.postFilter(state, p.info, outcome.diagnosis.statuses);
        if (status?.code === 'Error') d.log.warn(`preemption for ${p.info.key}: ${status.reasons.join(', ')}`);
        else if (status?.reasons.length) outcome.diagnosis.postFilterMsg = status.reasons.join(', ');
        outcome.nominatedNodeName = result?.nominatedNodeName;
      }
      return handleFailure(fwk, p, cycle, outcome, started);
    }
    const host = outcome.host;
    const assumed: PodInfo = { ...p.info, pod: { ...pod, spec: { ...pod.spec, nodeName: host } } };
    d.cache.assume(p.info, host);
    d.queue.nominate(p.info, '');
    const rejected = fwk.reserve(state, assumed, host) ?? fwk.permit(state, assumed, host);
    if (rejected) {
      fwk.unreserve(state, assumed, host);
      d.cache.forget(assumed);
      return handleFailure(fwk, p, cycle, { status: rejected }, started);
    }
    const binding = bindingCycle(fwk, state, p, assumed, host, cycle, started)
      .catch((e) => d.log.warn(`binding ${p.info.key}: ${(e as Error).message}`))
      .finally(() => {
        inFlight.delete(binding);
        roomForOne?.();
        roomForOne = undefined;
      });
    inFlight.add(binding);
  }

  return {
    async next() {
      while (inFlight.size >= maxInFlight) await new Promise<void>((r) => (roomForOne = r));
      const p = await d.queue.pop();
      if (!p) return false;
      await scheduleCycle(p).catch((e) => d.log.warn(`scheduling ${podKey(p.info.pod)}: ${(e as Error).stack ?? e}`));
      return true;
    },
    async drain() {
      await Promise.all([...inFlight]);
    },
  };
}
