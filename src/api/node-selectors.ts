// Node selector terms (required node affinity of pods and of persistent volumes) against a node's labels and
// name, with the reference's semantics. The scheduler's plugins and the volume binding share them.
import type { NodeSelectorRequirement, NodeSelectorTerm } from './types/core-v1.js';

/** the parts of a node a term looks at */
export interface SelectableNode { metadata: { name?: string; labels?: Record<string, string> } }

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
export function termMatchesNode(term: NodeSelectorTerm, node: SelectableNode): boolean {
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
export const anyTermMatches = (terms: readonly NodeSelectorTerm[] | undefined, node: SelectableNode) =>
  !terms || terms.some((t) => termMatchesNode(t, node));

