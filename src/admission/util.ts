// Helpers the admission plugins share: which request a plugin looks at, the reference's "forbidden"
// refusal, and resource quantities as numbers and back.
import { isDeepStrictEqual } from 'node:util';
import type { ApiObject } from '../api/meta.js';
import { parseLabelSelector } from '../api/selectors.js';
import type { Container, Pod, PodSpec, Toleration } from '../api/types/core-v1.js';
import { forbidden, qualifiedResource } from '../api/status.js';
import type { AdmissionAttributes } from '../api/admission.js';
import { quantityValue } from '../api/quantity.js';

/** a write of the object itself (not a subresource) of this core or grouped resource */
export const isWriteOf = (a: Readonly<AdmissionAttributes>, group: string, resource: string) =>
  a.group === group && a.resource === resource && a.subresource === '' && !!a.object;

/**
 * the name a refusal gives: a create's name is not generated yet when admission runs, so the reference names
 * the object by its generateName prefix (`pods "web-5d4f8-" is forbidden: ...`)
 */
export const refusedName = (a: Readonly<AdmissionAttributes>) => a.name || (a.object?.metadata.generateName ?? '');

/** `<resource> "<name>" is forbidden: <why>`, as the reference refuses a request in admission */
export const refuse = (a: Readonly<AdmissionAttributes>, why: string) =>
  forbidden(`${qualifiedResource(a.group, a.resource)} "${refusedName(a)}" is forbidden: ${why}`,
    { name: refusedName(a), group: a.group || undefined, kind: a.resource });

/** several reasons print as the reference's aggregate: one alone, or `[a, b]` */
export const aggregate = (reasons: string[]) => (reasons.length === 1 ? reasons[0]! : `[${reasons.join(', ')}]`);

/** the spec of the object a request writes, empty when it has none: no field is sure to be there before validation */
export const specOf = <T extends { spec?: object }>(o: ApiObject | undefined): Partial<NonNullable<T['spec']>> =>
  (o as T | undefined)?.spec ?? {};

/** a pod's spec as admission sees it, before validation */
export type AdmittedPodSpec = Partial<PodSpec>;
export const podSpec = (o: ApiObject | undefined): AdmittedPodSpec => specOf<Pod>(o);

/** containers and init containers (ephemeral containers take no resources) */
export const podContainers = (spec: AdmittedPodSpec): Container[] =>
  [...(Array.isArray(spec.initContainers) ? spec.initContainers : []), ...(Array.isArray(spec.containers) ? spec.containers : [])];

export const quantity = (q: unknown): number => quantityValue(q) ?? 0;

export { formatQuantity } from '../api/quantity.js';

/** toleration `t` matches taint key and effect the way the reference compares them (empty effect is any) */
export const tolerates = (t: Toleration | undefined, key: string, effect: string) =>
  (t?.key === key || (!t?.key && t?.operator === 'Exists')) && (!t?.effect || t.effect === effect);

const operatorOf = (t: Toleration) => t.operator || 'Equal';

/** whether toleration `wide` tolerates everything `t` does (equal tolerations count) */
export function toleratesSuperset(wide: Toleration, t: Toleration): boolean {
  if (isDeepStrictEqual(wide, t)) return true;
  if ((t.key ?? '') !== (wide.key ?? '') && (wide.key || operatorOf(wide) !== 'Exists')) return false;
  if (t.effect !== wide.effect && wide.effect) return false;
  if (wide.effect === 'NoExecute' && wide.tolerationSeconds != null && (t.tolerationSeconds == null || t.tolerationSeconds > wide.tolerationSeconds))
    return false;
  return operatorOf(wide) === 'Exists' || (operatorOf(t) === 'Equal' && (t.value ?? '') === (wide.value ?? ''));
}

/** both lists in one, without the tolerations another one already covers (of equal ones the first stays) */
export function mergeTolerations(first: Toleration[], second: Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some(m => toleratesSuperset(m, t))) return;
    if (all.slice(i + 1).some(later => !isDeepStrictEqual(later, t) && toleratesSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}

/** a selector of `key=value` pairs as a map (the only form namespace node selectors take) */
export function labelMap(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of parseLabelSelector(selector).requirements) {
    if ((r.operator !== '=' && r.operator !== '==') || r.values.length !== 1) throw new Error(`invalid selector "${selector}": only key=value pairs are allowed`);
    out[r.key] = r.values[0]!;
  }
  return out;
}

/** keys two label maps give different values */
export const labelConflicts = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).some(k => k in b && b[k] !== a[k]);
