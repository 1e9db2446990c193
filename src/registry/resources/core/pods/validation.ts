// The pod fields that may change after create: images, the active deadline, added tolerations, a grace period that
// was negative, scheduling gates (removed only) and, while gates remain, narrower scheduling directives.
import type { NodeAffinity, NodeSelectorTerm, PodSpec, Toleration } from '../../../../api/types/core-v1.js';
import { type Causes, canonicalJson, forbidden, invalid, isSet, sameJson } from '../../../validation/fields.js';

const withoutSeconds = (t: Toleration | undefined) => { const { tolerationSeconds: _s, ...rest } = t ?? {}; return canonicalJson(rest); };

/** the old term's requirements come first in the new one, unchanged; more may follow */
function onlyAdditions(next: NodeSelectorTerm | undefined, was: NodeSelectorTerm): boolean {
  return (['matchExpressions', 'matchFields'] as const).every((list) => {
    const before = was[list] ?? [], now = next?.[list] ?? [];
    return now.length >= before.length && sameJson(now.slice(0, before.length), before);
  });
}

/** a gated pod's required node affinity may only be narrowed: its terms kept, each extended with requirements */
function nodeAffinityNarrowed(next: NodeAffinity | undefined, was: NodeAffinity | undefined): Causes {
  const before = was?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!before) return [];
  const path = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
  const old = before.nodeSelectorTerms ?? [], now = next?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (old.length && old.length !== now.length) return [invalid(path, now, 'no additions/deletions to non-empty NodeSelectorTerms list are allowed')];
  return old.flatMap((term, i) => (onlyAdditions(now[i], term) ? [] : [invalid(`${path}[${i}]`, now[i], 'only additions are allowed (no mutations or deletions)')]));
}

/**
 * While a pod has scheduling gates, its scheduling directives may be narrowed (Pod Mutable Scheduling Directives,
 * beta and on in 1.27): nodeSelector entries added, required node affinity terms extended, preferred node affinity
 * changed. The allowed new values are carried into `mutable`, the old spec the rest of the update is compared with.
 */
function gatedDirectiveChanges(next: PodSpec, was: PodSpec, mutable: PodSpec): Causes {
  const out: Causes = [];
  if (!sameJson(next.nodeSelector ?? {}, was.nodeSelector ?? {})) {
    const now = next.nodeSelector ?? {};
    if (Object.entries(was.nodeSelector ?? {}).some(([k, v]) => now[k] !== v))
      out.push(invalid('spec.nodeSelector', now, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    if (next.nodeSelector) mutable.nodeSelector = next.nodeSelector; else delete mutable.nodeSelector;
  }
  const nodeAffinity = next.affinity?.nodeAffinity;
  if (!sameJson(nodeAffinity ?? null, was.affinity?.nodeAffinity ?? null)) {
    out.push(...nodeAffinityNarrowed(nodeAffinity, was.affinity?.nodeAffinity));
    const { nodeAffinity: _old, ...otherAffinity } = mutable.affinity ?? {};
    const affinity = nodeAffinity ? { ...otherAffinity, nodeAffinity } : otherAffinity;
    if (Object.keys(affinity).length || next.affinity) mutable.affinity = affinity; else delete mutable.affinity;
  }
  return out;
}

export function validatePodSpecUpdate(spec: PodSpec | undefined, old: PodSpec | undefined): Causes {
  const next = spec ?? { containers: [] }, was = old ?? { containers: [] };
  const out: Causes = [];
  const deadline = next.activeDeadlineSeconds, previous = was.activeDeadlineSeconds;
  if (isSet(previous)) {
    if (!isSet(deadline)) out.push(invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
    else if (deadline > previous) out.push(invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'));
  }
  const kept = new Set((next.tolerations ?? []).map(withoutSeconds));
  for (const t of was.tolerations ?? [])
    if (!kept.has(withoutSeconds(t))) {
      out.push(forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
      break;
    }
  // everything else must be as it was: compare with the old spec carrying the new values of the mutable fields
  const mutable = structuredClone(was);
  const take = <K extends 'activeDeadlineSeconds' | 'tolerations' | 'schedulingGates'>(field: K) => {
    if (isSet(next[field])) mutable[field] = next[field]; else delete mutable[field];
  };
  take('activeDeadlineSeconds');
  take('tolerations');
  if ((was.terminationGracePeriodSeconds ?? 0) < 0 && next.terminationGracePeriodSeconds === 1) mutable.terminationGracePeriodSeconds = 1;
  for (const list of ['containers', 'initContainers'] as const) {
    const now = next[list] ?? [];
    const prev = mutable[list] ?? [];
    if (now.length === prev.length) prev.forEach((c, i) => { if (c && now[i]) c.image = now[i].image; });
  }
  // scheduling gates may only be removed (all at once too, leaving the field out); a new one is named by its index
  const had = new Set((was.schedulingGates ?? []).map(g => g?.name));
  const added = (next.schedulingGates ?? []).flatMap((g, i) => had.has(g?.name) ? [] : [[i, g?.name] as const]);
  for (const [i, name] of added)
    out.push(forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
  take('schedulingGates');
  if ((was.schedulingGates ?? []).length) out.push(...gatedDirectiveChanges(next, was, mutable));
  if (!sameJson(mutable, next))
    out.push(forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'));
  return out;
}
