// watch: a stream of {type, object} documents (or length-prefixed protobuf WatchEvents), one per change,
// with headers flushed at once. Over a WebSocket (a browser's Upgrade of the same request), one message per event:
// text for JSON, binary for protobuf, as the reference frames them.
import { formatResourceVersion } from '../api/resource-version.js';
import type { ApiObject, Status } from '../api/meta.js';
import { bufferedBytes, featureEnabled, queryFlag, type RequestContext } from '../api/request.js';
import { setWarnings } from './respond.js';
import { badRequest, forbidden, internalError, orderedStatus, type ApiError } from '../api/status.js';
import { parseIncludeObject, tableRow, columnsOf } from './table.js';
import { asServed, filterFor, servedItems, type Scope } from './scope.js';
import { checkListOptions, representationFor, bytesOf, protobufCodec, servedBytes, servedHead } from './read.js';
import { inProtobuf } from './negotiation.js';
import type { StoredObject } from '../api/cache.js';
import { checkListIntegers, integerParam } from '../api/request.js';
import type { WebSocket, WebSocketServer } from 'ws';
import { storageFailure } from '../registry/errors.js';
import { checkDecodable } from '../storage/objects.js';

const eventHead: Record<string, Buffer> = Object.fromEntries(['ADDED', 'MODIFIED', 'DELETED'].map(t => [t, Buffer.from(`{"type":"${t}","object":`)]));
const eventTail = Buffer.from('}\n');

/** a watcher whose unsent output grows past this is closed; the client resumes from its last version */
const maxBufferedBytes = 16 * 1024 * 1024;
/**
 * What a watcher may have written and not yet sent before it waits for its client: the initial events and any event
 * behind go out in writes of at most this size (a large object's event is cut across writes), so that thousands of
 * watches each sent megabytes of initial state hold tens of kilobytes each, not the megabytes (as a plain text and
 * again as its TLS records) a client reading slowly would leave in the process
 */
const drainChunkBytes = 64 * 1024;

/** where a watch's events go: the HTTP response, or a WebSocket */
interface Sink {
  /** one write: on a WebSocket, one message; pieces are one event's, written one after another (one message) */
  write(data: string | Buffer | Buffer[]): void;
  /** bytes written and not yet sent */
  buffered(): number;
  onceDrained(f: () => void): void;
  onClose(f: () => void): void;
  gone(): boolean;
  end(): void;
  /** ends at once, dropping what was not sent */
  cut(): void;
}

function responseSink(res: RequestContext['res']): Sink {
  return {
    write: data => {
      if (!Array.isArray(data)) { res.write(data); return; }
      // an event's pieces go out in one write of the stream (HTTP/2); on HTTP/1.1 each write is a chunk of its own,
      // and an event is one chunk, as the reference sends it (clients that read events by chunk see whole ones)
      const stream = (res as unknown as { stream?: { cork(): void; uncork(): void } }).stream;
      if (!stream) { res.write(Buffer.concat(data)); return; }
      stream.cork();
      for (const piece of data) res.write(piece);
      stream.uncork();
    },
    buffered: () => bufferedBytes(res),
    onceDrained: f => { res.once('drain', f); },
    onClose: f => { res.on('close', f); },
    gone: () => res.writableEnded || res.destroyed,
    end: () => { if (!res.writableEnded) res.end(); },
    cut() {
      const stream = (res as unknown as { stream?: { close(code?: number): void } }).stream;
      if (stream) stream.close(0x8 /* CANCEL */); else res.destroy();
    },
  };
}

/** the WebSocket library loads with the first watch that asks for one: most servers never see one, and its load
 *  costs a start tens of milliseconds */
let webSockets: Promise<WebSocketServer> | undefined;
const webSocketServer = () => (webSockets ??= import('ws').then(({ WebSocketServer }) =>
  new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 })));

/** the request asks for its watch over a WebSocket (an HTTP/1.1 Upgrade) */
const wantsWebSocket = (ctx: RequestContext) => !!ctx.upgrade && String(ctx.req.headers.upgrade ?? '').toLowerCase() === 'websocket';

/** the watch's WebSocket, once the handshake is done; the client's messages are read and dropped */
async function webSocketSink(ctx: RequestContext, text: boolean): Promise<Sink> {
  const webSockets = await webSocketServer();
  return new Promise(resolve => webSockets.handleUpgrade(ctx.req as never, ctx.upgrade!.socket as never, ctx.upgrade!.head, (ws: WebSocket) => {
    const socket = ctx.upgrade!.socket;
    ws.on('error', () => ws.terminate());
    resolve({
      write: data => {
        const message = Array.isArray(data) ? Buffer.concat(data) : data;
        ws.send(text && typeof message !== 'string' ? message.toString('utf8') : message, { binary: !text });
      },
      buffered: () => ws.bufferedAmount,
      onceDrained: f => { socket.once('drain', f); },
      onClose: f => { ws.on('close', f); },
      gone: () => ws.readyState !== ws.OPEN,
      end: () => ws.close(1000),
      cut: () => ws.terminate(),
    });
  }));
}

export async function watch(ctx: RequestContext, scope: Scope, namespace: string, nameFromPath?: string) {
  const q = ctx.query;
  const rep = representationFor(ctx, scope, 'events');
  checkListIntegers(q);
  const timeoutText = q.get('timeoutSeconds');
  const min = scope.minRequestTimeoutSeconds;
  // a timer holds at most 2^31-1 ms (about 24 days); a longer timeout means the same to any client. 0 is no timeout of
  // the client's, as unset: the reference then ends the watch after its own, between one and two minimum request timeouts
  const timeoutSeconds = integerParam('timeoutSeconds', timeoutText, { min: 0, max: 2_000_000 }) || min * (1 + Math.random());
  const sendInitialText = q.get('sendInitialEvents');
  const sendInitialEvents = sendInitialText === null ? undefined : queryFlag(sendInitialText);
  const allowBookmarks = queryFlag(q.get('allowWatchBookmarks'));
  checkListOptions(ctx, scope, true);
  const filter = filterFor(ctx, scope, namespace);
  if (nameFromPath) {
    const inner = filter.match;
    filter.match = o => o.metadata.name === nameFromPath && (!inner || inner(o));
    filter.selective = true;
  }
  const include = rep.kind === 'table' ? parseIncludeObject(q.get('includeObject')) : 'Metadata';
  const cols = columnsOf(scope.info);
  const { res } = ctx;
  // as the reference's handshake, a WebSocket needs a valid Origin (every browser sends one)
  const overWebSocket = wantsWebSocket(ctx);
  if (overWebSocket && !(typeof ctx.req.headers.origin === 'string' && URL.canParse(ctx.req.headers.origin)))
    throw forbidden('a watch over a WebSocket needs an Origin header holding a URL');
  let sink: Sink | undefined = overWebSocket ? undefined : responseSink(res);

  let closed = false;
  let ending = false;
  let stop: () => void = () => {};
  let unsubscribe: (() => void) | undefined;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    unsubscribe?.();
    stop();
    sink?.end();
  };
  // events produced while the watch starts wait until the headers are out; the initial ones (a whole collection, for a
  // watch from version 0 or with sendInitialEvents) wait as thunks, encoded only as the client reads them
  // an event is its text, or pieces of which the object's bytes are shared with every other watcher sending them
  type Text = string | Buffer | Buffer[];
  type Out = Text | (() => Text);
  const sizeOf = (text: Text) => (Array.isArray(text) ? text.reduce((n, b) => n + b.length, 0) : text.length);
  let pending: Out[] | undefined = [];
  // then what the client has not read yet, sent at its pace: live events that pile up past the limit cut it off
  let backlog: Out[] | undefined;
  let sent = 0;   // how many of the backlog went out (an index: shifting a long array costs its length each time)
  let backlogBytes = 0;
  /** the part of a large event not written yet, at the head of the backlog */
  let restOfEvent: Buffer[] | undefined;
  const write = (out: Out) => {
    // the server's close ends streams directly; events racing it are dropped
    if (closed || sink?.gone()) return;
    if (pending || !sink) { (pending ??= []).push(out); return; }
    const text = typeof out === 'function' ? out() : out;
    if (backlog) {
      backlog.push(text);
      backlogBytes += sizeOf(text);
      if (backlogBytes > maxBufferedBytes) cutOff();
      return;
    }
    // a client that has not read what went out gets what follows in chunks once it has: the stream holds a few large
    // writes rather than one per event (a stream cut with thousands of writes pending fails each of them, one error
    // each); so does a large event (over HTTP, where it can be cut: a WebSocket message is sent whole)
    if (sink.buffered() > drainChunkBytes || (!overWebSocket && sizeOf(text) > drainChunkBytes)) {
      backlog = [text];
      sent = 0;
      backlogBytes = sizeOf(text);
      drain();
      return;
    }
    sink.write(text);
    scope.watchEventSent?.(scope.info, sizeOf(text));
    if (sink.buffered() > maxBufferedBytes) cutOff();
  };
  /** writes the backlog in chunks while the client keeps up, waiting for it to read when it does not */
  const drain = () => {
    while (backlog && !closed && sink) {
      if (sink.buffered() > drainChunkBytes) { sink.onceDrained(drain); return; }
      const chunk: Buffer[] = [];
      let size = 0;
      while (sent < backlog.length && size < drainChunkBytes) {
        const out = backlog[sent]!;
        backlog[sent++] = '';
        if (typeof out !== 'function') backlogBytes -= sizeOf(out);
        const text = typeof out === 'function' ? out() : out;
        // the rest of an event cut across writes was counted with its event
        if (out !== restOfEvent) scope.watchEventSent?.(scope.info, sizeOf(text));
        // a WebSocket takes each event as a message of its own
        if (overWebSocket) { sink.write(text); size += sizeOf(text); continue; }
        // over HTTP the chunk takes what fits of the event's pieces (bytes, not characters); the rest waits at the head
        // of the backlog, cut from the pieces and not copied (an object's bytes are shared by all its watchers)
        const pieces = Array.isArray(text) ? text : [typeof text === 'string' ? Buffer.from(text) : text];
        for (let i = 0; i < pieces.length; i++) {
          const piece = pieces[i]!, room = drainChunkBytes - size;
          if (piece.length <= room) { chunk.push(piece); size += piece.length; continue; }
          chunk.push(piece.subarray(0, room));
          size += room;
          restOfEvent = [piece.subarray(room), ...pieces.slice(i + 1)];
          backlog[--sent] = restOfEvent;
          backlogBytes += sizeOf(restOfEvent);
          break;
        }
      }
      if (chunk.length) sink.write(chunk.length === 1 ? chunk[0]! : Buffer.concat(chunk, size));
      if (sent === backlog.length) {
        backlog = undefined;
        backlogBytes = 0;
        if (ending) finish();
      }
    }
  };
  // a watcher too far behind is cut off, not ended: an orderly end would wait behind everything it has not read
  const cutOff = () => {
    finish();
    sink?.cut();
  };
  // as the reference, a Table watch gives the column definitions with its first event only: later events carry rows
  let tableEvents = 0;
  const withHeaders = () => rep.kind === 'table' && tableEvents++ === 0;
  const objectFor = (obj: ApiObject, headers = false): unknown => {
    const served = asServed(scope, obj);
    if (rep.kind === 'table') {
      return {
        kind: 'Table', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata: { resourceVersion: obj.metadata.resourceVersion },
        columnDefinitions: headers ? cols.map(c => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })) : null,
        rows: [tableRow(scope.info, served, include, scope.names, cols)],
      };
    }
    if (rep.kind === 'metadata') return { kind: 'PartialObjectMetadata', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata: obj.metadata };
    return served;
  };
  /** one event in the negotiated form */
  const event = (type: string, obj: unknown): string | Buffer => inProtobuf(rep)
    ? protobufCodec().encodeWatchEvent(type, obj as Record<string, unknown>)
    : `{"type":"${type}","object":${JSON.stringify(obj)}}\n`;
  const itemHead = servedHead(scope);
  const servedAsStored = (item: StoredObject) => item.obj.apiVersion === scope.info.apiVersion && item.obj.kind === scope.info.kind;
  const eventText = (type: string, item: StoredObject, headers = false): Text => {
    // JSON bytes at hand that are the object as served go out as they are (checked on the bytes, nothing parsed), and
    // the protobuf of an object served as stored is made once: every watcher sending the object shares its bytes
    if (rep.kind === 'protobuf' && servedAsStored(item)) {
      const codec = protobufCodec();
      return codec.watchEventParts(type, item.protobuf ??= codec.encodeObject(item.obj as unknown as Record<string, unknown>));
    }
    const bytes = rep.kind !== 'json' ? undefined : servedBytes(item, itemHead) ?? (servedAsStored(item) ? bytesOf(item) : undefined);
    return bytes ? [eventHead[type] ?? Buffer.from(`{"type":"${type}","object":`), bytes, eventTail] : event(type, objectFor(item.obj, headers));
  };
  const bookmarkObject = (rev: number, initialEventsEnd?: boolean) => {
    const metadata: Record<string, unknown> = { resourceVersion: formatResourceVersion(rev) };
    if (initialEventsEnd) metadata.annotations = { [`${scope.names.domain}/initial-events-end`]: 'true' };
    if (rep.kind === 'table') return { kind: 'Table', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata, columnDefinitions: [], rows: [] };
    // a metadata watch's bookmark is metadata too: a metadata client (client-go's, for the garbage collector and quota)
    // decodes only the meta kinds, and an event it cannot decode ends its watch
    if (rep.kind === 'metadata') return { kind: 'PartialObjectMetadata', apiVersion: `${scope.names.metaGroup}/${rep.version}`, metadata };
    return { kind: scope.info.kind, apiVersion: scope.info.apiVersion, metadata };
  };

  // a converting resource's events are converted one at a time, each written after the ones before it
  const { convert } = scope.info.def;
  let queue = Promise.resolve();
  const inOrder = (step: () => void | Promise<void>) => {
    if (!convert) { void step(); return; }
    queue = queue.then(step).catch((e: unknown) => end((e as Partial<ApiError>).status ?? internalError((e as Error).message).status));
  };
  /** an object that cannot be decoded (encrypted with a key this server lacks) ends the watch with its error, as a
   *  watch of the reference's storage ends on it */
  const decodable = (item: StoredObject): boolean => {
    try { checkDecodable(item); return true; } catch (e) {
      end((storageFailure(e) ?? internalError((e as Error).message)).status);
      return false;
    }
  };
  const end = (status: Status) => { write(event('ERROR', orderedStatus(status))); ending = true; if (!pending && !backlog) finish(); };
  const endsAt = Date.now() + timeoutSeconds * 1000;
  // the timeout counts from when the watch has begun, as the reference's: a start that waits (for the cache to reach
  // the version asked) is not cut short into a response with neither headers nor events
  let timer: ReturnType<typeof setTimeout> | undefined;
  ctx.signal.addEventListener('abort', finish, { once: true });
  res.on('close', finish);
  // a resource no longer served as it was (its CRD deleted or changed) ends its watches, as the reference's storage
  // ends them when it is torn down: clients watch again, and find the resource gone or changed
  unsubscribe = closed ? undefined : scope.whenReplaced?.(finish);
  // the client may have gone before the watch got here: its close has fired already, and the watch must not start
  if (ctx.signal.aborted) finish();

  // start the watch before sending headers, so errors still become a plain Status response
  stop = await scope.reads.watch({
    ...filter,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    sendInitialEvents, allowBookmarks, bookmarkIntervalMs: scope.bookmarkIntervalMs, deadline: endsAt,
  }, {
    event: (type, item) => {
      if (ending || !decodable(item)) return;
      // which event has the headers is settled here, in the order events are written (the first ones are encoded later)
      const headers = withHeaders();
      if (convert) inOrder(async () => { if (!ending) write(eventText(type, (await servedItems(scope, [item]))[0], headers)); });
      else write(pending ? () => eventText(type, item, headers) : eventText(type, item, headers));
    },
    bookmark: (rev, initialEventsEnd) => inOrder(() => write(event('BOOKMARK', bookmarkObject(rev, initialEventsEnd)))),
    fail: (err: ApiError) => inOrder(() => end(err.status)),
  }).catch(e => { closed = true; throw e; });
  if (closed) { stop(); return; }
  timer = setTimeout(finish, timeoutSeconds * 1000);
  timer.unref();

  if (overWebSocket) {
    sink = await webSocketSink(ctx, !inProtobuf(rep));
    sink.onClose(finish);
  } else {
    setWarnings(ctx);
    res.setHeader('Content-Type', inProtobuf(rep) ? `${rep.contentType};stream=watch` : rep.contentType);
    res.setHeader('Cache-Control', 'no-cache, private');
    res.setHeader('Audit-Id', ctx.id);
    if (!('stream' in ctx.req)) res.setHeader('Transfer-Encoding', 'chunked');
    res.writeHead(200);
    (res as { flushHeaders?: () => void }).flushHeaders?.();
  }
  if (pending?.length) backlog = pending;
  pending = undefined;
  drain();
  ctx.watchInitialized?.();
  if (ending && !backlog) finish();
  await new Promise<void>(resolve => { if (closed || sink!.gone()) resolve(); else sink!.onClose(resolve); });
}
