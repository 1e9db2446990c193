// Unknown, duplicate and wrongly typed fields: the typed reading of a request body. Unknown fields come from
// walking the object against its schema; duplicate fields from a scan of the JSON text (parsers keep only the last).
import { fieldSchema, type Schema } from '../api/schema.js';
import { canonicalQuantity, quantityProblem } from '../api/quantity.js';
import { canonicalTime, timeProblem } from '../api/meta.js';
import { deepCopy } from '../util/objects.js';
import { jsonStrings } from '../util/json-strings.js';

export interface TypedReading {
  /** paths of fields the schema does not know; they have been dropped from the value */
  unknown: string[];
  /** values of the wrong JSON type or format, as "<path>: expected <type>, got <type>" or the decoder's reason */
  wrongTypes: string[];
}

export interface TypedReadingOptions {
  /** write quantities in their canonical form (`0.5` as `500m`), as the reference's typed objects hold them; not
   *  for custom resources, which the reference keeps as they were written */
  canonicalQuantities?: boolean;
  /** write times as the reference's typed objects hold them: in UTC, a Time to the second, a MicroTime to the
   *  microsecond; not for custom resources, which the reference keeps as they were written */
  canonicalTimes?: boolean;
  /** drop empty lists and maps of optional fields, which the reference's typed objects never write out (its fields
   *  are `omitempty`); not for custom resources, which the reference keeps as they were written */
  omitEmpty?: boolean;
  /** a null entry of a list or map of strings, numbers or booleans becomes its zero value ("", 0, false), as the
   *  reference's typed decoding makes it; not for custom resources, whose schema decides about nulls */
  zeroNulls?: boolean;
}

/**
 * Reads a value as the reference's typed decoding does: fields the schema does not know are reported and dropped,
 * a null list entry of objects becomes an empty object (when asked, a null scalar entry its zero value), and a
 * value of the wrong JSON type is reported (null is every type's zero value), as is one its format does not decode:
 * an integer out of its int32 or int64 range, a quantity, base64 bytes, an RFC 3339 time or an int-or-string that
 * does not parse. Changes the value in place.
 */
export function readTyped(schema: Schema | undefined, value: unknown, options: TypedReadingOptions = {}): TypedReading {
  const out: Reading = { unknown: [], wrongTypes: [], canonicalQuantities: options.canonicalQuantities ?? false, canonicalTimes: options.canonicalTimes ?? false,
    omitEmpty: options.omitEmpty ?? false, zeroNulls: options.zeroNulls ?? false };
  walk(schema, value, '', out);
  return { unknown: out.unknown, wrongTypes: out.wrongTypes };
}

interface Reading extends TypedReading { canonicalQuantities: boolean; canonicalTimes: boolean; omitEmpty: boolean; zeroNulls: boolean }

const zeroValues: Record<string, unknown> = { string: '', integer: 0, number: 0, boolean: false };
/** what a null entry of a list or map whose entries have schema s reads as */
const nullEntry = (s: Schema | undefined, out: Reading) =>
  s?.type === 'object' ? {} : out.zeroNulls && s?.type && !s.format?.startsWith('int-or') ? zeroValues[s.type] ?? null : null;

/** the value to keep for a field: a well-formed quantity or time in canonical form when asked for */
const decoded = (s: Schema, v: unknown, out: Reading) =>
  out.canonicalQuantities && s.format === 'quantity' && (typeof v === 'string' || typeof v === 'number') && !quantityProblem(v) ? canonicalQuantity(v)
    : out.canonicalTimes && s.format === 'date-time' && typeof v === 'string' && !timeProblem(v) ? canonicalTime(v, String(s['x-ref']).endsWith('.MicroTime'))
      : v;
const canonicalized = (s: Schema, out: Reading) => (out.canonicalQuantities && s.format === 'quantity') || (out.canonicalTimes && s.format === 'date-time');

/**
 * An object as the reference decodes it from storage, quantities in canonical form: the object itself when they are
 * already (all that this server stored since it writes them so), else a canonical copy. Objects stored before are
 * read this way where an update compares the old object with the new one, so that `0.5` and `500m` are one value.
 */
export function canonicalForm<T>(schema: Schema | undefined, value: T): T {
  if (!schema || !hasOtherQuantities(schema, value)) return value;
  const copy = deepCopy(value);
  readTyped(schema, copy, { canonicalQuantities: true });
  return copy;
}

const quantityBelow = new WeakMap<Schema, boolean>();

/** whether a value of this schema can hold a quantity anywhere (a ConfigMap's data cannot: none of its 100,000 values
 *  need a look); remembered per schema node, and true for a node met again while its answer is being worked out */
function mayHoldQuantity(s: Schema): boolean {
  const known = quantityBelow.get(s);
  if (known !== undefined) return known;
  quantityBelow.set(s, true);
  const below = (c: unknown) => !!c && typeof c === 'object' && mayHoldQuantity(c as Schema);
  const answer = s.format === 'quantity' || (!s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-embedded-resource']
    && (Object.values(s.properties ?? {}).some(below) || below(s.additionalProperties) || below(s.items)));
  quantityBelow.set(s, answer);
  return answer;
}

function hasOtherQuantities(s: Schema | undefined, v: unknown): boolean {
  if (!s || !mayHoldQuantity(s)) return false;
  if (v === null || typeof v !== 'object') {
    return !!s && s.format === 'quantity' && (typeof v === 'string' || typeof v === 'number') && !quantityProblem(v) && canonicalQuantity(v) !== v;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) return false;
  if (Array.isArray(v)) return v.some(e => hasOtherQuantities(s.items, e));
  const o = v as Record<string, unknown>;
  return Object.keys(o).some(k => hasOtherQuantities(fieldSchema(s, k), o[k]));
}

const jsonTypeOf = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);

const typeFits = (type: string, v: unknown) =>
  type === 'object' ? typeof v === 'object' && !Array.isArray(v)
    : type === 'array' ? Array.isArray(v)
      : type === 'integer' ? Number.isInteger(v)
        : type === 'number' ? typeof v === 'number'
          : typeof v === type;

/**
 * The ranges of the typed fields' integer formats: the reference's decoder refuses a number its field cannot hold
 * (a replica count of 2^40, a grace period of 1e300). JSON numbers arrive as doubles, so the largest int64 reads as 2^63.
 */
const integerRanges: Record<string, [number, number]> = { int32: [-(2 ** 31), 2 ** 31 - 1], int64: [-(2 ** 63), 2 ** 63] };

/**
 * What an int64 field keeps of a number that read as 2^63 (the largest int64 and its neighbours do): the largest double
 * below it. 2^63 itself fits no int64: Go clients refuse to decode the object and protobuf would wrap it negative.
 */
const largestInt64Double = 2 ** 63 - 1024;

const outOfRange = (s: Schema, v: unknown) => {
  const range = s.type === 'integer' && s.format ? integerRanges[s.format] : undefined;
  return range !== undefined && typeof v === 'number' && (v < range[0] || v > range[1]);
};

/** why a value does not fit its schema's type or format (a wrong type, an integer out of range, a format that does
 *  not decode), or undefined */
function valueProblem(s: Schema, v: unknown): string | undefined {
  if (s.type && !typeFits(s.type, v)) return `expected ${s.type}, got ${jsonTypeOf(v)}`;
  if (outOfRange(s, v)) return `expected ${s.format}, got number ${v}`;
  return s.format === 'quantity' ? quantityProblem(v) : s.format === 'int-or-string' ? intOrStringProblem(v)
    : typeof v !== 'string' ? undefined
      : s.format === 'byte' ? base64Problem(v) : s.format === 'date-time' ? timeProblem(v) : undefined;
}

/** returns how many fields an object keeps once walked (-1 for anything else or an object not walked through) */
function walk(s: Schema | undefined, v: unknown, path: string, out: Reading): number {
  if (!s || v === null || v === undefined) return -1;
  const problem = valueProblem(s, v);
  if (problem) { out.wrongTypes.push(`${path || '<root>'}: ${problem}`); return -1; }
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource'] || typeof v !== 'object') return -1;
  if (Array.isArray(v)) {
    v.forEach((e, i) => {
      if (e === null) v[i] = nullEntry(s.items, out);
      walk(s.items, v[i], `${path}[${i}]`, out);
      if (s.items && canonicalized(s.items, out)) v[i] = decoded(s.items, v[i], out);
    });
    return -1;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  let kept = keys.length;
  for (const k of keys) {
    const child = fieldSchema(s, k);
    let size = -1;
    if (child) {
      // a map's null entry (a struct's null field stays: it reads as left out)
      if (o[k] === null && !s.properties && out.zeroNulls) o[k] = nullEntry(child, out) ?? null;
      const value = o[k];
      // a scalar is checked here, its path made only for a problem: a map may hold a hundred thousand of them
      if (value !== null && typeof value === 'object') size = walk(child, value, join(path, k), out);
      else if (value !== null && value !== undefined) {
        const problem = valueProblem(child, value);
        if (problem) out.wrongTypes.push(`${join(path, k) || '<root>'}: ${problem}`);
      }
      // o[k] is an own property, so assigning it never reaches a prototype, whatever k is; only a quantity changes
      if (canonicalized(child, out)) o[k] = decoded(child, o[k], out);
      else if (child.format === 'int64' && typeof o[k] === 'number' && (o[k] as number) >= 2 ** 63) o[k] = largestInt64Double;
    }
    else if (s.additionalProperties !== true && s.properties) { out.unknown.push(join(path, k)); delete o[k]; kept--; continue; }
    if (out.omitEmpty && child && s.properties && isEmptyCollection(child, o[k], size) && !s.required?.includes(k)) { delete o[k]; kept--; }
  }
  return kept;
}

/**
 * An empty list, or an empty map (an object whose schema declares values, not fields): what a typed object of the
 * reference holds as an empty slice or map and leaves out of its JSON. Empty structs (`emptyDir: {}`) are kept.
 */
function isEmptyCollection(s: Schema, v: unknown, size: number): boolean {
  if (Array.isArray(v)) return v.length === 0;
  // size: the walk's count of the map's fields, which spares listing a large map's keys again
  return v !== null && typeof v === 'object' && !s.properties && typeof s.additionalProperties === 'object'
    && !s['x-kubernetes-preserve-unknown-fields'] && (size >= 0 ? size : Object.keys(v).length) === 0;
}

/**
 * Why a string is not standard base64 as the reference decodes bytes (padded; line breaks skipped), or undefined. Stored
 * as it came, such a value would fail every client that reads the object (and with it every list that holds it).
 */
function base64Problem(v: string): string | undefined {
  const text = v.replace(/[\r\n]/g, '');
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return undefined;
  // where the reference's decoder stops, near enough: the first character outside the alphabet, else the last quantum
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  return `illegal base64 data at input byte ${bad ? bad.index : text.length - (text.length % 4 || 4)}`;
}

/** an int-or-string holds a string or an int32, as the reference's decoder reads one */
const intOrStringProblem = (v: unknown): string | undefined =>
  typeof v === 'string' ? undefined
    : !Number.isInteger(v) ? `expected int or string, got ${jsonTypeOf(v)}`
      : outOfRange({ type: 'integer', format: 'int32' }, v) ? `expected int32, got number ${v}` : undefined;

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** what a scan of JSON text reports: keys repeated in their object, and numbers written with a fraction or exponent */
interface JsonTextVisitor {
  repeated?(path: string): void;
  fractional?(path: (string | number)[], literal: string): void;
  /** an integer literal of 16 digits or more */
  long?(path: (string | number)[], literal: string): void;
}

const pathText = (path: (string | number)[]) =>
  path.reduce<string>((p, seg) => (typeof seg === 'number' ? `${p}[${seg}]` : p ? `${p}.${seg}` : seg), '');

/**
 * One pass over JSON text (the decoder has already limited its depth). A path is built only for what is reported,
 * from the segments kept on the way down, and only keys are decoded: the other strings are skipped.
 */
function scanJsonText(text: string, visit: JsonTextVisitor): void {
  /** keys and array indexes down to the value being read */
  const path: (string | number)[] = [];
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const strings = jsonStrings(text);
  /** past a string; true when it holds an escape */
  const skipString = (): boolean => {
    i = strings.end(i) + 1;
    return strings.escaped;
  };
  const key = (): string => {
    const start = i;
    if (!skipString()) return text.slice(start + 1, i - 1);
    try { return JSON.parse(text.slice(start, i)) as string; } catch { return text.slice(start + 1, i - 1); }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') { i++; return; }
      while (i < text.length) {
        ws();
        if (text[i] !== '"') return;
        const k = key();
        if (seen.has(k)) visit.repeated?.(pathText([...path, k]));
        seen.add(k);
        ws(); if (text[i] === ':') i++;
        path.push(k);
        value();
        path.pop();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        return;
      }
    } else if (c === '[') {
      i++;
      let n = 0;
      ws();
      if (text[i] === ']') { i++; return; }
      while (i < text.length) {
        path.push(n++);
        value();
        path.pop();
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        return;
      }
    } else if (c === '"') {
      skipString();
    } else {
      const start = i;
      while (i < text.length && !',]} \t\r\n'.includes(text[i])) i++;
      // a number (not true, false or null) with a fraction or an exponent, or a long integer
      if ((visit.fractional || visit.long) && (c === '-' || (c >= '0' && c <= '9'))) {
        const literal = text.slice(start, i);
        if (/[.eE]/.test(literal)) visit.fractional?.([...path], literal);
        else if (literal.length >= 16) visit.long?.([...path], literal);
      }
    }
  };
  value();
}

/** keys that appear twice in one JSON object, as "duplicate field" messages with their path */
export function duplicateFields(text: string): string[] {
  return scanBodyText(text, { duplicates: true }).duplicates;
}

/**
 * What one pass over a body's JSON text finds, of what is asked: keys repeated in their object (as "duplicate field"
 * messages with their path), and, given the kind's schema, integer fields written as `1.0` or `1e3`. The reference's
 * typed decoder refuses any number with a fraction or an exponent for an integer field, whatever its value (JSON.parse
 * reads `1.0` as 1, so the text is what tells; one that is not whole is already a wrong type). Text without a digit
 * before `.`, `e` or `E` has none, and is not scanned for them.
 */
export function scanBodyText(text: string, ask: { duplicates: boolean; integersOf?: Schema }): { duplicates: string[]; fractionalIntegers: string[] } {
  const found = { duplicates: [] as string[], fractionalIntegers: [] as string[] };
  const schema = ask.integersOf && /[0-9][.eE]/.test(text) ? ask.integersOf : undefined;
  if (!ask.duplicates && !schema) return found;
  scanJsonText(text, {
    ...(ask.duplicates ? { repeated: (path: string) => found.duplicates.push(`duplicate field "${path}"`) } : {}),
    ...(schema ? {
      fractional(path: (string | number)[], literal: string) {
        if (!Number.isInteger(Number(literal))) return;
        const s = schemaAt(schema, path);
        if (s?.type === 'integer') found.fractionalIntegers.push(`${pathText(path)}: expected ${s.format ?? 'integer'}, got number ${literal}`);
        else if (s?.format === 'int-or-string') found.fractionalIntegers.push(`${pathText(path)}: expected int or string, got number ${literal}`);
      },
    } : {}),
  });
  return found;
}

const int64Range = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/**
 * Integers in a body's JSON text that the reference keeps exactly, as 64-bit integers, and a JSON number here cannot:
 * beyond 2^53 - 1 in magnitude, within int64 (past it the reference too reads a double). Each as its path and literal.
 * Only text with a run of 16 digits can hold one; other text is not scanned.
 */
export function inexactIntegers(text: string): string[] {
  const found: string[] = [];
  if (!/\d{16}/.test(text)) return found;
  scanJsonText(text, {
    long(path, literal) {
      // an int64 is at most 19 digits and a sign: a longer literal is a double at the reference too, and is not
      // read as a BigInt (whose decimal reading grows with the square of the digits)
      if (literal.length > 20) return;
      const n = BigInt(literal);
      if (!Number.isSafeInteger(Number(literal)) && n >= int64Range[0] && n <= int64Range[1]) found.push(`${pathText(path) || '<root>'}: ${literal}`);
    },
  });
  return found;
}

/** the schema of the value at a path, unless a field on the way keeps what it holds as it is */
function schemaAt(schema: Schema, path: (string | number)[]): Schema | undefined {
  let s: Schema | undefined = schema;
  for (const seg of path) {
    if (!s || s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) return undefined;
    s = typeof seg === 'number' ? s.items : fieldSchema(s, seg);
  }
  return s;
}
