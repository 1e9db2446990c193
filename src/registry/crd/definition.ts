// A CustomResourceDefinition as the server serves it: a ResourceDefinition built from the CRD's accepted names,
// versions, schemas, subresources and printer columns, with the custom-resource strategy.
import type { Schema } from '../../api/schema.js';
import type { ApiObject, Stored } from '../../api/meta.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../../api/types/apiextensions-v1.js';
import { objectMeta } from '../../api/schemas/meta.js';
import { objectFields } from '../../api/schemas/descriptions/common.js';
import { since } from '../../api/duration.js';
import { compareVersions } from '../resources.js';
import type { ResourceDefinition, SubresourceDefinition, TableColumn, Verb, VersionDefinition } from '../types.js';
import { statusSubresource } from '../resources/define.js';
import { scaleSubresource } from '../resources/scale.js';
import { customResourceStrategy } from './strategy.js';
import type { ValidationSchema } from '../../schema/validate.js';
import { prune } from '../../schema/prune.js';
import { applyDefaults } from '../../schema/defaults.js';
import { converterFor } from './conversion.js';
import type { ServiceResolver } from '../../api/apiservices.js';

type Crd = Stored<CustomResourceDefinition>;
type Fields = Record<string, unknown>;

/** the verbs of a custom resource, in the order the reference lists them */
const verbs: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

const ageColumn: TableColumn = {
  name: 'Age', type: 'date', format: '', priority: 0, jsonPath: '.metadata.creationTimestamp',
  cell: (obj: unknown) => typedCell('date', columnCell(obj, '.metadata.creationTimestamp')),
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists.',
};

/** the whole object's schema: the CRD's, with apiVersion, kind and object metadata as every object has them
 *  (a CRD's own narrowing of metadata.name is checked by the strategy against the CRD's schema) */
export function servingSchema(schema: Schema): Schema {
  return {
    ...schema,
    properties: {
      ...schema.properties,
      // described as every kind's are (the reference's published schema says what they are, whatever the CRD wrote)
      apiVersion: { type: 'string', ...schema.properties?.apiVersion, description: objectFields.apiVersion },
      kind: { type: 'string', ...schema.properties?.kind, description: objectFields.kind },
      metadata: { ...objectMeta, description: objectFields.metadata },
    },
  };
}

export function isTerminating(crd: Crd): boolean {
  return (crd.status?.conditions ?? []).some(c => c?.type === 'Terminating' && c?.status === 'True') || !!crd.metadata.deletionTimestamp;
}

const anything: ValidationSchema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const columnTypes: readonly string[] = ['boolean', 'date', 'integer', 'number', 'string'] satisfies TableColumn['type'][];
const isColumnType = (t: string): t is TableColumn['type'] => columnTypes.includes(t);

/**
 * The definition served for a CRD with accepted names; a terminating CRD accepts no new objects. Each version
 * has its own schema, strategy and printer columns; objects are converted between versions by the CRD's
 * conversion (ConversionReviews are of `apiextensionsGroup`, by default the CRD's own group).
 */
/** `celRules`: whether x-kubernetes-validations are evaluated (the CustomResourceValidationExpressions gate) */
export function definitionFromCrd(crd: Crd, apiextensionsGroup = String(crd.apiVersion ?? '').split('/')[0], celRules = true,
  resolveService?: ServiceResolver): ResourceDefinition {
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const versions = crd.spec.versions ?? [];
  const storage = versions.find(v => v.storage) ?? versions[0];
  const preferred = [...versions].filter(v => v.served).sort((a, b) => compareVersions(a.name, b.name))[0] ?? storage;

  // each version has the subresources it declares; the resource's are those of any served version
  const subresourcesOf = (v: CustomResourceDefinitionVersion): Record<string, SubresourceDefinition> => ({
    ...(v.subresources?.status ? { status: statusSubresource } : {}),
    ...(v.subresources?.scale ? { scale: scaleSubresource(v.subresources.scale) } : {}),
  });
  const subresources: Record<string, SubresourceDefinition> = Object.assign({}, ...versions.filter(v => v.served).map(subresourcesOf));
  const columnsOf = (v: CustomResourceDefinitionVersion): TableColumn[] => {
    const printerColumns = v.additionalPrinterColumns ?? [];
    return printerColumns.length
      ? printerColumns.map(c => ({
        name: c.name, type: isColumnType(c.type) ? c.type : 'string', format: c.format ?? '', description: c.description ?? '',
        priority: c.priority ?? 0, jsonPath: c.jsonPath, cell: (obj: unknown) => typedCell(c.type, columnCell(obj, c.jsonPath)),
      }))
      : [ageColumn];
  };
  // the CRD's validation made its schemas structural: they are validation schemas
  const schemaOf = (v: CustomResourceDefinitionVersion): ValidationSchema => (v.schema?.openAPIV3Schema as ValidationSchema | undefined) ?? anything;
  const schemas = new Map<string, ValidationSchema>(versions.map(v => [v.name, schemaOf(v)]));
  const kind: string = names.kind;
  /** pruning and defaults, as every write applies them, by the schema of the object's version */
  const normalize = (obj: ApiObject, version: string) => {
    const schema = schemas.get(version);
    if (!schema) return;
    prune(schema, obj, true);
    applyDefaults(schema, obj);
  };
  // objects written since this definition was made were normalized as they were written
  const since = Number(crd.metadata.resourceVersion ?? 0);
  return {
    group: crd.spec.group,
    resource: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    kind,
    listKind: names.listKind || `${names.kind}List`,
    ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
    ...(names.categories?.length ? { categories: names.categories } : {}),
    namespaced: crd.spec.scope === 'Namespaced',
    // as the reference keeps a CRD's storage while neither its spec nor its accepted names change: its watches go on
    // through the Terminating condition and see its objects deleted
    servingKey: JSON.stringify([crd.metadata.uid, crd.spec, names]),
    verbs: isTerminating(crd) ? verbs.filter(v => v !== 'create') : verbs,
    ...(isTerminating(crd) ? {
      createRefusal: 'create not allowed while custom resource definition is terminating',
      discoveryVerbs: verbs.filter(v => !['create', 'patch', 'update'].includes(v)),
    } : {}),
    versions: versions.map((v): VersionDefinition => ({
      name: v.name, served: !!v.served, storage: !!v.storage,
      schema: servingSchema(schemaOf(v)),
      ...(v.deprecated ? { deprecated: true } : {}),
      ...(v.deprecationWarning ? { deprecationWarning: v.deprecationWarning } : {}),
      ...(v.served ? { strategy: customResourceStrategy({ schema: schemaOf(v), celRules }), columns: columnsOf(v), subresources: subresourcesOf(v) } : {}),
    })),
    subresources,
    columns: columnsOf(preferred),
    custom: true,
    convert: converterFor(crd.spec.conversion, {
      group: crd.spec.group, kind, reviewGroup: apiextensionsGroup, resolveService,
      normalize,
    }),
    fromStorage(obj, rev) {
      if (rev > since) return undefined;
      const copy = structuredClone(obj);
      normalize(copy, String(obj.apiVersion ?? '').slice(crd.spec.group.length + 1));
      return copy;
    },
  };
}

/**
 * A value as a cell of a column of the given type, as the reference converts it: a date becomes the age it gives
 * (`<invalid>` when it is no timestamp), a string column prints any value as text, and a value of another type
 * than the column's is no cell (null).
 */
export function typedCell(type: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer': return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number': return typeof value === 'number' ? value : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    case 'string': return typeof value === 'object' ? JSON.stringify(value) : String(value);
    case 'date': {
      if (typeof value !== 'string') return null;
      const at = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
      return Number.isNaN(at) ? '<invalid>' : since(value);
    }
    default: return null;
  }
}

/** a printer column's cell: the JSONPath's results, one value as is, several joined with commas */
export function columnCell(obj: unknown, path: string): unknown {
  const results = evaluateJsonPath(obj, path);
  if (!results.length) return undefined;
  if (results.length === 1) return results[0];
  return results.map(r => (typeof r === 'object' && r !== null ? JSON.stringify(r) : String(r))).join(', ');
}

/**
 * The JSONPath subset printer columns use: `.a.b`, `['a.b']`, `[0]`, `[*]`, `..` is not supported, and filters
 * `[?(@.type=="Ready")]` with ==, != and existence. Missing fields give no results.
 */
export function evaluateJsonPath(obj: unknown, path: string): unknown[] {
  let text = path.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  let current: unknown[] = [obj];
  let i = 0;
  const field = /^[A-Za-z0-9_\-/$]+/;
  while (i < text.length && current.length) {
    if (text[i] === '.') {
      const m = field.exec(text.slice(i + 1));
      if (!m) { i++; continue; }
      i += 1 + m[0].length;
      current = current.flatMap(c => (c && typeof c === 'object' && !Array.isArray(c) && (c as Fields)[m[0]] !== undefined ? [(c as Fields)[m[0]]] : []));
    } else if (text[i] === '[') {
      const end = matchingBracket(text, i);
      if (end < 0) return [];
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      current = current.flatMap(c => select(c, inner));
    } else {
      return [];
    }
  }
  return current.filter(v => v !== undefined && v !== null);
}

function matchingBracket(text: string, start: number): number {
  let depth = 0, quote = '';
  for (let j = start; j < text.length; j++) {
    const ch = text[j];
    if (quote) { if (ch === quote) quote = ''; continue; }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return j;
  }
  return -1;
}

/**
 * A filter `?(@.path)` or `?(@.path == value)` (or `!=`). The path is matched by a pattern and the comparison after it
 * read as text: one pattern for both (optional spaces around an operator and a lazy value) backtracked in cubic time
 * on a long run of spaces, and a CRD's printer column brings this text.
 */
function filterOf(inner: string): { fieldPath: string; op?: '==' | '!='; value: string } | undefined {
  const m = /^\?\(@((?:\.[A-Za-z0-9_\-/$]+)+)/.exec(inner);
  if (!m || !inner.endsWith(')')) return undefined;
  const fieldPath = m[1]!;
  const rest = inner.slice(m[0].length, -1).trim();
  if (!rest) return { fieldPath, value: '' };
  const op = rest.slice(0, 2);
  const value = rest.slice(2).trim();
  if ((op !== '==' && op !== '!=') || !value || /[\n\r\u2028\u2029]/.test(value)) return undefined;
  return { fieldPath, op, value };
}

function select(c: unknown, inner: string): unknown[] {
  if (inner === '*') return Array.isArray(c) ? c : c && typeof c === 'object' ? Object.values(c) : [];
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return c && typeof c === 'object' && (c as Fields)[quoted[2]] !== undefined ? [(c as Fields)[quoted[2]]] : [];
  if (/^-?\d+$/.test(inner)) {
    if (!Array.isArray(c)) return [];
    const n = Number(inner);
    const e = c[n < 0 ? c.length + n : n];
    return e === undefined ? [] : [e];
  }
  const filter = filterOf(inner);
  if (filter && Array.isArray(c)) {
    const { fieldPath, op, value: v } = filter;
    let expected: unknown;
    if (op) {
      const q = /^(['"])(.*)\1$/.exec(v);
      expected = q ? q[2] : v === 'true' ? true : v === 'false' ? false : Number.isNaN(Number(v)) ? v : Number(v);
    }
    return c.filter(e => {
      const got = evaluateJsonPath(e, fieldPath);
      if (!op) return got.length > 0;
      const equal = got.length > 0 && got[0] === expected;
      return op === '==' ? equal : !equal;
    });
  }
  return [];
}
