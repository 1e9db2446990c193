// get and list: one object or a collection, as JSON, YAML, Table, protobuf or metadata only.
import type { ApiObject } from '../api/meta.js';
import { loadedProtobufCodec } from '../api/protobuf/load.js';
import { featureEnabled, type RequestContext } from '../api/request.js';
import { negotiate, offeredTypes, parseAccept, type Representation } from './negotiation.js';
import { sendObject, sendText, sendStream, isPretty, encode } from './respond.js';
import { notAcceptable, badRequest } from '../api/status.js';
import { parseIncludeObject, toTable } from './table.js';
import { asServed, filterFor, servedItems, type Scope } from './scope.js';
import type { StoredObject } from '../api/cache.js';
import { integerParam } from '../api/request.js';

export function representationFor(ctx: RequestContext, scope: Scope): Representation {
  // the codec is loaded whenever the Accept header names the protobuf media type
  const protobuf = loadedProtobufCodec()?.hasProtobufForm(scope.info.apiVersion, scope.info.kind) ?? false;
  const target = { table: true, yaml: true, metadata: true, protobuf };
  const rep = negotiate(parseAccept(ctx.headers.accept), scope.names, target);
  if (!rep) throw notAcceptable(offeredTypes(scope.names, target));
  return rep;
}

const partial = (scope: Scope, obj: ApiObject, version: string) =>
  ({ kind: 'PartialObjectMetadata', apiVersion: `${scope.names.metaGroup}/${version}`, metadata: obj.metadata });

export async function get(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const obj = asServed(scope, await scope.store.get(namespace, name, ctx.query.get('resourceVersion') ?? undefined));
  sendOne(ctx, scope, rep, obj, 200);
}

/** one object in the negotiated representation */
export function sendOne(ctx: RequestContext, scope: Scope, rep: Representation, obj: ApiObject, code: number) {
  switch (rep.kind) {
    case 'table':
      return sendObject(ctx, code, toTable(scope.info, [obj], { resourceVersion: obj.metadata.resourceVersion },
        parseIncludeObject(ctx.query.get('includeObject')), scope.names, rep.version), rep.contentType);
    case 'metadata':
      return sendObject(ctx, code, partial(scope, obj, rep.version), rep.contentType);
    case 'yaml':
      return sendObject(ctx, code, obj, rep.contentType);
    case 'protobuf': {
      const bytes = protobufOrJson(ctx, scope, obj);
      return bytes ? sendText(ctx, code, bytes, rep.contentType) : sendObject(ctx, code, obj, 'application/json');
    }
    default:
      return sendObject(ctx, code, obj, 'application/json');
  }
}

/** the codec, which a protobuf representation implies is loaded */
export function protobufCodec() {
  const codec = loadedProtobufCodec();
  if (!codec) throw new Error('protobuf representation negotiated without the codec loaded');
  return codec;
}

/**
 * The object's protobuf bytes; undefined when it holds a field the protobuf form lacks and the client
 * also accepts JSON (the next representation), else 406.
 */
function protobufOrJson(ctx: RequestContext, scope: Scope, obj: object): Buffer | undefined {
  const codec = protobufCodec();
  try {
    return codec.encodeObject(obj as Record<string, unknown>);
  } catch (e) {
    if (!(e instanceof codec.ProtobufEncodeError)) throw e;
    if (negotiate(parseAccept(ctx.headers.accept), scope.names, {})) return undefined;
    throw notAcceptable(offeredTypes(scope.names, { yaml: true, table: true }));
  }
}

/** ?limit: no limit when absent or not positive; larger than any list could be means the same as no limit */
export function parseLimit(v: string | null): number | undefined {
  const n = integerParam('limit', v, { max: 2 ** 31 - 1 });
  return n !== undefined && n > 0 ? n : undefined;
}

export async function list(ctx: RequestContext, scope: Scope, namespace: string) {
  const rep = representationFor(ctx, scope);
  const q = ctx.query;
  // without APIListChunking, limit and continue are ignored and the whole list is sent
  const chunking = featureEnabled(ctx, 'APIListChunking', true);
  const result = await scope.reads.list({
    ...filterFor(ctx, scope, namespace),
    limit: chunking ? parseLimit(q.get('limit')) : undefined,
    continue: chunking ? q.get('continue') ?? undefined : undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: (q.get('resourceVersionMatch') ?? '') as '' | 'Exact' | 'NotOlderThan',
  });
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) meta.continue = result.continue;
  if (result.remainingItemCount !== undefined && featureEnabled(ctx, 'RemainingItemCount', true)) meta.remainingItemCount = result.remainingItemCount;
  const items = await servedItems(scope, result.items);
  const objects = () => items.map(i => asServed(scope, i.obj));
  switch (rep.kind) {
    case 'table':
      return sendObject(ctx, 200, toTable(scope.info, objects(), meta, parseIncludeObject(q.get('includeObject')), scope.names, rep.version), rep.contentType);
    case 'metadata':
      return sendObject(ctx, 200, {
        kind: 'PartialObjectMetadataList', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata: meta,
        items: objects().map(o => partial(scope, o, rep.version)),
      }, rep.contentType);
    case 'yaml':
      return sendObject(ctx, 200, { apiVersion: scope.info.apiVersion, kind: scope.info.listKind, metadata: meta, items: objects() }, rep.contentType);
    case 'protobuf': {
      const body = { apiVersion: scope.info.apiVersion, kind: scope.info.listKind, metadata: meta, items: objects() };
      const bytes = protobufOrJson(ctx, scope, body);
      return bytes ? sendText(ctx, 200, bytes, rep.contentType) : sendObject(ctx, 200, body, 'application/json');
    }
    default: {
      if (isPretty(ctx)) return sendText(ctx, 200, listJson(scope, meta, items, true), 'application/json');
      const { parts, length, estimate } = listJsonParts(scope, meta, items);
      return sendStream(ctx, 200, parts, { length, estimate }, 'application/json');
    }
  }
}

/** the JSON bytes of a cached object, made once */
export const bytesOf = (item: StoredObject): Buffer => (item.bytes ??= Buffer.from(JSON.stringify(item.obj)));

const comma = Buffer.from(',');

/** a list's JSON from each cached object's own JSON bytes, made once and shared by every list that returns it */
export function listJson(scope: Scope, meta: Record<string, unknown>, items: StoredObject[], pretty: boolean): Buffer | string {
  if (pretty) return encode({ kind: scope.info.listKind, apiVersion: scope.info.apiVersion, metadata: meta, items: items.map(i => asServed(scope, i.obj)) }, 'application/json', true);
  return Buffer.concat([...listJsonParts(scope, meta, items).parts]);
}

const listTail = Buffer.from(']}');

/**
 * The pieces of a list's JSON, made as they are read: the objects' shared bytes between the list's head and tail.
 * The length is known when every object's bytes already are (lists from the cache); otherwise it is estimated
 * from the first object, and the pieces are made one batch at a time, so a long list never holds the event loop.
 */
export function listJsonParts(scope: Scope, meta: Record<string, unknown>, items: StoredObject[]): { parts: Iterable<Buffer>; length?: number; estimate: number } {
  const head = Buffer.from(`{"kind":${JSON.stringify(scope.info.listKind)},"apiVersion":${JSON.stringify(scope.info.apiVersion)},"metadata":${JSON.stringify(meta)},"items":[`);
  const served = (i: StoredObject) => i.obj.apiVersion === scope.info.apiVersion && i.obj.kind === scope.info.kind;
  const piece = (i: StoredObject) => (served(i) ? bytesOf(i) : Buffer.from(JSON.stringify(asServed(scope, i.obj))));
  function* parts() {
    yield head;
    for (let n = 0; n < items.length; n++) {
      if (n) yield comma;
      yield piece(items[n]);
    }
    yield listTail;
  }
  const fixed = head.length + Math.max(0, items.length - 1) + listTail.length;
  const known = items.every(i => i.bytes && served(i));
  const length = known ? items.reduce((n, i) => n + i.bytes!.length, fixed) : undefined;
  return { parts: parts(), length, estimate: length ?? fixed + (items.length ? piece(items[0]).length * items.length : 0) };
}
