// Named definitions for the OpenAPI documents. The catalog's shared sub-schemas carry their reference
// name in `x-ref`; every such object becomes one definition and the places that use it become `$ref`s.
// Kinds and their list kinds carry x-kubernetes-group-version-kind so clients can find them. Descriptions
// come from the catalog's description tables, loaded with this module (on the first OpenAPI request).
import type { Naming } from '../naming.js';
import type { Schema } from '../schema.js';
import { obj, str, arr } from './build.js';
import { listMeta } from './meta.js';
import { descriptionsFor, listDescriptions } from './descriptions/index.js';

export interface Gvk { group: string; kind: string; version: string }
export type Json = Record<string, unknown>;

export interface Definitions {
  /** the canonical schema of each definition name */
  readonly byName: ReadonlyMap<string, Schema>;
  readonly gvks: ReadonlyMap<string, readonly Gvk[]>;
  /** names used by schemas that disagree with the canonical one in shape (not only in annotations) */
  readonly conflicts: readonly string[];
}

/** keys that may differ where a field uses a shared definition; they travel beside the `$ref` */
const isAnnotation = (key: string) =>
  key === 'description' || key === 'default' || key === 'nullable' || key.startsWith('x-kubernetes-');
/** keys that only this program reads */
const isInternal = (key: string) => key === 'x-ref' || key === 'x-proto';

const children = (s: Schema): Schema[] => [
  ...Object.values(s.properties ?? {}),
  ...(s.items ? [s.items] : []),
  ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : []),
];

export interface Root {
  schema: Schema;
  gvks?: Gvk[];
  /** this object is the definition of its name, whatever else uses the name (the meta kinds defined here) */
  owner?: boolean;
}

/** The definitions reachable from the roots. When several objects share a name, the owner or else the most
 *  used one is the definition, and the others are written as a `$ref` plus the annotations they differ in. */
export function collectDefinitions(roots: Root[]): Definitions {
  const uses = new Map<string, Map<Schema, number>>();
  const gvks = new Map<string, Gvk[]>();
  const visited = new Set<Schema>();
  const visit = (s: Schema) => {
    const name = s['x-ref'];
    if (name) {
      if (!uses.has(name)) uses.set(name, new Map());
      const byObject = uses.get(name)!;
      byObject.set(s, (byObject.get(s) ?? 0) + 1);
    }
    if (visited.has(s)) return;
    visited.add(s);
    for (const c of children(s)) visit(c);
  };
  for (const { schema, gvks: list } of roots) {
    visit(schema);
    const name = schema['x-ref'];
    if (!name || !list) continue;
    const known = gvks.get(name) ?? [];
    for (const g of list)
      if (!known.some(k => k.group === g.group && k.version === g.version && k.kind === g.kind)) known.push(g);
    gvks.set(name, known);
  }
  const byName = new Map<string, Schema>();
  const conflicts: string[] = [];
  const owned = new Map(roots.filter(r => r.owner).map(r => [r.schema['x-ref'], r.schema]));
  for (const [name, objects] of uses) {
    let best = owned.get(name);
    if (best) { byName.set(name, best); continue; }
    for (const [s, n] of objects) if (!best || n > objects.get(best)!) best = s;
    byName.set(name, best!);
    for (const s of objects.keys()) {
      const keys = differingKeys(s, best!).filter(k => !isAnnotation(k));
      if (keys.length) conflicts.push(`${name} (${keys.join(', ')})`);
    }
  }
  return { byName, gvks, conflicts };
}

function differingKeys(a: Schema, b: Schema): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter(k => !isInternal(k) && !sameValue((a as Json)[k], (b as Json)[k]));
}

/** structural equality that stops at shared objects (cheap for the common case of the same object) */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every(k => sameValue((a as Json)[k], (b as Json)[k]));
}

/** the name the reference gives definitions of kinds it did not compile in (custom resources):
 *  the group reversed, the version, the kind: com.example.stable.v1.CronTab */
export function customDefinitionName(group: string, version: string, kind: string) {
  return [...group.split('.').filter(Boolean).reverse(), version, kind].join('.');
}

const listSchemas = new WeakMap<Schema, Map<string, Schema>>();

/** the list kind of a kind: apiVersion, kind, ListMeta and the items; one object per (kind schema, list kind) */
export function listSchema(kindSchema: Schema, kind: string, listKind: string): Schema {
  let byKind = listSchemas.get(kindSchema);
  if (!byKind) listSchemas.set(kindSchema, byKind = new Map());
  let s = byKind.get(listKind);
  if (!s) {
    const name = kindSchema['x-ref']!;
    const { description, fields } = listDescriptions(kind);
    s = obj(`${name.slice(0, name.lastIndexOf('.') + 1)}${listKind}`, {
      apiVersion: str({ description: fields.apiVersion }),
      items: arr(kindSchema, { description: fields.items }),
      kind: str({ description: fields.kind }),
      metadata: { ...listMeta, description: fields.metadata },
    }, { required: ['items'], description });
    byKind.set(listKind, s);
  }
  return s;
}

type Shape = Record<string, unknown>;
/** The definitions the reference publishes in a shape of their own rather than the one their Go type suggests:
 *  values of more than one JSON type, and free-form objects. Version 3 can say "one of"; version 2 cannot. */
const publishedShapes: Record<string, { v2: Shape; v3: Shape }> = (() => {
  const both = (shape: Shape) => ({ v2: shape, v3: shape });
  const apiext = (k: string) => `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${k}`;
  const meta = (k: string) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`;
  return {
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
      v2: { type: 'string', format: 'int-or-string' },
      v3: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
    },
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { v2: { type: 'string' }, v3: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
    [meta('Time')]: both({ type: 'string', format: 'date-time' }),
    [meta('MicroTime')]: both({ type: 'string', format: 'date-time' }),
    [meta('FieldsV1')]: both({ type: 'object' }),
    [meta('Patch')]: both({ type: 'object' }),
    'io.k8s.apimachinery.pkg.runtime.RawExtension': both({ type: 'object' }),
    // any JSON value, and the unions of JSONSchemaProps with a boolean or a list: no type at all
    [apiext('JSON')]: both({}),
    [apiext('JSONSchemaPropsOrArray')]: both({}),
    [apiext('JSONSchemaPropsOrBool')]: both({}),
    [apiext('JSONSchemaPropsOrStringArray')]: both({}),
  };
})();

export interface Dialect {
  /** OpenAPI 3 writes annotated references as allOf and keeps nullable; Swagger 2 does neither */
  v3: boolean;
  refPrefix: string;
}

export const swagger2: Dialect = { v3: false, refPrefix: '#/definitions/' };
export const openapi3: Dialect = { v3: true, refPrefix: '#/components/schemas/' };

/** Writes schemas in one dialect, with descriptions spelled for `names`, and remembers which definitions they
 *  refer to. `gvks` may narrow the group-version-kinds a definition lists in this document; `bodies` gives
 *  some definitions a body of their own in this dialect. */
export function schemaWriter(defs: Definitions, dialect: Dialect, names: Naming, gvks = (name: string) => defs.gvks.get(name),
  bodies?: ReadonlyMap<string, Schema>) {
  const used = new Set<string>();

  const refTo = (name: string): Json => { used.add(name); return { $ref: dialect.refPrefix + name }; };

  /** a schema where it is used: a reference when it has a name; `description` says what it is in this place */
  function use(s: Schema, description?: string): Json {
    const name = s['x-ref'];
    const canonical = name ? defs.byName.get(name) : undefined;
    if (!name || !canonical) {
      const out = body(s);
      if (description) out.description = description;
      return out;
    }
    const annotations: Json = {};
    if (s !== canonical) for (const k of differingKeys(s, canonical)) {
      const v = (s as Json)[k];
      if (isAnnotation(k) && v !== undefined && (dialect.v3 || k !== 'nullable')) annotations[k] = v;
    }
    if (description) annotations.description = description;
    if (!Object.keys(annotations).length) return refTo(name);
    return dialect.v3 ? { allOf: [refTo(name)], ...annotations } : { ...refTo(name), ...annotations };
  }

  /** a schema written out; `name` is the definition it is the body of, whose description table applies */
  function body(s: Schema, name?: string): Json {
    const described = name ? descriptionsFor(name, names) : undefined;
    const out: Json = {};
    const description = described?.description ?? s.description;
    if (description) out.description = description;
    for (const [k, v] of Object.entries(s)) {
      if (isInternal(k) || k === 'description' || (k === 'nullable' && !dialect.v3)) continue;
      if (k === 'properties') {
        // an object that names no fields is written without `properties`, as the reference writes empty structs
        const entries = Object.entries(v as Record<string, Schema>);
        if (entries.length) out.properties = Object.fromEntries(entries.map(([p, c]) => [p, use(c, described?.fields[p])]));
      }
      else if (k === 'items') out.items = use(v as Schema);
      else if (k === 'additionalProperties') out.additionalProperties = typeof v === 'object' ? use(v as Schema) : v;
      else out[k] = v;
    }
    return out;
  }

  function definition(name: string): Json {
    const shape = publishedShapes[name];
    if (!shape) return body(bodies?.get(name) ?? defs.byName.get(name)!, name);
    const description = descriptionsFor(name, names).description ?? defs.byName.get(name)!.description;
    return { ...(description ? { description } : {}), ...(dialect.v3 ? shape.v3 : shape.v2) };
  }

  /** the definitions referred to so far and, transitively, the ones they refer to, sorted by name */
  function definitions(): Record<string, Json> {
    const out: Record<string, Json> = {};
    const done = new Set<string>();
    for (let pending = [...used]; pending.length; pending = [...used].filter(n => !done.has(n))) {
      for (const name of pending) {
        done.add(name);
        const d = definition(name);
        const gvk = gvks(name);
        if (gvk?.length) d['x-kubernetes-group-version-kind'] = gvk;
        out[name] = d;
      }
    }
    return Object.fromEntries(Object.keys(out).sort().map(k => [k, out[k]]));
  }

  return { use, refTo, definitions };
}
