// Whether a CRD's openAPIV3Schema is structural, with the reference's reasons when it is not: every field has a
// type (unless it is int-or-string or preserves unknown fields), `properties` and `additionalProperties`
// exclude each other, metadata at the root narrows only name and generateName, value validations
// (allOf/anyOf/oneOf/not) carry no structure of their own, list and map markers are consistent, and defaults
// are pruned and valid, patterns are RE2. Causes carry field paths below `path`, e.g.
// spec.versions[0].schema.openAPIV3Schema.
import type { StatusCause } from '../api/meta.js';
import type { ValidationSchema } from './validate.js';
import { shown, validateValue } from './validate.js';
import { prune } from './prune.js';
import { applyDefaults } from './defaults.js';
import { re2Problem } from '../util/re2.js';

type Node = Record<string, any>;
type Level = 'root' | 'field' | 'item' | 'map';

const types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const forbidden = (field: string, message: string): StatusCause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${message}` });
const required = (field: string, message: string): StatusCause => ({ reason: 'FieldValueRequired', field, message: `Required value: ${message}` });
const invalid = (field: string, value: unknown, message: string): StatusCause =>
  ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(value)}: ${message}` });

/** keywords a CRD schema may not use, with the reason */
const unsupported: Record<string, string> = {
  $ref: '$ref is not supported',
  $schema: '$schema is not supported',
  id: 'id is not supported',
  definitions: 'definitions are not supported',
  dependencies: 'dependencies are not supported',
  patternProperties: 'patternProperties is not supported',
  additionalItems: 'additionalItems cannot be set to false',
};

/** all reasons a schema is not structural or not acceptable in a CRD; empty when it is */
export function structuralProblems(schema: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!isObject(schema)) { out.push(required(path, 'schemas are required')); return out; }
  node(schema, path, 'root', out);
  return out;
}

function node(s: Node, p: string, level: Level, out: StatusCause[]) {
  const at = (k: string) => `${p}.${k}`;
  for (const [k, why] of Object.entries(unsupported)) if (k in s && !(k === 'additionalItems' && s[k] !== false)) out.push(forbidden(at(k), why));
  if (s.uniqueItems === true) out.push(forbidden(at('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.additionalProperties === false) out.push(forbidden(at('additionalProperties'), 'additionalProperties cannot be set to false'));

  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (preserve !== undefined && preserve !== true) out.push(invalid(at('x-kubernetes-preserve-unknown-fields'), preserve, 'must be true or undefined'));

  // the type
  if (s.type !== undefined && !types.includes(s.type))
    out.push({ reason: 'FieldValueNotSupported', field: at('type'), message: `Unsupported value: ${shown(s.type)}: supported values: ${types.map(t => `"${t}"`).join(', ')}` });
  if (intOrString) {
    if (s.type) out.push(invalid(at('type'), s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  } else if (!s.type && preserve !== true) {
    const where = level === 'root' ? 'at the root' : level === 'item' ? 'for specified array items' : 'for specified object fields';
    out.push(required(at('type'), `must not be empty ${where}`));
  }
  if (level === 'root' && s.type && s.type !== 'object') out.push(invalid(at('type'), s.type, 'must be object at the root'));
  if (embedded) {
    if (s.type !== 'object') out.push(invalid(at('type'), s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
    if (!isObject(s.properties) || !Object.keys(s.properties).length) {
      if (preserve !== true) out.push(required(at('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
    }
  }

  // structure below
  if (s.properties !== undefined && isObject(s.additionalProperties))
    out.push(forbidden(at('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
  if (s.type === 'array' && s.items === undefined) out.push(required(at('items'), 'must be specified'));
  if (Array.isArray(s.items)) out.push(forbidden(at('items'), 'items must be a schema object and not an array'));
  if (isObject(s.properties)) {
    for (const [k, child] of Object.entries(s.properties)) {
      const cp = `${p}.properties[${k}]`;
      if (!isObject(child)) { out.push(invalid(cp, child, 'must be a schema object')); continue; }
      node(child, cp, 'field', out);
    }
  }
  if (isObject(s.items)) node(s.items, at('items'), 'item', out);
  if (isObject(s.additionalProperties)) node(s.additionalProperties, at('additionalProperties'), 'map', out);
  if (level === 'root' || embedded) typeMeta(s, p, out);
  listMarkers(s, p, out);

  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (s[k] === undefined) continue;
    if (!Array.isArray(s[k])) { out.push(invalid(at(k), s[k], 'must be a list of schemas')); continue; }
    s[k].forEach((v: unknown, i: number) => valueValidation(v, `${p}.${k}[${i}]`, s, intOrString, out));
  }
  if (s.not !== undefined) valueValidation(s.not, at('not'), s, intOrString, out);

  patternProblem(s, p, out);
  if (s.default !== undefined) defaultProblems(s, p, level, out);
}

/** a pattern must compile as RE2, the syntax the reference matches with (no lookarounds, no backreferences) */
function patternProblem(s: Node, p: string, out: StatusCause[]) {
  if (typeof s.pattern !== 'string' || !s.pattern) return;
  const problem = re2Problem(s.pattern);
  if (problem) out.push(invalid(`${p}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${problem}`));
}

/** apiVersion and kind are strings; metadata is an object narrowing at most name and generateName */
function typeMeta(s: Node, p: string, out: StatusCause[]) {
  const props = isObject(s.properties) ? s.properties : {};
  for (const k of ['apiVersion', 'kind']) {
    const t = props[k]?.type;
    if (t !== undefined && t !== 'string') out.push(invalid(`${p}.properties[${k}].type`, t, 'must be string'));
  }
  const meta = props.metadata;
  if (!isObject(meta)) return;
  const mp = `${p}.properties[metadata]`;
  if (meta.type !== undefined && meta.type !== 'object') out.push(invalid(`${mp}.type`, meta.type, 'must be object'));
  const narrowed = Object.keys(isObject(meta.properties) ? meta.properties : {}).filter(k => k !== 'name' && k !== 'generateName');
  const extra = Object.keys(meta).filter(k => !['type', 'properties', 'description'].includes(k));
  if (narrowed.length || extra.length)
    out.push(forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

function listMarkers(s: Node, p: string, out: StatusCause[]) {
  const at = (k: string) => `${p}.${k}`;
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    out.push({ reason: 'FieldValueNotSupported', field: at('x-kubernetes-map-type'), message: `Unsupported value: ${shown(mapType)}: supported values: "atomic", "granular"` });
  if (mapType !== undefined && s.type !== 'object') out.push(invalid(at('type'), s.type ?? '', 'must be object if x-kubernetes-map-type is specified'));
  if (listType === undefined) {
    if (keys !== undefined) out.push(forbidden(at('x-kubernetes-list-map-keys'), 'must not be set if x-kubernetes-list-type is not map'));
    return;
  }
  if (!['atomic', 'set', 'map'].includes(listType)) {
    out.push({ reason: 'FieldValueNotSupported', field: at('x-kubernetes-list-type'), message: `Unsupported value: ${shown(listType)}: supported values: "atomic", "set", "map"` });
    return;
  }
  if (s.type !== 'array') out.push(invalid(at('type'), s.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
  const items = isObject(s.items) ? s.items : undefined;
  if (listType === 'map') {
    if (!Array.isArray(keys) || !keys.length) {
      out.push(required(at('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    } else {
      if (new Set(keys).size !== keys.length) out.push(invalid(at('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
      const props = isObject(items?.properties) ? items!.properties : {};
      const missing = keys.filter((k: string) => !isObject(props[k]));
      if (missing.length) out.push(invalid(at('x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
      for (const k of keys) {
        const t = props[k]?.type;
        if (t !== undefined && !['string', 'integer', 'number', 'boolean'].includes(t))
          out.push(invalid(`${p}.items.properties[${k}].type`, t, 'must be a scalar type if parent array\'s x-kubernetes-list-type is map'));
      }
    }
    if (items && items.type !== 'object') out.push(invalid(`${p}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
  } else {
    if (keys !== undefined) out.push(forbidden(at('x-kubernetes-list-map-keys'), 'must not be set if x-kubernetes-list-type is not map'));
    if (listType === 'set' && items && (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic' || items.type === 'array' && items['x-kubernetes-list-type'] !== 'atomic'))
      out.push(invalid(`${p}.items.x-kubernetes-map-type`, items['x-kubernetes-map-type'] ?? '', 'must be atomic as item of a list with x-kubernetes-list-type=set'));
  }
}

/** value validations constrain values only: no types, defaults or markers, and only fields the structure has */
function valueValidation(v: unknown, p: string, structure: Node, intOrString: boolean, out: StatusCause[]) {
  if (!isObject(v)) { out.push(invalid(p, v, 'must be a schema object')); return; }
  // the two forms that spell int-or-string with anyOf are allowed
  const intOrStringForm = intOrString && (v.type === 'integer' || v.type === 'string') && Object.keys(v).length === 1;
  for (const k of ['type', 'default', 'additionalProperties', 'nullable', 'description', 'title']) {
    if (k === 'type' && intOrStringForm) continue;
    if (v[k] !== undefined) out.push(forbidden(`${p}.${k}`, 'must be empty to be structural'));
  }
  for (const k of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'])
    if (v[k]) out.push(forbidden(`${p}.${k}`, 'must be false to be structural'));
  for (const k of ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'])
    if (v[k] !== undefined) out.push(forbidden(`${p}.${k}`, 'must be empty to be structural'));
  if (isObject(v.properties)) {
    const known = isObject(structure.properties) ? structure.properties : {};
    for (const [k, child] of Object.entries(v.properties)) {
      const cp = `${p}.properties[${k}]`;
      if (!isObject(known[k])) { out.push(required(cp, 'must be specified in the structural part of the schema')); continue; }
      valueValidation(child, cp, known[k], known[k]['x-kubernetes-int-or-string'] === true, out);
    }
  }
  if (isObject(v.items)) valueValidation(v.items, `${p}.items`, isObject(structure.items) ? structure.items : {}, false, out);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const)
    if (Array.isArray(v[k])) v[k].forEach((x: unknown, i: number) => valueValidation(x, `${p}.${k}[${i}]`, structure, intOrString, out));
  if (v.not !== undefined) valueValidation(v.not, `${p}.not`, structure, intOrString, out);
  patternProblem(v, p, out);
}

/** a default must be pruned (no unknown fields) and valid against its own schema, nested defaults applied */
function defaultProblems(s: Node, p: string, level: Level, out: StatusCause[]) {
  const at = `${p}.default`;
  if (p.endsWith('.properties[metadata]') && level === 'field') { out.push(forbidden(at, 'must not be set for metadata')); return; }
  const value = structuredClone(s.default);
  const pruned = prune(s as ValidationSchema, structuredClone(value), false);
  if (pruned.length) out.push(invalid(at, value, `must not have unknown fields: ${pruned.map(f => `"${f}"`).join(', ')}`));
  applyDefaults(s as ValidationSchema, value);
  out.push(...validateValue(s as ValidationSchema, value, at));
}
