// Writing responses: objects in the negotiated representation, gzip over a size threshold, Status errors.
import { gzipSync, createGzip } from 'node:zlib';
import { pipeline, Readable } from 'node:stream';
import { toYaml } from '../util/yaml.js';
import { featureEnabled, strictFlag, type RequestContext } from '../api/request.js';
import type { Status } from '../api/meta.js';
import { orderedCause, orderedStatus } from '../api/status.js';
import { toApiError } from './errors.js';
import type { Naming } from '../api/naming.js';
import { loadedProtobufCodec } from '../api/protobuf/load.js';
import { negotiate, parseAccept } from './negotiation.js';
import { warningHeaderValues } from './warnings.js';
import { sliceClock, yieldToLoop } from '../util/slices.js';

/** responses at least this large are compressed when the client accepts gzip */
const gzipThreshold = 128 * 1024;

export function setWarnings(ctx: RequestContext) {
  if (ctx.warnings.length && !ctx.res.headersSent) ctx.res.setHeader('Warning', warningHeaderValues(ctx.warnings, ctx.req.httpVersionMajor === 2 ? 'HTTP/2' : 'HTTP/1.1'));
}

/** the body text for an object: pretty when asked, YAML for the YAML representation */
export function encode(body: unknown, contentType: string, pretty: boolean): string {
  if (contentType === 'application/yaml') return toYaml(body);
  return pretty ? JSON.stringify(body, null, 2) + '\n' : JSON.stringify(body);
}

/** large responses are gzipped for clients that accept it, while the APIResponseCompression gate is on */
const compress = (ctx: RequestContext, bytes: number) => bytes >= gzipThreshold && ctx.method !== 'HEAD'
  && featureEnabled(ctx, 'APIResponseCompression', true) && /\bgzip\b/.test(String(ctx.headers['accept-encoding'] ?? ''));

export function sendText(ctx: RequestContext, code: number, text: string | Buffer, contentType: string, headers: Record<string, string> = {}) {
  const { res } = ctx;
  if (res.headersSent) return;
  setWarnings(ctx);
  res.setHeader('Cache-Control', 'no-cache, private');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Audit-Id', ctx.id);
  ctx.audit?.responseBody(text, contentType);
  let payload: string | Buffer = text;
  if (compress(ctx, text.length)) {
    payload = gzipSync(text, { level: 1 });
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
  }
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.writeHead(code);
  if (ctx.method === 'HEAD') { res.end(); return; }
  // a large body (an object of megabytes) goes out as the client reads it, like a list: a thousand clients reading it
  // slowly would otherwise each hold all of it, encrypted, in the process
  if (Buffer.byteLength(payload) <= aheadBytes) { res.end(payload); return; }
  void writeBody(ctx, Readable.from(batches([Buffer.from(payload)]), { objectMode: false, highWaterMark: batchBytes }));
}

/** a response written piece by piece as the client reads it: bounded memory, and no more work once the client is gone */
export async function sendStream(ctx: RequestContext, code: number, parts: Iterable<Buffer> | AsyncIterable<Buffer>,
  size: { length?: number; estimate: number }, contentType: string) {
  const { res } = ctx;
  if (res.headersSent) return;
  setWarnings(ctx);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Audit-Id', ctx.id);
  const gzip = compress(ctx, size.estimate);
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
  } else if (size.length !== undefined) {
    res.setHeader('Content-Length', size.length);
  }
  res.writeHead(code);
  if (ctx.method === 'HEAD') { res.end(); return; }
  // an audit policy that records responses keeps the whole body, as the reference records a list in full
  const kept: Buffer[] | undefined = ctx.audit?.level === 'RequestResponse' ? [] : undefined;
  const source = Readable.from(kept ? keeping(batches(parts), kept) : batches(parts), { objectMode: false, highWaterMark: batchBytes });
  // compressed: an error of either stream ends the other, and the reading of the compressed one
  const body = gzip ? pipeline(source, createGzip({ level: 1 }), () => {}) : source;
  if (await writeBody(ctx, body) && kept) ctx.audit!.responseBody(Buffer.concat(kept), contentType);
}

/** writes a body as the client reads it; whether it was all written */
async function writeBody(ctx: RequestContext, body: Readable): Promise<boolean> {
  const { res } = ctx;
  try {
    await writeAhead(body, res, ctx.signal);
    return true;
  } catch {
    // the client went away or the deadline passed: what is left is not built, and the stream is cut
    const stream = (res as unknown as { stream?: { destroyed: boolean; close(code?: number): void } }).stream;
    if (stream) { if (!stream.destroyed) stream.close(0x8 /* CANCEL */); } else if (!res.destroyed) res.destroy();
    return false;
  }
}

export const batchBytes = 64 * 1024;
/**
 * How far a response is written ahead of the client. Waiting for each 64 KB batch to drain before making the next
 * left the socket idle between batches: a 4 MB list took 87 ms to read on loopback where the same bytes written at once
 * take 47 ms; 512 KB ahead takes 48 ms, and bounds what a slow reader holds.
 */
const aheadBytes = 512 * 1024;

/** the source written to the response, at most aheadBytes waiting to go out; throws once the client or deadline is gone */
async function writeAhead(source: Readable, res: RequestContext['res'], signal: AbortSignal) {
  const gone = () => signal.aborted || res.destroyed;
  for await (const chunk of source) {
    if (gone()) throw new Error('the response was cut');
    res.write(chunk);
    if (res.writableLength < aheadBytes) continue;
    await new Promise<void>((resolve) => {
      const done = () => { res.off('drain', done); res.off('close', done); signal.removeEventListener('abort', done); resolve(); };
      res.on('drain', done);
      res.on('close', done);
      signal.addEventListener('abort', done);
    });
  }
  if (gone()) throw new Error('the response was cut');
  res.end();
}

/**
 * Small pieces joined into writes of about 64 KB. Making the pieces is the work (encoding each object), and a socket
 * on loopback may take every write at once, so the event loop is given back after each batch once a slice of work
 * is used up: other requests and health probes are served between the batches of a large response.
 */
async function* keeping(source: AsyncIterable<Buffer>, kept: Buffer[]): AsyncGenerator<Buffer> {
  for await (const piece of source) { kept.push(piece); yield piece; }
}

export async function* batches(parts: Iterable<Buffer> | AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [], size = 0;
  const clock = sliceClock();
  // pieces made at once are taken without an await each (a list of 10,000 objects has 20,000 pieces)
  const sync = Symbol.iterator in parts ? parts[Symbol.iterator]() : undefined;
  const async = sync ? undefined : (parts as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const next = sync ? sync.next() : await async!.next();
      if ((done = !!next.done)) break;
      // a piece larger than what a batch has room for (a large object's bytes, shared by every response sending it)
      // is cut, not copied whole into the batch: a batch is never more than batchBytes
      let piece = next.value;
      while (size + piece.length >= batchBytes) {
        const room = batchBytes - size;
        pending.push(piece.subarray(0, room));
        piece = piece.subarray(room);
        yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, batchBytes);
        pending = []; size = 0;
        if (clock.due()) await yieldToLoop();
      }
      if (piece.length) { pending.push(piece); size += piece.length; }
    }
  } finally {
    // a response cut short ends the pieces' source too
    if (!done) { sync?.return?.(); await async?.return?.(); }
  }
  if (size) yield Buffer.concat(pending, size);
}

export function sendObject(ctx: RequestContext, code: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) {
  const pretty = isPretty(ctx);
  sendText(ctx, code, encode(body, contentType, pretty), contentType, headers);
}

/** `pretty` is read as a strict boolean (as the reference does: an unknown value is false); absent or empty, browsers and
 * command-line fetchers get indented output */
export const isPretty = (ctx: RequestContext) => {
  const p = ctx.query.get('pretty');
  if (p) return strictFlag(p) === true;
  return /\b(curl|Wget|Mozilla)\//.test(String(ctx.headers['user-agent'] ?? ''));
};

/**
 * A Status as the reference writes one: in protobuf when the client takes that before JSON (client-go's protobuf
 * clients send `<protobuf>, application/json`; given the names, to know its media type), else its JSON fields in order
 * and a newline after them
 */
export function sendStatus(ctx: RequestContext, status: Status, headers: Record<string, string> = {}, names?: Naming) {
  const bytes = names ? protobufOf(ctx, names, status) : undefined;
  if (bytes && names) return sendText(ctx, status.code, bytes, names.protobufMediaType, headers);
  const pretty = isPretty(ctx);
  const causes = status.details?.causes;
  if (!pretty && causes && causes.length > streamedCauses) {
    for (const [k, v] of Object.entries(headers)) ctx.res.setHeader(k, v);
    void sendStream(ctx, status.code, statusParts(status, causes), { estimate: status.message?.length ?? 0 }, 'application/json');
    return;
  }
  const text = encode(orderedStatus(status), 'application/json', pretty);
  sendText(ctx, status.code, pretty ? text : `${text}\n`, 'application/json', headers);
}

/** a Status of more causes than this (a body of fifty thousand invalid keys has as many) is written piece by piece */
const streamedCauses = 256;

/**
 * The JSON of a Status of many causes, the same text as if written whole, made a few hundred causes at a time: its
 * encoding (and compression) held the event loop for as long as the body was large, tens of megabytes here
 */
function* statusParts(status: Status, causes: NonNullable<NonNullable<Status['details']>['causes']>): Generator<Buffer> {
  const marker = `[${JSON.stringify({ message: '\u0000causes\u0000' })}]`;
  const text = JSON.stringify(orderedStatus({ ...status, details: { ...status.details, causes: [{ message: '\u0000causes\u0000' }] } }));
  // the last one: what follows the causes (retryAfterSeconds, code) holds nothing a client wrote
  const at = text.lastIndexOf(marker);
  yield Buffer.from(`${text.slice(0, at)}[`);
  for (let i = 0; i < causes.length; i += streamedCauses)
    yield Buffer.from(`${i ? ',' : ''}${causes.slice(i, i + streamedCauses).map(c => JSON.stringify(orderedCause(c))).join(',')}`);
  yield Buffer.from(`]${text.slice(at + marker.length)}\n`);
}

/** a Status error, negotiated as the reference negotiates one: protobuf when the client prefers it */
export function sendError(ctx: RequestContext, e: unknown, names?: Naming) {
  const err = toApiError(e);
  if (ctx.res.headersSent) { ctx.res.end(); return; }
  sendStatus(ctx, err.status, err.headers, names);
}

/**
 * An object in protobuf when the client prefers that form and the object's kind has one (a Scale, a Status, a
 * TokenRequest, a review, a deleted collection), as the reference answers; else undefined, and it goes as JSON
 */
export function protobufOf(ctx: RequestContext, names: Naming, result: object): Buffer | undefined {
  const codec = loadedProtobufCodec();
  const { apiVersion, kind } = result as { apiVersion?: unknown; kind?: unknown };
  if (!codec || typeof apiVersion !== 'string' || typeof kind !== 'string' || !codec.hasProtobufForm(apiVersion, kind)) return undefined;
  if (negotiate(parseAccept(ctx.headers.accept), names, { protobuf: true, yaml: true })?.kind !== 'protobuf') return undefined;
  try {
    return codec.encodeObject(result as Record<string, unknown>);
  } catch (e) {
    if (e instanceof codec.ProtobufEncodeError) return undefined;
    throw e;
  }
}
