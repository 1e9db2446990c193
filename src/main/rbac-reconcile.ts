// The default RBAC policy brought back into what is stored, as the reference's bootstrap-roles step does at every
// start of a server: an object whose autoupdate annotation is not "false" gets back the rules, aggregation
// selectors and subjects of the default it lacks, and the default's labels and annotations it has not set itself.
// Nothing is taken away: rules and subjects added since stay. So a server joining or restarting on a store
// repairs the default policy, while an administrator who wants a default changed sets the annotation to "false".
import type { ApiObject } from '../api/meta.js';
import type { PolicyRule } from '../api/auth.js';
import { uncovered } from '../authz/rbac/rules.js';

interface Selector { matchLabels?: Record<string, string>; matchExpressions?: unknown[] }
interface RbacObject extends ApiObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: Selector[] };
  roleRef?: { apiGroup?: string; kind?: string; name?: string };
  subjects?: Array<{ kind: string; name: string; namespace?: string; apiGroup?: string }>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** the default's entries the object does not hold, added to its own (its own values win) */
function withMissing(have: Record<string, string> | undefined, want: Record<string, string> | undefined) {
  const missing = Object.entries(want ?? {}).filter(([k]) => !(k in (have ?? {})));
  return missing.length ? { ...have, ...Object.fromEntries(missing) } : have;
}

/**
 * The stored object brought up to the default, or undefined when nothing changes (or it may not be changed:
 * its annotation says "false", or a binding names another role, which the reference would delete and create again).
 */
export function reconciledDefault(stored: ApiObject, want: ApiObject, autoupdateAnnotation: string): ApiObject | undefined {
  const have = stored as RbacObject, def = want as RbacObject;
  if (have.metadata.annotations?.[autoupdateAnnotation] === 'false') return undefined;
  if (def.roleRef && !same(have.roleRef, def.roleRef)) return undefined;
  const next = structuredClone(have);
  const labels = withMissing(have.metadata.labels, def.metadata.labels), annotations = withMissing(have.metadata.annotations, def.metadata.annotations);
  if (labels) next.metadata.labels = labels;
  if (annotations) next.metadata.annotations = annotations;
  if (def.rules) {
    const missing = uncovered(have.rules ?? [], def.rules);
    if (missing.length) next.rules = [...(have.rules ?? []), ...missing];
  }
  const selectors = def.aggregationRule?.clusterRoleSelectors;
  if (selectors) {
    const own = have.aggregationRule?.clusterRoleSelectors ?? [];
    const missing = selectors.filter(s => !own.some(o => same(o, s)));
    if (missing.length) next.aggregationRule = { ...have.aggregationRule, clusterRoleSelectors: [...own, ...missing] };
  }
  if (def.subjects) {
    const own = have.subjects ?? [];
    const missing = def.subjects.filter(s => !own.some(o => o.kind === s.kind && o.name === s.name && (o.namespace ?? '') === (s.namespace ?? '')));
    if (missing.length) next.subjects = [...own, ...missing];
  }
  return same(next, have) ? undefined : next;
}
