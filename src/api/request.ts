// The request context passed explicitly through the pipeline and the handlers.
import type { IncomingHttpHeaders } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UserInfo } from './auth.js';
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
  /** an HTTP/1.1 upgrade request (SPDY, WebSocket): the client's connection, and what it sent after the request */
  upgrade?: { socket: Duplex; head: Buffer };
}

/** dryRun=All, or nothing; the bare parameter is not a dry run */
export function parseDryRun(values: string[]): boolean {
  const set = values.filter(v => v !== '');
  for (const v of set) if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  return set.length > 0;
}
