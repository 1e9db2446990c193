// The pieces Table columns are made of, as the reference prints them (`kubectl get` renders the cells the server
// sends). Cells are computed from the stored object at request time; wide columns have priority 1. Each resource's
// own columns live in its folder.
import type { LabelSelector, ObjectMeta } from '../../api/types/meta-v1.js';
import type { PodSpec } from '../../api/types/core-v1.js';
import type { TableColumn } from '../types.js';

/** a column; `wide` ones only show with -o wide */
export function column<T>(name: string, type: TableColumn['type'], cell: (obj: T) => unknown, description = '', wide = false): TableColumn<T> {
  return { name, type, description, cell, ...(wide ? { priority: 1 } : { priority: 0 }) };
}
export const wide = <T>(name: string, type: TableColumn['type'], cell: (obj: T) => unknown, description = '') => column(name, type, cell, description, true);

/** the reference's short human duration: 45s, 3m20s, 5h, 2d3h, 400d, 3y20d */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

/** time since a timestamp, or <unknown> when there is none */
export function since(timestamp: string | undefined | null, now = Date.now()): string {
  if (!timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export const orNone = (s: string | undefined | null) => (s ? s : '<none>');

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
