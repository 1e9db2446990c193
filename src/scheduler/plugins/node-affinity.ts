// PreFilter and Filter: the pod's nodeSelector and required node affinity (and the profile's added
// affinity) must match the node. Score: the weights of the preferred terms the node matches.
import { defaultNormalizeScore, nodeUpdates, readState, skip, unresolvable, type PluginSpec, type PreFilterResult } from '../framework.js';
import { anyTermMatches, requiredNodeAffinityMatches, termMatchesNode } from '../matching.js';
import type { NodeSelector, PreferredSchedulingTerm } from '../types.js';

export const reasonPod = "node(s) didn't match Pod's node affinity/selector";
export const reasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
const preScoreKey = 'PreScore/NodeAffinity';

interface Args {
  /** affinity every pod of the profile must also satisfy */
  addedAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector; preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[] };
}

/** the node names the required terms allow, when every term names nodes with `metadata.name In` */
function namedNodes(selector: NodeSelector | undefined): Set<string> | undefined {
  const terms = selector?.nodeSelectorTerms ?? [];
  if (!terms.length) return undefined;
  const names = new Set<string>();
  for (const t of terms) {
    const field = (t.matchFields ?? []).find((f) => f.key === 'metadata.name' && f.operator === 'In');
    if (!field) return undefined;
    for (const n of field.values ?? []) names.add(n);
  }
  return names;
}

export const nodeAffinity: PluginSpec = {
  name: 'NodeAffinity',
  create: (rawArgs) => {
    const args = rawArgs as Args;
    const added = args.addedAffinity;
    return {
      name: 'NodeAffinity',
      events: ['Node/Add', ...nodeUpdates],
      preFilter(_state, pod): PreFilterResult | undefined | typeof skip {
        const required = pod.pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
        if (!pod.pod.spec.nodeSelector && !required && !added?.requiredDuringSchedulingIgnoredDuringExecution) return skip;
        const nodeNames = namedNodes(required);
        return nodeNames ? { nodeNames } : undefined;
      },
      filter(_state, pod, node) {
        if (added && !anyTermMatches(added.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, node.node)) return unresolvable(reasonEnforced);
        return requiredNodeAffinityMatches(pod.pod, node.node) ? undefined : unresolvable(reasonPod);
      },
      preScore(state, pod) {
        const preferred = [...(added?.preferredDuringSchedulingIgnoredDuringExecution ?? []),
          ...(pod.pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])].filter((t) => t.weight);
        if (!preferred.length) return skip;
        state.data.set(preScoreKey, preferred);
        return undefined;
      },
      score(state, _pod, node) {
        let total = 0;
        for (const t of readState<PreferredSchedulingTerm[]>(state, preScoreKey)) if (termMatchesNode(t.preference, node.node)) total += t.weight;
        return total;
      },
      normalizeScore: (_state, _pod, scores) => defaultNormalizeScore(scores, false),
    };
  },
};
