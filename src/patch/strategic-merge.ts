// Strategic merge patch with the reference's semantics. The catalog schema says, per field, how a
// list combines (`x-kubernetes-patch-strategy` merge/replace/retainKeys, and the
// `x-kubernetes-patch-merge-key` that identifies elements); where the schema says nothing, maps
// merge and lists are replaced, as in a JSON merge patch.
//
// Directives in the patch:
// - `$patch: replace` in a map: the map becomes the patch's map (minus the directive); as an element
//   of a merging list, the list becomes the patch's other elements.
// - `$patch: delete` in a map: the map becomes empty (as in the reference, the key stays); as an element
//   `{<mergeKey>: x, $patch: delete}` of a merging list, it removes the element with that key.
// - `$patch: merge` in a map is the default behaviour; in a list it is refused, as by the reference.
// - `$retainKeys: [...]`: members of the original map not listed are dropped; every member the patch
//   sets must be listed.
// - `$setElementOrder/<field>: [...]`: order of the merged list (elements as `{<mergeKey>: x}` or primitives).
// - `$deleteFromPrimitiveList/<field>: [...]`: values removed from a primitive list.
// Other `$`-prefixed keys are unknown directives (400), unless the schema declares such a property
// (the CRD schema type has `$ref` and `$schema`).
//
// Ordering of a merged list follows the reference: elements named in the patch keep the patch's order
// (or `$setElementOrder`'s), elements only on the server keep theirs, and the two sequences are
// interleaved by server order, so an element new to the list lands before the server's elements
// that follow it in the merge.
import { fieldSchema, type Schema } from '../api/schema.js';
import { canonicalJson } from '../api/json.js';
import {
  type JsonObject, type PatchOptions, badPatch, cannotApply, clone, getOwn, hasOwn, isObject, setOwn, show,
} from './common.js';

const directive = '$patch';
const retainKeys = '$retainKeys';
const setOrderPrefix = '$setElementOrder/';
const deletePrefix = '$deleteFromPrimitiveList/';

export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: Schema | undefined, opts: PatchOptions = {}): unknown {
  const steps = applyStrategicMergePatchInSteps(doc, patch, schema, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** a computation in steps: it yields where it may pause, and returns its result */
type Steps<T> = Generator<void, T, void>;

/** how many elements of a merging list are merged between two pauses */
const elementsPerStep = 64;

/**
 * applyStrategicMergePatch, pausing (a `yield`) every few dozen elements of a merging list: a patch of tens of
 * thousands of elements merges for long enough that a server gives its event loop back meanwhile
 */
export function* applyStrategicMergePatchInSteps(doc: unknown, patch: unknown, schema: Schema | undefined, opts: PatchOptions = {}): Steps<unknown> {
  if (!isObject(patch)) throw badPatch('a strategic merge patch must be a JSON object');
  return yield* mergeMap(isObject(doc) ? (opts.inPlace ? doc : clone(doc)) : {}, patch, schema, '');
}

interface PatchMeta { strategy: '' | 'merge' | 'replace'; mergeKey?: string }

function patchMeta(s: Schema | undefined): PatchMeta {
  const parts = (s?.['x-kubernetes-patch-strategy'] ?? '').split(',').map(p => p.trim());
  const strategy = parts.find(p => p === 'merge' || p === 'replace') as PatchMeta['strategy'] | undefined;
  return { strategy: strategy ?? '', mergeKey: s?.['x-kubernetes-patch-merge-key'] };
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
const where = (path: string) => (path ? ` at ${path}` : '');

/** merges `patch` into `original`, which is our own copy and may be changed */
function* mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined, path: string): Steps<JsonObject> {
  if (hasOwn(patch, directive)) {
    const { [directive]: kind, ...rest } = patch;
    if (kind === 'replace') return yield* mergeMap({}, rest, schema, path);
    if (kind === 'delete') return {};
    if (kind !== 'merge') throw badPatch(`unknown patch type: ${show(kind)} in map${where(path)}`);
    patch = rest;
  }
  if (hasOwn(patch, retainKeys)) applyRetainKeys(original, patch, path);

  const ordered = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (key.startsWith(setOrderPrefix) && (yield* applySetElementOrder(original, patch, key, order, schema, path))) {
      ordered.add(key.slice(setOrderPrefix.length));
    }
  }

  const deletions: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === retainKeys || key.startsWith(setOrderPrefix) || ordered.has(key)) continue;
    if (key.startsWith(deletePrefix)) { deletions.push([key, value]); continue; }
    if (key.startsWith('$') && !(schema?.properties && hasOwn(schema.properties, key))) {
      throw badPatch(`unknown directive ${show(key)}${where(path)}`);
    }
    if (value === null) delete original[key];
    else setOwn(original, key, yield* mergeValue(getOwn(original, key), value, fieldSchema(schema, key), child(path, key)));
  }

  // removals run after the merges, so a list that also gains elements loses exactly the listed values
  for (const [key, values] of deletions) {
    const field = key.slice(deletePrefix.length);
    if (!field || !Array.isArray(values)) throw badPatch(`invalid patch format of ${key}${where(path)}: expected a list`);
    const list = getOwn(original, field);
    if (!Array.isArray(list)) continue;
    // equal JSON values have equal canonical text: one set lookup per element, not a scan of the deleted values
    const gone = new Set(values.map(canonicalJson));
    setOwn(original, field, list.filter(v => !gone.has(canonicalJson(v))));
  }
  return original;
}

/** the merged value of one field; `original` is our own copy, `patch` is never null here */
function* mergeValue(original: unknown, patch: unknown, schema: Schema | undefined, path: string): Steps<unknown> {
  const { strategy, mergeKey } = patchMeta(schema);
  if (isObject(patch)) {
    return yield* mergeMap(isObject(original) && strategy !== 'replace' ? original : {}, patch, schema, path);
  }
  if (Array.isArray(patch)) {
    if (strategy === 'merge') return yield* mergeList(Array.isArray(original) ? original : [], patch, schema, mergeKey, path);
    const out: unknown[] = new Array(patch.length);
    for (let i = 0; i < patch.length; i++) {
      out[i] = yield* mergeValue(undefined, patch[i], schema?.items, `${path}[${i}]`);
      if (i % elementsPerStep === elementsPerStep - 1) yield;
    }
    return out;
  }
  return patch;
}

function applyRetainKeys(original: JsonObject, patch: JsonObject, path: string): void {
  const keep = patch[retainKeys];
  if (!Array.isArray(keep)) throw badPatch(`invalid patch format of retainKeys${where(path)}: expected a list`);
  const kept = new Set(keep);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith('$')) continue;
    if (!kept.has(key)) throw badPatch(`invalid patch format of retainKeys${where(path)}: ${show(key)} is set but not retained`);
  }
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

/** merges and orders the list a `$setElementOrder/<field>` names; false when it does not apply */
function* applySetElementOrder(original: JsonObject, patch: JsonObject, directiveKey: string, order: unknown,
  schema: Schema | undefined, path: string): Steps<boolean> {
  const field = directiveKey.slice(setOrderPrefix.length);
  if (!field || !Array.isArray(order)) throw badPatch(`invalid patch format of ${directiveKey}${where(path)}: expected a list`);
  const fs = fieldSchema(schema, field);
  const { strategy, mergeKey } = patchMeta(fs);
  const server = getOwn(original, field);
  const patchList = getOwn(patch, field);
  // the order of a list that is not merged, deleted or absent everywhere has nothing to say
  if (strategy !== 'merge' || patchList === null || (server === undefined && patchList === undefined)) return false;
  if (patchList !== undefined && !Array.isArray(patchList)) throw badPatch(`${child(path, field)}: expected a list`);
  const fieldPath = child(path, field);
  const serverList = Array.isArray(server) ? server : [];
  if (mergeKey) {
    for (const e of order) {
      if (!isObject(e) || !hasOwn(e, mergeKey)) throw badPatch(`map: ${show(e)} does not contain declared merge key: ${mergeKey}`);
    }
  }
  checkOrder(patchList ?? [], order, mergeKey, directiveKey, fieldPath);
  const merged = patchList ? yield* mergeList(serverList, patchList, fs, mergeKey, fieldPath) : serverList;
  setOwn(original, field, arrange(merged, order, serverList, mergeKey));
  return true;
}

/** the patch list's elements must appear in the `$setElementOrder` list, in the same relative order */
function checkOrder(patchList: unknown[], order: unknown[], mergeKey: string | undefined, directiveKey: string, path: string) {
  const identity = keyOf(mergeKey);
  const items = patchList.filter(e => !(mergeKey && isObject(e) && hasOwn(e, directive)));
  let i = 0;
  for (const o of order) if (i < items.length && identity(items[i]) === identity(o)) i++;
  if (i < items.length) {
    throw badPatch(`The order in patch list: ${show(patchList)} doesn't match ${setOrderPrefix.slice(0, -1)} list: ${show(order)}${where(path)}`);
  }
}

/**
 * identity of a list element as text: its merge key's value for maps, itself for primitives;
 * undefined for a map without the key (it matches nothing)
 */
function keyOf(mergeKey: string | undefined): (e: unknown) => string | undefined {
  if (!mergeKey) return e => JSON.stringify(e);
  return e => (isObject(e) && hasOwn(e, mergeKey) ? JSON.stringify(e[mergeKey]) : undefined);
}

function* mergeList(original: unknown[], patch: unknown[], schema: Schema | undefined, mergeKey: string | undefined,
  path: string): Steps<unknown[]> {
  if (original.length === 0 && patch.length === 0) return original;
  const items = schema?.items;
  const kinds = new Set([...original, ...patch].map(e => (Array.isArray(e) ? 'list' : isObject(e) ? 'map' : 'primitive')));
  if (kinds.has('list')) throw cannotApply(`lists of lists are not supported${where(path)}`);
  if (kinds.size > 1) throw badPatch(`the elements of a merging list must be all maps or all primitives${where(path)}`);

  if (kinds.has('primitive')) {
    const seen = new Set<string>();
    const union = [...original, ...patch].filter(e => {
      const k = JSON.stringify(e);
      return !seen.has(k) && !!seen.add(k);
    });
    return arrange(union, patch, original, undefined);
  }

  if (!mergeKey) throw badPatch(`cannot merge lists without merge key${where(path)}`);
  const identity = keyOf(mergeKey);
  const deleted = new Set<string | undefined>();
  let replace = false;
  const plain: JsonObject[] = [];
  for (const e of patch as JsonObject[]) {
    if (!hasOwn(e, directive)) { plain.push(e); continue; }
    switch (e[directive]) {
      case 'delete': {
        if (!hasOwn(e, mergeKey)) throw badPatch(`map: ${show(e)} does not contain declared merge key: ${mergeKey}`);
        deleted.add(identity(e));
        break;
      }
      case 'replace': replace = true; break; // the other elements with directives are still dropped
      case 'merge': throw badPatch(`merging lists cannot yet be specified in the patch${where(path)}`);
      default: throw badPatch(`unknown patch type: ${show(e[directive])} in list element ${show(e)}${where(path)}`);
    }
  }
  for (const e of plain) {
    if (!hasOwn(e, mergeKey)) throw badPatch(`map: ${show(e)} does not contain declared merge key: ${mergeKey}`);
  }
  const base = deleted.size ? original.filter(o => !deleted.has(identity(o))) : original;
  if (replace) {
    const out: JsonObject[] = [];
    for (const e of plain) {
      out.push(yield* mergeMap({}, e, items, `${path}[${mergeKey}=${identity(e)}]`));
      if (out.length % elementsPerStep === 0) yield;
    }
    return out;
  }

  const merged = [...base];
  const at = new Map<string, number>();
  merged.forEach((o, i) => { const k = identity(o); if (k !== undefined && !at.has(k)) at.set(k, i); });
  let n = 0;
  for (const e of plain) {
    const k = identity(e)!;
    const i = at.get(k);
    const elementPath = `${path}[${mergeKey}=${k}]`;
    if (i !== undefined) merged[i] = yield* mergeMap(isObject(merged[i]) ? merged[i] as JsonObject : {}, e, items, elementPath);
    else { at.set(k, merged.length); merged.push(yield* mergeMap({}, e, items, elementPath)); }
    if (++n % elementsPerStep === 0) yield;
  }
  yield;
  return arrange(merged, plain, base, mergeKey);
}

/**
 * The reference's ordering: elements named in `patchOrder` sorted by it, the others by `serverOrder`,
 * then the two interleaved: a server element goes first only when both are on the server and it
 * comes earlier there.
 */
function arrange(list: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = keyOf(mergeKey);
  const positions = (order: unknown[]) => {
    const m = new Map<string, number>();
    order.forEach((e, i) => { const k = identity(e); if (k !== undefined && !m.has(k)) m.set(k, i); });
    return m;
  };
  const inPatch = positions(patchOrder);
  const onServer = positions(serverOrder);
  // each element's identity is spelled once, not once per comparison of the sorts
  const placed = list.map(e => {
    const k = identity(e);
    return { e, patch: k === undefined ? undefined : inPatch.get(k), server: k === undefined ? undefined : onServer.get(k) };
  });
  type Placed = (typeof placed)[number];
  const by = (pos: (p: Placed) => number | undefined) => (a: Placed, b: Placed) => (pos(a) ?? Infinity) - (pos(b) ?? Infinity) || 0;
  const named = placed.filter(p => p.patch !== undefined).sort(by(p => p.patch));
  const serverOnly = placed.filter(p => p.patch === undefined).sort(by(p => p.server));

  const out: unknown[] = [];
  let i = 0, j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) { out.push(serverOnly[i++].e); continue; }
    if (i >= serverOnly.length) { out.push(named[j++].e); continue; }
    const si = serverOnly[i].server, ni = named[j].server;
    if (si !== undefined && ni !== undefined && si < ni) out.push(serverOnly[i++].e);
    else out.push(named[j++].e);
  }
  return out;
}
