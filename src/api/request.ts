// The request context passed explicitly through the pipeline and the handlers.
import type { IncomingHttpHeaders } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UserInfo } from './auth.js';
import type { AuditRecord } from './audit.js';
import { badRequest } from './status.js';

export type Request = IncomingMessage | Http2ServerRequest;
/** HTTP/1.1 and HTTP/2 responses share this surface (setHeader, writeHead, write, end, events) */
export type Response = ServerResponse;
export const asResponse = (res: ServerResponse | Http2ServerResponse) => res as unknown as Response;
/** bytes written but not yet sent, on either protocol */
export const bufferedBytes = (res: Response): number => {
  const stream = (res as unknown as { stream?: { writableLength: number } }).stream;
  return stream ? stream.writableLength : res.writableLength;
};

/**
 * A boolean query parameter as the reference reads one: absent, `0` and `false` (in any case) are false, anything
 * else is true, an empty value (`?watch=`, `?watch`) included (clients send `true`, `True` and `1`).
 */
export const queryFlag = (v: string | null) => v !== null && v !== '0' && v.toLowerCase() !== 'false';

/** The stricter form a few parameters (`pretty`) are read with: the spellings of true and false the reference's
 * boolean parser knows, undefined for anything else. */
export const strictFlag = (v: string): boolean | undefined =>
  ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v) ? true : ['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v) ? false : undefined;

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'proxy' | string;

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: RequestVerb;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  /** the path went into a namespace (/namespaces/{namespace}/{resource}...), rather than naming a namespace itself */
  inNamespace?: boolean;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

export interface RequestContext {
  readonly id: string;
  readonly req: Request;
  readonly res: Response;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** when the request arrived (ms since the epoch), before any filter ran */
  readonly receivedAt?: number;
  info: RequestInfo;
  user?: UserInfo;
  /** Warning header values, added by any stage */
  readonly warnings: string[];
  /** aborted when the deadline passes or the client goes away; made on first use, since most requests never ask */
  readonly signal: AbortSignal;
  /** whether the client has gone away (its connection or stream closed): a question that makes no signal */
  clientGone(): boolean;
  /** when a request that is not long-running must be done (epoch ms) */
  deadline?: number;
  /** long-running requests (watch) are exempt from the deadline and max-in-flight */
  longRunning: boolean;
  /** a watch calls it once its initial events are out: flow control then frees the seats its start held */
  watchInitialized?(): void;
  /** the decision reason recorded for audit */
  authorizationReason?: string;
  /** the server's feature gates (name → enabled), set for every request the server handles */
  features?: Readonly<Record<string, boolean>>;
  /** the request's audit record, when the audit policy records it */
  audit?: AuditRecord;
  /** annotations made before the audit record exists (authentication's: a legacy or stale token), which it takes */
  earlyAuditAnnotations?: Record<string, string>;
  /** an HTTP/1.1 upgrade request (SPDY, WebSocket): the client's connection, and what it sent after the request */
  upgrade?: { socket: Duplex; head: Buffer };
}

/** whether a feature gate is on for this request's server; `byDefault` is the gate's 1.27 default (for requests made without a server) */
export const featureEnabled = (ctx: Pick<RequestContext, 'features'>, gate: string, byDefault: boolean): boolean => ctx.features?.[gate] ?? byDefault;

/** dryRun=All, or nothing; the bare parameter is not a dry run */
export function parseDryRun(values: string[]): boolean {
  const set = values.filter(v => v !== '');
  for (const v of set) if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  return set.length > 0;
}

const int64Max = 2n ** 63n - 1n;

/**
 * An integer query parameter (or body field) as the reference reads one: a 64-bit decimal integer, else a 400 naming
 * the parameter. Absent or empty is undefined. Values past `max` are clamped to it: the reference accepts any 64-bit
 * value, and every use here means the same for all values that large (no limit, no deadline).
 */
export function integerParam(name: string, text: string | number | null | undefined, opts: { min?: number; max?: number } = {}): number | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const s = String(text);
  if (!/^-?\d{1,19}$/.test(s) || BigInt(s) > int64Max || BigInt(s) < -int64Max - 1n)
    throw badRequest(`${name}: Invalid value: "${s.length > 64 ? `${s.slice(0, 64)}...` : s}": must be a 64-bit integer`);
  const n = Number(s);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`${name}: Invalid value: ${s}: must be greater than or equal to ${opts.min}`);
  return opts.max !== undefined ? Math.min(n, opts.max) : n;
}

/**
 * The integer list options a list, a watch and a delete of a collection all decode, as the reference decodes the whole
 * of them for each: one that is not a 64-bit integer is a 400 even where the request has no use for it.
 */
export function checkListIntegers(q: URLSearchParams): void {
  integerParam('limit', q.get('limit'));
  integerParam('timeoutSeconds', q.get('timeoutSeconds'));
}
