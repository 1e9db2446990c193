// create, update, patch, delete and deletecollection: decode, then the store's one write path.
import type { ApiObject } from '../api/meta.js';
import { parseApiVersion } from '../api/meta.js';
import type { RequestContext } from '../server/context.js';
import { readBody, readObject, mediaType, parseJson, parseYamlObject } from '../server/body.js';
import { sendObject, sendStatus } from '../server/respond.js';
import { badRequest, invalid, unsupportedMediaType, successStatus, ApiError, statusBody } from '../server/status.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge.js';
import type { DeleteOptions } from '../registry/store.js';
import { admission, asServed, parseDryRun, parseFieldValidation, filterFor, type Scope } from './scope.js';
import { representationFor, sendOne } from './read.js';
import { checkFields } from '../schema/fields.js';
import type { Schema } from '../schema/types.js';

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
  // objects are stored under the storage version's names, kind first as the reference writes them
  const { kind: _k, apiVersion: _v, metadata, ...rest } = o;
  return {
    kind: scope.info.kind, apiVersion: scope.info.group ? `${scope.info.group}/${scope.info.storageVersion}` : scope.info.storageVersion,
    metadata, ...rest,
  } as ApiObject;
}

const jsonTypeOf = (v: unknown) => (Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);

const typeFits = (type: string, v: unknown) =>
  type === 'object' ? typeof v === 'object' && !Array.isArray(v)
    : type === 'array' ? Array.isArray(v)
      : type === 'integer' ? Number.isInteger(v)
        : type === 'number' ? typeof v === 'number'
          : typeof v === type;

/**
 * Reads the body as the reference's typed decoding does: fields the schema does not know are dropped (in every
 * fieldValidation mode; same rules as schema/fields.ts's unknown-field walk), a null list entry becomes an empty
 * object, and a value of the wrong JSON type is reported (null is every type's zero value).
 */
function decodeTyped(s: Schema | undefined, v: unknown, path: string, wrongTypes: string[]) {
  if (!s || v === null || v === undefined) return;
  if (s.type && !typeFits(s.type, v)) { wrongTypes.push(`${path || '<root>'}: expected ${s.type}, got ${jsonTypeOf(v)}`); return; }
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource'] || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    v.forEach((e, i) => {
      if (e === null && s.items?.type === 'object') v[i] = {};
      decodeTyped(s.items, v[i], `${path}[${i}]`, wrongTypes);
    });
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const child = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (child) decodeTyped(child, o[k], path ? `${path}.${k}` : k, wrongTypes);
    else if (s.additionalProperties !== true && s.properties) delete o[k];
  }
}

/** the typed reading of a create or update body; wrong types are a 400 as the reference's decoder reports them */
function decodeBody(scope: Scope, obj: unknown) {
  const wrong: string[] = [];
  decodeTyped(scope.info.schema, obj, '', wrong);
  if (wrong.length) throw badRequest(`${scope.info.kind} in version "${scope.info.version}" cannot be handled as a ${scope.info.kind}: ${wrong.join(', ')}`);
}

/** unknown and duplicate fields per fieldValidation: warnings, a 400 listing all, or nothing */
function validateFields(ctx: RequestContext, scope: Scope, obj: unknown, text: string | undefined) {
  const mode = parseFieldValidation(ctx.query.get('fieldValidation'));
  if (mode === 'Ignore') return;
  const problems = checkFields(scope.info.schema, obj, text);
  if (!problems.length) return;
  if (mode === 'Strict') {
    const name = (obj as ApiObject)?.metadata?.name ?? '';
    throw badRequest(`strict decoding error: ${problems.join(', ')}`, problems.map(p => ({ reason: 'FieldValueInvalid', message: p, field: name })));
  }
  ctx.warnings.push(...problems);
}

/** field validation, then the unknown fields dropped */
function decodeFields(ctx: RequestContext, scope: Scope, obj: unknown, text: string | undefined) {
  validateFields(ctx, scope, obj, text);
  decodeBody(scope, obj);
}

const writeOptions = (ctx: RequestContext) => ({ dryRun: parseDryRun(ctx.query.getAll('dryRun')) });

export async function create(ctx: RequestContext, scope: Scope, namespace: string) {
  const rep = representationFor(ctx, scope);
  const { value, text } = await readObject(ctx, scope.names);
  decodeFields(ctx, scope, value, mediaType(ctx) === 'application/json' || mediaType(ctx) === '' ? text : undefined);
  const obj = checkKind(scope, value);
  const opts = writeOptions(ctx);
  // the reference's storage refuses a create that names a version, with a plain 500 and no reason
  const rv = obj.metadata.resourceVersion;
  if (!opts.dryRun && typeof rv === 'string' && /^\d+$/.test(rv) && Number(rv) > 0) {
    throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
  }
  const created = await scope.store.create(namespace, obj, admission(ctx, scope, namespace, obj.metadata.name ?? '', opts.dryRun), opts);
  sendOne(ctx, scope, rep, asServed(scope, created), 201);
}

export async function update(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const { value, text } = await readObject(ctx, scope.names);
  decodeFields(ctx, scope, value, mediaType(ctx) === 'application/json' || mediaType(ctx) === '' ? text : undefined);
  const obj = checkKind(scope, value);
  const opts = writeOptions(ctx);
  const { obj: out, created } = await scope.store.guaranteedUpdate(namespace, name, scope.subresource, () => structuredClone(obj),
    admission(ctx, scope, namespace, name, opts.dryRun), { ...opts, allowCreate: scope.strategy.allowCreateOnUpdate });
  sendOne(ctx, scope, rep, asServed(scope, out), created ? 201 : 200);
}

const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

export async function patch(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const type = mediaType(ctx);
  if (type === 'application/apply-patch+yaml')
    throw new ApiError(statusBody(415, 'UnsupportedMediaType', 'server-side apply (application/apply-patch+yaml) is not supported by this server yet; use a strategic merge, merge or JSON patch, or client-side apply'));
  if (!patchTypes.includes(type)) throw unsupportedMediaType(type, [...patchTypes]);
  if (type === 'application/strategic-merge-patch+json' && !scope.info.schema)
    throw unsupportedMediaType(type, patchTypes.filter(t => !t.includes('strategic')));
  const text = (await readBody(ctx)).toString('utf8');
  const patchDoc = parseJson(text);
  const opts = writeOptions(ctx);
  const fieldMode = parseFieldValidation(ctx.query.get('fieldValidation'));
  const { obj: out } = await scope.store.guaranteedUpdate(namespace, name, scope.subresource, current => {
    if (!current) return { metadata: { name } } as ApiObject;   // the store answers 404
    const patched = type === 'application/json-patch+json' ? applyJsonPatch(current, patchDoc)
      : type === 'application/merge-patch+json' ? applyMergePatch(current, patchDoc)
        : applyStrategicMergePatch(current, patchDoc, scope.info.schema);
    if (fieldMode !== 'Ignore') validateFields(ctx, scope, patched, undefined);
    // a patch that produces wrong types is invalid (422), as the reference reports it
    const wrong: string[] = [];
    decodeTyped(scope.info.schema, patched, '', wrong);
    if (wrong.length) throw invalid('', '', '', wrong.map(w => ({ reason: 'FieldValueInvalid', field: 'patch', message: w })));
    return checkKind(scope, patched);
  }, admission(ctx, scope, namespace, name, opts.dryRun), { ...opts, allowCreate: false });
  sendOne(ctx, scope, rep, asServed(scope, out), 200);
}

/** DeleteOptions from the body (with or without kind) and the query */
async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  const text = (await readBody(ctx)).toString('utf8').trim();
  const body = (text ? (mediaType(ctx) === 'application/yaml' ? parseYamlObject(text) : parseJson(text)) : {}) as Record<string, any>;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a DeleteOptions object');
  if (body.kind !== undefined && body.kind !== 'DeleteOptions') throw badRequest(`the kind in the body (${body.kind}) is not DeleteOptions`);
  const q = ctx.query;
  const opts: DeleteOptions = {};
  const grace = q.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace !== '') {
    const n = Number(grace);
    if (!Number.isInteger(n)) throw badRequest(`gracePeriodSeconds: Invalid value: "${grace}": must be an integer`);
    opts.gracePeriodSeconds = Math.max(0, n);
  }
  const policy = q.get('propagationPolicy') ?? body.propagationPolicy;
  if (policy !== undefined && policy !== null && policy !== '') {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy))
      throw invalid('meta', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"` }]);
    opts.propagationPolicy = policy;
  }
  const orphan = q.get('orphanDependents') ?? body.orphanDependents;
  if (orphan !== undefined && orphan !== null && opts.propagationPolicy)
    throw invalid('meta', 'DeleteOptions', '', [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: 'Invalid value: orphanDependents and propagationPolicy cannot both be set' }]);
  if (body.preconditions) opts.preconditions = { uid: body.preconditions.uid, resourceVersion: body.preconditions.resourceVersion };
  const dry = [...q.getAll('dryRun'), ...(Array.isArray(body.dryRun) ? body.dryRun : [])];
  opts.dryRun = parseDryRun(dry);
  return opts;
}

export async function remove(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const opts = await deleteOptions(ctx);
  const { obj, deleted } = await scope.store.delete(namespace, name, opts, admission(ctx, scope, namespace, name, !!opts.dryRun));
  if (deleted && !scope.strategy.returnDeletedObject) {
    return sendStatus(ctx, successStatus({ name, group: scope.info.group || undefined, kind: scope.info.resource, uid: obj.metadata.uid }));
  }
  sendOne(ctx, scope, rep, asServed(scope, obj), opts.propagationPolicy === 'Foreground' && !deleted ? 202 : 200);
}

export async function removeCollection(ctx: RequestContext, scope: Scope, namespace: string) {
  const opts = await deleteOptions(ctx);
  const filter = filterFor(ctx, scope, namespace);
  const { items } = await scope.reads.list({ ...filter });
  const deleted: ApiObject[] = [];
  for (const item of items) {
    const ns = item.obj.metadata.namespace ?? '';
    const name = item.obj.metadata.name!;
    try {
      const { obj } = await scope.store.delete(ns, name, opts, admission(ctx, scope, ns, name, !!opts.dryRun));
      deleted.push(asServed(scope, obj));
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) continue;   // deleted meanwhile
      throw e;
    }
  }
  sendObject(ctx, 200, { kind: scope.info.listKind, apiVersion: scope.info.apiVersion, metadata: {}, items: deleted });
}
