// Path elements of managed-field sets, named by their fieldsV1 spelling so that a serialized element is
// its own identity: `f:<name>` (struct field or map key), `k:<json of the key fields, sorted by name>`
// (list-map entry), `v:<json value>` (set entry), `i:<index>` (atomic list position).
import { boundedMemo } from '../util/memo.js';

import { compareStrings } from '../util/order.js';

export { compareStrings };

export type PathElement = string;
export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const indexElement = (i: number): PathElement => `i:${i}`;
export const valueElement = (v: unknown): PathElement => `v:${goJSON(v)}`;

/** a list-map entry; `fields` are [name, value] pairs of the key fields */
export function keyElement(fields: [string, unknown][]): PathElement {
  if (fields.length === 1) return `k:{${goJSON(fields[0][0])}:${goJSON(fields[0][1])}}`;
  const sorted = [...fields].sort((a, b) => compareStrings(a[0], b[0]));
  return `k:{${sorted.map(([n, v]) => `${goJSON(n)}:${goJSON(v)}`).join(',')}}`;
}

const htmlUnsafe = /[<>&\u2028\u2029]/;

/** JSON the way the reference's encoder writes it: sorted map keys, and <, >, & and line separators escaped */
export function goJSON(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const text = (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(sortKeys(v))) ?? 'null';
  return htmlUnsafe.test(text) ? text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort(compareStrings)) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}

/** true when `s` is a well-formed element; fieldsV1 keys with other prefixes are ignored, as the reference does */
export function isPathElement(s: string): boolean {
  if (s.length < 2 || s[1] !== ':') return false;
  switch (s[0]) {
    case 'f': return true;
    case 'i': return /^i:-?\d+$/.test(s);
    case 'v': case 'k': if (simpleKey.test(s)) return true; try { JSON.parse(s.slice(2)); return true; } catch { return false; }
    default: return false;
  }
}

/**
 * Canonical spelling of an element read from stored fieldsV1 (key fields sorted, values re-encoded). The same elements
 * come back on every write of an object, so a bounded number of them is remembered; an element longer than any real
 * key (a value of 100 KB in a client's managedFields) is not, so such requests cannot make the memo grow.
 */
export const canonicalElement = (s: string): PathElement => (s[0] === 'f' || (s[0] === 'k' && isSimpleKey(s)) ? s : canonicalOf(s));
/** a key element of one plain string field, spelled as keyElement spells it */
const isSimpleKey = (s: string) => simpleKey.test(s) && !htmlUnsafe.test(s);
const canonicalOf = boundedMemo((s: string): PathElement => {
  switch (s[0]) {
    case 'k': return keyElement(Object.entries(JSON.parse(s.slice(2)) as Record<string, unknown>));
    case 'v': return valueElement(JSON.parse(s.slice(2)));
    default: return indexElement(Number(s.slice(2)));
  }
}, 50_000, 512);

// ── ordering: fields < keys < values < indexes, as the reference sorts its sets ─────────────────────

const kindRank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** elements in the reference's order; each is parsed once into what it sorts by, not once per comparison */
export function sortElements(pes: Iterable<PathElement>): PathElement[] {
  const list = [...pes];
  if (list.every((pe) => pe[0] === 'f')) return list.sort(compareStrings);
  const keyed = list.map(sortKeyOf);
  keyed.sort((a, b) => a.rank - b.rank || compareSortKeys(a, b));
  return keyed.map((k) => k.pe);
}

type SortKey =
  | { pe: PathElement; rank: 0; by: string }
  | { pe: PathElement; rank: 1; by: KeyFields }
  | { pe: PathElement; rank: 2; by: unknown }
  | { pe: PathElement; rank: 3; by: number };

function sortKeyOf(pe: PathElement): SortKey {
  switch (pe[0]) {
    case 'f': return { pe, rank: 0, by: pe };
    case 'i': return { pe, rank: 3, by: Number(pe.slice(2)) };
    case 'v': return { pe, rank: 2, by: JSON.parse(pe.slice(2)) as unknown };
    default: {
      // the commonest key, one field of a plain string (a name): read without parsing JSON
      const simple = simpleKey.exec(pe);
      if (simple) return { pe, rank: 1, by: { names: [simple[1]], values: [simple[2]] } };
      return { pe, rank: 1, by: keyFields(JSON.parse(pe.slice(2)) as Record<string, unknown>) };
    }
  }
}

/** a key element of one field whose value is a string, neither with an escape (nor a character JSON must escape) in it */
const simpleKey = /^k:\{"([^"\\\u0000-\u001f]*)":"([^"\\\u0000-\u001f]*)"\}$/;

function compareSortKeys(a: SortKey, b: SortKey): number {
  switch (a.rank) {
    case 0: return compareStrings(a.by, b.by as string);
    case 3: return a.by - (b.by as number);
    case 2: return compareValues(a.by, b.by);
    default: return compareKeyFields(a.by, b.by as KeyFields);
  }
}

export function compareElements(a: PathElement, b: PathElement): number {
  if (a === b) return 0;
  const ra = kindRank[a[0]], rb = kindRank[b[0]];
  if (ra !== rb) return ra - rb;
  switch (a[0]) {
    case 'f': return compareStrings(a.slice(2), b.slice(2));
    case 'i': return Number(a.slice(2)) - Number(b.slice(2));
    case 'v': return compareValues(JSON.parse(a.slice(2)), JSON.parse(b.slice(2)));
    default: return compareKeys(JSON.parse(a.slice(2)), JSON.parse(b.slice(2)));
  }
}

/** a map's fields in name order, as keys and values compare */
interface KeyFields { names: string[]; values: unknown[] }
function keyFields(fields: Record<string, unknown>): KeyFields {
  const names = Object.keys(fields).sort(compareStrings);
  return { names, values: names.map((n) => fields[n]) };
}

function compareKeyFields(a: KeyFields, b: KeyFields): number {
  for (let i = 0; ; i++) {
    if (i >= a.names.length || i >= b.names.length) return a.names.length - b.names.length;
    const c = compareStrings(a.names[i], b.names[i]) || compareValues(a.values[i], b.values[i]);
    if (c) return c;
  }
}

const compareKeys = (a: Record<string, unknown>, b: Record<string, unknown>) => compareKeyFields(keyFields(a), keyFields(b));

/** numbers < strings < booleans < lists < maps < null */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a), rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0: return (a as number) - (b as number);
    case 1: return compareStrings(a as string, b as string);
    case 2: return Number(a) - Number(b);
    case 3: {
      const la = a as unknown[], lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c) return c;
      }
      return la.length - lb.length;
    }
    case 4: return compareKeys(a as Record<string, unknown>, b as Record<string, unknown>);
    default: return 0;
  }
}

function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

// ── display, as conflict messages print paths: .spec.containers[name="c"].image ──────────────────────

export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

export function elementString(pe: PathElement): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f': return `.${body}`;
    case 'i': return `[${body}]`;
    case 'v': return `[=${displayValue(JSON.parse(body))}]`;
    default: {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(key).map((k) => `${k}=${displayValue(key[k])}`).join(',')}]`;
    }
  }
}

function displayValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(displayValue).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.keys(v).sort(compareStrings).map((k) => `${k}=${displayValue((v as Record<string, unknown>)[k])}`).join(', ')}}`;
  return String(v);
}
