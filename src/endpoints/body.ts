// Reading and decoding request bodies, with limits checked before the expensive work: the reference's size limit,
// a nesting limit, and YAML aliases that may not expand a document past its own size.
import type { RequestContext } from '../api/request.js';
import { yamlDecoder } from '../util/yaml.js';
import { bodyLoadOptions } from '../util/yaml-body.js';
import type { Naming } from '../api/naming.js';
import { loadProtobufCodec } from '../api/protobuf/load.js';
import { yieldToLoop } from '../util/slices.js';
import { jsonStrings } from '../util/json-strings.js';
import { decodeYamlOffThread } from '../util/yaml-thread.js';
import { maxNestingDepth, valueBeyond, type ValueBound } from '../util/value-bounds.js';
import type { Readable } from 'node:stream';

import { ApiError, badRequest, timeout, tooLarge, unsupportedMediaType } from '../api/status.js';

/** the reference's request body limit */
export const maxBodyBytes = 3 * 1024 * 1024;

/** objects and arrays nested deeper than this are refused (util/value-bounds.ts says why) */
export { maxNestingDepth };

/**
 * The request body, up to `limit` bytes. A body still arriving when the request's time is up (a chunked body that
 * never ends, a Content-Length never reached) is a 504, as the reference's request timeout answers it; the
 * connection then closes, since the rest of the body will not be read. Read with the stream's own events and one
 * timer: an abort signal per request (a controller, a timeout signal, their union, the abort's exception) cost a
 * create about a quarter of its CPU.
 */
export function readBody(ctx: RequestContext, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(ctx.headers['content-length'] ?? 0);
  if (declared > limit) { closeAfterAnswer(ctx); return Promise.reject(tooLarge()); }
  const req = ctx.req as unknown as Readable;
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err?: unknown) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', stopped);
      if (err) { req.pause(); return reject(err); }
      const body = Buffer.concat(chunks, size);
      ctx.audit?.requestBody(body, mediaType(ctx));
      resolve(body);
    };
    // the deadline passed, or the client went away before the body ended (nobody is left to read the answer)
    const stopped = () => {
      closeAfterAnswer(ctx);
      finish(timeout('Timeout: request did not complete within requested timeout - context deadline exceeded', 0));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) { closeAfterAnswer(ctx); finish(tooLarge()); } else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const timer = ctx.deadline === undefined ? undefined : setTimeout(stopped, Math.max(0, ctx.deadline - Date.now()));
    // a stream that fails (the client reset it) closes after its error: the close stops the read; the error is
    // listened to for good, as an error with no listener would be thrown
    if (!req.listeners('error').includes(ignore)) req.on('error', ignore);
    req.on('data', onData).on('end', onEnd).on('close', stopped);
  });
}

const ignore = () => {};

/**
 * HTTP/1.1: the connection closes after the answer to a request whose body is left unread (past the size limit, or
 * still arriving at the deadline), as the reference's server closes it. Kept open, it would read and drop the rest of
 * the body, which a client can make endless (a Content-Length of petabytes), past every timeout.
 */
function closeAfterAnswer(ctx: RequestContext) {
  if (ctx.req.httpVersionMajor === 1 && !ctx.res.headersSent) ctx.res.setHeader('Connection', 'close');
}

export const mediaType = (ctx: RequestContext) => String(ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

const tooDeep = () => badRequest(`error decoding the request body: the object is nested more than ${maxNestingDepth} levels deep`);

/** whether JSON text nests arrays and objects deeper than the limit: one pass over the text, strings skipped */
export function jsonNestsDeeper(text: string, limit = maxNestingDepth): boolean {
  let depth = 0;
  const strings = jsonStrings(text);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = strings.end(i);   // a string: on to its closing quote
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** whether a value nests deeper than the limit, found without recursion */
export function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Checks a decoded value without recursion: nested no deeper than the limit, and (a YAML alias makes one value appear
 * in many places) holding no more values than `maxValues`.
 */
export function checkDecodedValue(value: unknown, maxValues = Infinity, limit = maxNestingDepth): void {
  const bound = valueBeyond(value, maxValues, limit);
  if (bound) throw beyondError(bound);
}

const beyondError = (bound: ValueBound): ApiError =>
  bound === 'values' ? badRequest('error decoding the request body: YAML aliases expand the document beyond its size') : tooDeep();

/** parses JSON text, refusing excessive nesting first; a syntax error is a 400 with the parser's position */
export function parseJson(text: string): unknown {
  if (jsonNestsDeeper(text)) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`error decoding the request body: ${(e as Error).message}`);
  }
  return escapesSurrogate(text) ? withoutLoneSurrogates(value) : value;
}

/** whether text escapes a UTF-16 surrogate (`\ud800`, YAML's `\U0000d800` too): only such text can decode to a lone one */
const escapesSurrogate = (text: string) => /\\(?:u|U0000)[dD][89a-fA-F]/.test(text);

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The value with each lone UTF-16 surrogate in its strings and keys replaced by U+FFFD, as the reference's decoder
 * reads an escaped one (it holds text as UTF-8, where a lone surrogate has no encoding). Walked without recursion;
 * pairs are kept.
 */
export function withoutLoneSurrogates(value: unknown): unknown {
  const fix = (s: string) => s.replace(loneSurrogate, '\ufffd');
  if (typeof value === 'string') return fix(value);
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((e, i) => { if (typeof e === 'string') v[i] = fix(e); else stack.push(e); });
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const e = o[k];
      const key = fix(k);
      if (key !== k) { delete o[k]; Object.defineProperty(o, key, { value: e, enumerable: true, writable: true, configurable: true }); }
      if (typeof e !== 'string') stack.push(e);
      else { const fixed = fix(e); if (fixed !== e) o[key] = fixed; }
    }
  }
  return value;
}

/**
 * Parses one YAML document (YAML 1.2 core schema; a repeated key is an error, unless its last value is to win). The decoder is linear in its input and
 * stops at the nesting limit; aliases may not make the document hold more values than its text has characters.
 */
export function parseYamlObject(text: string, lastKeyWins = false): unknown {
  const decoder = yamlDecoder();
  let value: unknown;
  try {
    value = decoder.load(text, bodyLoadOptions(decoder, text, maxNestingDepth, lastKeyWins));
  } catch (e) {
    throw yamlError((e as Error).message ?? String(e));
  }
  checkDecodedValue(value, text.length + 16);
  return escapesSurrogate(text) ? withoutLoneSurrogates(value) : value;
}

function yamlError(message: string): ApiError {
  if (/maxDepth/.test(message)) return tooDeep();
  if (/expected a single document/.test(message)) return badRequest('error decoding YAML: the request body holds more than one document');
  return badRequest(`error decoding YAML: ${message.split('\n')[0]}`);
}

/** a body at least this large is decoded and checked in steps, with the event loop given back between them */
export const largeBodyBytes = 256 * 1024;

/** parseYamlObject, with a large body decoded on the YAML thread (the decoder would hold the event loop for seconds) */
export async function decodeYaml(text: string, lastKeyWins = false): Promise<unknown> {
  if (text.length < largeBodyBytes) return parseYamlObject(text, lastKeyWins);
  // the thread ends only on a document it could not hold (its heap is bounded): that is the document's fault
  // the thread checks the value's bounds before handing it over: copying a value nested 100,000 deep (through aliases)
  // into this thread alone would hold the loop for a second
  const result = await decodeYamlOffThread(text, maxNestingDepth, lastKeyWins, text.length + 16).catch((e: Error) => ({ error: e.message }));
  if ('error' in result) throw yamlError(result.error);
  if ('beyond' in result) throw beyondError(result.beyond);
  await yieldToLoop();
  return escapesSurrogate(text) ? withoutLoneSurrogates(result.value) : result.value;
}

/**
 * decodeYaml for a document whose repeated keys are not fatal (an apply configuration: the reference reads it leniently,
 * then checks it strictly per fieldValidation): the last value wins, and `repeated` names the first repeated key as the
 * reference's strict reading does (`line 7: key "k" already set in map`)
 */
export async function decodeYamlRepeatedKeys(text: string): Promise<{ value: unknown; repeated?: string }> {
  try {
    return { value: await decodeYaml(text) };
  } catch (e) {
    const repeated = e instanceof ApiError ? repeatedKeyProblem(e.message, text) : undefined;
    if (!repeated) throw e;
    return { value: await decodeYaml(text, true), repeated };
  }
}

/** the repeated key js-yaml reports at `(line:column)`, read from the text there (a plain or quoted key) */
function repeatedKeyProblem(message: string, text: string): string | undefined {
  const at = /duplicated mapping key \((\d+):(\d+)\)/.exec(message);
  if (!at) return undefined;
  const line = Number(at[1]);
  return `line ${line}: ${keyAt(text, line, Number(at[2])) ?? 'duplicated mapping key'}`;
}

function keyAt(text: string, line: number, column: number): string | undefined {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  const rest = text.slice(start + column - 1, end < 0 ? undefined : end).replace(/^\?\s*/, '');
  const key = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'|^([^:#{},[\]]+?)\s*(?::|$)/.exec(rest);
  const name = key && (key[1] ?? key[2]?.replaceAll("''", "'") ?? key[3]);
  return name ? `key ${JSON.stringify(name)} already set in map` : undefined;
}

/**
 * Decodes an object body (POST, PUT) by its content type: JSON, YAML, or the protobuf envelope of a built-in kind.
 * `large` says the body is large enough that the caller should give the event loop back between its next steps.
 */
export async function readObject(ctx: RequestContext, names: Naming): Promise<{ value: unknown; text: string; large: boolean }> {
  const type = mediaType(ctx);
  const raw = await readBody(ctx);
  const large = raw.length >= largeBodyBytes;
  if (large) await yieldToLoop();
  const decoded = (value: unknown, text: string) => (large ? yieldToLoop().then(() => ({ value, text, large })) : { value, text, large });
  if (type === names.protobufMediaType) return decoded(await decodeProtobuf(raw, names), '');
  const text = raw.toString('utf8');
  if (type === '' || type === 'application/json' || type === '*/*') return decoded(parseJson(text), text);
  // a YAML body is kept as its value, not its text: a retry copies the value rather than decoding the text again
  if (type === 'application/yaml' || type === 'text/yaml') return decoded(await decodeYaml(text), '');
  throw unsupportedMediaType(['application/json', 'application/yaml', names.protobufMediaType]);
}

/**
 * The protobuf codec loads on first use, keeping its field tables out of start-up. `optionsKind`: the body is that
 * options kind (DeleteOptions), which clients send in the group version they call (apps/v1, v1, meta's) and which has
 * one message whatever its group.
 */
export async function decodeProtobuf(raw: Buffer, names: Naming, optionsKind?: string): Promise<Record<string, unknown>> {
  const { decodeEnvelope, protobufToJson, UnsupportedKindError } = await loadProtobufCodec();
  let value: Record<string, unknown>;
  try {
    const envelope = decodeEnvelope(raw, names);
    if (envelope.contentEncoding)
      throw unsupportedMediaType([names.protobufMediaType, 'application/json']);
    value = envelope.kind === optionsKind
      ? { ...protobufToJson(envelope.raw, 'v1', envelope.kind), apiVersion: envelope.apiVersion }
      : protobufToJson(envelope.raw, envelope.apiVersion, envelope.kind);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof UnsupportedKindError) throw unsupportedMediaType(['application/json', 'application/yaml']);
    // malformed bytes, and messages nested past what the decoder can follow, are the client's error
    throw badRequest(`error decoding the request body: ${e instanceof Error ? e.message : String(e)}`);
  }
  // a field that holds JSON (RawExtension) can nest anything
  checkDecodedValue(value);
  return value;
}
