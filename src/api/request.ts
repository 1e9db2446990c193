// The request context passed explicitly through the pipeline and the handlers.
import type { IncomingHttpHeaders } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
 * A boolean query parameter as the reference reads one: absent, empty, `0` and `false` (in any case) are
 * false, anything else is true (clients send `true`, `True` and `1`).
 */
export const queryFlag = (v: string | null) => v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

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
  info: RequestInfo;
  user?: UserInfo;
  /** Warning header values, added by any stage */
  readonly warnings: string[];
  /** aborted when the deadline passes or the client goes away; made on first use, since most requests never ask */
  readonly signal: AbortSignal;
  /** when a request that is not long-running must be done (epoch ms) */
  deadline?: number;
  /** long-running requests (watch) are exempt from the deadline and max-in-flight */
  longRunning: boolean;
  /** the decision reason recorded for audit */
  authorizationReason?: string;
  /** the server's feature gates (name → enabled), set for every request the server handles */
  features?: Readonly<Record<string, boolean>>;
  /** the request's audit record, when the audit policy records it */
  audit?: AuditRecord;
}

/** whether a feature gate is on for this request's server; `byDefault` is the gate's 1.27 default (for requests made without a server) */
export const featureEnabled = (ctx: Pick<RequestContext, 'features'>, gate: string, byDefault: boolean): boolean => ctx.features?.[gate] ?? byDefault;

/** dryRun=All, or nothing; the bare parameter is not a dry run */
export function parseDryRun(values: string[]): boolean {
  const set = values.filter(v => v !== '');
  for (const v of set) if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  return set.length > 0;
}
