// Filter: a node's NoSchedule and NoExecute taints must be tolerated. Score: fewer untolerated
// PreferNoSchedule taints score higher.
import { defaultNormalizeScore, nodeUpdates, readState, unresolvable, type PluginSpec } from '../framework.js';
import { tolerates, untoleratedTaint } from '../matching.js';
import type { Toleration } from '../types.js';

const stateKey = 'PreScore/TaintToleration';

export const reasonTaint = (key: string, value = '') => `node(s) had untolerated taint {${key}: ${value}}`;

export const taintToleration: PluginSpec = {
  name: 'TaintToleration',
  create: () => ({
    name: 'TaintToleration',
    events: ['Node/Add', ...nodeUpdates],
    filter(_state, pod, node) {
      const taint = untoleratedTaint(node.node.spec?.taints, pod.pod.spec.tolerations ?? [], ['NoSchedule', 'NoExecute']);
      return taint ? unresolvable(reasonTaint(taint.key, taint.value)) : undefined;
    },
    preScore(state, pod) {
      const relevant = (pod.pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
      state.data.set(stateKey, relevant);
      return undefined;
    },
    score(state, _pod, node) {
      const tolerations = readState<Toleration[]>(state, stateKey);
      let count = 0;
      for (const taint of node.node.spec?.taints ?? []) {
        if (taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => tolerates(t, taint))) count++;
      }
      return count;
    },
    normalizeScore: (_state, _pod, scores) => defaultNormalizeScore(scores, true),
  }),
};
