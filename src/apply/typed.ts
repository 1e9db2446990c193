// An object read through its schema: which fields it sets, and how two versions differ. The schema's
// markers decide the granularity: struct fields and granular map keys are owned one by one, `set` and
// `map` lists per entry, atomic values (and lists without markers) as a whole.
import type { Schema } from '../api/schema.js';
import { elementString, fieldElement, keyElement, valueElement, type PathElement } from './field-path.js';
import { emptySet, isEmpty, type FieldSet } from './field-set.js';

export type Obj = Record<string, unknown>;

/** how a value is walked: one piece, per key, or per list entry */
export type Shape =
  | { kind: 'leaf' }
  | { kind: 'map'; properties?: Record<string, Schema>; elements: Schema | undefined }
  | { kind: 'list'; listType: 'set' | 'map'; keys: string[]; items: Schema | undefined };

const leaf: Shape = { kind: 'leaf' };
const deducedMap: Shape = { kind: 'map', elements: undefined };
const shapes = new WeakMap<Schema, Shape>();

/**
 * The shape of a schema node. A value the schema does not describe (no schema, preserved unknown fields)
 * is deduced from the value itself: objects are granular maps of further deduced values, lists atomic.
 */
export function shapeOf(s: Schema | undefined, v: unknown): Shape {
  if (!s || isDeduced(s)) return isObject(v) ? deducedMap : leaf;
  let shape = shapes.get(s);
  if (!shape) shapes.set(s, (shape = schemaShape(s)));
  return shape;
}

function isDeduced(s: Schema): boolean {
  return !s.type && !s.properties && !s.additionalProperties && !s.items && !s['x-kubernetes-int-or-string'] && !s.format;
}

function schemaShape(s: Schema): Shape {
  if (s.type === 'array' || (!s.type && s.items)) {
    let listType = s['x-kubernetes-list-type'];
    let keys = s['x-kubernetes-list-map-keys'] ?? [];
    if (!listType && (s['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge')) {
      const key = s['x-kubernetes-patch-merge-key'];
      listType = key ? 'map' : 'set';
      keys = key ? [key] : [];
    }
    if (listType === 'map' && keys.length === 0) listType = 'set';
    return listType === 'set' || listType === 'map' ? { kind: 'list', listType, keys, items: s.items } : leaf;
  }
  if (s.type === 'object' || (!s.type && (s.properties || s.additionalProperties))) {
    if (s['x-kubernetes-map-type'] === 'atomic') return leaf;
    return { kind: 'map', properties: s.properties, elements: typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined };
  }
  return leaf;
}

export const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** schema of a map entry: the declared property, else the map's element schema (undefined: deduced) */
export function entrySchema(shape: Shape & { kind: 'map' }, key: string): Schema | undefined {
  return (isNamedField(shape, key) ? shape.properties![key] : undefined) ?? shape.elements;
}

/** whether `key` is a declared struct field (owned implicitly through its children) */
export const isNamedField = (shape: Shape & { kind: 'map' }, key: string): boolean =>
  !!shape.properties && Object.prototype.hasOwnProperty.call(shape.properties, key);

export class InvalidObjectError extends Error {}

/** the path element of a list entry: its key fields (list maps) or its value (sets) */
export function listElement(shape: Shape & { kind: 'list' }, item: unknown, index: number): PathElement {
  if (shape.listType === 'set') {
    if (item !== null && typeof item === 'object') throw new InvalidObjectError(`element ${index}: associative list without keys has an element that's a ${Array.isArray(item) ? 'list' : 'map'} type`);
    return valueElement(item);
  }
  if (item === null) throw new InvalidObjectError(`element ${index}: associative list with keys may not have a null element`);
  if (!isObject(item)) throw new InvalidObjectError(`element ${index}: associative list with keys may not have non-map elements`);
  const only = shape.keys.length === 1 ? shape.keys[0] : undefined;
  if (only !== undefined && item[only] !== undefined) return keyElement([[only, item[only]]]);
  const fields: [string, unknown][] = [];
  for (const k of shape.keys) {
    if (item[k] !== undefined) fields.push([k, item[k]]);
    else if (shape.items?.properties?.[k]?.default !== undefined) fields.push([k, shape.items.properties[k].default]);
    else throw new InvalidObjectError(`element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
  }
  return keyElement(fields);
}

export interface Entry { pe: PathElement; value: unknown; duplicate: boolean }

/** the entries of a granular list, in order, by path element; `duplicate` marks keys that occur twice */
export function listEntries(shape: Shape & { kind: 'list' }, list: unknown[], allowDuplicates: boolean, where: string, pes?: PathElement[]): Map<PathElement, Entry> & { order: PathElement[] } {
  const out = new Map<PathElement, Entry>() as Map<PathElement, Entry> & { order: PathElement[] };
  out.order = [];
  list.forEach((item, i) => {
    let pe: PathElement;
    if (pes) pe = pes[i];
    else try { pe = listElement(shape, item, i); } catch (e) { throw new InvalidObjectError(`${where}: ${(e as Error).message}`); }
    const seen = out.get(pe);
    if (seen) {
      if (!allowDuplicates) throw new InvalidObjectError(`${where}: duplicate entries for key ${elementString(pe)}`);
      seen.duplicate = true;
    } else {
      out.set(pe, { pe, value: item, duplicate: false });
      out.order.push(pe);
    }
  });
  return out;
}

/** the fields a value sets: scalars and atomic values as one path, granular children by their own paths */
export function toFieldSet(value: unknown, schema: Schema | undefined): FieldSet {
  return fieldsBelow(value, shapeOf(schema, value), () => '') ?? emptySet();
}

/** `where` names the value in an error, made only then: spelling a list entry's path parses its key again */
function fieldsBelow(value: unknown, shape: Shape, where: () => string): FieldSet | undefined {
  if (shape.kind === 'map') {
    if (!isObject(value)) return undefined;
    let out: FieldSet | undefined;
    for (const key in value) {
      const child = value[key];
      if (child === undefined) continue;
      const pe = fieldElement(key);
      const s = entrySchema(shape, key);
      const cs = shapeOf(s, child);
      out ??= emptySet();
      if (isLeafValue(cs, child)) { out.members.add(pe); continue; }
      const sub = fieldsBelow(child, cs, () => `${where()}.${key}`);
      if (sub) out.children.set(pe, sub);
      // declared fields are owned through their children; map keys and empty or null values own themselves
      // (an empty granular list under a declared field sets nothing)
      // (only an object with no fields below can be empty: asking a large map would enumerate its keys again)
      if (child === null || (!sub && isObject(child) && isEmptyObject(child)) || !isNamedField(shape, key)) out.members.add(pe);
    }
    return out && !isEmpty(out) ? out : undefined;
  }
  if (shape.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0) return undefined;
    const out = emptySet();
    const items = shape.items;
    value.forEach((item, i) => {
      let pe: PathElement;
      try { pe = listElement(shape, item, i); } catch (e) { throw new InvalidObjectError(`${where()}: ${(e as Error).message}`); }
      if (out.members.has(pe)) throw new InvalidObjectError(`${where()}: duplicate entries for key ${elementString(pe)}`);
      out.members.add(pe);
      const cs = shapeOf(items, item);
      if (isLeafValue(cs, item)) return;
      const sub = fieldsBelow(item, cs, () => `${where()}${elementString(pe)}`);
      if (sub) out.children.set(pe, sub);
    });
    return out;
  }
  return undefined;
}

/**
 * The fields of a value its schema does not declare, as the paths the reference's apply names them by (`.spec.x`,
 * `.spec.containers[name="c"].x`): a struct takes only its declared fields, unless it keeps unknown fields or is a
 * map of values. Atomic values are walked too (the reference types them whole); entries of lists that cannot be told
 * apart by their keys are named by index.
 */
export function undeclaredFields(value: unknown, schema: Schema | undefined, where = '', out: string[] = []): string[] {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields']) return out;
  if (isObject(value) && (schema.properties || schema.additionalProperties)) {
    const elements = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const key in value) {
      const declared = schema.properties && Object.prototype.hasOwnProperty.call(schema.properties, key) ? schema.properties[key] : undefined;
      if (declared || elements) undeclaredFields(value[key], declared ?? elements, `${where}.${key}`, out);
      else if (!schema.additionalProperties) out.push(`${where}.${key}`);
    }
  } else if (Array.isArray(value) && schema.items) {
    const shape = shapeOf(schema, value);
    value.forEach((item, i) => {
      let at = `[${i}]`;
      if (shape.kind === 'list') try { at = elementString(listElement(shape, item, i)); } catch { /* named by index */ }
      undeclaredFields(item, schema.items, `${where}${at}`, out);
    });
  }
  return out;
}

/** a value owned as one piece: scalars, atomic values, and values that do not match their container type */
export function isLeafValue(shape: Shape, v: unknown): boolean {
  if (shape.kind === 'leaf') return true;
  if (shape.kind === 'map') return !isObject(v);
  return !Array.isArray(v);
}

function isEmptyObject(o: Obj): boolean {
  for (const _ in o) return false;
  return true;
}

// ── comparison ─────────────────────────────────────────────────────────────────────────────────────

export interface Comparison { added: FieldSet; modified: FieldSet; removed: FieldSet }

/**
 * The paths that differ between two versions of an object. Leaves are reported when added, removed or
 * changed; granular containers when they appear or disappear (with all their leaves).
 */
export function compare(lhs: unknown, rhs: unknown, schema: Schema | undefined): Comparison {
  const acc: Partial<Comparison> = {};
  compareBelow(lhs, rhs, schema, acc, '');
  return { added: acc.added ?? emptySet(), modified: acc.modified ?? emptySet(), removed: acc.removed ?? emptySet() };
}

// sets are created only where something differs: most of an updated object is unchanged
type Acc = Partial<Comparison>;
const note = (acc: Acc, kind: keyof Comparison, pe: PathElement) => (acc[kind] ??= emptySet()).members.add(pe);

/** returns whether a map had a key on either side (walking the keys tells as much; asking apart costs a walk of
 *  its own on a map of many keys, which V8 keeps as a dictionary) */
function compareBelow(l: unknown, r: unknown, schema: Schema | undefined, out: Acc, where: string): boolean {
  const shape = shapeOf(schema, r ?? l);
  if (shape.kind === 'map') {
    const lm = isObject(l) ? l : undefined, rm = isObject(r) ? r : undefined;
    let keys = false;
    if (lm) for (const key in lm) {
      keys = true;
      if (lm[key] === undefined) continue;
      compareChild(fieldElement(key), lm[key], rm?.[key], entrySchema(shape, key), out, where, key);
    }
    if (rm) for (const key in rm) {
      keys = true;
      if (rm[key] === undefined || (lm && lm[key] !== undefined)) continue;
      compareChild(fieldElement(key), undefined, rm[key], entrySchema(shape, key), out, where, key);
    }
    return keys;
  }
  if (shape.kind === 'list') {
    const le = Array.isArray(l) ? listEntries(shape, l, true, where) : undefined;
    const re = Array.isArray(r) ? listEntries(shape, r, true, where) : undefined;
    if (le) for (const pe of le.order) {
      const a = le.get(pe)!, b = re?.get(pe);
      if (a.duplicate || b?.duplicate) compareDuplicates(pe, l as unknown[], r as unknown[] | undefined, shape, out);
      else compareChild(pe, a.value, b?.value, shape.items, out, where);
    }
    if (re) for (const pe of re.order) {
      if (le?.has(pe)) continue;
      const b = re.get(pe)!;
      if (b.duplicate) compareDuplicates(pe, [], r as unknown[], shape, out);
      else compareChild(pe, undefined, b.value, shape.items, out, where);
    }
  }
  return true;
}

/** a key present more than once is compared as one piece */
function compareDuplicates(pe: PathElement, l: unknown[], r: unknown[] | undefined, shape: Shape & { kind: 'list' }, out: Acc) {
  const a = itemsAt(shape, l, pe), b = r ? itemsAt(shape, r, pe) : [];
  if (a.length === 0) note(out, 'added', pe);
  else if (b.length === 0) note(out, 'removed', pe);
  else if (!deepEqual(a, b)) note(out, 'modified', pe);
}

/** a list's items grouped by path element, made once per list: a list with many duplicates stays linear */
const groupedLists = new WeakMap<unknown[], Map<PathElement, unknown[]>>();
function itemsAt(shape: Shape & { kind: 'list' }, list: unknown[], pe: PathElement): unknown[] {
  let groups = groupedLists.get(list);
  if (!groups) {
    groups = new Map();
    list.forEach((item, i) => {
      const key = listElement(shape, item, i);
      const group = groups!.get(key);
      if (group) group.push(item); else groups!.set(key, [item]);
    });
    groupedLists.set(list, groups);
  }
  return groups.get(pe) ?? [];
}

/** `key`: the map key of the child, joined to `where` only when the walk goes below it (a map of many leaves then
 *  makes no string per key); no closure either, as this runs once per key */
function compareChild(pe: PathElement, l: unknown, r: unknown, schema: Schema | undefined, out: Acc, where: string, key?: string): void {
  // a scalar on both sides is a leaf whatever the schema says, and the commonest case in a large map
  if ((l === null || typeof l !== 'object') && (r === null || typeof r !== 'object')) return compareLeaf(pe, l, r, out);
  const shape = shapeOf(schema, r ?? l);
  // empty or absent on both sides (or no container at all) compares as a leaf, keeping {} and null apart; for a
  // map, the walk below finds out (with nothing to walk it notes nothing)
  if (shape.kind === 'leaf' || (shape.kind === 'list' && emptyList(l) && emptyList(r)) || (shape.kind === 'map' && !isObject(l) && !isObject(r))) return compareLeaf(pe, l, r, out);
  const sub: Acc = {};
  if (!compareBelow(l, r, schema, sub, key === undefined ? where : `${where}.${key}`)) return compareLeaf(pe, l, r, out);
  if (sub.added) (out.added ??= emptySet()).children.set(pe, sub.added);
  if (sub.modified) (out.modified ??= emptySet()).children.set(pe, sub.modified);
  if (sub.removed) (out.removed ??= emptySet()).children.set(pe, sub.removed);
  if (l === undefined) note(out, 'added', pe);
  else if (r === undefined) note(out, 'removed', pe);
}

function compareLeaf(pe: PathElement, l: unknown, r: unknown, out: Acc): void {
  if (l === undefined) note(out, 'added', pe);
  else if (r === undefined) note(out, 'removed', pe);
  else if (l !== r && !deepEqual(l, r)) note(out, 'modified', pe);
}

const emptyList = (v: unknown) => !Array.isArray(v) || v.length === 0;


export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Obj, bo = b as Obj;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!deepEqual(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}
