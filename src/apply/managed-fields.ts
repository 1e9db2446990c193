// The field manager: who owns which field (`metadata.managedFields`), for every write. Non-apply writes
// (create, update, patch) give the writer the fields it changed; server-side apply merges a partial
// configuration, fails on conflicts with other owners unless forced, and removes what the applier
// stopped asserting.
import type { Schema } from '../api/schema.js';
import type { ManagedFieldsEntry } from '../api/types/meta-v1.js';
import { nowTimestamp } from '../api/meta.js';
import { compareStrings, fieldElement, goJSON, pathString, type Path } from './field-path.js';
import {
  difference, emptySet, fromFieldsV1, has, intersection, isEmpty, paths, recursiveDifference, setOf, toFieldsV1, union,
  type FieldSet,
} from './field-set.js';
import { merge, prune } from './merge.js';
import { compare, deepEqual, entrySchema, InvalidObjectError, isObject, shapeOf, toFieldSet, type Comparison, type Obj } from './typed.js';
import { extend } from '../util/objects.js';

interface Owner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  time?: string;
  set: FieldSet;
}
type Owners = Map<string, Owner>;

interface WriteOptions {
  /** the fieldManager query parameter, else managerFromUserAgent(...) */
  manager: string;
  /** group/version of the request's object */
  apiVersion: string;
  time: string | Date;
  subresource?: string;
  /** fields the endpoint's strategy resets (e.g. [['status']] for the main resource): never owned */
  resetFields?: string[][];
}


/** a computation in steps: it yields where it may pause, and returns its result */
export type Steps<T> = Generator<void, T, void>;

/** runs steps through, with no pause */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export interface UpdateOptions extends WriteOptions {
  operation?: 'Update';
  /**
   * On create, what the new object is compared with: the kind's zero value as the reference serializes
   * it (struct fields that are not pointers as {}, fields without omitempty as null), so that the creator
   * owns those containers through their children only. Default {}.
   */
  zero?: Obj;
}

export interface ApplyOptions extends WriteOptions {
  force?: boolean;
  /** expected kind of the applied object; checked when given */
  kind?: string;
  /** name of the client-side apply annotation (…/last-applied-configuration), from the naming module */
  lastAppliedAnnotation?: string;
  /** manager name of the command-line client, which may take over its client-side apply fields */
  cliManager?: string;
}

export interface ManagedResult { object: Obj; managedFields: ManagedFieldsEntry[] }

export const maxUpdateManagers = 10;
export const ancientChangesManager = 'ancient-changes';
export const beforeFirstApplyManager = 'before-first-apply';
export const fieldManagerMaxLength = 128;
/** detail of the 400 for an apply without fieldManager (field `fieldManager` of PatchOptions) */
export const fieldManagerRequired = 'is required for apply patch';

/** an apply request the server refuses: status 400 (bad input) or 500 (stored data unreadable) */
export class ApplyError extends Error {
  constructor(readonly code: number, message: string) { super(message); }
}

export interface ConflictCause { reason: 'FieldManagerConflict'; message: string; field: string }

/** apply conflicts with other managers: 409, reason Conflict, one cause per conflicting field */
export class ConflictError extends ApplyError {
  readonly causes: ConflictCause[];
  constructor(readonly conflicts: { owner: string; path: Path }[]) {
    super(409, conflictMessage(conflicts));
    this.causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.owner}`, field: pathString(c.path) }));
  }
  status() {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: 'Conflict', details: { causes: this.causes }, code: 409 };
  }
}

function conflictMessage(conflicts: { owner: string; path: Path }[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${conflicts[0].owner}: ${pathString(conflicts[0].path)}`;
  const lines: string[] = [];
  let current: string | undefined;
  for (const c of conflicts) {
    if (c.owner !== current) lines.push(`conflicts with ${(current = c.owner)}:`);
    lines.push(`- ${pathString(c.path)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

// ── manager names ────────────────────────────────────────────────────────────────────────────────────

/** the manager of a write without fieldManager: the user agent up to the first `/`, printable, capped */
export function managerFromUserAgent(userAgent: string): string {
  let out = '';
  for (const ch of userAgent.split('/')[0]) {
    if (!isPrintable(ch)) continue;
    if (Buffer.byteLength(out + ch) > fieldManagerMaxLength) break;
    out += ch;
  }
  return out;
}

/** problems with a fieldManager parameter, as field error details */
export function fieldManagerProblems(name: string): string[] {
  const out: string[] = [];
  if (Buffer.byteLength(name) > fieldManagerMaxLength) out.push(`Too long: may not be longer than ${fieldManagerMaxLength}`);
  let i = 0;
  for (const ch of name) {
    if (!isPrintable(ch)) out.push(`Invalid value: ${JSON.stringify(name)}: invalid character U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} (at position ${i})`);
    i += Buffer.byteLength(ch);
  }
  return out;
}

const isPrintable = (ch: string) => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);

// ── encoding ─────────────────────────────────────────────────────────────────────────────────────────

/** identity of an entry: applies are one entry per manager, updates one per manager and version */
function ownerId(o: { manager: string; operation: string; apiVersion: string; subresource?: string }): string {
  let id = `{"manager":${goJSON(o.manager)},"operation":${goJSON(o.operation)}`;
  if (o.operation === 'Update' && o.apiVersion) id += `,"apiVersion":${goJSON(o.apiVersion)}`;
  if (o.subresource) id += `,"subresource":${goJSON(o.subresource)}`;
  return `${id}}`;
}

/** how conflict messages name an owner: "m", "m" using v1, "m" with subresource "status" using v1 */
function ownerLabel(o: Owner): string {
  let s = JSON.stringify(o.manager);
  if (o.subresource) s += ` with subresource ${JSON.stringify(o.subresource)}`;
  if (o.operation === 'Update') s += ` using ${o.apiVersion}`;
  return s;
}

/** reads stored managedFields; throws on entries the reference refuses */
export function decodeManagedFields(entries: unknown): Owners {
  return runSteps(decodeManagedFieldsInSteps(entries));
}

/** decodeManagedFields, pausing after each entry: every manager of a large object may own most of its fields */
function* decodeManagedFieldsInSteps(entries: unknown): Steps<Owners> {
  const owners: Owners = new Map();
  if (entries === undefined || entries === null) return owners;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  for (let i = 0; i < entries.length; i++) {
    const raw: unknown = entries[i];
    if (!isObject(raw)) throw new Error(`managed fields entry ${i} must be an object`);
    const e = raw as ManagedFieldsEntry & { fields?: unknown };
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    const tree = e.fieldsV1 ?? e.fields;
    if (e.fieldsType === undefined && e.fields === undefined) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const owner: Owner = { manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource || undefined, time: e.time ?? undefined, set: tree === undefined ? emptySet() : fromFieldsV1(tree) };
    owners.set(ownerId(owner), owner);
    if (i < entries.length - 1) yield;
  }
  return owners;
}

/** the managedFields list, sorted as the reference sorts it: applies first, then by time, manager, version */
export function encodeManagedFields(owners: Owners): ManagedFieldsEntry[] {
  return runSteps(encodeManagedFieldsInSteps(owners));
}

/** encodeManagedFields, pausing after each entry's fields */
function* encodeManagedFieldsInSteps(owners: Owners): Steps<ManagedFieldsEntry[]> {
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const sorted = [...owners.values()]
    .filter((o) => !isEmpty(o.set))
    .sort((p, q) => compareStrings(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || compareStrings(p.manager, q.manager)
      || compareStrings(p.apiVersion, q.apiVersion) || compareStrings(p.subresource ?? '', q.subresource ?? ''));
  const out: ManagedFieldsEntry[] = [];
  for (const o of sorted) {
    if (out.length) yield;
    // an empty manager (a client with no user agent) is left out, as the reference writes it
    // set field by field, in the reference's order: an object literal of conditional spreads is slow to build in V8
    const entry: ManagedFieldsEntry = {};
    if (o.manager) entry.manager = o.manager;
    entry.operation = o.operation;
    entry.apiVersion = o.apiVersion;
    if (o.time) entry.time = o.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = toFieldsV1(o.set);
    if (o.subresource) entry.subresource = o.subresource;
    out.push(entry);
  }
  return out;
}

/** RFC 3339 at second precision, as metav1.Time serializes */
export const timestamp = (t: string | Date) => nowTimestamp(t instanceof Date ? t : new Date(t));

// ── the shared core: who loses what when an object changes ─────────────────────────────────────────

/** fields the server sets, never owned by anyone */
const systemFields = setOf(
  ['f:apiVersion'], ['f:kind'], ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']
    .map((f): Path => ['f:metadata', fieldElement(f)]),
);

const resetSet = (fields: string[][] | undefined): FieldSet | undefined =>
  fields?.length ? setOf(...fields.map((p) => p.map(fieldElement))) : undefined;

function excludeReset(c: Comparison, reset: FieldSet | undefined): Comparison {
  if (!reset) return c;
  return { added: recursiveDifference(c.added, reset), modified: recursiveDifference(c.modified, reset), removed: recursiveDifference(c.removed, reset) };
}

/**
 * Every other owner loses the fields that changed (a conflict unless forced) and the fields that went
 * away; owners left with nothing are dropped.
 */
function* release(owners: Owners, c: Comparison, self: string | undefined, force: boolean): Steps<void> {
  const changed = union(c.modified, c.added);
  const conflicts: [string, Owner, FieldSet][] = [];
  if (!isEmpty(changed)) for (const [id, o] of owners) {
    if (id === self) continue;
    const lost = intersection(o.set, changed);
    if (!isEmpty(lost)) conflicts.push([id, o, lost]);
    yield;
  }
  if (!force && conflicts.length > 0) {
    conflicts.sort((a, b) => compareStrings(a[0], b[0]));
    throw new ConflictError(conflicts.flatMap(([, o, lost]) => paths(lost).map((path) => ({ owner: ownerLabel(o), path }))));
  }
  // each owner of much of a large object loses much of it: one at a time
  for (const [, o, lost] of conflicts) {
    o.set = difference(o.set, lost);
    yield;
  }
  if (!isEmpty(c.removed)) for (const [id, o] of owners) {
    if (id === self) continue;
    o.set = difference(o.set, c.removed);
    yield;
  }
  dropEmpty(owners);
}

function stripSystemFields(owners: Owners): void {
  for (const o of owners.values()) o.set = difference(o.set, systemFields);
  dropEmpty(owners);
}

function dropEmpty(owners: Owners): void {
  for (const [id, o] of owners) if (isEmpty(o.set)) owners.delete(id);
}

/** merges the oldest update entries into one `ancient-changes` entry per version beyond the cap */
function capUpdateManagers(owners: Owners): void {
  const updaters = [...owners].filter(([, o]) => o.operation === 'Update');
  if (updaters.length <= maxUpdateManagers) return;
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || compareStrings(ia, ib));
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (let i = 0; i < updaters.length && count > maxUpdateManagers; i++) {
    const [id, o] = updaters[i];
    const bucketId = ownerId({ manager: ancientChangesManager, operation: 'Update', apiVersion: o.apiVersion });
    const first = firstOfVersion.get(o.apiVersion);
    if (first === undefined) { firstOfVersion.set(o.apiVersion, id); continue; }
    if (id === bucketId) continue;
    if (!owners.has(bucketId)) {
      const f = owners.get(first)!;
      owners.delete(first);
      owners.set(bucketId, { manager: ancientChangesManager, operation: 'Update', apiVersion: o.apiVersion, time: f.time, set: f.set });
    }
    const bucket = owners.get(bucketId)!;
    bucket.set = union(o.set, bucket.set);
    bucket.time = o.time;
    owners.delete(id);
    count--;
  }
}

// ── topology changes (spec 2.7) ──────────────────────────────────────────────────────────────────────

/**
 * Brings owned sets in line with the current schema (spec 2.7): a value that became atomic is owned as a
 * whole by whoever owned any part of it. A value that became granular keeps its owner for the value
 * itself, and nobody owns its children, so no conflict arises.
 */
function reconcileWithSchema(owners: Owners, schema: Schema | undefined): void {
  if (!schema) return;
  for (const o of owners.values()) {
    const next = reconcileNode(o.set, schema);
    if (next) o.set = next;
  }
}

/** schemas that describe a container; their shape does not depend on the value */
const isContainerSchema = (s: Schema) => s.type === 'object' || s.type === 'array' || !!s.properties || !!s.items || !!s.additionalProperties;

/** the reconciled set below a node, or undefined when nothing changes */
function reconcileNode(set: FieldSet, schema: Schema): FieldSet | undefined {
  const shape = shapeOf(schema, undefined);
  if (shape.kind === 'leaf') return undefined;
  let out: FieldSet | undefined;
  for (const [pe, sub] of set.children) {
    const childSchema = shape.kind === 'list' ? shape.items : pe.startsWith('f:') ? entrySchema(shape, pe.slice(2)) : undefined;
    if (!childSchema || !isContainerSchema(childSchema)) continue;
    let next: FieldSet | undefined;
    if (shapeOf(childSchema, undefined).kind === 'leaf') {
      // granular → atomic: whoever owned a part owns the whole value
      out ??= { members: new Set(set.members), children: new Map(set.children) };
      out.children.delete(pe);
      out.members.add(pe);
      continue;
    }
    if ((next = reconcileNode(sub, childSchema))) (out ??= { members: new Set(set.members), children: new Map(set.children) }).children.set(pe, next);
  }
  return out;
}

// ── non-apply writes ─────────────────────────────────────────────────────────────────────────────────

/**
 * Managed fields for create, update and non-apply patch: the writer gains the fields it changed, other
 * owners lose them, and fields that went away are released. managedFields sent in `next` replace the
 * stored ones (a list holding one empty entry clears them; an absent or empty list keeps the stored
 * ones; subresource writes always keep them).
 */
export function updateManagedFields(live: Obj | undefined, next: Obj, opts: UpdateOptions, schema: Schema | undefined): ManagedResult {
  return runSteps(updateManagedFieldsInSteps(live, next, opts, schema));
}

/**
 * updateManagedFields, pausing (a `yield`) between its steps: each walks the whole object, and on one of many
 * fields takes long enough that a server gives its event loop back between them
 */
export function* updateManagedFieldsInSteps(live: Obj | undefined, next: Obj, opts: UpdateOptions, schema: Schema | undefined): Steps<ManagedResult> {
  const liveBare = withoutManagedFields(live) ?? opts.zero ?? {};
  const nextBare = withoutManagedFields(next)!;
  const owners = yield* startingOwners(live, next, !!opts.subresource);
  yield;
  // an existing object nobody owns any field of stays that way through updates (as in the reference: tracking
  // starts with a create, an apply or a reset), rather than have its writer own fields others set
  if (owners.size === 0 && metadataOf(live)?.uid && !isResetManagedFields(metadataOf(next)?.managedFields))
    return { object: withManagedFields(next, []), managedFields: [] };
  let changed: boolean;
  try {
    changed = yield* recordUpdate(owners, liveBare, nextBare, opts, schema);
  } catch (e) {
    // an object the schema cannot read (validation refuses it later) keeps the stored managedFields
    if (!(e instanceof InvalidObjectError)) throw e;
    const stored = metadataOf(live)?.managedFields;
    const kept = Array.isArray(stored) ? (stored as ManagedFieldsEntry[]) : [];
    return { object: withManagedFields(next, kept), managedFields: kept };
  }
  yield;
  const entries = yield* encodeManagedFieldsInSteps(owners);
  const managedFields = changed ? entries : yield* keepTimesOnNoop(live, liveBare, nextBare, entries);
  return { object: withManagedFields(next, managedFields), managedFields };
}

/**
 * The writer of `next` gains what changed since `live`; everybody else loses it. Returns whether a field changed
 * (outside the reset fields): such a write is no no-op, which spares comparing the whole objects again.
 */
function* recordUpdate(owners: Owners, live: Obj, next: Obj, opts: WriteOptions, schema: Schema | undefined): Steps<boolean> {
  reconcileWithSchema(owners, schema);
  yield;
  const reset = resetSet(opts.resetFields);
  const c = excludeReset(compare(live, next, schema), reset);
  yield;
  yield* release(owners, c, undefined, true);
  yield;
  let mine = union(c.modified, c.added);
  if (reset) mine = recursiveDifference(mine, reset);
  mine = difference(mine, systemFields);
  stripSystemFields(owners);
  if (!isEmpty(mine)) {
    const owner: Owner = { manager: opts.manager, operation: 'Update', apiVersion: opts.apiVersion, subresource: opts.subresource || undefined, time: timestamp(opts.time), set: mine };
    const id = ownerId(owner);
    const previous = owners.get(id);
    if (previous) owner.set = union(mine, previous.set);
    owners.set(id, owner);
  }
  capUpdateManagers(owners);
  return !isEmpty(c.added) || !isEmpty(c.modified) || !isEmpty(c.removed);
}

function* startingOwners(live: Obj | undefined, next: Obj, subresource: boolean): Steps<Owners> {
  function* fromLive(): Steps<Owners> { try { return yield* decodeManagedFieldsInSteps(metadataOf(live)?.managedFields); } catch { return new Map() as Owners; } }
  if (subresource) return yield* fromLive();
  const sent = metadataOf(next)?.managedFields;
  if (isResetManagedFields(sent)) return new Map();
  let owners: Owners;
  try {
    owners = yield* decodeManagedFieldsInSteps(sent);
  } catch {
    return yield* fromLive();
  }
  return owners.size > 0 ? owners : yield* fromLive();
}

/** spec 4.6 rule 9: one empty entry clears managedFields (an empty list does not) */
export function isResetManagedFields(mf: unknown): boolean {
  return Array.isArray(mf) && mf.length === 1 && isObject(mf[0]) && Object.values(mf[0]).every((v) => v === undefined || v === null || v === '');
}

// ── apply ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Server-side apply of `applied` onto `live` (undefined: the object is created). Returns the merged
 * object with its managedFields, or throws ConflictError (409) or ApplyError (400/500).
 */
export function apply(live: Obj | undefined, applied: Obj, opts: ApplyOptions, schema: Schema | undefined): ManagedResult {
  return runSteps(applyInSteps(live, applied, opts, schema));
}

/** apply, pausing (a `yield`) between its steps, as updateManagedFieldsInSteps */
export function* applyInSteps(live: Obj | undefined, applied: Obj, opts: ApplyOptions, schema: Schema | undefined): Steps<ManagedResult> {
  const appliedMeta = metadataOf(applied);
  if (appliedMeta && appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) throw new ApplyError(400, 'metadata.managedFields must be nil');
  if (applied.apiVersion !== opts.apiVersion || (opts.kind !== undefined && applied.kind !== opts.kind)) {
    throw new ApplyError(400, `invalid object type: ${gvkString(applied)}`);
  }
  let stored: Owners;
  try { stored = yield* decodeManagedFieldsInSteps(metadataOf(live)?.managedFields); } catch (e) { throw new ApplyError(500, `failed to decode managed fields: ${(e as Error).message}`); }
  const liveBare = withoutManagedFields(live) ?? {};
  yield;
  // an existing object nobody owns yet: its current fields go to a placeholder manager first
  if (live && stored.size === 0) yield* recordUpdate(stored, {}, liveBare, { ...opts, manager: beforeFirstApplyManager, subresource: undefined }, schema);
  const cli = opts.cliManager ?? 'kubectl';
  let result: { object: Obj; owners: Owners; changed: boolean };
  try {
    result = yield* applyCore(stored, liveBare, applied, opts, !!opts.force, schema);
  } catch (e) {
    if (!(e instanceof ConflictError) || opts.manager !== cli || !opts.lastAppliedAnnotation) throw e;
    // a client moving from client-side apply may take over the fields its last-applied annotation holds
    const allowed = allowedFromLastApplied(liveBare, opts.lastAppliedAnnotation, opts.apiVersion, schema);
    if (!allowed) throw e;
    const remaining = e.conflicts.filter((c) => !has(allowed, c.path));
    if (remaining.length > 0) throw new ConflictError(remaining);
    result = yield* applyCore(stored, liveBare, applied, opts, true, schema);
  }
  yield;
  let object = result.object;
  capUpdateManagers(result.owners);
  if (opts.manager === cli && opts.lastAppliedAnnotation) object = refreshLastApplied(object, applied, opts.lastAppliedAnnotation);
  const entries = yield* encodeManagedFieldsInSteps(result.owners);
  const managedFields = result.changed ? entries : yield* keepTimesOnNoop(live, liveBare, object, entries);
  return { object: withManagedFields(object, managedFields, live), managedFields };
}

function* applyCore(stored: Owners, live: Obj, applied: Obj, opts: ApplyOptions, force: boolean, schema: Schema | undefined): Steps<{ object: Obj; owners: Owners; changed: boolean }> {
  const owners: Owners = new Map([...stored].map(([id, o]) => [id, { ...o }]));
  reconcileWithSchema(owners, schema);
  yield;
  let set: FieldSet;
  let object: Obj;
  try {
    set = toFieldSet(applied, schema);
    yield;
    object = merge(live, applied, schema) as Obj;
  } catch (e) {
    if (e instanceof InvalidObjectError) throw typedPatchError(applied, [e.message]);
    throw e;
  }
  yield;
  const reset = resetSet(opts.resetFields);
  if (reset) set = recursiveDifference(set, reset);
  const me: Owner = { manager: opts.manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource: opts.subresource || undefined, set };
  const id = ownerId(me);
  const last = owners.get(id)?.set;
  owners.set(id, me);
  // what the applier no longer asserts goes; what it applied stays, empty containers included (rule 1)
  if (last && !isEmpty(difference(last, set))) {
    const pruned = prune(object, schema, last, [...owners.values()].map((o) => o.set));
    yield;
    object = merge(pruned, applied, schema) as Obj;
  }
  yield;
  const changes = excludeReset(compare(live, object, schema), reset);
  yield;
  // an apply that changes no field keeps the live object as it is, the order of its lists included
  const changed = !isEmpty(changes.added) || !isEmpty(changes.modified) || !isEmpty(changes.removed);
  if (!changed) object = live;
  yield* release(owners, changes, id, force);
  stripSystemFields(owners);
  me.time = timestamp(opts.time);
  return { object, owners, changed };
}

/** fields of the last-applied annotation whose value the live object still holds */
function allowedFromLastApplied(live: Obj, annotation: string, apiVersion: string, schema: Schema | undefined): FieldSet | undefined {
  const text = annotationsOf(live)?.[annotation];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const last = JSON.parse(text) as unknown;
    if (!isObject(last) || last.apiVersion !== apiVersion) return undefined;
    const c = compare(last, live, schema);
    return difference(difference(difference(toFieldSet(last, schema), c.modified), c.added), c.removed);
  } catch {
    return undefined;
  }
}

/** keeps the client-side apply annotation current under the command-line manager, when present */
function refreshLastApplied(object: Obj, applied: Obj, annotation: string): Obj {
  const current = annotationsOf(object)?.[annotation];
  if (typeof current !== 'string' || current === '') return object;
  const config = { ...applied };
  const meta = metadataOf(applied);
  if (meta && isObject(meta.annotations)) {
    const { [annotation]: _dropped, ...rest } = meta.annotations as Obj;
    config.metadata = { ...meta, annotations: rest };
  }
  const annotations: Obj = { ...annotationsOf(object), [annotation]: `${goJSON(config)}\n` };
  // the reference drops the annotation rather than exceed the total annotation size limit
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += k.length + String(v).length;
  if (total > 256 * 1024) delete annotations[annotation];
  return { ...object, metadata: { ...metadataOf(object), annotations } };
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────────────────

/**
 * Writes that change nothing but the managedFields timestamps keep the stored managedFields, so that
 * no-op writes do not produce a new resourceVersion.
 */
function* keepTimesOnNoop(live: Obj | undefined, liveBare: Obj, nextBare: Obj, entries: ManagedFieldsEntry[]): Steps<ManagedFieldsEntry[]> {
  const stored = metadataOf(live)?.managedFields;
  if (!Array.isArray(stored) || stored.length !== entries.length) return entries;
  const identity = (e: ManagedFieldsEntry) => JSON.stringify([e.manager, e.operation, e.apiVersion, e.subresource || '']);
  const before = new Map(stored.filter(isObject).map((e) => [identity(e as ManagedFieldsEntry), e as ManagedFieldsEntry]));
  // each entry of a large object's fields is compared in a piece of its own, and the objects in another
  for (const e of entries) {
    yield;
    const s = before.get(identity(e));
    if (!s || s.fieldsType !== e.fieldsType || !deepEqual(s.fieldsV1, e.fieldsV1)) return entries;
  }
  yield;
  return deepEqual(liveBare, withoutManagedFields(nextBare)) ? (stored as ManagedFieldsEntry[]) : entries;
}

const metadataOf = (o: Obj | undefined): Obj | undefined => (o && isObject(o.metadata) ? o.metadata : undefined);
const annotationsOf = (o: Obj): Obj | undefined => { const a = metadataOf(o)?.annotations; return isObject(a) ? a : undefined; };

function withoutManagedFields(o: Obj | undefined): Obj | undefined {
  const meta = metadataOf(o);
  if (!o || !meta || !('managedFields' in meta)) return o;
  const { managedFields: _dropped, ...rest } = meta;
  return { ...o, metadata: rest };
}

/**
 * The object with these managedFields: where `live` held its own (after the same fields), else last, so that an
 * apply which changes nothing stores the same text and writes nothing
 */
function withManagedFields(o: Obj, managedFields: ManagedFieldsEntry[], live?: Obj): Obj {
  const { managedFields: _dropped, ...rest } = metadataOf(o) ?? {};
  if (managedFields.length === 0 && !metadataOf(o)) return o;
  if (!managedFields.length) return { ...o, metadata: rest };
  const liveKeys = Object.keys(metadataOf(live) ?? {});
  const at = liveKeys.indexOf('managedFields');
  if (at < 0) return { ...o, metadata: extend(rest, { managedFields }) };
  const before = new Set(liveKeys.slice(0, at));
  const fields = Object.entries(rest);
  // (fromEntries makes each an own property, a `__proto__` key from input included)
  const metadata = Object.fromEntries([...fields.filter(([k]) => before.has(k)), ['managedFields', managedFields], ...fields.filter(([k]) => !before.has(k))]);
  return { ...o, metadata };
}

/** the reference's error for an apply configuration its schema cannot read (a 500, as the reference answers) */
export function typedPatchError(applied: Obj, problems: string[]): ApplyError {
  const detail = problems.length === 1 ? problems[0] : `errors:\n${problems.map((p) => `  ${p}`).join('\n')}`;
  return new ApplyError(500, `failed to create typed patch object (${gvkString(applied)}): ${detail}`);
}

function gvkString(o: Obj): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const [group, version] = av.includes('/') ? av.split('/') : ['', av];
  return `${group}/${version}, Kind=${typeof o.kind === 'string' ? o.kind : ''}`;
}

