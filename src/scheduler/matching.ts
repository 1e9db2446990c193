// Matching shared by several plugins: a pod's node selector and required node affinity against a node,
// and tolerations against taints, with the reference's semantics. Node selector terms are matched by the
// API layer's module, which the volume binding shares.
import { anyTermMatches, termMatchesNode } from '../api/node-selectors.js';
import type { Node, Pod, Taint, Toleration } from './types.js';

export { anyTermMatches, termMatchesNode };

/** the pod's nodeSelector and required node affinity both hold on the node */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  return anyTermMatches(pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, node);
}

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  // an empty key with Exists tolerates every taint
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

/** the first taint with one of the effects that no toleration tolerates */
export function untoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[], effects: readonly string[]): Taint | undefined {
  return (taints ?? []).find((taint) => effects.includes(taint.effect) && !tolerations.some((t) => tolerates(t, taint)));
}
