// Declarative merge of an applied configuration into the live object, and removal of the fields an
// applier stopped asserting. Both copy only along the paths they change; untouched subtrees are shared.
import type { Schema } from '../api/schema.js';
import type { PathElement } from './field-path.js';
import type { FieldSet } from './field-set.js';
import { entrySchema, isNamedField, isObject, listElement, listEntries, shapeOf, type Obj, type Shape } from './typed.js';

/**
 * `applied` merged into `live`: the applied value wins on leaves and atomic values, granular maps merge
 * key by key, list maps and sets entry by entry (order: the applied order for shared entries, live-only
 * entries kept where they were). A null in the applied configuration clears the field unless the
 * schema marks it nullable.
 */
export function merge(live: unknown, applied: unknown, schema: Schema | undefined): unknown {
  return mergeValue(live, applied, schema);
}

function mergeValue(l: unknown, r: unknown, schema: Schema | undefined): unknown {
  if (r === undefined) return l;
  if (r === null) return schema?.nullable ? null : undefined;
  const shape = shapeOf(schema, r);
  if (l === undefined || l === null) return withoutNulls(r, shape);
  if (shape.kind === 'map' && isObject(l) && isObject(r)) return mergeMaps(l, r, shape);
  if (shape.kind === 'list' && Array.isArray(l) && Array.isArray(r) && (l.length > 0 || r.length > 0)) return mergeLists(l, r, shape);
  return withoutNulls(r, shape);
}

function mergeMaps(l: Obj, r: Obj, shape: Shape & { kind: 'map' }): Obj {
  const out: Obj = {};
  for (const key in l) {
    if (l[key] === undefined) continue;
    const v = r[key] === undefined ? l[key] : mergeValue(l[key], r[key], entrySchema(shape, key));
    if (v !== undefined) out[key] = v;
  }
  for (const key in r) {
    if (r[key] === undefined || (l[key] !== undefined)) continue;
    const v = mergeValue(undefined, r[key], entrySchema(shape, key));
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function mergeLists(l: unknown[], r: unknown[], shape: Shape & { kind: 'list' }): unknown[] {
  const lpe = l.map((item, i) => listElement(shape, item, i));
  const rEntries = listEntries(shape, r, false, '');
  const lEntries = listEntries(shape, l, true, '', lpe);
  const shared = rEntries.order.filter((pe) => lEntries.has(pe));
  let si = 0;
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  const take = (pe: PathElement) => {
    merged.add(pe);
    const le = lEntries.get(pe);
    // a key the live list holds twice is replaced by the applied entry
    const v = mergeValue(le && !le.duplicate ? le.value : undefined, rEntries.get(pe)!.value, shape.items);
    if (v !== undefined) out.push(v);
  };
  const rpe = rEntries.order;
  let li = 0, ri = 0;
  while (li < lpe.length || ri < rpe.length) {
    if (li < lpe.length && ri < rpe.length) {
      const pe = lpe[li];
      if (pe === rpe[ri]) { take(pe); li++; ri++; si++; continue; }
      // a shared entry waits for its place in the applied order
      if (rEntries.has(pe) && si < shared.length && shared[si] !== pe) { li++; continue; }
    }
    if (li < lpe.length) {
      const pe = lpe[li];
      if (!rEntries.has(pe)) { out.push(l[li]); li++; continue; }
      if (merged.has(pe)) { li++; continue; }
    }
    if (ri < rpe.length) {
      const pe = rpe[ri++];
      take(pe);
      if (shared[si] === pe) si++;
    }
  }
  return out;
}

/** the value without null fields (kept where the schema allows null); the same object when it has none */
function withoutNulls(v: unknown, shape: Shape): unknown {
  if (shape.kind === 'map' && isObject(v)) {
    let out: Obj | undefined;
    for (const key in v) {
      const child = v[key];
      if (child === undefined) continue;
      const s = entrySchema(shape, key);
      const cleaned = child === null ? (s?.nullable ? null : undefined) : withoutNulls(child, shapeOf(s, child));
      if (cleaned !== child) {
        out ??= { ...v };
        if (cleaned === undefined) delete out[key];
        else out[key] = cleaned;
      }
    }
    return out ?? v;
  }
  if (shape.kind === 'list' && Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((item, i) => {
      if (item === null) return;
      const cleaned = withoutNulls(item, shapeOf(shape.items, item));
      if (cleaned !== item) (out ??= [...v])[i] = cleaned;
    });
    return out ?? v;
  }
  return v;
}

/**
 * Removes what the applier owned last time (`last`) and no longer asserts: a field it owned goes when it
 * lies below (or is) a node that no manager owns now (`owners`, which include the applier's new set).
 * Declared struct fields count as owned when anything below them is. Emptied containers are dropped.
 */
export function prune(value: unknown, schema: Schema | undefined, last: FieldSet, owners: FieldSet[]): unknown {
  const out = pruneBelow(value, schema, last, owners, false, false);
  return out === undefined ? {} : out;
}

function pruneBelow(v: unknown, schema: Schema | undefined, last: FieldSet, owners: FieldSet[], inLast: boolean, doomed: boolean): unknown {
  const shape = shapeOf(schema, v);
  const visit = (pe: PathElement, child: unknown, named: boolean, childSchema: Schema | undefined): unknown => {
    const lastChild = last.children.get(pe);
    const mine = last.members.has(pe) || (named && !!lastChild);
    const below = owners.map((o) => o.children.get(pe)).filter((o): o is FieldSet => !!o);
    const owned = owners.some((o) => o.members.has(pe)) || (named && below.length > 0);
    const within = inLast || mine;
    const gone = doomed || (within && !owned);
    if (gone && mine) return undefined;
    if (!lastChild) return child;
    const next = pruneBelow(child, childSchema, lastChild, below, within, gone);
    // a container someone owns as such stays, even when emptied
    if (next === undefined && owners.some((o) => o.members.has(pe))) return Array.isArray(child) ? [] : {};
    return next;
  };
  if (shape.kind === 'map' && isObject(v)) {
    let out: Obj | undefined;
    for (const pe of elementsOf(last)) {
      if (!pe.startsWith('f:')) continue;
      const key = pe.slice(2);
      const child = v[key];
      if (child === undefined) continue;
      const next = visit(pe, child, isNamedField(shape, key), entrySchema(shape, key));
      if (next === child) continue;
      out ??= { ...v };
      if (next === undefined) delete out[key];
      else out[key] = next;
    }
    if (!out) return v;
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (shape.kind === 'list' && Array.isArray(v)) {
    let changed = false;
    const out: unknown[] = [];
    v.forEach((item, i) => {
      const pe = listElement(shape, item, i);
      const next = last.members.has(pe) || last.children.has(pe) ? visit(pe, item, false, shape.items) : item;
      if (next !== item) changed = true;
      if (next !== undefined) out.push(next);
    });
    if (!changed) return v;
    return out.length === 0 ? undefined : out;
  }
  return v;
}

function elementsOf(s: FieldSet): Set<PathElement> {
  if (s.children.size === 0) return s.members;
  const all = new Set(s.members);
  for (const pe of s.children.keys()) all.add(pe);
  return all;
}
