// A profile's plugins put to work: the framework runs each extension point's plugins in the profile's
// order, names the plugin that rejected a pod, skips Filter and Score of plugins whose PreFilter or
// PreScore answered Skip, and sums normalized, weighted scores.
import {
  errorStatus, maxNodeScore, podPriority,
  type CycleState, type NodeScore, type Plugin, type PostFilterResult, type PreFilterResult, type Status,
} from './framework.js';
import { addPod, cloneNodeInfo, type NodeInfo, type PodInfo } from './node-info.js';
import { cloneCycleState } from './framework.js';

export type ExtensionPoint =
  | 'queueSort' | 'preEnqueue' | 'preFilter' | 'filter' | 'postFilter' | 'preScore' | 'score'
  | 'reserve' | 'permit' | 'preBind' | 'bind' | 'postBind';

export const extensionPoints: readonly ExtensionPoint[] = [
  'queueSort', 'preEnqueue', 'preFilter', 'filter', 'postFilter', 'preScore', 'score', 'reserve', 'permit', 'preBind', 'bind', 'postBind',
];

/** which method a plugin needs to take part in an extension point */
export const pointMethod: Record<ExtensionPoint, keyof Plugin> = {
  queueSort: 'less', preEnqueue: 'preEnqueue', preFilter: 'preFilter', filter: 'filter', postFilter: 'postFilter',
  preScore: 'preScore', score: 'score', reserve: 'reserve', permit: 'permit', preBind: 'preBind', bind: 'bind', postBind: 'postBind',
};

export interface Framework {
  schedulerName: string;
  /** undefined: the scheduler's global setting; 0: adaptive */
  percentageOfNodesToScore?: number;
  plugins: ReadonlyMap<string, Plugin>;
  points: Readonly<Record<ExtensionPoint, readonly Plugin[]>>;
  weights: ReadonlyMap<string, number>;
  less(a: Parameters<NonNullable<Plugin['less']>>[0], b: Parameters<NonNullable<Plugin['less']>>[1]): boolean;
  preEnqueue(pod: PodInfo['pod']): Status | undefined;
  preFilter(state: CycleState, pod: PodInfo, nodes: NodeInfo[]): { result: PreFilterResult; status?: Status };
  addPod(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): Status | undefined;
  removePod(state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo): Status | undefined;
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined;
  /** Filter with the higher-or-equal priority pods nominated to the node counted as if placed there */
  filterWithNominated(state: CycleState, pod: PodInfo, node: NodeInfo, nominated: readonly PodInfo[]): Status | undefined;
  postFilter(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): Promise<{ result?: PostFilterResult; status?: Status }>;
  preScore(state: CycleState, pod: PodInfo, nodes: NodeInfo[]): Status | undefined;
  /** the weighted sum of the normalized scores of every node */
  score(state: CycleState, pod: PodInfo, nodes: NodeInfo[]): NodeScore[];
  reserve(state: CycleState, pod: PodInfo, nodeName: string): Status | undefined;
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
  permit(state: CycleState, pod: PodInfo, nodeName: string): Status | undefined;
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
  postBind(state: CycleState, pod: PodInfo, nodeName: string): void;
}

const named = (s: Status, plugin: string): Status => (s.plugin ? s : { ...s, plugin });

/** runs a plugin method, turning a thrown error into an Error status naming the plugin */
function guarded<T>(plugin: Plugin, point: string, run: () => T): T | Status {
  try {
    return run();
  } catch (e) {
    return named(errorStatus(`running ${point} plugin ${plugin.name}: ${(e as Error).message}`), plugin.name);
  }
}

const isStatus = (v: unknown): v is Status => !!v && typeof v === 'object' && 'code' in v && 'reasons' in v;

export function createFramework(schedulerName: string, points: Record<ExtensionPoint, Plugin[]>, weights: Map<string, number>, percentageOfNodesToScore?: number): Framework {
  const plugins = new Map<string, Plugin>();
  for (const p of extensionPoints.flatMap((e) => points[e])) plugins.set(p.name, p);
  const queueSort = points.queueSort[0];
  const extensions = points.preFilter.filter((p) => p.addPod || p.removePod);

  // the hot path: run once per pod and node, so no closure per call and the skipped plugins left out once per cycle
  const activeFilters = (state: CycleState) => (state.activeFilters ??= points.filter.filter((p) => !state.skipFilter.has(p.name)));
  const filter = (state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined => {
    const plugins = activeFilters(state);
    let i = 0;
    try {
      for (; i < plugins.length; i++) {
        const s = plugins[i]!.filter!(state, pod, node);
        if (s) return named(s, plugins[i]!.name);
      }
    } catch (e) {
      return named(errorStatus(`running Filter plugin ${plugins[i]!.name}: ${(e as Error).message}`), plugins[i]!.name);
    }
    return undefined;
  };

  const runExtension = (method: 'addPod' | 'removePod') => (state: CycleState, pod: PodInfo, other: PodInfo, node: NodeInfo) => {
    for (const p of extensions) {
      if (state.skipFilter.has(p.name) || !p[method]) continue;
      const s = guarded(p, method === 'addPod' ? 'AddPod' : 'RemovePod', () => p[method]!(state, pod, other, node));
      if (s) return named(s, p.name);
    }
    return undefined;
  };
  const addPodExt = runExtension('addPod');

  return {
    schedulerName, percentageOfNodesToScore, plugins, points, weights,
    less: (a, b) => (queueSort ? queueSort.less!(a, b) : a.timestamp < b.timestamp),
    preEnqueue(pod) {
      for (const p of points.preEnqueue) {
        const s = guarded(p, 'PreEnqueue', () => p.preEnqueue!(pod));
        if (s) return named(s, p.name);
      }
      return undefined;
    },
    preFilter(state, pod, nodes) {
      let nodeNames: Set<string> | undefined;
      for (const p of points.preFilter) {
        const r = guarded(p, 'PreFilter', () => p.preFilter!(state, pod, nodes));
        if (isStatus(r)) {
          if (r.code === 'Skip') { state.skipFilter.add(p.name); state.activeFilters = undefined; continue; }
          return { result: {}, status: named(r, p.name) };
        }
        if (r?.nodeNames) nodeNames = nodeNames ? new Set([...nodeNames].filter((n) => r.nodeNames!.has(n))) : new Set(r.nodeNames);
      }
      return { result: nodeNames ? { nodeNames } : {} };
    },
    addPod: addPodExt,
    removePod: runExtension('removePod'),
    filter,
    filterWithNominated(state, pod, node, nominated) {
      if (!nominated.length) return filter(state, pod, node);
      const others = nominated.filter((n) => n.pod.metadata.uid !== pod.pod.metadata.uid && podPriority(n.pod) >= podPriority(pod.pod));
      if (!others.length) return filter(state, pod, node);
      // placed as if the nominated pods were there; then without them, since they may not come (anti-affinity)
      const withState = cloneCycleState(state);
      const withNode = cloneNodeInfo(node);
      for (const n of others) {
        addPod(withNode, n);
        const s = addPodExt(withState, pod, n, withNode);
        if (s) return s;
      }
      return filter(withState, pod, withNode) ?? filter(state, pod, node);
    },
    async postFilter(state, pod, statuses) {
      // the first plugin that succeeds, or says it cannot help, decides; otherwise their reasons are merged
      let result: PostFilterResult | undefined;
      const reasons: string[] = [];
      for (const p of points.postFilter) {
        let outcome: { result?: PostFilterResult; status?: Status };
        try {
          outcome = await p.postFilter!(state, pod, statuses);
        } catch (e) {
          return { status: named(errorStatus(`running PostFilter plugin ${p.name}: ${(e as Error).message}`), p.name) };
        }
        const s = outcome.status;
        if (!s || s.code === 'UnschedulableAndUnresolvable') return { result: outcome.result, status: s && named(s, p.name) };
        if (s.code !== 'Unschedulable') return { status: named(s, p.name) };
        if (outcome.result?.nominatedNodeName !== undefined) result = outcome.result;
        reasons.push(...s.reasons);
      }
      return { result, status: { code: 'Unschedulable', reasons } };
    },
    preScore(state, pod, nodes) {
      for (const p of points.preScore) {
        const s = guarded(p, 'PreScore', () => p.preScore!(state, pod, nodes));
        if (!s) continue;
        if (s.code === 'Skip') { state.skipScore.add(p.name); continue; }
        return named(s, p.name);
      }
      return undefined;
    },
    score(state, pod, nodes) {
      const totals = new Float64Array(nodes.length);
      // one array of scores, refilled by each plugin in turn (normalizing rewrites it in place)
      const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: 0 }));
      for (const p of points.score) {
        if (state.skipScore.has(p.name)) continue;
        for (let i = 0; i < nodes.length; i++) scores[i]!.score = p.score!(state, pod, nodes[i]!);
        p.normalizeScore?.(state, pod, scores);
        const weight = weights.get(p.name) ?? 1;
        for (let i = 0; i < nodes.length; i++) {
          const s = scores[i]!.score;
          if (!(s >= 0 && s <= maxNodeScore)) throw new Error(`plugin ${p.name} scored node ${scores[i]!.name} ${s}, outside 0..${maxNodeScore}`);
          totals[i] += s * weight;
        }
      }
      for (let i = 0; i < nodes.length; i++) scores[i]!.score = totals[i]!;
      return scores;
    },
    reserve(state, pod, nodeName) {
      for (const p of points.reserve) {
        const s = guarded(p, 'Reserve', () => p.reserve!(state, pod, nodeName));
        if (s) return named(s, p.name);
      }
      return undefined;
    },
    unreserve(state, pod, nodeName) {
      for (const p of [...points.reserve].reverse()) guarded(p, 'Unreserve', () => p.unreserve?.(state, pod, nodeName));
    },
    permit(state, pod, nodeName) {
      for (const p of points.permit) {
        const s = guarded(p, 'Permit', () => p.permit!(state, pod, nodeName));
        if (s) return named(s, p.name);
      }
      return undefined;
    },
    async preBind(state, pod, nodeName) {
      for (const p of points.preBind) {
        const s = await p.preBind!(state, pod, nodeName).catch((e) => errorStatus(`running PreBind plugin ${p.name}: ${(e as Error).message}`));
        if (s) return named(s, p.name);
      }
      return undefined;
    },
    async bind(state, pod, nodeName) {
      for (const p of points.bind) {
        const s = await p.bind!(state, pod, nodeName).catch((e) => errorStatus(`running Bind plugin ${p.name}: ${(e as Error).message}`));
        if (s?.code === 'Skip') continue;
        return s && named(s, p.name);
      }
      return errorStatus('no Bind plugin bound the pod');
    },
    postBind(state, pod, nodeName) {
      for (const p of points.postBind) guarded(p, 'PostBind', () => p.postBind!(state, pod, nodeName));
    },
  };
}
