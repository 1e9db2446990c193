// Validation of a value against a structural schema (custom resources), with the causes and messages the
// reference's OpenAPI validator reports: `spec.replicas: Invalid value: "string": spec.replicas in body must
// be of type integer: "string"`. CEL rules (x-kubernetes-validations) are accepted in schemas but not
// evaluated yet.
import { canonicalJson } from '../api/json.js';
import type { StatusCause } from '../api/meta.js';
import { fieldSchema, type Schema } from '../api/schema.js';
import { re2, re2Problem } from '../util/re2.js';

/** a schema as a CRD may write it: the structural part plus the value-validation keywords */
export interface ValidationSchema extends Schema {
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: ValidationSchema[];
  anyOf?: ValidationSchema[];
  oneOf?: ValidationSchema[];
  not?: ValidationSchema;
  properties?: Record<string, ValidationSchema>;
  additionalProperties?: ValidationSchema | boolean;
  items?: ValidationSchema;
  'x-kubernetes-validations'?: unknown[];
}

/** the JSON type name of a value, as the reference's messages spell it */
export const typeName = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/** a value the way the reference prints it in "Invalid value: ..." */
export const shown = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v === null ? 'null' : JSON.stringify(v);

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });
const invalidValue = (path: string, v: unknown, detail: string) =>
  cause('FieldValueInvalid', path, `Invalid value: ${shown(v)}: ${detail}`);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const fits = (type: string, v: unknown) =>
  type === 'object' ? isObject(v)
    : type === 'array' ? Array.isArray(v)
      : type === 'integer' ? typeof v === 'number' && Number.isInteger(v)
        : type === 'number' ? typeof v === 'number'
          : typeof v === type;

const dateTime = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** string formats the reference checks; other formats are accepted as given */
const stringFormats: Record<string, (s: string) => boolean> = {
  'date-time': s => dateTime.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: s => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  byte: s => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
  uuid: s => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: s => ipv4.test(s),
  ipv6: s => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s),
  cidr: s => { const [ip, bits, ...rest] = s.split('/'); return !rest.length && /^\d+$/.test(bits ?? '') && (ipv4.test(ip) ? Number(bits) <= 32 : ip.includes(':') && Number(bits) <= 128); },
  hostname: s => s.length <= 255 && /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/.test(s),
  email: s => /^[^@\s]+@[^@\s]+$/.test(s),
  mac: s => /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(s),
  duration: s => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$/.test(s),
};
const integerRanges: Record<string, [number, number]> = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] };

/** deep equality of JSON values (for enum, uniqueItems and list-type set) */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object), kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every(k => Object.hasOwn(b as object, k) && jsonEqual((a as any)[k], (b as any)[k]));
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const inBody = (path: string) => `${path || '<root>'} in body`;

/**
 * Every problem of `value` against `schema`, each a cause with the field path. `path` is the value's own path
 * ('' at the root of an object).
 */
export function validateValue(schema: ValidationSchema, value: unknown, path = ''): StatusCause[] {
  const out: StatusCause[] = [];
  check(schema, value, path, out);
  return out;
}

function check(s: ValidationSchema, v: unknown, path: string, out: StatusCause[]) {
  if (v === null) {
    if (s.nullable || s['x-kubernetes-preserve-unknown-fields'] && !s.type) return;
    if (s.type || s['x-kubernetes-int-or-string'])
      out.push(cause('FieldValueTypeInvalid', path, `Invalid value: "null": ${inBody(path)} must be of type ${s['x-kubernetes-int-or-string'] ? 'integer,string' : s.type}: "null"`));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      out.push(cause('FieldValueTypeInvalid', path, `Invalid value: "${typeName(v)}": ${inBody(path)} must be of type integer,string: "${typeName(v)}"`));
      return;
    }
  } else if (s.type && !fits(s.type, v)) {
    out.push(cause('FieldValueTypeInvalid', path, `Invalid value: "${typeName(v)}": ${inBody(path)} must be of type ${s.type}: "${typeName(v)}"`));
    return;
  }
  if (s.enum && !s.enum.some(e => jsonEqual(e, v)))
    out.push(cause('FieldValueNotSupported', path, `Unsupported value: ${shown(v)}: supported values: ${s.enum.map(shown).join(', ')}`));

  if (typeof v === 'number') checkNumber(s, v, path, out);
  else if (typeof v === 'string') checkString(s, v, path, out);
  else if (Array.isArray(v)) checkArray(s, v, path, out);
  else if (isObject(v)) checkObject(s, v, path, out);

  for (const sub of s.allOf ?? []) check(sub, v, path, out);
  if (s.anyOf && !s.anyOf.some(sub => validateValue(sub, v, path).length === 0))
    out.push(invalidValue(path, v, `${inBody(path)} must validate at least one schema (anyOf)`));
  if (s.oneOf) {
    const passing = s.oneOf.filter(sub => validateValue(sub, v, path).length === 0).length;
    if (passing !== 1) out.push(invalidValue(path, v, `${inBody(path)} must validate one and only one schema (oneOf)`));
  }
  if (s.not && validateValue(s.not, v, path).length === 0)
    out.push(invalidValue(path, v, `${inBody(path)} must not validate the schema (not)`));
}

function checkNumber(s: ValidationSchema, v: number, path: string, out: StatusCause[]) {
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)
      out.push(invalidValue(path, v, `${inBody(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
  }
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)
      out.push(invalidValue(path, v, `${inBody(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0 && Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9)
    out.push(invalidValue(path, v, `${inBody(path)} should be a multiple of ${s.multipleOf}`));
  const range = s.type === 'integer' && s.format ? integerRanges[s.format] : undefined;
  if (range && (v < range[0] || v > range[1]))
    out.push(invalidValue(path, v, `${inBody(path)} must be of type ${s.format}: ${shown(v)}`));
}

function checkString(s: ValidationSchema, v: string, path: string, out: StatusCause[]) {
  const length = [...v].length;
  if (s.minLength !== undefined && length < s.minLength)
    out.push(invalidValue(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  if (s.maxLength !== undefined && length > s.maxLength)
    out.push(cause('FieldValueTooLong', path, `Too long: may not be longer than ${s.maxLength}`));
  // RE2, as the reference matches: linear in the value whatever the pattern (a CRD refuses patterns RE2 cannot compile)
  if (s.pattern !== undefined && !re2Problem(s.pattern) && !re2(s.pattern).test(v))
    out.push(invalidValue(path, v, `${inBody(path)} should match '${s.pattern}'`));
  const format = s.format && stringFormats[s.format];
  if (format && !format(v)) out.push(invalidValue(path, v, `${inBody(path)} must be of type ${s.format}: ${shown(v)}`));
}

/** the key of a list-map entry, as a comparable string */
const entryKey = (entry: unknown, keys: string[]) => JSON.stringify(keys.map(k => (isObject(entry) ? entry[k] ?? null : null)));

function checkArray(s: ValidationSchema, v: unknown[], path: string, out: StatusCause[]) {
  if (s.minItems !== undefined && v.length < s.minItems)
    out.push(invalidValue(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  if (s.maxItems !== undefined && v.length > s.maxItems)
    out.push(cause('FieldValueTooMany', path, `Too many: ${v.length}: must have at most ${s.maxItems} items`));
  const listType = s['x-kubernetes-list-type'];
  // duplicates are found through each item's canonical text in a set: linear in the list, however long
  const keys = s.uniqueItems || listType === 'set' ? v.map(canonicalJson) : undefined;
  if (s.uniqueItems && new Set(keys).size !== v.length)
    out.push(invalidValue(path, v, `${inBody(path)} shouldn't contain duplicates`));
  if (listType === 'set') {
    const seen = new Set<string>();
    keys!.forEach((k, i) => {
      if (seen.has(k)) out.push(cause('FieldValueDuplicate', `${path}[${i}]`, `Duplicate value: ${shown(v[i])}`));
      seen.add(k);
    });
  }
  if (listType === 'map' && s['x-kubernetes-list-map-keys']?.length) {
    const keys = s['x-kubernetes-list-map-keys'];
    const seen = new Set<string>();
    v.forEach((x, i) => {
      const k = entryKey(x, keys);
      if (seen.has(k)) {
        const shownKey = isObject(x) ? Object.fromEntries(keys.filter(key => key in x).map(key => [key, x[key]])) : x;
        out.push(cause('FieldValueDuplicate', `${path}[${i}]`, `Duplicate value: ${JSON.stringify(shownKey)}`));
      }
      seen.add(k);
    });
  }
  if (s.items) v.forEach((x, i) => check(s.items!, x, `${path}[${i}]`, out));
}

function checkObject(s: ValidationSchema, v: Record<string, unknown>, path: string, out: StatusCause[]) {
  const count = Object.keys(v).length;
  if (s.minProperties !== undefined && count < s.minProperties)
    out.push(invalidValue(path, count, `${inBody(path)} should have at least ${s.minProperties} properties`));
  if (s.maxProperties !== undefined && count > s.maxProperties)
    out.push(cause('FieldValueTooMany', path, `Too many: ${count}: must have at most ${s.maxProperties} items`));
  for (const r of s.required ?? []) if (!Object.hasOwn(v, r)) out.push(cause('FieldValueRequired', join(path, r), 'Required value'));
  if (s['x-kubernetes-embedded-resource']) checkEmbedded(v, path, out);
  for (const [k, child] of Object.entries(v)) {
    const p = fieldSchema(s, k);
    if (p) check(p, child, join(path, k), out);
  }
}

/** an embedded object names its kind and version, and its metadata is object metadata */
function checkEmbedded(v: Record<string, unknown>, path: string, out: StatusCause[]) {
  if (Object.keys(v).length === 0) return;
  for (const f of ['apiVersion', 'kind']) {
    if (v[f] === undefined || v[f] === '') out.push(cause('FieldValueRequired', join(path, f), 'Required value: must not be empty'));
    else if (typeof v[f] !== 'string') out.push(cause('FieldValueTypeInvalid', join(path, f), `Invalid value: "${typeName(v[f])}": ${inBody(join(path, f))} must be of type string: "${typeName(v[f])}"`));
  }
  if (v.metadata !== undefined && !isObject(v.metadata))
    out.push(cause('FieldValueTypeInvalid', join(path, 'metadata'), `Invalid value: "${typeName(v.metadata)}": ${inBody(join(path, 'metadata'))} must be of type object: "${typeName(v.metadata)}"`));
}
