// Serves a resource's own handler (a subresource such as scale, binding, eviction or token, or a resource that is
// never stored, such as the reviews): the request body is decoded into a call on the handler, and what the call
// returns is sent. The handlers themselves know nothing of HTTP.
import type { RequestContext } from '../api/request.js';
import { parseDryRun, queryFlag } from '../api/request.js';
import type { Listers } from '../api/admission.js';
import type { ApiObject, Status } from '../api/meta.js';
import { badRequest, invalid, methodNotSupported, unsupportedMediaType } from '../api/status.js';
import type { Schema } from '../api/schema.js';
import { readTyped } from '../schema/fields.js';
import { kindAt, type ApiResources, type ResourceInfo } from '../registry/resources.js';
import type { ResourceAccess, RestHandler, RestRequest, RestServices } from '../registry/types.js';
import { mediaType, parseJson, readBody, readObject } from './body.js';
import { protobufOf, sendObject, sendStatus, sendText } from './respond.js';
import { admission, type Scope } from './scope.js';
import { applyManager, decodeAppliedYaml, applyPatch, applyPatchType, patchTypes, writeOptions } from './write.js';
import { proxy } from './proxy.js';
import { representationFor, sendOne } from './read.js';
import { columnsOf, parseIncludeObject, toTable, withName } from './table.js';

export interface RestDeps {
  resources: ApiResources;
  listers: Listers;
  services: RestServices;
  scopeFor(info: ResourceInfo, subresource: string): Scope;
}

const isStatus = (o: object): o is Status => (o as { kind?: unknown }).kind === 'Status';

function send(ctx: RequestContext, scope: Scope, result: object, code: number) {
  const bytes = protobufOf(ctx, scope.names, result);
  if (bytes) return sendText(ctx, isStatus(result) ? result.code : code, bytes, scope.names.protobufMediaType);
  if (isStatus(result)) return sendStatus(ctx, result);
  sendObject(ctx, code, result);
}

/**
 * What a handler read, in the representation asked for. A never-stored resource's object or list: kubectl's tables by
 * the resource's columns, JSON or YAML. A subresource's object (a Scale): a table by the columns of its kind when it
 * has them (`kubectl get --subresource=scale`), else JSON.
 */
function sendRead(ctx: RequestContext, scope: Scope, result: object) {
  if (isStatus(result)) return send(ctx, scope, result, result.code);
  const sub = scope.subresource ? scope.info.subresources[scope.subresource] : undefined;
  if (sub && !sub.columns) return send(ctx, scope, result, 200);
  const rep = representationFor(ctx, scope);
  const { items, metadata } = result as { items?: ApiObject[]; metadata?: Record<string, unknown> };
  if (rep.kind === 'table') {
    const include = parseIncludeObject(ctx.query.get('includeObject'));
    const listMeta = items ? metadata ?? {} : { resourceVersion: (result as ApiObject).metadata?.resourceVersion };
    const cols = sub ? withName(sub.columns) : columnsOf(scope.info);
    return sendObject(ctx, 200, toTable(scope.info, items ?? [result as ApiObject], listMeta, include, scope.names, rep.version, cols), rep.contentType);
  }
  if (sub) return send(ctx, scope, result, 200);
  if (!items) return sendOne(ctx, scope, rep, result as ApiObject, 200);
  if (rep.kind === 'protobuf') return send(ctx, scope, result, 200);
  sendObject(ctx, 200, result, rep.kind === 'yaml' ? rep.contentType : 'application/json');
}

function restRequest(ctx: RequestContext, scope: Scope, namespace: string, name: string, deps: RestDeps): RestRequest {
  const dryRun = parseDryRun(ctx.query.getAll('dryRun'));
  const access = (s: Scope): ResourceAccess => ({
    info: s.info,
    store: s.store,
    async list(ns) { return (await s.reads.list({ namespace: ns, selective: false })).items.map(i => i.obj); },
    admission: (opts = {}) => admission(ctx, s, namespace, opts.name ?? name, opts.dryRun ?? dryRun),
  });
  const writes = ctx.method === 'PUT' || ctx.method === 'PATCH';
  const manager = writes ? writeOptions(ctx, scope, ctx.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions').manager : undefined;
  return {
    ...access(scope), subresource: scope.subresource, namespace, name, user: ctx.user, path: ctx.path, dryRun, query: ctx.query, manager,
    warn: message => ctx.warnings.push(message), names: scope.names, listers: deps.listers, services: deps.services,
    resource(group, resource, subresource = '') {
      const info = deps.resources.preferred(group, resource);
      return info && access(deps.scopeFor(info, subresource));
    },
  };
}

export async function serveRest(ctx: RequestContext, scope: Scope, handler: RestHandler, namespace: string, name: string, deps: RestDeps) {
  const req = restRequest(ctx, scope, namespace, name, deps);
  if (handler.connect) {
    // what follows the subresource in the path, as the client wrote it
    const segments = ctx.path.split('/');
    const at = segments.findIndex((s, i) => s === scope.subresource && i > 0 && safeDecode(segments[i - 1]!) === name);
    const rest = at < 0 || at === segments.length - 1 ? '' : `/${segments.slice(at + 1).join('/')}`;
    await admitConnect(ctx, scope, req, rest);
    const target = await handler.connect(req, rest);
    return target ? proxy(ctx, target) : sendText(ctx, 200, '', 'text/plain');
  }
  switch (ctx.method) {
    case 'GET': case 'HEAD':
      if (handler.get) return sendRead(ctx, scope, await handler.get(req));
      break;
    case 'POST':
      if (handler.create) return send(ctx, scope, await handler.create(req, typedBody(scope, (await readObject(ctx, scope.names)).value)), 201);
      break;
    case 'PUT':
      if (handler.update) {
        const value = typedBody(scope, (await readObject(ctx, scope.names)).value);
        return send(ctx, scope, await handler.update(req, () => value), 200);
      }
      break;
    case 'PATCH':
      if (mediaType(ctx) === applyPatchType && handler.apply) {
        const text = (await readBody(ctx)).toString('utf8');
        const applied = text.trimStart().startsWith('{') ? parseJson(text) : await decodeAppliedYaml(ctx, text);
        return send(ctx, scope, await handler.apply(req, applied, { manager: applyManager(ctx, scope), force: queryFlag(ctx.query.get('force')) }), 200);
      }
      if (handler.update) {
        const type = mediaType(ctx);
        if (!patchTypes.includes(type)) throw unsupportedMediaType(handler.apply ? [...patchTypes, applyPatchType] : patchTypes);
        const doc = parseJson((await readBody(ctx)).toString('utf8'));
        return send(ctx, scope, await handler.update(req, async current => typedPatchResult(scope, await applyPatch(type, current, doc, undefined))), 200);
      }
      break;
  }
  throw methodNotSupported(scope.subresource ? `${scope.info.resource}/${scope.subresource}` : scope.info.resource, ctx.method);
}

/** a connect subresource with an options kind (exec, attach, portforward, proxy; not log, which is a read) is admitted
 *  as a CONNECT of its options, as the reference admits it: both phases, before the stream is opened */
async function admitConnect(ctx: RequestContext, scope: Scope, req: RestRequest, rest: string) {
  const sub = scope.info.subresources[scope.subresource];
  if (!sub?.kind || !sub.connectOptions) return;
  const kind = kindAt(scope.info, scope.subresource, scope.names);
  const options = { kind: kind.kind, apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version, ...sub.connectOptions(ctx.query, rest) } as unknown as ApiObject;
  const hooks = req.admission({ dryRun: false });
  await hooks.mutate('CONNECT', options, undefined);
  await hooks.validate('CONNECT', options, undefined);
}

/** the kind a handler serves, its version and its schema: the subresource's own (Scale, Eviction), else the resource's */
function servedKind(scope: Scope): { kind: string; version: string; schema?: Schema } {
  const sub = scope.subresource ? scope.info.subresources[scope.subresource] : undefined;
  const { kind, version } = kindAt(scope.info, scope.subresource, scope.names);
  return { kind, version, schema: sub?.kind ? sub.schema : scope.info.schema };
}

/**
 * A handler's body read as the reference decodes it into its kind: another kind is a 400, and so is a value of the wrong
 * type (a replica count no int32 holds); fields the kind does not have are dropped.
 */
function typedBody(scope: Scope, body: unknown): unknown {
  const { kind, version, schema } = servedKind(scope);
  const named = body !== null && typeof body === 'object' ? (body as { kind?: unknown }).kind : undefined;
  if (typeof named === 'string' && named && named !== kind) throw badRequest(`the kind in the body (${named}) is not ${kind}`);
  const { wrongTypes } = readTyped(schema, body, { zeroNulls: true });
  if (wrongTypes.length) throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${wrongTypes.join(', ')}`);
  return body;
}

/** a patched body of the wrong types is invalid (422), as for stored kinds */
function typedPatchResult(scope: Scope, patched: unknown): unknown {
  const { wrongTypes } = readTyped(servedKind(scope).schema, patched);
  if (wrongTypes.length) throw invalid('', '', '', wrongTypes.map(w => ({ reason: 'FieldValueInvalid', field: 'patch', message: w })));
  return patched;
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
