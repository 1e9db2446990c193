// Filter: hard topology spread constraints (DoNotSchedule): placing the pod must not make a domain
// hold more than maxSkew matching pods beyond the emptiest one. Score: soft constraints
// (ScheduleAnyway), and for pods with none of their own the profile's default constraints, which by
// default spread the pods of a Service or controller over hosts and zones.
import { labelSelectorFromObject, matchLabels, type LabelSelector } from '../../api/selectors.js';
import {
  allPodEvents, maxNodeScore, readState, skip, unresolvable, unschedulable,
  type CycleState, type Handle, type PluginSpec, type Status,
} from '../framework.js';
import { requiredNodeAffinityMatches, untoleratedTaint } from '../matching.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import type { Pod, SelectingObject, TopologySpreadConstraint } from '../types.js';

export const reasonConstraints = "node(s) didn't match pod topology spread constraints";
export const reasonMissingLabel = `${reasonConstraints} (missing required label)`;

const preFilterKey = 'PreFilter/PodTopologySpread';
const preScoreKey = 'PreScore/PodTopologySpread';

interface Constraint {
  maxSkew: number;
  topologyKey: string;
  hard: boolean;
  selector: LabelSelector;
  /** the selector as text: pods matching it are counted once per node and version of the node */
  selectorKey: string;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

interface Args {
  defaultConstraints?: TopologySpreadConstraint[];
  defaultingType?: 'System' | 'List';
}

const pairKey = (key: string, value: string) => `${key}\u0000${value}`;

interface FilterState {
  constraints: Constraint[];
  /** matching pods by topology pair */
  counts: Map<string, number>;
  /** topology domains seen per key */
  domains: Map<string, Set<string>>;
  clone(): FilterState;
}

function filterState(constraints: Constraint[], counts = new Map<string, number>(), domains = new Map<string, Set<string>>()): FilterState {
  return {
    constraints, counts, domains,
    clone: () => filterState(constraints, new Map(counts), new Map([...domains].map(([k, v]) => [k, new Set(v)]))),
  };
}

export const podTopologySpread: PluginSpec = {
  name: 'PodTopologySpread',
  create: (rawArgs, handle: Handle) => {
    const args = rawArgs as Args;
    const hostname = handle.names.label('hostname');
    const zone = `topology.${handle.names.labelDomain}/zone`;
    const defaultingType = args.defaultingType ?? 'System';
    if (defaultingType !== 'System' && defaultingType !== 'List') throw new Error(`PodTopologySpread: defaultingType must be System or List, not ${JSON.stringify(defaultingType)}`);
    if (defaultingType === 'System' && args.defaultConstraints?.length) throw new Error('PodTopologySpread: defaultConstraints must be empty when defaultingType is System');
    const defaults: TopologySpreadConstraint[] = defaultingType === 'System'
      ? [{ topologyKey: hostname, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 }, { topologyKey: zone, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 }]
      : args.defaultConstraints ?? [];

    /** a Service's or controller's selector, parsed once per version of the object (the informer replaces it on change) */
    const parsedSelectors = new WeakMap<object, LabelSelector>();
    const selectorOf = (raw: NonNullable<NonNullable<SelectingObject['spec']>['selector']>) => {
      let sel = parsedSelectors.get(raw);
      if (!sel) {
        const isMap = !('matchLabels' in raw) && !('matchExpressions' in raw);
        parsedSelectors.set(raw, sel = labelSelectorFromObject(isMap ? { matchLabels: raw as Record<string, string> } : raw));
      }
      return sel;
    };

    /** the selector of the Services and controllers that select the pod, as default spreading uses */
    function defaultSelector(pod: Pod): LabelSelector | undefined {
      const requirements: LabelSelector['requirements'] = [];
      for (const o of handle.selectingObjects(pod.metadata.namespace ?? '')) {
        const raw = o.spec?.selector;
        if (!raw) continue;
        const sel = selectorOf(raw);
        if (!sel.requirements.length || !matchLabels(sel, pod.metadata.labels)) continue;
        requirements.push(...sel.requirements);
      }
      return requirements.length ? { requirements } : undefined;
    }

    /** the pod's own constraints, else the defaults with the selector of what selects it; `systemDefaulted` says which */
    function constraintsOf(pod: Pod): { constraints: Constraint[]; systemDefaulted: boolean } {
      const own = pod.spec.topologySpreadConstraints ?? [];
      const convert = (c: TopologySpreadConstraint, selector: LabelSelector): Constraint => ({
        maxSkew: c.maxSkew, topologyKey: c.topologyKey, hard: c.whenUnsatisfiable === 'DoNotSchedule', selector,
        selectorKey: `${pod.metadata.namespace ?? ''}\u0000${JSON.stringify(selector)}`,
        minDomains: c.minDomains ?? 1, honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor', honorTaints: c.nodeTaintsPolicy === 'Honor',
      });
      if (own.length) {
        return {
          systemDefaulted: false,
          constraints: own.map((c) => {
            const sel = labelSelectorFromObject(c.labelSelector);
            // matchLabelKeys: the pod's own values of these labels join the selector
            const extra = (c.matchLabelKeys ?? []).filter((k) => pod.metadata.labels?.[k] !== undefined)
              .map((key) => ({ key, operator: 'in' as const, values: [pod.metadata.labels![key]!] }));
            return convert(c, extra.length ? { ...sel, requirements: [...sel.requirements, ...extra] } : sel);
          }),
        };
      }
      const selector = defaults.length ? defaultSelector(pod) : undefined;
      if (!selector) return { constraints: [], systemDefaulted: false };
      return { constraints: defaults.map((c) => convert(c, selector)), systemDefaulted: defaultingType === 'System' };
    }

    const hasKeys = (node: NodeInfo, cs: Constraint[]) => cs.every((c) => node.node.metadata.labels?.[c.topologyKey] !== undefined);
    const included = (c: Constraint, pod: Pod, node: NodeInfo) =>
      (!c.honorAffinity || requiredNodeAffinityMatches(pod, node.node))
      && (!c.honorTaints || !untoleratedTaint(node.node.spec?.taints, pod.spec.tolerations ?? [], ['NoSchedule', 'NoExecute']));
    const counts = (c: Constraint, pod: Pod, other: Pod) =>
      other.metadata.namespace === pod.metadata.namespace && !other.metadata.deletionTimestamp && matchLabels(c.selector, other.metadata.labels);
    // Counting a node's matching pods is the cost of every cycle (each pod's PreScore counts over every node); one
    // node changes per pod placed, so the counts of the others are kept while their generation stays the same.
    const counted = new WeakMap<NodeInfo, { generation: number; bySelector: Map<string, number> }>();
    const matching = (c: Constraint, pod: Pod, node: NodeInfo) => {
      let memo = counted.get(node);
      if (!memo || memo.generation !== node.generation) counted.set(node, memo = { generation: node.generation, bySelector: new Map() });
      let n = memo.bySelector.get(c.selectorKey);
      if (n === undefined) {
        n = 0;
        for (const p of node.pods) if (counts(c, pod, p.pod)) n++;
        memo.bySelector.set(c.selectorKey, n);
      }
      return n;
    };

    /** the fewest matching pods in any domain of the constraint's key (0 when there are fewer domains than minDomains) */
    function globalMin(s: FilterState, c: Constraint): number {
      const domains = s.domains.get(c.topologyKey);
      if (!domains || domains.size < c.minDomains) return 0;
      let min = Infinity;
      for (const value of domains) min = Math.min(min, s.counts.get(pairKey(c.topologyKey, value)) ?? 0);
      return min;
    }

    const onNodeChange = (sign: number) => (state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo): Status | undefined => {
      const s = state.data.get(preFilterKey) as FilterState | undefined;
      if (!s || !hasKeys(node, s.constraints)) return undefined;
      for (const c of s.constraints) {
        if (!included(c, pod.pod, node) || !counts(c, pod.pod, other.pod)) continue;
        const k = pairKey(c.topologyKey, node.node.metadata.labels![c.topologyKey]!);
        s.counts.set(k, (s.counts.get(k) ?? 0) + sign);
      }
      return undefined;
    };

    /** per soft constraint, matching pods by domain (its key's value); nodes are scored by these */
    interface ScoreState { constraints: Constraint[]; ignored: Set<string>; counts: Map<string, number>[]; weights: number[] }

    return {
      name: 'PodTopologySpread',
      events: [...allPodEvents, 'Node/Add', 'Node/Delete', 'Node/UpdateNodeLabel', 'Node/UpdateNodeTaint'],
      preFilter(state, pod, nodes) {
        const hard = constraintsOf(pod.pod).constraints.filter((c) => c.hard);
        if (!hard.length) return skip;
        const s = filterState(hard);
        for (const node of nodes) {
          if (!hasKeys(node, hard)) continue;
          for (const c of hard) {
            if (!included(c, pod.pod, node)) continue;
            const value = node.node.metadata.labels![c.topologyKey]!;
            let domains = s.domains.get(c.topologyKey);
            if (!domains) s.domains.set(c.topologyKey, (domains = new Set()));
            domains.add(value);
            const k = pairKey(c.topologyKey, value);
            s.counts.set(k, (s.counts.get(k) ?? 0) + matching(c, pod.pod, node));
          }
        }
        state.data.set(preFilterKey, s);
        return undefined;
      },
      addPod: onNodeChange(1),
      removePod: onNodeChange(-1),
      filter(state, pod, node) {
        const s = readState<FilterState>(state, preFilterKey);
        for (const c of s.constraints) {
          const value = node.node.metadata.labels?.[c.topologyKey];
          if (value === undefined) return unresolvable(reasonMissingLabel);
          const self = matchLabels(c.selector, pod.pod.metadata.labels) ? 1 : 0;
          const skew = (s.counts.get(pairKey(c.topologyKey, value)) ?? 0) + self - globalMin(s, c);
          if (skew > c.maxSkew) return unschedulable(reasonConstraints);
        }
        return undefined;
      },

      preScore(state, pod, filtered) {
        const { constraints: all, systemDefaulted } = constraintsOf(pod.pod);
        const constraints = all.filter((c) => !c.hard);
        if (!constraints.length) return skip;
        // system defaults spread over whatever keys a node has; a pod's own constraints need all of them
        const requireAll = !systemDefaulted;
        const s: ScoreState = { constraints, ignored: new Set(), counts: constraints.map(() => new Map()), weights: [] };
        // the domains of the feasible nodes (hosts are counted node by node when scored)
        for (const node of filtered) {
          if (requireAll && !hasKeys(node, constraints)) { s.ignored.add(node.name); continue; }
          const labels = node.node.metadata.labels;
          for (let i = 0; i < constraints.length; i++) {
            const value = labels?.[constraints[i]!.topologyKey];
            if (constraints[i]!.topologyKey !== hostname && value !== undefined) s.counts[i]!.set(value, 0);
          }
        }
        s.weights = constraints.map((c, i) => Math.log((c.topologyKey === hostname ? filtered.length - s.ignored.size : s.counts[i]!.size) + 2));
        // the matching pods of those domains, on every node of the cluster
        for (const node of handle.nodes()) {
          if (requireAll && !hasKeys(node, constraints)) continue;
          const labels = node.node.metadata.labels;
          for (let i = 0; i < constraints.length; i++) {
            const c = constraints[i]!;
            const value = labels?.[c.topologyKey];
            if (value === undefined || c.topologyKey === hostname) continue;
            const counts = s.counts[i]!;
            const sofar = counts.get(value);
            if (sofar === undefined || !included(c, pod.pod, node)) continue;
            counts.set(value, sofar + matching(c, pod.pod, node));
          }
        }
        state.data.set(preScoreKey, s);
        return undefined;
      },
      score(state, pod, node) {
        const s = readState<ScoreState>(state, preScoreKey);
        if (s.ignored.has(node.name)) return 0;
        const labels = node.node.metadata.labels;
        let score = 0;
        for (let i = 0; i < s.constraints.length; i++) {
          const c = s.constraints[i]!;
          const value = labels?.[c.topologyKey];
          if (value === undefined) continue;
          const count = c.topologyKey === hostname ? matching(c, pod.pod, node) : s.counts[i]!.get(value) ?? 0;
          score += count * s.weights[i]! + (c.maxSkew - 1);
        }
        return Math.round(score);
      },
      normalizeScore(state, _pod, scores) {
        const s = readState<ScoreState>(state, preScoreKey);
        let min = Infinity;
        let max = 0;
        for (const x of scores) {
          if (s.ignored.has(x.name)) continue;
          min = Math.min(min, x.score);
          max = Math.max(max, x.score);
        }
        for (const x of scores) {
          if (s.ignored.has(x.name)) x.score = 0;
          else if (max === 0) x.score = maxNodeScore;
          else x.score = Math.trunc((maxNodeScore * (max + min - x.score)) / max);
        }
      },
    };
  },
};
