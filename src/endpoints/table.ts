// The Table representation: column definitions from the resource's catalog entry (Name and Created At
// when it has none), one row per object, and the object itself as metadata, in full or not at all.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { TableColumn } from '../registry/types.js';
import type { ResourceInfo } from '../registry/resources.js';
import { badRequest } from '../api/status.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`Unable to convert to Table as requested: includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

const nameColumn: TableColumn = {
  name: 'Name', type: 'string', format: 'name',
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
};
const createdAtColumn: TableColumn = {
  name: 'Created At', type: 'date', format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
  jsonPath: '.metadata.creationTimestamp',
};

/** the catalog's columns, led by Name unless they place it themselves (events print it last, wide only) */
export const columnsOf = (info: ResourceInfo): TableColumn[] => withName(info.versionDef.columns ?? info.def.columns);

/** a kind's own columns led by Name (unless they place it themselves); Name and Created At for a kind without */
export const withName = (own: TableColumn[] | undefined): TableColumn[] => {
  if (!own?.length) return [nameColumn, createdAtColumn];
  return own.some(c => c.name === 'Name') ? own.map(c => (c.name === 'Name' && !c.cell && !c.jsonPath ? { ...nameColumn, priority: c.priority } : c)) : [nameColumn, ...own];
};

/** evaluates a simple JSONPath such as .status.phase or .spec.ports[0].port */
export function jsonPathValue(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const part of path.replace(/^\{?\.?/, '').replace(/\}$/, '').split('.').filter(Boolean)) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    if (m[1]) cur = cur?.[m[1]];
    for (const idx of m[2].match(/\d+/g) ?? []) cur = cur?.[Number(idx)];
    if (cur === undefined || cur === null) return undefined;
  }
  return cur;
}

/** a short duration as the reference prints ages: 45s, 12m, 3h4m, 5d, 2y */
export function humanAge(since: string | null | undefined, now = Date.now()): string {
  if (!since) return '<unknown>';
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return `${d}d${h % 24 ? `${h % 24}h` : ''}`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function cellOf(c: TableColumn, obj: ApiObject): unknown {
  if (c.format === 'name' && !c.cell && !c.jsonPath) return obj.metadata.name ?? '';
  const v = c.cell ? c.cell(obj) : c.jsonPath ? jsonPathValue(obj, c.jsonPath) : undefined;
  if (v === undefined || v === null) return c.type === 'string' ? '<none>' : null;
  return v;
}

const definitionOf = (c: TableColumn) => ({
  name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0,
});

export function tableRow(info: ResourceInfo, obj: ApiObject, include: IncludeObject, names: Naming, cols = columnsOf(info)) {
  const row: Record<string, unknown> = { cells: cols.map(c => cellOf(c, obj)) };
  const conditions = info.def.rowConditions?.(obj);
  if (conditions?.length) row.conditions = conditions;
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: `${names.metaGroup}/v1`, metadata: obj.metadata };
  return row;
}

/** a Table without its rows */
export const tableHead = (info: ResourceInfo, listMeta: Record<string, unknown>, names: Naming, version = 'v1', cols = columnsOf(info)) => ({
  kind: 'Table', apiVersion: `${names.metaGroup}/${version}`, metadata: listMeta, columnDefinitions: cols.map(definitionOf),
});

export function toTable(info: ResourceInfo, objects: ApiObject[], listMeta: Record<string, unknown>, include: IncludeObject,
  names: Naming, version = 'v1', cols = columnsOf(info)) {
  return { ...tableHead(info, listMeta, names, version, cols), rows: objects.map(o => tableRow(info, o, include, names, cols)) };
}
