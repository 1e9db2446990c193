// Matching shared by several plugins: a pod's node selector and required node affinity against a node,
// and tolerations against taints, with the reference's semantics.
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from './types.js';

function int64(s: string | undefined): bigint | undefined {
  return s !== undefined && /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const has = value !== undefined;
  switch (r.operator) {
    case 'In': return has && (r.values ?? []).includes(value);
    case 'NotIn': return !has || !(r.values ?? []).includes(value);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt': case 'Lt': {
      const actual = int64(value);
      const bound = int64(r.values?.[0]);
      if (actual === undefined || bound === undefined || r.values?.length !== 1) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default: return false;
  }
}

/** a term with no requirements matches no node; otherwise all its expressions and fields must hold */
export function termMatchesNode(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (!exprs.length && !fields.length) return false;
  const labels = node.metadata.labels ?? {};
  const label = (k: string) => (Object.prototype.hasOwnProperty.call(labels, k) ? labels[k] : undefined);
  // metadata.name is the one field a term may select on
  return exprs.every((r) => requirementMatches(r, label(r.key)))
    && fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name));
}

/** the terms are ORed; no terms at all matches every node */
export const anyTermMatches = (terms: readonly NodeSelectorTerm[] | undefined, node: Node) =>
  !terms || terms.some((t) => termMatchesNode(t, node));

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
