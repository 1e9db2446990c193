// Field ownership through a scale subresource. A Scale is a view of one field of its parent (the replica count): who
// owns that field in the parent owns spec.replicas of the Scale, and what an apply of a Scale leaves as the owners of
// spec.replicas becomes, back in the parent, who owns the replica count. The other fields of the parent are untouched.
import type { ManagedFieldsEntry } from '../api/types/meta-v1.js';
import { fieldElement, type Path } from './field-path.js';
import { difference, has, isEmpty, setOf, union } from './field-set.js';
import { decodeManagedFields, encodeManagedFields } from './managed-fields.js';

/** spec.replicas of a Scale */
const scaleReplicas: Path = [fieldElement('spec'), fieldElement('replicas')];

/** a JSON path such as .spec.replicas as a field path */
export const fieldPathOf = (jsonPath: string): Path => jsonPath.replace(/^\./, '').split('.').filter(Boolean).map(fieldElement);

/** one entry per manager, operation and subresource: what matches an owner of the Scale to its owner in the parent */
const identity = (o: { manager: string; operation: string; subresource?: string }) => JSON.stringify([o.manager, o.operation, o.subresource ?? '']);

/** the owners of the parent's replica count, as owners of the Scale's spec.replicas at the Scale's version */
export function scaleManagedFields(parent: unknown, replicas: Path, scaleApiVersion: string): ManagedFieldsEntry[] {
  const owners = [...decodeManagedFields(parent).values()]
    .filter(o => has(o.set, replicas))
    .map(o => ({ ...o, apiVersion: scaleApiVersion, set: setOf(scaleReplicas) }));
  return encodeManagedFields(new Map(owners.map(o => [identity(o), o])));
}

/**
 * The parent's entries after a Scale write whose owners of spec.replicas are `scale`: an owner of the replica count
 * that no longer owns it loses it (and goes when it owns nothing else); an owner new to it gets an entry of its own,
 * at the parent's version. Entries keep their place; the Scale's owners bring their time.
 */
export function parentManagedFields(parent: unknown, scale: unknown, replicas: Path, parentApiVersion: string): ManagedFieldsEntry[] {
  const owners = decodeManagedFields(parent);
  const scaleOwners = new Map([...decodeManagedFields(scale).values()].filter(o => has(o.set, scaleReplicas)).map(o => [identity(o), o]));
  const byIdentity = new Map([...owners.values()].map(o => [identity(o), o]));
  for (const [id, o] of owners) {
    if (!has(o.set, replicas)) continue;
    if (scaleOwners.has(identity(o))) continue;
    o.set = difference(o.set, setOf(replicas));
    if (isEmpty(o.set)) owners.delete(id);
  }
  for (const [id, s] of scaleOwners) {
    const existing = byIdentity.get(id);
    if (existing) {
      existing.set = union(existing.set, setOf(replicas));
      existing.time = s.time ?? existing.time;
    } else {
      owners.set(`scale ${id}`, { ...s, apiVersion: parentApiVersion, set: setOf(replicas) });
    }
  }
  return encodeManagedFields(owners);
}
