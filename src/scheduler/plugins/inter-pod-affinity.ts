// Filter: the pod's required affinity (some matching pod in the node's topology domain) and
// anti-affinity (none there), and the required anti-affinity of pods already placed. Score: the
// weights of preferred affinity and anti-affinity terms, both the pod's and those of placed pods
// towards it (their required affinity counting with hardPodAffinityWeight; none of them for a pod without preferred
// terms when ignorePreferredTermsOfExistingPods is set).
import {
  allPodEvents, errorStatus, maxNodeScore, readState, skip, unresolvable, unschedulable,
  type CycleState, type Handle, type PluginSpec, type Status,
} from '../framework.js';
import { termMatches, type AffinityTerm, type NodeInfo, type PodInfo } from '../node-info.js';
import type { Pod } from '../types.js';

export const reasonAffinity = "node(s) didn't match pod affinity rules";
export const reasonAntiAffinity = "node(s) didn't match pod anti-affinity rules";
export const reasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules";

const preFilterKey = 'PreFilter/InterPodAffinity';
const preScoreKey = 'PreScore/InterPodAffinity';

/** counts of matching pods by topology pair (`key=value`) */
type Counts = Map<string, number>;
const pair = (key: string, value: string) => `${key}\u0000${value}`;

function bump(counts: Counts, key: string, value: string, by: number) {
  const k = pair(key, value);
  const n = (counts.get(k) ?? 0) + by;
  if (n === 0) counts.delete(k);
  else counts.set(k, n);
}

interface FilterState {
  /** domains where a placed pod's required anti-affinity selects the incoming pod */
  existingAnti: Counts;
  /** domains with pods the incoming pod's required affinity terms select */
  affinity: Counts;
  /** domains with pods the incoming pod's required anti-affinity terms select */
  anti: Counts;
  clone(): FilterState;
}

function filterState(existingAnti: Counts = new Map(), affinity: Counts = new Map(), anti: Counts = new Map()): FilterState {
  return { existingAnti, affinity, anti, clone: () => filterState(new Map(existingAnti), new Map(affinity), new Map(anti)) };
}

export const interPodAffinity: PluginSpec = {
  name: 'InterPodAffinity',
  create: (rawArgs, handle: Handle) => {
    const args = rawArgs as { hardPodAffinityWeight?: number; ignorePreferredTermsOfExistingPods?: boolean };
    const hardPodAffinityWeight = args.hardPodAffinityWeight ?? 1;
    const nsLabels = (ns: string) => handle.namespaceLabels(ns);
    const matches = (term: AffinityTerm, pod: Pod) => termMatches(term, pod, nsLabels);

    /** adds (or with -1 removes) what `other`, placed on `node`, contributes to the incoming pod's counts */
    function account(s: FilterState, pod: PodInfo, other: PodInfo, node: NodeInfo, sign: number) {
      const labels = node.node.metadata.labels ?? {};
      for (const term of other.requiredAntiAffinity) {
        const value = labels[term.topologyKey];
        if (value !== undefined && matches(term, pod.pod)) bump(s.existingAnti, term.topologyKey, value, sign);
      }
      for (const [terms, counts] of [[pod.requiredAffinity, s.affinity], [pod.requiredAntiAffinity, s.anti]] as const) {
        for (const term of terms) {
          const value = labels[term.topologyKey];
          if (value !== undefined && matches(term, other.pod)) bump(counts, term.topologyKey, value, sign);
        }
      }
    }

    const onNodeChange = (sign: number) => (state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo): Status | undefined => {
      const s = state.data.get(preFilterKey) as FilterState | undefined;
      if (s) account(s, pod, other, node, sign);
      return undefined;
    };

    function satisfiesAffinity(s: FilterState, pod: PodInfo, labels: Record<string, string>): boolean {
      let podsExist = true;
      for (const term of pod.requiredAffinity) {
        const value = labels[term.topologyKey];
        if (value === undefined) return false;
        if (!s.affinity.get(pair(term.topologyKey, value))) podsExist = false;
      }
      // the first pod of a group whose terms select itself may go anywhere that has the topology keys
      return podsExist || (s.affinity.size === 0 && pod.requiredAffinity.every((t) => matches(t, pod.pod)));
    }

    const inDomainOf = (counts: Counts, terms: AffinityTerm[], labels: Record<string, string>) =>
      terms.some((t) => labels[t.topologyKey] !== undefined && !!counts.get(pair(t.topologyKey, labels[t.topologyKey]!)));

    return {
      name: 'InterPodAffinity',
      events: [...allPodEvents, 'Node/Add', 'Node/UpdateNodeLabel'],
      preFilter(state, pod, nodes) {
        if (pod.parseError) return errorStatus(pod.parseError);
        const ownTerms = pod.requiredAffinity.length + pod.requiredAntiAffinity.length > 0;
        const s = filterState();
        for (const node of nodes) {
          const others = ownTerms ? node.pods : node.podsWithRequiredAntiAffinity;
          for (const other of others) account(s, pod, other, node, 1);
        }
        if (!ownTerms && s.existingAnti.size === 0) return skip;
        state.data.set(preFilterKey, s);
        return undefined;
      },
      addPod: onNodeChange(1),
      removePod: onNodeChange(-1),
      filter(state, pod, node) {
        const s = readState<FilterState>(state, preFilterKey);
        const labels = node.node.metadata.labels ?? {};
        if (!satisfiesAffinity(s, pod, labels)) return unresolvable(reasonAffinity);
        if (inDomainOf(s.anti, pod.requiredAntiAffinity, labels)) return unschedulable(reasonAntiAffinity);
        for (const [k, v] of Object.entries(labels)) if (s.existingAnti.get(pair(k, v))) return unschedulable(reasonExistingAntiAffinity);
        return undefined;
      },

      preScore(state, pod) {
        const own = pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0;
        // placed pods' terms are not looked at for a pod with no preferences of its own, when the profile says so
        if (!own && args.ignorePreferredTermsOfExistingPods) return skip;
        const scores = new Map<string, Map<string, number>>();
        const add = (key: string, value: string | undefined, by: number) => {
          if (value === undefined || !by) return;
          let byValue = scores.get(key);
          if (!byValue) scores.set(key, (byValue = new Map()));
          byValue.set(value, (byValue.get(value) ?? 0) + by);
        };
        for (const node of handle.nodes()) {
          const labels = node.node.metadata.labels ?? {};
          for (const other of own ? node.pods : node.podsWithAffinity) {
            for (const t of pod.preferredAffinity) if (matches(t, other.pod)) add(t.topologyKey, labels[t.topologyKey], t.weight);
            for (const t of pod.preferredAntiAffinity) if (matches(t, other.pod)) add(t.topologyKey, labels[t.topologyKey], -t.weight);
            // placed pods' terms towards the incoming pod count in the placed pod's domain
            for (const t of other.requiredAffinity) if (matches(t, pod.pod)) add(t.topologyKey, labels[t.topologyKey], hardPodAffinityWeight);
            for (const t of other.preferredAffinity) if (matches(t, pod.pod)) add(t.topologyKey, labels[t.topologyKey], t.weight);
            for (const t of other.preferredAntiAffinity) if (matches(t, pod.pod)) add(t.topologyKey, labels[t.topologyKey], -t.weight);
          }
        }
        if (!scores.size) return skip;
        state.data.set(preScoreKey, scores);
        return undefined;
      },
      score(state, _pod, node) {
        const scores = readState<Map<string, Map<string, number>>>(state, preScoreKey);
        const labels = node.node.metadata.labels ?? {};
        let total = 0;
        for (const [key, byValue] of scores) if (labels[key] !== undefined) total += byValue.get(labels[key]!) ?? 0;
        return total;
      },
      normalizeScore(_state, _pod, scores) {
        let min = Infinity;
        let max = -Infinity;
        for (const s of scores) { min = Math.min(min, s.score); max = Math.max(max, s.score); }
        const spread = max - min;
        for (const s of scores) s.score = spread > 0 ? Math.trunc((maxNodeScore * (s.score - min)) / spread) : 0;
      },
    };
  },
};
