// create, update, patch, delete and deletecollection: decode, then the store's one write path.
import { revisionOf } from '../api/resource-version.js';
import type { ApiObject } from '../api/meta.js';
import { parseApiVersion } from '../api/meta.js';
import { queryFlag, type RequestContext } from '../api/request.js';
import { decodeProtobuf, decodeYaml, decodeYamlRepeatedKeys, readBody, readObject, mediaType, maxNestingDepth, nestsDeeper, parseJson } from './body.js';
import { protobufOf, sendObject, sendStatus, sendText } from './respond.js';
import { badRequest, conflict, forbidden, invalid, unsupportedMediaType, successStatus, ApiError, statusBody } from '../api/status.js';
import { applyJsonPatchInSlices } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import type { PatchOptions } from '../patch/common.js';
import { applyStrategicMergePatchInSteps } from '../patch/strategic-merge.js';
import type { DeleteOptions, WriteOptions } from '../registry/types.js';
import { checkListIntegers, integerParam, parseDryRun } from '../api/request.js';
import { breather, inSteps, yieldToLoop } from '../util/slices.js';

const maxGracePeriodSeconds = 100 * 365 * 24 * 3600;
import { applyInSteps, fieldManagerProblems, fieldManagerRequired, managerFromUserAgent, typedPatchError } from '../apply/managed-fields.js';
import { undeclaredFields } from '../apply/typed.js';
import { admission, asServed, customMetadataWrongTypes, parseFieldValidation, filterFor, type Scope } from './scope.js';
import { asListItem, representationFor, sendOne, sendWritten } from './read.js';
import { duplicateFields, inexactIntegers, readTyped, scanBodyText, type TypedReading } from '../schema/fields.js';
import type { Schema } from '../api/schema.js';
import type { Naming } from '../api/naming.js';
import { deleteOptions as deleteOptionsSchema } from '../api/schemas/meta.js';
import { deepCopy, extend } from '../util/objects.js';

/** the body must name the kind this endpoint serves (or name nothing) */
function checkKind(scope: Scope, obj: unknown): ApiObject {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest('the request body must be a JSON or YAML object');
  const o = obj as ApiObject;
  const expected = scope.subresource && scope.info.subresources[scope.subresource]?.kind;
  const kind = expected || scope.info.kind;
  if (o.apiVersion !== undefined || o.kind !== undefined) {
    const { group, version } = parseApiVersion(String(o.apiVersion ?? ''));
    if (o.kind !== undefined && o.kind !== kind)
      throw badRequest(`the kind in the body (${o.kind}) does not match the kind on the URL (${kind})`);
    if (o.apiVersion !== undefined && (group !== scope.info.group || version !== scope.info.version))
      throw badRequest(`the API version in the data (${o.apiVersion}) does not match the expected API version (${scope.info.apiVersion})`);
  }
  if (o.metadata === undefined || o.metadata === null) o.metadata = {};
  if (typeof o.metadata !== 'object' || Array.isArray(o.metadata)) throw badRequest('metadata must be an object');
  // objects go to the store under the names it works with (the storage version's, unless it converts), kind first
  // as the reference writes them
  const { kind: _k, apiVersion: _v, metadata, ...rest } = o;
  return { kind: scope.info.kind, apiVersion: scope.store.apiVersion, metadata, ...rest } as ApiObject;
}

/**
 * Built-in kinds are read as the reference's typed objects: canonical quantities, and no empty optional lists or maps
 * (so that `kubectl diff` of an unchanged object, whose patch sets `annotations: {}`, finds no difference). An apply
 * configuration keeps its empty ones: there they say which fields the manager owns.
 */
const typedOptions = (scope: Scope, applied = false) =>
  ({ canonicalQuantities: !scope.info.def.custom, canonicalTimes: !scope.info.def.custom, omitEmpty: !scope.info.def.custom && !applied, zeroNulls: !scope.info.def.custom });

/** the typed reading of a body of the scope's kind: a custom object's wrong types are only its metadata's (the rest
 *  is for its schema to judge, a 422 with the field's path) */
function readKind(scope: Scope, obj: unknown, applied = false): TypedReading {
  const reading = readTyped(scope.info.schema, obj, typedOptions(scope, applied));
  return scope.info.def.custom ? { unknown: reading.unknown, wrongTypes: customMetadataWrongTypes(scope, obj) } : reading;
}

/**
 * The typed reading of a body: wrong types are a 400 as the reference's decoder reports them, unknown fields are
 * dropped, and per fieldValidation unknown and duplicate fields are ignored, warned about (one Warning each) or refused (400 listing all).
 */
async function decodeFields(ctx: RequestContext, scope: Scope, obj: unknown, text: string | undefined, applied = false): Promise<string[]> {
  const mode = parseFieldValidation(ctx.query.get('fieldValidation'));
  const { unknown, wrongTypes } = readKind(scope, obj, applied);
  // the reading and the scan of the text each walk a large body whole
  await breather();
  // a custom resource's integers are its schema's to judge, which takes `1.0` as the reference's does (an apply
  // configuration is read through YAML, where `1.0` is a whole number)
  const integersOf = applied || scope.info.def.custom ? undefined : scope.info.schema;
  if (text) refuseInexactIntegers(scope, text);
  const scanned = text ? scanBodyText(text, { duplicates: mode !== 'Ignore', integersOf }) : undefined;
  wrongTypes.push(...scanned?.fractionalIntegers ?? []);
  if (wrongTypes.length)
    throw badRequest(`${scope.info.kind} in version "${scope.info.version}" cannot be handled as a ${scope.info.kind}: ${wrongTypes.join(', ')}`);
  if (mode === 'Ignore') return unknown;
  // an apply's unknown fields are its caller's to refuse (see serverSideApply); duplicates follow fieldValidation
  const problems = [...scanned?.duplicates ?? [], ...(applied ? [] : unknown.map(f => `unknown field "${f}"`))];
  if (!problems.length) return unknown;
  if (mode === 'Strict') {
    const name = (obj as ApiObject)?.metadata?.name ?? '';
    // a body refused as it is read (create, update) names the kind it could not be read as, as the reference's
    // decoder reports it; an apply's problems are reported as they are
    const what = applied ? '' : `${scope.info.kind} in version "${scope.info.version}" cannot be handled as a ${scope.info.kind}: `;
    throw badRequest(`${what}strict decoding error: ${problems.join(', ')}`, problems.map(p => ({ reason: 'FieldValueInvalid', message: p, field: name })));
  }
  for (const p of problems) ctx.warnings.push(p);
  return unknown;
}

/**
 * A custom resource's integer that a JSON number here would round (past 2^53 - 1 in magnitude, where the reference
 * keeps an int64 exactly) is refused, rather than stored changed: in user data such a number is most often an
 * identifier. A built-in kind's int64 fields hold no such values that must stay exact (a grace period of 2^63 - 1, a
 * client's "forever", keeps its meaning as the largest double an int64 holds).
 */
function refuseInexactIntegers(scope: Scope, text: string) {
  if (!scope.info.def.custom) return;
  const inexact = inexactIntegers(text);
  if (inexact.length)
    throw badRequest(`${scope.info.kind} in version "${scope.info.version}" cannot be handled as a ${scope.info.kind}: integers beyond ±${Number.MAX_SAFE_INTEGER} cannot be kept exactly by this server: ${inexact.slice(0, 10).join(', ')}`);
}

/**
 * Dry run, and the writer for metadata.managedFields: the fieldManager parameter, else the client's user agent.
 * `options` names the options kind in errors (CreateOptions, UpdateOptions, PatchOptions).
 */
export function writeOptions(ctx: RequestContext, scope: Scope, options: string): WriteOptions {
  const dryRun = parseDryRun(ctx.query.getAll('dryRun'));
  const given = ctx.query.get('fieldManager');
  if (given !== null) checkFieldManager(scope, options, given);
  const name = given || managerFromUserAgent(String(ctx.headers['user-agent'] ?? ''));
  return { dryRun, manager: { name, apiVersion: scope.info.apiVersion }, user: ctx.user, warn: message => ctx.warnings.push(message) };
}

/** the options of a create, update or patch as its admission review carries them: those the client gave in the query */
function writeOptionsReviewed(ctx: RequestContext): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of ['fieldManager', 'fieldValidation']) {
    const value = ctx.query.get(key);
    if (value) options[key] = value;
  }
  return options;
}

/** a delete's options as its admission review carries them (its dry run is told apart) */
const deleteOptionsReviewed = ({ dryRun: _dryRun, ...options }: DeleteOptions): Record<string, unknown> => options;

function checkFieldManager(scope: Scope, options: string, manager: string) {
  const problems = fieldManagerProblems(manager);
  if (problems.length) throw invalid(scope.names.metaGroup, options, '', problems.map(p => ({ reason: 'FieldValueInvalid', field: 'fieldManager', message: p })));
}

export async function create(ctx: RequestContext, scope: Scope, namespace: string) {
  const rep = representationFor(ctx, scope);
  const { value, text, large } = await readObject(ctx, scope.names);
  await decodeFields(ctx, scope, value, mediaType(ctx) === 'application/json' || mediaType(ctx) === '' ? text : undefined);
  if (large) await yieldToLoop();
  const obj = checkKind(scope, value);
  ctx.audit?.requestObject(obj);
  const opts = writeOptions(ctx, scope, 'CreateOptions');
  // the reference's storage refuses a create that names a version, with a plain 500 and no reason
  if (!opts.dryRun && revisionOf(obj) > 0) {
    throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
  }
  const created = await scope.store.create(namespace, obj, admission(ctx, scope, namespace, obj.metadata.name ?? '', opts.dryRun, writeOptionsReviewed(ctx)), opts);
  await breather();
  sendWritten(ctx, scope, rep, created, 201);
}

export async function update(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const { value, text, large } = await readObject(ctx, scope.names);
  await decodeFields(ctx, scope, value, mediaType(ctx) === 'application/json' || mediaType(ctx) === '' ? text : undefined);
  if (large) await yieldToLoop();
  const obj = checkKind(scope, value);
  ctx.audit?.requestObject(obj);
  const opts = writeOptions(ctx, scope, 'UpdateOptions');
  const { obj: out, created } = await scope.store.guaranteedUpdate(namespace, name, scope.subresource, bodyPerAttempt(ctx, scope, obj, text),
    admission(ctx, scope, namespace, name, opts.dryRun, writeOptionsReviewed(ctx)), extend(opts, { allowCreate: scope.strategy.allowCreateOnUpdate, replaces: true }));
  await breather();
  sendWritten(ctx, scope, rep, out, created ? 201 : 200);
}

/**
 * The request's object for each attempt of a write: the first attempt takes the decoded body itself, and only a
 * retry after a conflict (rare) needs it unmodified, so that one decodes the body again rather than every request
 * paying for a deep copy of a large object up front.
 */
function firstThenAgain<T>(first: T, again: () => T): () => T {
  let attempts = 0;
  return () => (attempts++ === 0 ? first : again());
}

/** an update's body per attempt: read again from its JSON text (with the same typed reading; its warnings and errors
 *  were given the first time), or for a body without text (protobuf, YAML) copied from a copy kept aside */
function bodyPerAttempt(ctx: RequestContext, scope: Scope, obj: ApiObject, text: string): () => ApiObject {
  if (!text) {
    const pristine = deepCopy(obj);
    return firstThenAgain(obj, () => deepCopy(pristine));
  }
  return firstThenAgain(obj, () => {
    const value = parseJson(text);
    readKind(scope, value);
    return checkKind(scope, value);
  });
}

/** the patch types every resource takes (server-side apply aside) */
export const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
export const applyPatchType = 'application/apply-patch+yaml';

/** a patch document of one of `patchTypes` applied to an object (a strategic merge patch reads the schema's markers) */
export async function applyPatch(type: string, current: unknown, doc: unknown, schema: Schema | undefined, opts: PatchOptions = {}): Promise<unknown> {
  if (type !== 'application/json-patch+json')
    return type === 'application/merge-patch+json' ? applyMergePatch(current, doc, opts) : inSteps(applyStrategicMergePatchInSteps(current, doc, schema, opts));
  const patched = await applyJsonPatchInSlices(current, doc, opts);
  // an operation's path adds to its value's depth: the result is held to the depth a body may have (a merge nests no
  // deeper than the object and the patch already are)
  if (nestsDeeper(patched, maxNestingDepth))
    throw invalid('', '', '', [{ reason: 'FieldValueInvalid', field: 'patch', message: `the patched object is nested more than ${maxNestingDepth} levels deep` }]);
  return patched;
}

export async function patch(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const type = mediaType(ctx);
  if (type === applyPatchType) return serverSideApply(ctx, scope, namespace, name);
  if (ctx.query.has('force'))
    throw invalid(scope.names.metaGroup, 'PatchOptions', '', [{ reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' }]);
  // the reference lists every patch type the resource takes, apply included; custom resources take no strategic merge
  const strategic = !!scope.info.schema && !scope.info.def.custom;
  if (!patchTypes.includes(type) || (type === 'application/strategic-merge-patch+json' && !strategic))
    throw unsupportedMediaType([...patchTypes.filter(t => strategic || !t.includes('strategic')), applyPatchType]);
  const text = (await readBody(ctx)).toString('utf8');
  await breather();
  const patchDoc = parseJson(text);
  refuseInexactIntegers(scope, text);
  const opts = writeOptions(ctx, scope, 'PatchOptions');
  const fieldMode = parseFieldValidation(ctx.query.get('fieldValidation'));
  await breather();
  // a field repeated in the patch document is a strict decoding problem too, as the reference reads a patch
  const repeated = fieldMode === 'Ignore' ? [] : duplicateFields(text).map(p => (type === 'application/json-patch+json' ? `json patch ${p}` : p));
  let warned = false;   // a retry after a conflict reads the patch again; its warnings are given once
  const { obj: out } = await scope.store.guaranteedUpdate(namespace, name, scope.subresource, async current => {
    if (!current) return { metadata: { name } };   // the store answers 404
    // the store hands the transform its own copy of the object: patched in place
    const patched = await applyPatch(type, current, patchDoc, scope.info.schema, { inPlace: true });
    await breather();
    // a patch that produces wrong types is invalid (422), as the reference reports it
    const { unknown, wrongTypes } = readKind(scope, patched);
    if (wrongTypes.length) throw invalid('', '', '', wrongTypes.map(w => ({ reason: 'FieldValueInvalid', field: 'patch', message: w })));
    const problems = [...repeated, ...unknown.map(f => `unknown field "${f}"`)];
    if (problems.length && fieldMode === 'Strict') throw badRequest(`strict decoding error: ${problems.join(', ')}`);
    if (problems.length && fieldMode === 'Warn' && !warned) { warned = true; for (const p of problems) ctx.warnings.push(p); }
    return checkKind(scope, patched);
  }, admission(ctx, scope, namespace, name, opts.dryRun, writeOptionsReviewed(ctx)), extend(opts, { allowCreate: false }));
  await breather();
  sendWritten(ctx, scope, rep, out, 200);
}

/**
 * Server-side apply: the applied configuration merges into the live object (or creates it), and its manager owns
 * what it applied; a field another manager owns with another value is a conflict (409) unless force=true.
 */
async function serverSideApply(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const text = (await readBody(ctx)).toString('utf8');
  await breather();
  // clients send JSON (which is YAML too); it parses far faster as JSON, and a retry parses it again
  const json = text.trimStart().startsWith('{');
  const applied = (json ? parseJson(text) : await decodeAppliedYaml(ctx, text)) as ApiObject;
  await breather();
  const pristine = json ? undefined : deepCopy(applied);
  const parse = () => (pristine ? deepCopy(pristine) : parseJson(text)) as ApiObject;
  if (!applied || typeof applied !== 'object' || Array.isArray(applied)) throw badRequest('the apply patch must be an object');
  const manager = applyManager(ctx, scope);
  const force = queryFlag(ctx.query.get('force'));
  // a field the schema does not declare fails the apply whatever fieldValidation says, as the reference's typed
  // reading of an apply configuration fails (a 500 naming the field), rather than being dropped
  const unknown = await decodeFields(ctx, scope, applied, json ? text : undefined, true);
  await breather();
  if (unknown.length) {
    const raw = parse();
    const undeclared = undeclaredFields(raw, scope.info.schema);
    if (undeclared.length) throw typedPatchError(raw, undeclared.map(f => `${f}: field not declared in schema`));
  }
  const dryRun = parseDryRun(ctx.query.getAll('dryRun'));
  // the merged object shares parts of the configuration, which the write goes on to change: a retry decodes it again
  const appliedPerAttempt = firstThenAgain(applied, () => {
    const again = parse();
    readKind(scope, again, true);
    return again;
  });
  const { obj: out, created } = await scope.store.guaranteedUpdate(namespace, name, scope.subresource, async current => {
    if (!current) await requireCreate(ctx, scope, namespace, name);
    const { object } = await inSteps(applyInSteps(current, appliedPerAttempt() as Record<string, unknown>, {
      manager, apiVersion: scope.info.apiVersion, kind: scope.subresource ? undefined : scope.info.kind, force,
      time: new Date(), subresource: scope.subresource || undefined, resetFields: scope.store.resetFieldsFor(scope.subresource),
      lastAppliedAnnotation: scope.names.lastAppliedAnnotations.find(a => current?.metadata.annotations?.[a] !== undefined) ?? scope.names.lastAppliedAnnotations[0],
    }, scope.info.schema));
    if (!current) checkApplyCreates(scope, object, name);
    return checkKind(scope, object);
  }, admission(ctx, scope, namespace, name, dryRun, writeOptionsReviewed(ctx)), { dryRun, allowCreate: true, user: ctx.user, warn: message => ctx.warnings.push(message) });
  await breather();
  sendWritten(ctx, scope, rep, out, created ? 201 : 200);
}

/**
 * An apply that creates its object makes it from the configuration alone, as the reference does: the configuration
 * must name the object (a generateName is no name), and a uid in it names an object that does not exist (409).
 */
function checkApplyCreates(scope: Scope, object: { metadata?: { uid?: string; name?: string } }, name: string) {
  const { uid, name: given } = object.metadata ?? {};
  if (uid) throw conflict(scope.info.group, scope.info.resource, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
  if (!given) throw badRequest(`the name of the object () does not match the name on the URL (${name})`);
}

/**
 * An apply configuration in YAML is read as the reference reads it: a repeated key's last value wins, and then
 * fieldValidation decides (Strict: 400, Warn: a warning, Ignore: nothing)
 */
export async function decodeAppliedYaml(ctx: RequestContext, text: string): Promise<unknown> {
  const { value, repeated } = await decodeYamlRepeatedKeys(text);
  if (!repeated) return value;
  const mode = parseFieldValidation(ctx.query.get('fieldValidation'));
  if (mode === 'Strict') throw badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${repeated}`);
  if (mode === 'Warn') ctx.warnings.push(repeated);
  return value;
}

/** the manager of an apply: the fieldManager parameter, which an apply must give */
export function applyManager(ctx: RequestContext, scope: Scope): string {
  const manager = ctx.query.get('fieldManager');
  if (!manager) throw invalid(scope.names.metaGroup, 'PatchOptions', '', [{ reason: 'FieldValueRequired', field: 'fieldManager', message: `Required value: ${fieldManagerRequired}` }]);
  checkFieldManager(scope, 'PatchOptions', manager);
  return manager;
}

/** an apply that creates its object needs the create permission besides patch */
async function requireCreate(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  if (!scope.authorizer || !ctx.user) return;
  const { info } = scope;
  const d = await scope.authorizer.authorize({
    user: ctx.user, verb: 'create', isResourceRequest: true, path: ctx.path, apiGroup: info.group, apiVersion: info.version,
    namespace, resource: info.resource, subresource: '', name,
  });
  if (d.decision !== 'Allow')
    throw forbidden(`${info.resource}${info.group ? `.${info.group}` : ''} "${name}" is forbidden: User "${ctx.user.username}" cannot create resource "${info.resource}" in API group "${info.group}" ${namespace ? `in the namespace "${namespace}"` : 'at the cluster scope'}`,
      { name, group: info.group || undefined, kind: info.resource });
}

/** DeleteOptions from the body (with or without kind; JSON, YAML or protobuf) and the query */
async function deleteOptions(ctx: RequestContext, names: Naming): Promise<DeleteOptions> {
  const raw = await readBody(ctx);
  const protobuf = mediaType(ctx) === names.protobufMediaType;
  const text = protobuf ? '' : raw.toString('utf8').trim();
  const body = (protobuf ? (raw.length ? await decodeProtobuf(raw, names, 'DeleteOptions') : {})
    : text ? (mediaType(ctx) === 'application/yaml' ? await decodeYaml(text) : parseJson(text)) : {}) as Record<string, any>;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a DeleteOptions object');
  if (body.kind !== undefined && body.kind !== 'DeleteOptions') throw badRequest(`the kind in the body (${body.kind}) is not DeleteOptions`);
  // read as its type, as the reference decodes it: a dry run given as a string must not become a real delete
  const { wrongTypes } = readTyped(deleteOptionsSchema, body);
  if (wrongTypes.length) throw badRequest(`DeleteOptions in version "v1" cannot be handled as a DeleteOptions: ${wrongTypes.join(', ')}`);
  const q = ctx.query;
  const opts: DeleteOptions = {};
  const grace = q.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
  // past a century every grace period means the same: the object waits for its finalizers
  const graceSeconds = integerParam('gracePeriodSeconds', grace, { max: maxGracePeriodSeconds });
  if (graceSeconds !== undefined) opts.gracePeriodSeconds = graceSeconds;
  const policy = q.get('propagationPolicy') ?? body.propagationPolicy;
  if (policy !== undefined && policy !== null && policy !== '') {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy))
      throw invalid('meta', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"` }]);
    opts.propagationPolicy = policy;
  }
  const orphan = q.get('orphanDependents') ?? body.orphanDependents;
  if (orphan !== undefined && orphan !== null && opts.propagationPolicy)
    throw invalid('meta', 'DeleteOptions', '', [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: 'Invalid value: orphanDependents and propagationPolicy cannot both be set' }]);
  // an empty query value means true, as for every boolean parameter
  if (orphan !== undefined && orphan !== null) opts.orphanDependents = typeof orphan === 'boolean' ? orphan : queryFlag(String(orphan));
  if (body.preconditions) opts.preconditions = { uid: body.preconditions.uid, resourceVersion: body.preconditions.resourceVersion };
  const dry = [...q.getAll('dryRun'), ...(Array.isArray(body.dryRun) ? body.dryRun : [])];
  opts.dryRun = parseDryRun(dry);
  return opts;
}

/** a delete that leaves the dependents to a kind's orphaning default is warned, where the kind says so */
function warnOrphanByDefault(ctx: RequestContext, scope: Scope, opts: DeleteOptions) {
  const warning = scope.strategy.orphanByDefaultWarning;
  if (warning && !opts.propagationPolicy && opts.orphanDependents === undefined) ctx.warnings.push(warning);
}

export async function remove(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const opts = await deleteOptions(ctx, scope.names);
  warnOrphanByDefault(ctx, scope, opts);
  const { obj, deleted } = await scope.store.delete(namespace, name, opts, admission(ctx, scope, namespace, name, !!opts.dryRun, deleteOptionsReviewed(opts)));
  await breather();
  if (deleted && !scope.strategy.returnDeletedObject) {
    return sendStatus(ctx, successStatus({ name, group: scope.info.group || undefined, kind: scope.info.resource, uid: obj.metadata.uid }), {}, scope.names);
  }
  // 202 only for an object kept when the client asked for cascading deletion in the old way (orphanDependents=false),
  // as the reference answers; a Foreground propagationPolicy answers 200, as there
  sendOne(ctx, scope, rep, asServed(scope, obj), opts.orphanDependents === false && !deleted ? 202 : 200);
}

export async function removeCollection(ctx: RequestContext, scope: Scope, namespace: string) {
  checkListIntegers(ctx.query);
  const opts = await deleteOptions(ctx, scope.names);
  warnOrphanByDefault(ctx, scope, opts);
  const filter = filterFor(ctx, scope, namespace);
  const { items } = await scope.reads.list({ ...filter });
  // the answer lists the deleted objects in the order of the list, however many deletes run at once
  const deleted: Array<ApiObject | undefined> = new Array(items.length);
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const i = next++;
      const ns = items[i]!.obj.metadata.namespace ?? '';
      const name = items[i]!.obj.metadata.name!;
      try {
        const { obj } = await scope.store.delete(ns, name, opts, admission(ctx, scope, ns, name, !!opts.dryRun, deleteOptionsReviewed(opts)));
        deleted[i] = asServed(scope, obj);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) continue;   // deleted meanwhile
        failed ??= e;
      }
    }
  };
  const workers = Math.max(1, Math.min(scope.deleteCollectionWorkers ?? 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failed !== undefined) throw failed;
  const list = { kind: scope.info.listKind, apiVersion: scope.info.apiVersion, metadata: {}, items: deleted.filter(o => o !== undefined).map(o => asListItem(scope, o)) };
  const bytes = protobufOf(ctx, scope.names, list);
  if (bytes) return sendText(ctx, 200, bytes, scope.names.protobufMediaType);
  sendObject(ctx, 200, list);
}
