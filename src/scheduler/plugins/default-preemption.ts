// PostFilter: when a pod fits nowhere, look for a node where removing pods of lower priority would
// let it fit, as the reference does: on each candidate node the fewest victims are kept (pods that
// would break a PodDisruptionBudget are spared first, then the most important ones), the best node is
// the one with the fewest budget violations, then the lowest highest victim priority, the lowest sum
// of priorities, the fewest victims and the latest start of its most important victims. The victims
// are marked with a DisruptionTarget condition and deleted, and the pod is nominated to the node.
import { nowTimestamp } from '../../api/meta.js';
import { labelSelectorFromObject, matchLabels } from '../../api/selectors.js';
import {
  cloneCycleState, podPriority, unresolvable, unschedulable,
  type CycleState, type Handle, type PluginSpec, type Status,
} from '../framework.js';
import { addPod, cloneNodeInfo, removePod, type NodeInfo, type PodInfo } from '../node-info.js';
import { fitErrorMessage } from '../schedule-one.js';
import type { Pod, PodDisruptionBudget } from '../types.js';

export const reasonNotHelpful = 'Preemption is not helpful for scheduling';
export const reasonNoVictims = 'No preemption victims found for incoming pod';

interface Args { minCandidateNodesPercentage?: number; minCandidateNodesAbsolute?: number }

interface Candidate { node: string; victims: PodInfo[]; pdbViolations: number }

const int32Max = 2 ** 31 - 1;

/** when the pod started (pods not started yet count as starting now) */
const startTime = (p: Pod) => (p.status?.startTime ? Date.parse(p.status.startTime) : Date.now());

/** higher priority first, then the one that started earlier */
export const moreImportant = (a: Pod, b: Pod) => podPriority(a) > podPriority(b) || (podPriority(a) === podPriority(b) && startTime(a) < startTime(b));
const byImportance = (a: PodInfo, b: PodInfo) => (moreImportant(a.pod, b.pod) ? -1 : moreImportant(b.pod, a.pod) ? 1 : 0);

/** splits pods (most important first) into those whose removal would break a disruption budget and the others */
function splitByBudget(pods: PodInfo[], budgets: (ns: string) => PodDisruptionBudget[]) {
  const allowed = new Map<PodDisruptionBudget, number>();
  const violating: PodInfo[] = [];
  const other: PodInfo[] = [];
  for (const p of pods) {
    let breaks = false;
    for (const pdb of budgets(p.pod.metadata.namespace ?? '')) {
      const sel = pdb.spec?.selector;
      if (!sel || (!sel.matchLabels && !sel.matchExpressions?.length)) continue;
      if (!matchLabels(labelSelectorFromObject(sel), p.pod.metadata.labels)) continue;
      // a pod the budget already counts as disrupted takes nothing more from it
      if (pdb.status?.disruptedPods?.[p.pod.metadata.name ?? '']) continue;
      const left = (allowed.get(pdb) ?? pdb.status?.disruptionsAllowed ?? 0) - 1;
      allowed.set(pdb, left);
      if (left < 0) breaks = true;
    }
    (breaks ? violating : other).push(p);
  }
  return { violating, other };
}

/** the candidate the reference would pick */
function pickOne(candidates: Candidate[]): Candidate {
  const criteria: ((c: Candidate) => number)[] = [
    (c) => -c.pdbViolations,
    (c) => -(c.victims.length ? podPriority(c.victims[0]!.pod) : -Infinity),
    (c) => -c.victims.reduce((sum, v) => sum + podPriority(v.pod) + int32Max + 1, 0),
    (c) => -c.victims.length,
    // the latest start among the earliest-started of the most important victims
    (c) => {
      const top = c.victims.length ? podPriority(c.victims[0]!.pod) : 0;
      return Math.min(...c.victims.filter((v) => podPriority(v.pod) === top).map((v) => startTime(v.pod)));
    },
  ];
  let best = candidates;
  for (const score of criteria) {
    if (best.length === 1) break;
    const max = Math.max(...best.map(score));
    best = best.filter((c) => score(c) === max);
  }
  return best[0]!;
}

export const defaultPreemption: PluginSpec = {
  name: 'DefaultPreemption',
  create: (rawArgs, handle: Handle) => {
    const args = rawArgs as Args;
    const minPercentage = args.minCandidateNodesPercentage ?? 10;
    const minAbsolute = args.minCandidateNodesAbsolute ?? 100;
    if (minPercentage < 0 || minPercentage > 100) throw new Error('DefaultPreemption: minCandidateNodesPercentage must be between 0 and 100');
    if (minAbsolute < 0) throw new Error('DefaultPreemption: minCandidateNodesAbsolute must not be negative');

    /** why the pod may not preempt now, or undefined when it may */
    function notEligible(pod: PodInfo, statuses: ReadonlyMap<string, Status>): string | undefined {
      if (pod.pod.spec.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
      const nominated = pod.pod.status?.nominatedNodeName;
      if (!nominated || statuses.get(nominated)?.code === 'UnschedulableAndUnresolvable') return undefined;
      // an earlier preemption is still under way there: wait for its victims to go
      const node = handle.node(nominated);
      if (node?.pods.some((p) => p.pod.metadata.deletionTimestamp && podPriority(p.pod) < podPriority(pod.pod))) {
        return 'not eligible due to a terminating pod on the nominated node.';
      }
      return undefined;
    }

    /** the fewest victims on the node that let the pod fit, or why there are none */
    function selectVictims(state: CycleState, pod: PodInfo, node: NodeInfo): { victims: PodInfo[]; pdbViolations: number } | Status {
      const take = (p: PodInfo) => { removePod(node, p.key); return handle.runPreFilterRemovePod(state, pod, p, node); };
      const put = (p: PodInfo) => { addPod(node, p); return handle.runPreFilterAddPod(state, pod, p, node); };
      const lower = node.pods.filter((p) => podPriority(p.pod) < podPriority(pod.pod));
      if (!lower.length) return unresolvable(reasonNoVictims);
      for (const p of lower) {
        const s = take(p);
        if (s) return s;
      }
      const fits = handle.runFilters(state, pod, node);
      if (fits) return fits;
      lower.sort(byImportance);
      const { violating, other } = splitByBudget(lower, (ns) => handle.disruptionBudgets(ns));
      const victims: PodInfo[] = [];
      let pdbViolations = 0;
      /** puts the pod back; if the preemptor no longer fits, the pod is a victim */
      const reprieve = (p: PodInfo) => {
        const s = put(p);
        if (s) return s;
        if (!handle.runFilters(state, pod, node)) return true;
        take(p);
        victims.push(p);
        return false;
      };
      for (const p of violating) if (reprieve(p) === false) pdbViolations++;
      for (const p of other) reprieve(p);
      victims.sort(byImportance);
      return { victims, pdbViolations };
    }

    async function evict(pod: PodInfo, c: Candidate) {
      const message = `${handle.schedulerName}: preempting to accommodate a higher priority pod`;
      await Promise.all(c.victims.map(async (v) => {
        await handle.writes.patchPodStatus(v.pod, {
          status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message, lastTransitionTime: nowTimestamp() }] },
        });
        await handle.writes.deletePod(v.pod);
        handle.recorder.event(v.pod, pod.pod, 'Normal', 'Preempted', 'Preempting', `Preempted by a pod on node ${c.node}`);
      }));
      // lower-priority pods nominated to the node may no longer fit there: they look again
      for (const other of handle.nominatedPods(c.node)) {
        if (podPriority(other.pod) < podPriority(pod.pod) && other.pod.status?.nominatedNodeName) {
          await handle.writes.patchPodStatus(other.pod, { status: { nominatedNodeName: null } });
        }
      }
    }

    return {
      name: 'DefaultPreemption',
      async postFilter(state, pod, statuses) {
        const ineligible = notEligible(pod, statuses);
        if (ineligible) return { status: unschedulable(`preemption: ${ineligible}`) };
        const outcome = new Map<string, Status>();
        const potential: NodeInfo[] = [];
        for (const n of handle.nodes()) {
          if (statuses.get(n.name)?.code === 'UnschedulableAndUnresolvable') outcome.set(n.name, unresolvable(reasonNotHelpful));
          else potential.push(n);
        }
        const candidates: Candidate[] = [];
        if (potential.length) {
          const wanted = Math.min(potential.length, Math.max(minAbsolute, Math.trunc((potential.length * minPercentage) / 100)));
          const offset = Math.floor(Math.random() * potential.length);
          let nonViolating = 0;
          for (let i = 0; i < potential.length && (nonViolating === 0 || candidates.length < wanted); i++) {
            const node = potential[(offset + i) % potential.length]!;
            const r = selectVictims(cloneCycleState(state), pod, cloneNodeInfo(node));
            if ('code' in r) { outcome.set(node.name, r); continue; }
            candidates.push({ node: node.name, ...r });
            if (!r.pdbViolations) nonViolating++;
          }
        }
        if (!candidates.length) {
          const message = fitErrorMessage(outcome.size, { statuses: outcome, unschedulablePlugins: new Set() });
          return { result: { nominatedNodeName: '' }, status: unschedulable(`preemption: ${message}`) };
        }
        const best = pickOne(candidates);
        await evict(pod, best);
        return { result: { nominatedNodeName: best.node } };
      },
    };
  },
};
