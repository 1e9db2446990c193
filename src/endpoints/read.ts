// get and list: one object or a collection, as JSON, YAML, Table, protobuf or metadata only.
import type { ApiObject } from '../api/meta.js';
import { loadedProtobufCodec } from '../api/protobuf/load.js';
import { featureEnabled, type RequestContext } from '../api/request.js';
import { negotiate, offeredTypes, parseAccept, type Representation } from './negotiation.js';
import { batchBytes, sendObject, sendText, sendStream, isPretty } from './respond.js';
import { invalid, notAcceptable, notAcceptableFor } from '../api/status.js';
import { listOptionProblems } from '../api/resource-version.js';
import { columnsOf, parseIncludeObject, tableHead, tableRow, toTable } from './table.js';
import { toYaml } from '../util/yaml.js';
import { mapInSlices } from '../util/slices.js';
import { asServed, filterFor, readItem, servedItems, type Scope } from './scope.js';
import type { StoredObject } from '../api/cache.js';
import { checkListIntegers, integerParam } from '../api/request.js';
import { extend } from '../util/objects.js';
import { writtenJson } from '../storage/objects.js';

/**
 * The response's representation. `answers`: whether the response is one object or a list; the metadata form of the
 * other kind is refused (406) as the reference refuses it, rather than quietly swapped (a watch takes either: its
 * events carry single objects).
 */
export function representationFor(ctx: RequestContext, scope: Scope, answers: 'object' | 'list' | 'events' = 'object'): Representation {
  // the codec is loaded whenever the Accept header names the protobuf media type
  const protobuf = loadedProtobufCodec()?.hasProtobufForm(scope.info.apiVersion, scope.info.kind) ?? false;
  // YAML has no stream form: a watch asking only for it is not acceptable, as the reference answers (rather than JSON
  // lines labelled YAML)
  const target = { table: true, yaml: answers !== 'events', metadata: true, protobuf };
  const rep = negotiate(parseAccept(ctx.headers.accept), scope.names, target);
  if (!rep) throw notAcceptable(offeredTypes(scope.names, target));
  if (rep.kind === 'metadata' && answers !== 'events' && rep.list !== (answers === 'list')) {
    throw notAcceptableFor(rep.list
      ? `PartialObjectMetadataList was requested, but the response is a single ${scope.info.kind}, not a list`
      : `PartialObjectMetadata was requested, but the response is a ${scope.info.listKind}`);
  }
  return rep;
}

const partial = (scope: Scope, obj: ApiObject, version: string) =>
  ({ kind: 'PartialObjectMetadata', apiVersion: `${scope.names.metaGroup}/${version}`, metadata: obj.metadata });

export async function get(ctx: RequestContext, scope: Scope, namespace: string, name: string) {
  const rep = representationFor(ctx, scope);
  const item = readItem(scope, await scope.store.getStored(namespace, name, ctx.query.get('resourceVersion') ?? undefined));
  // compact JSON of an object stored as it is served: its bytes as they are, neither parsed nor encoded again
  const bytes = rep.kind === 'json' && !isPretty(ctx) ? servedBytes(item, servedHead(scope)) : undefined;
  if (bytes) return sendText(ctx, 200, bytes, 'application/json');
  sendOne(ctx, scope, rep, asServed(scope, await scope.store.fromStored(item.obj)), 200);
}

/** how the JSON of an object as this endpoint serves it begins: its kind and version */
export const servedHead = (scope: Scope) => Buffer.from(`{"kind":"${scope.info.kind}","apiVersion":"${scope.info.apiVersion}",`);

/** an object's JSON bytes when they are at hand and are the object as this endpoint serves it (head: servedHead) */
export function servedBytes(item: StoredObject, head: Buffer): Buffer | undefined {
  const bytes = item.bytes;
  return bytes && bytes.length > head.length && beginsWith(bytes, head) ? bytes : undefined;
}

/** compared byte by byte: Buffer.compare's native call costs more than the few dozen bytes of a head, for each object
 *  of a list */
function beginsWith(bytes: Buffer, head: Buffer): boolean {
  for (let i = 0; i < head.length; i++) if (bytes[i] !== head[i]) return false;
  return true;
}

/**
 * The response of a write: compact JSON is made from the text just stored when that is the object as served (one
 * encoding of a large object fewer), anything else is encoded from the object
 */
export function sendWritten(ctx: RequestContext, scope: Scope, rep: Representation, obj: ApiObject, code: number) {
  const text = rep.kind === 'json' && !isPretty(ctx) ? writtenJson(obj) : undefined;
  const head = text && servedHead(scope);
  if (text && head && text.length > head.length && head.compare(text, 0, head.length) === 0) return sendText(ctx, code, text, 'application/json');
  sendOne(ctx, scope, rep, asServed(scope, obj), code);
}

/** one object in the negotiated representation */
export function sendOne(ctx: RequestContext, scope: Scope, rep: Representation, obj: ApiObject, code: number) {
  switch (rep.kind) {
    case 'table':
      return sendObject(ctx, code, toTable(scope.info, [obj], { resourceVersion: obj.metadata.resourceVersion },
        parseIncludeObject(ctx.query.get('includeObject')), scope.names, rep.version), rep.contentType);
    case 'metadata':
      if (rep.protobuf) return sendText(ctx, code, protobufCodec().encodeObject(partial(scope, obj, rep.version)), rep.contentType);
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

/** the options of a list or watch checked as a whole before anything is read: a 422 on ListOptions, as the reference */
export function checkListOptions(ctx: RequestContext, scope: Scope, watch: boolean) {
  const q = ctx.query;
  const problems = listOptionProblems({
    watch, resourceVersion: q.get('resourceVersion') ?? '', resourceVersionMatch: q.get('resourceVersionMatch') ?? '',
    continue: q.get('continue') ?? '', sendInitialEvents: q.get('sendInitialEvents') ?? undefined, watchListEnabled: featureEnabled(ctx, 'WatchList', false),
  });
  if (problems.length) throw invalid(scope.names.metaGroup, 'ListOptions', '', problems);
}

export async function list(ctx: RequestContext, scope: Scope, namespace: string) {
  const rep = representationFor(ctx, scope, 'list');
  const q = ctx.query;
  // without APIListChunking, limit and continue are ignored and the whole list is sent
  const chunking = featureEnabled(ctx, 'APIListChunking', true);
  checkListIntegers(q);
  checkListOptions(ctx, scope, false);
  const result = await scope.reads.list(extend(filterFor(ctx, scope, namespace), {
    limit: chunking ? parseLimit(q.get('limit')) : undefined,
    continue: chunking ? q.get('continue') ?? undefined : undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: (q.get('resourceVersionMatch') ?? '') as '' | 'Exact' | 'NotOlderThan',
  }));
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) meta.continue = result.continue;
  if (result.remainingItemCount !== undefined && featureEnabled(ctx, 'RemainingItemCount', true)) meta.remainingItemCount = result.remainingItemCount;
  const items = await servedItems(scope, result.items);
  const served = (n: number) => asServed(scope, items[n].obj);
  const listHead = { apiVersion: scope.info.apiVersion, kind: scope.info.listKind, metadata: meta };
  // every representation is written piece by piece as the client reads it, so a long list never holds the event loop
  const stream = (parts: Iterable<Buffer> | AsyncIterable<Buffer>, contentType: string, estimate: number) =>
    sendStream(ctx, 200, parts, { estimate }, contentType);
  switch (rep.kind) {
    case 'table': {
      const include = parseIncludeObject(q.get('includeObject'));
      const cols = columnsOf(scope.info);
      const head = tableHead(scope.info, meta, scope.names, rep.version);
      return stream(jsonArrayParts(head, 'rows', items.length, n => tableRow(scope.info, served(n), include, scope.names, cols), isPretty(ctx)),
        rep.contentType, items.length * 256);
    }
    case 'metadata': {
      const head = { kind: 'PartialObjectMetadataList', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata: meta };
      if (rep.protobuf) {
        const { parts, length } = await protobufList(head, items.length, n => partial(scope, served(n), rep.version));
        return sendStream(ctx, 200, parts, { length, estimate: length }, rep.contentType);
      }
      return stream(jsonArrayParts(head, 'items', items.length, n => partial(scope, served(n), rep.version), isPretty(ctx)),
        rep.contentType, items.length * 256);
    }
    case 'yaml':
      return stream(yamlArrayParts(listHead, 'items', items.length, n => asListItem(scope, served(n))), rep.contentType, items.length * 512);
    case 'protobuf': {
      const codec = protobufCodec();
      let encoded: { parts: Buffer[]; length: number } | undefined;
      try {
        const encoder = codec.listEncoder(scope.info.apiVersion, scope.info.listKind);
        if (encoder) encoded = encoder.finish(meta, await mapInSlices(items, (_, n) => encoder.item(served(n) as unknown as Record<string, unknown>)));
        else {
          const whole = codec.encodeObject({ ...listHead, items: items.map((_, n) => served(n)) });
          encoded = { parts: [whole], length: whole.length };
        }
      } catch (e) {
        if (!(e instanceof codec.ProtobufEncodeError)) throw e;
        // a field the protobuf form lacks: JSON when the client takes it too, else 406
        if (!negotiate(parseAccept(ctx.headers.accept), scope.names, {})) throw notAcceptable(offeredTypes(scope.names, { yaml: true, table: true }));
      }
      if (encoded) return sendStream(ctx, 200, encoded.parts, { length: encoded.length, estimate: encoded.length }, rep.contentType);
      const { parts, length, estimate } = await listJsonParts(scope, meta, items);
      return sendStream(ctx, 200, parts, { length, estimate }, 'application/json');
    }
    default: {
      if (isPretty(ctx)) return stream(jsonArrayParts({ kind: scope.info.listKind, apiVersion: scope.info.apiVersion, metadata: meta }, 'items', items.length, n => asListItem(scope, served(n)), true),
        'application/json', items.length * 512);
      const { parts, length, estimate } = await listJsonParts(scope, meta, items);
      return sendStream(ctx, 200, parts, { length, estimate }, 'application/json');
    }
  }
}

/**
 * A list of a kind with a protobuf form in its envelope, its members encoded in slices; whole when the list's fields are
 * not in the usual order (meta v1beta1's PartialObjectMetadataList numbers its items first)
 */
async function protobufList(head: { apiVersion: string; kind: string; metadata: Record<string, unknown> }, count: number, member: (n: number) => unknown) {
  const codec = protobufCodec();
  const encoder = codec.listEncoder(head.apiVersion, head.kind);
  if (encoder) return encoder.finish(head.metadata, await mapInSlices(Array.from({ length: count }), (_, n) => encoder.item(member(n) as Record<string, unknown>)));
  const whole = codec.encodeObject({ ...head, items: Array.from({ length: count }, (_, n) => member(n)) });
  return { parts: [whole], length: whole.length };
}

const comma = Buffer.from(','), prettyComma = Buffer.from(',\n');
/** every line that is not empty, indented (only \n ends a line: the encoders may leave U+2028 in strings) */
const indent = (text: string, by: string) => text.split('\n').map(line => (line ? by + line : line)).join('\n');

/**
 * The JSON of `head` with `field` added last, holding `count` members: the same text as the whole object's, made one
 * member at a time as it is read. A member is an object to encode, or its bytes already encoded (compact only).
 */
export function* jsonArrayParts(head: Record<string, unknown>, field: string, count: number, member: (n: number) => unknown,
  pretty: boolean): Generator<Buffer> {
  // the head's text ends with the field's placeholder value 0, then the closing brace (and a line break when indented)
  const whole = pretty ? JSON.stringify({ ...head, [field]: 0 }, null, 2) : JSON.stringify({ ...head, [field]: 0 });
  const open = whole.slice(0, whole.lastIndexOf('0'));
  if (!count) { yield Buffer.from(`${open}[]${pretty ? '\n}\n' : '}'}`); return; }
  yield Buffer.from(`${open}[${pretty ? '\n' : ''}`);
  for (let n = 0; n < count; n++) {
    const m = member(n);
    // a member past its opening brace: the brace goes with the comma, so it costs no piece of its own
    if (isPastBrace(m)) { yield n ? commaBrace : openBrace; yield m.pastBrace; continue; }
    if (n) yield pretty ? prettyComma : comma;
    yield Buffer.isBuffer(m) ? m : Buffer.from(pretty ? indent(JSON.stringify(m, null, 2), '    ') : JSON.stringify(m));
  }
  yield Buffer.from(pretty ? '\n  ]\n}\n' : ']}');
}

/** a member of a compact JSON array given as its bytes past its opening brace (a stored object's bytes past its kind
 *  and apiVersion) */
interface PastBrace { pastBrace: Buffer }
const isPastBrace = (m: unknown): m is PastBrace => typeof m === 'object' && m !== null && Buffer.isBuffer((m as PastBrace).pastBrace);

/**
 * A built-in kind's list leaves kind and apiVersion out of its items, as the reference's typed lists do (its encoder
 * names them on the list alone); a custom resource's items keep them, as the reference's unstructured ones do.
 */
const itemsNameTheirKind = (scope: Scope) => !!scope.info.def.custom;

/** an item as a built-in kind's list holds it */
export function asListItem(scope: Scope, obj: ApiObject): ApiObject {
  if (itemsNameTheirKind(scope)) return obj;
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = obj;
  return rest as ApiObject;
}

const openBrace = Buffer.from('{');
const commaBrace = Buffer.from(',{');

/** the YAML of `head` with `field` added last, holding `count` members, made one member at a time as it is read */
export function* yamlArrayParts(head: Record<string, unknown>, field: string, count: number, member: (n: number) => unknown): Generator<Buffer> {
  yield Buffer.from(toYaml(head));
  if (!count) { yield Buffer.from(`${field}: []\n`); return; }
  yield Buffer.from(`${field}:\n`);
  for (let n = 0; n < count; n++) yield Buffer.from(indent(toYaml([member(n)]), '  '));
}

/** the JSON bytes of a cached object, made once */
export const bytesOf = (item: StoredObject): Buffer => (item.bytes ??= Buffer.from(JSON.stringify(item.obj)));


/**
 * The pieces of a list's JSON: the objects' bytes between the list's head and tail. The length is known when every
 * object's bytes are its stored JSON as served (made in slices, never holding the event loop long); otherwise it is
 * estimated from the first object, and the other pieces are encoded one batch at a time as they are read.
 */
export async function listJsonParts(scope: Scope, meta: Record<string, unknown>, items: StoredObject[]): Promise<{ parts: Iterable<Buffer>; length?: number; estimate: number }> {
  const head = { kind: scope.info.listKind, apiVersion: scope.info.apiVersion, metadata: meta };
  const served = (i: StoredObject) => i.obj.apiVersion === scope.info.apiVersion && i.obj.kind === scope.info.kind;
  const keepKind = itemsNameTheirKind(scope);
  const piece = (i: StoredObject) => (served(i) && keepKind ? bytesOf(i) : Buffer.from(JSON.stringify(asListItem(scope, asServed(scope, i.obj)))));
  // the bytes at hand that are already the objects as served, checked on the bytes themselves (nothing parsed);
  // made in slices, since a stored object's bytes are made on first use
  const itemHead = servedHead(scope);
  // a built-in item is its bytes past the head that names its kind and apiVersion, after an opening brace of its own
  const cut = keepKind ? 0 : itemHead.length - 1;
  // the text around the members: the head, the brackets and the commas between members
  const fixed = Buffer.byteLength(JSON.stringify({ ...head, items: [] })) + Math.max(0, items.length - 1);
  let known = true, length = fixed;
  const ready = await mapInSlices(items, i => {
    const bytes = servedBytes(i, itemHead);
    if (bytes) length += bytes.length - cut; else known = false;
    return bytes;
  });
  if (known) return { parts: packedJsonArray(head, 'items', ready as Buffer[], cut && itemHead.length), length, estimate: length };
  const member = (n: number) => {
    const bytes = ready[n];
    if (!bytes) return piece(items[n]);
    return cut ? { pastBrace: bytes.subarray(itemHead.length) } : bytes;
  };
  return {
    parts: jsonArrayParts(head, 'items', items.length, member, false),
    estimate: fixed + (items.length ? piece(items[0]).length * items.length : 0),
  };
}

/**
 * The same text as jsonArrayParts' (compact) for members that are all bytes at hand, copied straight into pieces of
 * batchBytes: a list of 10,000 objects was 20,000 small pieces, each a generator step and most a Buffer of its own,
 * joined into batches again afterwards. With `skip`, each member is its bytes from there on, after an opening brace.
 */
export function* packedJsonArray(head: Record<string, unknown>, field: string, members: Buffer[], skip: number): Generator<Buffer> {
  const whole = JSON.stringify({ ...head, [field]: 0 });
  const full: Buffer[] = [];
  let out = Buffer.allocUnsafe(batchBytes), at = 0;
  const put = (bytes: Buffer, from = 0) => {
    while (from < bytes.length) {
      const n = Math.min(bytes.length - from, batchBytes - at);
      // a few bytes (a comma, a brace) by hand: a native copy's call costs more than they do
      if (n < 16) for (let i = 0; i < n; i++) out[at + i] = bytes[from + i]; else bytes.copy(out, at, from, from + n);
      at += n; from += n;
      if (at === batchBytes) { full.push(out); out = Buffer.allocUnsafe(batchBytes); at = 0; }
    }
  };
  put(Buffer.from(`${whole.slice(0, whole.lastIndexOf('0'))}[`));
  const first = skip ? openBrace : noBytes, next = skip ? commaBrace : comma;
  for (let n = 0; n < members.length; n++) {
    put(n ? next : first);
    put(members[n], skip);
    if (full.length) { yield* full; full.length = 0; }
  }
  put(Buffer.from(']}'));
  yield* full;
  if (at) yield out.subarray(0, at);
}

const noBytes = Buffer.alloc(0);
