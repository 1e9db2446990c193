// The pieces Table columns are made of, as the reference prints them (`kubectl get` renders the cells the server
// sends). Cells are computed from the stored object at request time; wide columns have priority 1. Each resource's
// own columns live in its folder.
import type { LabelSelector, ObjectMeta } from '../../api/types/meta-v1.js';
import type { PodSpec } from '../../api/types/core-v1.js';
import type { TableColumn } from '../types.js';
import { humanDuration, since } from '../../api/duration.js';

export { humanDuration, since };

/** a column; `wide` ones only show with -o wide */
export function column<T>(name: string, type: TableColumn['type'], cell: (obj: T) => unknown, description = '', wide = false): TableColumn<T> {
  return { name, type, description, cell, ...(wide ? { priority: 1 } : { priority: 0 }) };
}
export const wide = <T>(name: string, type: TableColumn['type'], cell: (obj: T) => unknown, description = '') => column(name, type, cell, description, true);

export const orNone = (s: string | undefined | null) => (s ? s : '<none>');

/** an optional boolean as the reference prints it in text: True, False, <unset> */
export const boolText = (v: boolean | undefined | null) => (v === true ? 'True' : v === false ? 'False' : '<unset>');

/** a count that may be absent */
export const n = (v: unknown) => (typeof v === 'number' ? v : 0);

/** the number of entries of a map that may be absent */
export const count = (m: unknown) => (m && typeof m === 'object' ? Object.keys(m).length : 0);

/** k=v pairs sorted by key, as labels print */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length ? keys.map(k => `${k}=${labels![k]}`).join(',') : '<none>';
}

/** a label selector in the reference's string form: a=b,c in (d,e),!f */
export function formatLabelSelector(sel: LabelSelector | undefined): string {
  if (!sel) return '<none>';
  const parts: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) parts.push([k, `${k}=${v}`]);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const text = e.operator === 'In' ? `${e.key} in (${values})`
      : e.operator === 'NotIn' ? `${e.key} notin (${values})`
      : e.operator === 'Exists' ? e.key
      : e.operator === 'DoesNotExist' ? `!${e.key}`
      : `${e.key} ${e.operator} (${values})`;
    parts.push([e.key, text]);
  }
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return parts.length ? parts.map(p => p[1]).join(',') : '<none>';
}

/** the Name column's description, for kinds that print the name themselves */
export const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
/** a Name column whose cell is more than the name (the default StorageClass's suffix) */
export const nameColumn = <T>(cell: (obj: T) => string): TableColumn<T> => ({ ...column('Name', 'string', cell, nameDescription), format: 'name' });
const creationDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. Represented in RFC3339 form and is in UTC.';
interface WithMeta { metadata?: ObjectMeta }
export const age = column<WithMeta>('Age', 'string', o => since(o.metadata?.creationTimestamp), creationDescription);
/** the form roles and limit ranges use: the creation time itself */
export const createdAt = column<WithMeta>('Created At', 'date', o => o.metadata?.creationTimestamp ?? null, creationDescription);

export const containersOf = (podSpec: PodSpec | undefined) => podSpec?.containers ?? [];
/** Containers, Images and (optionally) Selector wide columns of workload kinds */
export function workloadWide<T>(podSpecOf: (o: T) => PodSpec | undefined, selectorOf?: (o: T) => string): TableColumn<T>[] {
  const cols = [
    wide<T>('Containers', 'string', o => containersOf(podSpecOf(o)).map(c => c.name).join(','), 'Names of each container in the template.'),
    wide<T>('Images', 'string', o => containersOf(podSpecOf(o)).map(c => c.image).join(','), 'Images referenced by each container in the template.'),
  ];
  if (selectorOf) cols.push(wide('Selector', 'string', selectorOf, 'Label selector of the pods.'));
  return cols;
}

/** a condition's field, of the first condition of a type */
export const conditionOf = <C extends { type: string }>(conditions: C[] | undefined, type: string): C | undefined =>
  (conditions ?? []).find(c => c.type === type);
