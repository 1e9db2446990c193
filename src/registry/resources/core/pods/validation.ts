// The pod fields that may change after create: images, the active deadline, added tolerations, a grace period that
// was negative, and scheduling gates (removed only).
import type { PodSpec, Toleration } from '../../../../api/types/core-v1.js';
import { type Causes, canonicalJson, forbidden, invalid, isSet, sameJson } from '../../../validation/fields.js';

const withoutSeconds = (t: Toleration | undefined) => { const { tolerationSeconds: _s, ...rest } = t ?? {}; return canonicalJson(rest); };

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
  if (!sameJson(mutable, next))
    out.push(forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'));
  return out;
}
