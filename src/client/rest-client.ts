// The shared REST client: one HTTP/2 connection per configuration, TLS with client certificates,
// bearer tokens (static, from a token file read again, or from an exec plugin, spec 5.6), impersonation, JSON bodies, a QPS/burst limit,
// resource clients with get/list/create/update/patch/apply/delete, subresources, paging and watch streams.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { connect as http2Connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { openStream, releaseTimer } from '../util/node-http2.js';
import type { ApiObject, Status } from '../api/meta.js';
import { loadClientConfig, type ClientConfig } from '../config/client-config.js';
import { execCredentials, type Credential, type CredentialSource, type ExecIO } from './exec-credential.js';
import { tokenFileCredentials } from './token-file.js';
import { tokenBucket } from './rate-limit.js';
import { backoffMs, isRetryable, retryAfterMs, type BackoffPolicy } from './backoff.js';
import { deepCopy } from '../util/objects.js';

export interface ClientOptions {
  /** requests per second (0 or less: unlimited); default 50 */
  qps?: number;
  /** requests that may go at once before the QPS limit applies; default 100 */
  burst?: number;
  userAgent?: string;
  /** per-request timeout for non-streaming requests; default 60 s */
  timeoutMs?: number;
  /** how an exec credential plugin meets the terminal */
  execIO?: ExecIO;
  /** where each request's credentials come from (a client certificate that is renewed); instead of an exec plugin */
  credentials?: CredentialSource;
  /** the pauses between tries of a refused request (429, or 5xx with Retry-After) */
  backoff?: BackoffPolicy;
}

/**
 * Which collection: core resources have group ''. The type parameter names the objects it holds, so that
 * `client.resource(ref)` is typed by the reference alone.
 */
export interface ResourceRef<T = any> {
  group: string;
  version: string;
  resource: string;
  namespaced?: boolean;
  /** the kind of its objects, for writing apiVersion and kind into new ones */
  kind?: string;
  /** never set: carries the object type */
  readonly __object?: T;
}

/** A typed reference to a collection. */
export const resourceRef = <T>(group: string, version: string, resource: string, kind: string, namespaced = true): ResourceRef<T> =>
  ({ group, version, resource, kind, namespaced });

/** `apps/v1`, `v1` */
export const apiVersionOfRef = (ref: ResourceRef) => (ref.group ? `${ref.group}/${ref.version}` : ref.version);

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  /** server-side apply: take over fields other managers own */
  force?: boolean;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/**
 * The list with each item naming its kind and apiVersion: the server's lists of built-in kinds name them on the list
 * alone, as the reference's typed lists do, and callers handle items as whole objects (as client-go's dynamic client
 * fills them in)
 */
export function withItemKinds<L extends ObjectList<unknown>>(list: L): L {
  const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -'List'.length) : undefined;
  if (!kind || !list.apiVersion || !Array.isArray(list.items)) return list;
  list.items = list.items.map((item) => {
    const o = item as { kind?: string; apiVersion?: string } | null;
    return o && typeof o === 'object' && !o.kind ? { apiVersion: list.apiVersion, kind, ...o } : item;
  });
  return list;
}

export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** default `application/json` */
  accept?: string;
  /** extra request headers */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** An answer other than 2xx; `status` is the server's Status object when it sent one. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly code: number, readonly reason: string, message: string, readonly status?: Status | any) {
    super(message);
  }
}

/**
 * what the server said, as the reference's clients print an error (events, conditions): the Status message
 * without the request this client adds for its own logs
 */
export const serverMessage = (e: unknown): string =>
  e instanceof ApiError && typeof e.status?.message === 'string' ? e.status.message : (e as Error)?.message ?? String(e);

export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409;
export const isAlreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists';
export const isGone = (e: unknown) => e instanceof ApiError && e.code === 410;
export const isForbidden = (e: unknown) => e instanceof ApiError && e.code === 403;
export const isInvalid = (e: unknown) => e instanceof ApiError && e.code === 422;
/** the error of a request or watch cut because its client was closed (`close()`), or sent after it was */
export const isClientClosed = (e: unknown): boolean =>
  !!e && typeof e === 'object' && ((e as { clientClosed?: boolean }).clientClosed === true || isClientClosed((e as { cause?: unknown }).cause));
const clientClosed = (message: string) => Object.assign(new Error(message), { clientClosed: true });

/** Where a connection of its own (an upgraded stream) goes, and with which credentials. */
export interface Connection {
  url: URL;
  headers: Record<string, string>;
  tls: { ca?: string; cert?: string; key?: string; servername?: string; rejectUnauthorized: boolean };
}

export interface Client {
  readonly config: ClientConfig;
  /** a JSON request; resolves with the decoded body */
  request<T = any>(spec: RequestSpec): Promise<T>;
  /** a streaming request (watch, logs); the caller reads and ends the response */
  stream(spec: RequestSpec): Promise<Response>;
  resource<T = any>(ref: ResourceRef<T>, namespace?: string): ResourceClient<T>;
  /** the address and credentials for a connection the caller opens itself (exec, port-forward) */
  connection(path: string, query?: RequestSpec['query']): Promise<Connection>;
  /**
   * A client on the same connection that authenticates each request with the given credentials (tokens) and
   * has its own QPS limit. The connection must carry no client certificate, which would take precedence.
   */
  withCredentials(credentials: CredentialSource, opts?: ClientOptions): Client;
  /** a client on the same connection with the same credentials and a QPS limit of its own */
  withLimits(opts: ClientOptions): Client;
  /**
   * ends the client's connections (requests in flight and watches fail with an error saying the client was closed);
   * resolves once they are closed. Safe to call from any callback, a response's data included. A client left open
   * does not keep the process alive while no request or watch is in flight
   */
  close(): Promise<void>;
}

/** a list as the informers read it */
export type ListResult<T> = ObjectList<T>;

export interface ResourceClient<T = any> {
  get(name: string, opts?: { resourceVersion?: string }): Promise<T>;
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  /** every page of a list, `limit` items per request (default 500) */
  listAll(opts?: ListOptions): Promise<ObjectList<T>>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  update(obj: T, opts?: WriteOptions): Promise<T>;
  patch(name: string, patch: unknown, type?: PatchType, opts?: WriteOptions): Promise<T>;
  /** server-side apply of a partial object; `fieldManager` is required */
  apply(obj: Partial<T> & { metadata: { name?: string } }, opts: WriteOptions & { fieldManager: string }): Promise<T>;
  delete(name: string, opts?: DeleteOptions): Promise<T | undefined>;
  deleteCollection(opts?: ListOptions & DeleteOptions): Promise<ObjectList<T>>;
  /**
   * one watch stream; ends when the server closes it or the caller stops it (its signal, or leaving the loop); an
   * expired resourceVersion throws an ApiError 410; the client closed under it throws
   */
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** get, change, update; run again from a fresh read on conflict; `change` may return undefined to write nothing */
  modify(name: string, change: (current: T) => T | undefined | void, opts?: WriteOptions): Promise<T>;
  /** the same verbs on the `status` subresource */
  status: SubresourceClient<T>;
  /** another subresource: `scale`, `approval`, `ephemeralcontainers`, ... */
  subresource<S = any>(name: string): SubresourceClient<S>;
}

export interface SubresourceClient<T = any> {
  get(name: string): Promise<T>;
  create(name: string, obj: unknown, opts?: WriteOptions): Promise<any>;
  update(obj: T, opts?: WriteOptions): Promise<T>;
  patch(name: string, patch: unknown, type?: PatchType, opts?: WriteOptions): Promise<T>;
  apply(obj: Partial<T> & { metadata: { name?: string } }, opts: WriteOptions & { fieldManager: string }): Promise<T>;
}

/** tries again of a request the server refused (429), and of one it failed saying when to come back (5xx) */
const maxThrottledRetries = 10;
const maxUnavailableRetries = 3;

/**
 * A stream the server refused before reading it (REFUSED_STREAM, or ENHANCE_YOUR_CALM when its
 * session is over its memory limit) or a connection that went away before any answer was not
 * processed: it is sent again, after a short and growing pause.
 */
async function sendRefusable(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      const message = String((e as Error).message);
      const refused = /NGHTTP2_REFUSED_STREAM|NGHTTP2_ENHANCE_YOUR_CALM|ERR_HTTP2_GOAWAY_SESSION|session.*(closed|destroyed)/i.test(message)
        || ['ERR_HTTP2_GOAWAY_SESSION', 'ERR_HTTP2_INVALID_SESSION'].includes((e as NodeJS.ErrnoException).code ?? '');
      if (!refused || attempt >= 6) throw e;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
  }
}

export const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Runs `fn` again while it fails with a conflict (409), as many times as `attempts` allows. */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || isAlreadyExists(e) || i >= attempts) throw e;
      await new Promise((r) => setTimeout(r, 10 * 2 ** i * Math.random()));
    }
  }
}

export function createClient(config: ClientConfig, opts: ClientOptions = {}): Client {
  const base = new URL(config.server);
  const tls = base.protocol === 'https:';
  const credentials = opts.credentials ?? (config.exec ? execCredentials(config.exec, config.execCluster, opts.execIO)
    : config.tokenFile ? tokenFileCredentials(config.tokenFile, config.token) : undefined);
  return clientOn(config, tls ? http2Transport(base, config) : http1Transport(base), credentials, opts);
}

/**
 * A client over a transport. Clients made with withCredentials or withLimits share it, and only the
 * first closes it. Credentials apply over TLS only, as in the reference client.
 */
function clientOn(config: ClientConfig, transport: Transport, credentials: CredentialSource | undefined, opts: ClientOptions,
  owner = true): Client {
  const base = new URL(config.server);
  const tls = base.protocol === 'https:';
  const limiter = tokenBucket(opts.qps ?? 50, opts.burst ?? 100);
  const timeoutMs = opts.timeoutMs ?? 60_000;

  const authHeaders = (credential?: Credential): Record<string, string> => {
    const h: Record<string, string> = {};
    if (opts.userAgent) h['user-agent'] = opts.userAgent;
    // a token file's current token wins over the one read when the configuration was loaded
    const token = (config.tokenFile ? credential?.token : undefined) ?? config.token ?? credential?.token;
    if (token) h.authorization = `Bearer ${token}`;
    else if (config.username !== undefined && config.password !== undefined)
      h.authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`;
    const imp = config.impersonate;
    if (imp) {
      h['impersonate-user'] = imp.user;
      if (imp.uid) h['impersonate-uid'] = imp.uid;
      // several groups go as one comma-joined header value, as HTTP allows for repeated fields
      if (imp.groups?.length) h['impersonate-group'] = imp.groups.join(',');
      for (const [k, v] of Object.entries(imp.extra ?? {})) h[`impersonate-extra-${encodeURIComponent(k).toLowerCase()}`] = v.join(',');
    }
    return h;
  };
  const clientCert = (credential?: Credential) =>
    credential?.certPem ? { cert: credential.certPem, key: credential.keyPem } : { cert: config.certPem, key: config.keyPem };

  const urlOf = (path: string, query?: RequestSpec['query']) => {
    const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return url;
  };

  const send = async (spec: RequestSpec, streaming: boolean, retried = false, throttled = 0): Promise<Response> => {
    await limiter.take();
    const url = urlOf(spec.path, spec.query);
    const body = spec.body === undefined ? undefined : typeof spec.body === 'string' || spec.body instanceof Uint8Array ? spec.body : JSON.stringify(spec.body);
    const credential = credentials && tls ? await credentials.get() : undefined;
    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json', ...authHeaders(credential), ...spec.headers };
    if (body !== undefined) headers['content-type'] = spec.contentType ?? 'application/json';
    const res = await sendRefusable(() => transport.send({ method: spec.method, url, headers, body, signal: spec.signal, timeoutMs: streaming ? undefined : timeoutMs, ...clientCert(credential) }));
    // spec 5.6: a 401 ends the cached credential; the request goes once more with a fresh one
    if (res.statusCode === 401 && credential && !retried) {
      await discard(res);
      credentials!.invalidate(credential);
      return send(spec, streaming, true, throttled);
    }
    // the server did not take the request (429), or failed and said when to come back (5xx with Retry-After):
    // again after an exponential, jittered pause no shorter than the server asked for, as the reference client does
    const retryAfter = retryAfterMs(res.headers['retry-after']);
    if (throttled < (res.statusCode === 429 ? maxThrottledRetries : maxUnavailableRetries) && isRetryable(res.statusCode, retryAfter !== undefined)) {
      await discard(res);
      await sleep(backoffMs(throttled, retryAfter, opts.backoff), spec.signal);
      return send(spec, streaming, retried, throttled + 1);
    }
    if (res.statusCode >= 300) throw await errorFrom(res, spec);
    return res;
  };

  const request = async <T>(spec: RequestSpec): Promise<T> => {
    const res = await send(spec, false);
    const text = await readAll(res);
    if (!text) return undefined as T;
    return String(res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : (text as T);
  };

  const client: Client = {
    config,
    request,
    stream: (spec) => send(spec, true),
    resource: (ref, namespace) => resourceClient(client, ref, namespace),
    async connection(path, query) {
      const credential = credentials && tls ? await credentials.get() : undefined;
      const { cert, key } = clientCert(credential);
      return {
        url: urlOf(path, query),
        headers: authHeaders(credential),
        tls: { ca: config.caPem, cert, key, servername: config.tlsServerName, rejectUnauthorized: !config.insecureSkipTLSVerify },
      };
    },
    withCredentials: (source, o = opts) => clientOn(config, transport, source, o, false),
    withLimits: (o) => clientOn(config, transport, credentials, { ...opts, ...o }, false),
    close: () => (owner ? transport.close() : Promise.resolve()),
  };
  return client;
}

/** A response being read: its status, headers and body chunks. */
export interface Response extends AsyncIterable<Buffer> {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  destroy(): void;
}

interface Transport {
  send(r: {
    method: string; url: URL; headers: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal; timeoutMs?: number;
    cert?: string; key?: string;
  }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * HTTPS goes over HTTP/2, as the reference client does: every request and watch is a stream of a connection, so a
 * process with many watches (one per simulated node) holds a few TLS sessions. A connection carries as many streams
 * at once as the server allows (its SETTINGS, 250 by default as the reference's); past that, another connection is
 * opened, as Go's client does, rather than queueing a watch behind others that never end. A client certificate that
 * changes (from an exec plugin) opens new connections; the old ones finish the streams they carry, then are ended.
 * A connection with no stream open does not keep the process alive (as Node's keep-alive agents unref their idle
 * sockets): a client left open does not hold a program that is done; a watch or a request in flight does.
 */
function http2Transport(base: URL, config: ClientConfig): Transport {
  /** `settled` until the server's first SETTINGS tell how many streams it allows (`limit`) */
  interface Connection { session: ClientHttp2Session; cert?: string; streams: number; limit: number; settled?: Promise<void>; retired?: boolean }
  let pool: Connection[] = [];
  /** every session not closed yet, those left out of the pool (after a GOAWAY, an old certificate) included */
  const sessions = new Set<ClientHttp2Session>();
  let closed = false;
  const drop = (c: Connection) => { pool = pool.filter((x) => x !== c); };
  /** a stream starts on the connection: it keeps the process alive while the stream is open */
  const opened = (c: Connection) => { c.streams++; c.session.ref(); };
  /** a stream ended: an idle connection lets the process exit; one of an old certificate is ended */
  const released = (c: Connection) => {
    if (--c.streams > 0) return;
    if (c.retired) void endSession(c.session);
    else if (!c.session.destroyed) c.session.unref();
  };
  /** a connection of an old certificate takes no new stream and ends once its last one does */
  const retire = (c: Connection) => {
    drop(c);
    c.retired = true;
    if (c.streams === 0) void endSession(c.session);
  };
  const connect = (cert?: string, key?: string): Connection => {
    const s = http2Connect(base.origin, {
      ca: config.caPem, cert, key, servername: config.tlsServerName,
      rejectUnauthorized: !config.insecureSkipTLSVerify,
      // (no server push: a pushed stream arriving as the session closes meets Node 20's unsafe refusal, see http/server.ts)
      settings: { initialWindowSize: 4 * 2 ** 20, enablePush: false },
    });
    const c: Connection = { session: s, cert, streams: 0, limit: Infinity };
    let failure: Error | undefined;
    // a connection that closes before the server's SETTINGS (refused, reset, a failed handshake) fails the requests
    // waiting for it with its error: they would otherwise connect again at once, and again, until their timeout
    c.settled = new Promise<void>((resolve, reject) => {
      s.once('remoteSettings', () => { c.settled = undefined; resolve(); });
      s.once('close', () => {
        c.settled = undefined;
        reject(failure ?? new Error(`the HTTP/2 session to ${base.origin} closed before the server's settings arrived`));
      });
    });
    c.settled.catch(() => {});   // no request may be waiting
    s.on('error', (e) => { failure ??= e; }); // later failures reach the streams; the next request reconnects
    sessions.add(s);
    s.on('close', () => { drop(c); sessions.delete(s); });
    s.on('goaway', () => drop(c));
    s.on('remoteSettings', (settings) => { c.limit = settings.maxConcurrentStreams ?? Infinity; });
    // the requests waiting for the settings take their streams in the promise jobs that follow, before the
    // process could exit; a connection none of them took (they gave up) is idle
    s.once('remoteSettings', () => { if (c.streams === 0) s.unref(); });
    // a client closed while connecting has a destroyed session by the time 'connect' is delivered
    s.on('connect', () => { if (!s.destroyed) s.setLocalWindowSize(32 * 2 ** 20); });
    pool.push(c);
    return c;
  };
  /**
   * A connection with room for one more stream, which is counted at once (requests that wait together must not all
   * take the last place); else what to wait for before looking again: the SETTINGS of a connection whose limit is not
   * known yet (streams past it would queue behind ones that may never end), or of a new one.
   */
  const take = (cert: string | undefined, key: string | undefined): Connection | Promise<void> => {
    // a closed client opens no new connection (a late request would keep the server from closing)
    if (closed) throw clientClosed(`the client of ${base.origin} is closed`);
    for (const c of pool) {
      if (c.cert !== cert) { retire(c); continue; }
      if (c.session.closed || c.session.destroyed) continue;
      if (c.settled) return c.settled;
      if (c.streams < c.limit) { opened(c); return c; }
    }
    return connect(cert, key).settled!;
  };
  /** take(), waiting as long as the request may: until its timeout or its signal */
  const waitToTake = async (cert: string | undefined, key: string | undefined, what: string, signal?: AbortSignal, timeoutMs?: number): Promise<Connection> => {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      if (timeoutMs) timer = setTimeout(() => reject(new Error(`${what}: no connection within ${timeoutMs} ms`)), timeoutMs);
      onAbort = () => reject(signal!.reason ?? new Error(`${what}: aborted`));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      for (;;) {
        const got = take(cert, key);
        if (!(got instanceof Promise)) return got;
        await Promise.race([got, gaveUp]);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort!);
    }
  };
  return {
    async send({ method, url, headers, body, signal, timeoutMs, cert, key }) {
      const found = take(cert, key);
      const connection = found instanceof Promise ? await waitToTake(cert, key, `${method} ${url.pathname}`, signal, timeoutMs) : found;
      return new Promise<Response>((resolve, reject) => {
        let stream: ClientHttp2Stream;
        try {
          stream = openStream(connection.session, { ':method': method, ':path': url.pathname + url.search, ...headers }, { endStream: body === undefined, signal });
        } catch (e) {
          released(connection);
          return reject(e);
        }
        stream.once('close', () => { released(connection); releaseTimer(stream); });
        stream.on('error', reject);
        // a stream ended without an error and without an answer (its session destroyed by close()) fails the request
        stream.once('close', () => reject(new Error(`${method} ${url.pathname}: the connection closed before an answer`)));
        if (timeoutMs) stream.setTimeout(timeoutMs, () => stream.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)));
        stream.once('response', (h) => {
          stream.off('error', reject);
          stream.on('error', () => {});
          const res = Object.assign(stream as unknown as AsyncIterable<Buffer>, {
            statusCode: Number(h[':status']),
            headers: h as Record<string, string | string[] | undefined>,
          });
          resolve(res as Response);
        });
        if (body !== undefined) stream.end(body);
      });
    },
    close() {
      closed = true;
      pool = [];
      // the streams still open (watches, requests in flight) fail with this error: a watch cut by close() is told
      // apart from one the server ended
      const cut = clientClosed(`the client of ${base.origin} was closed`);
      return Promise.all([...sessions].map((s) => endSession(s, cut))).then(() => undefined);
    },
  };
}

/**
 * Ends a session and resolves once it (and its socket) closed. The destroy waits for the next turn of the event
 * loop: close() may be called from inside one of nghttp2's callbacks (a response's DATA frame, the one that ended
 * the request awaited), and no native callback may find its session destroyed under it. A destroy, unlike a
 * graceful close, sends GOAWAY and closes the socket without waiting for the server to close its side.
 */
function endSession(s: ClientHttp2Session, error?: Error): Promise<void> {
  // (a session is known until its 'close': one already destroyed has it still to come)
  return new Promise((resolve) => {
    s.once('close', () => resolve());
    setImmediate(() => s.destroy(error));
  });
}

/** Plain HTTP (a server without TLS) goes over HTTP/1.1 with kept-alive connections. */
function http1Transport(base: URL): Transport {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 64 });
  let closed = false;
  /** the requests waiting for an answer and the answers still being read, which close() cuts */
  const open = new Set<{ destroy(error: Error): void }>();
  const held = <T extends { destroy(error: Error): void; once(event: 'close', f: () => void): unknown }>(r: T) => {
    open.add(r);
    r.once('close', () => open.delete(r));
    return r;
  };
  return {
    send({ method, url, headers, body, signal, timeoutMs }) {
      if (closed) return Promise.reject(clientClosed(`the client of ${base.origin} is closed`));
      return new Promise<Response>((resolve, reject) => {
        const h = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
        const req = held(httpRequest(url, { method, headers: h, agent, signal }, (res) =>
          resolve(held(res) as unknown as Response)));
        req.on('error', reject);
        if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)));
        req.end(body);
      });
    },
    close() {
      closed = true;
      // as over HTTP/2: what is still open fails saying the client was closed, not as if the server had ended it
      const cut = clientClosed(`the client of ${base.origin} was closed`);
      for (const r of [...open]) r.destroy(cut);
      agent.destroy();
      return Promise.resolve();
    },
  };
}

/** `/api/v1/namespaces/ns/pods/name/status` and the like */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const root = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const item = name !== undefined ? `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}` : '';
  return `${root}${ns}/${ref.resource}${item}`;
}

const writeQuery = (o?: WriteOptions) => ({
  fieldManager: o?.fieldManager, dryRun: o?.dryRun ? 'All' : undefined, force: o?.force, fieldValidation: o?.fieldValidation,
});

function resourceClient<T>(client: Client, ref: ResourceRef<T>, namespace?: string): ResourceClient<T> {
  const path = (name?: string, sub?: string) => resourcePath(ref, namespace, name, sub);
  const nameOf = (obj: any): string => {
    const name = obj?.metadata?.name;
    if (!name) throw new Error(`${ref.resource}: the object has no metadata.name`);
    return name;
  };
  const sub = <S>(subresource?: string): SubresourceClient<S> => {
    const patch = (name: string, body: unknown, type: PatchType = 'merge', o?: WriteOptions) =>
      client.request<S>({ method: 'PATCH', path: path(name, subresource), body: type === 'apply' && typeof body !== 'string' ? JSON.stringify(body) : body, contentType: patchContentTypes[type], query: writeQuery(o) });
    return {
      get: (name) => client.request<S>({ method: 'GET', path: path(name, subresource) }),
      create: (name, obj, o) => client.request({ method: 'POST', path: path(name, subresource), body: obj, query: writeQuery(o) }),
      update: (obj, o) => client.request<S>({ method: 'PUT', path: path(nameOf(obj), subresource), body: obj, query: writeQuery(o) }),
      patch,
      apply: (obj, o) => patch(nameOf(obj), obj, 'apply', o),
    };
  };
  const main = sub<T>();
  const status = sub<T>('status');
  const list = async (o: ListOptions = {}) => withItemKinds(await client.request<ObjectList<T>>({ method: 'GET', path: path(), query: { ...o } }));

  const resource: ResourceClient<T> = {
    get: (name, o) => client.request<T>({ method: 'GET', path: path(name), query: { resourceVersion: o?.resourceVersion } }),
    list,
    async listAll(o = {}) {
      const first = await list({ limit: 500, ...o });
      const items = [...first.items];
      let cont = first.metadata.continue;
      while (cont) {
        const page = await list({ ...o, limit: o.limit ?? 500, continue: cont, resourceVersion: undefined, resourceVersionMatch: undefined });
        items.push(...page.items);
        cont = page.metadata.continue;
      }
      return { ...first, metadata: { resourceVersion: first.metadata.resourceVersion }, items };
    },
    create: (obj, o) => client.request<T>({ method: 'POST', path: path(), body: obj, query: writeQuery(o) }),
    update: main.update,
    patch: main.patch,
    apply: main.apply,
    delete: (name, o = {}) => {
      const { dryRun, ...rest } = o;
      return client.request<T>({ method: 'DELETE', path: path(name), body: { kind: 'DeleteOptions', apiVersion: 'v1', ...rest, ...(dryRun ? { dryRun: ['All'] } : {}) } });
    },
    deleteCollection: (o = {}) => {
      const { gracePeriodSeconds, propagationPolicy, preconditions, dryRun, ...selectors } = o;
      return client.request<ObjectList<T>>({ method: 'DELETE', path: path(), query: { ...selectors },
        body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds, propagationPolicy, preconditions, ...(dryRun ? { dryRun: ['All'] } : {}) } }).then(withItemKinds);
    },
    watch: (o = {}) => watchStream<T>(client, path(), o),
    modify: (name, change, o) => retryOnConflict(async () => {
      const current = await resource.get(name);
      const next = change(deepCopy(current));
      if (next === undefined) return current;
      return main.update(next as T, o);
    }),
    status,
    subresource: <S>(name: string) => sub<S>(name),
  };
  return resource;
}

/** Decodes a stream of newline-separated JSON watch events; an ERROR event ends it with its Status as an ApiError. */
export async function* watchEvents<T>(res: Response, signal?: AbortSignal): AsyncIterable<WatchEvent<T>> {
  const abort = () => res.destroy();
  signal?.addEventListener('abort', abort);
  // the bytes of a line not ended yet; each chunk is searched once, so a long event costs time linear in its size
  let pending: Buffer[] = [];
  try {
    for await (const data of res as AsyncIterable<Buffer | string>) {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      let from = 0, nl: number;
      while ((nl = chunk.indexOf(10, from)) >= 0) {
        pending.push(chunk.subarray(from, nl));
        const line = (pending.length === 1 ? pending[0] : Buffer.concat(pending)).toString('utf8').trim();
        pending = [];
        from = nl + 1;
        if (!line) continue;
        const event = JSON.parse(line) as WatchEvent<T>;
        if (event.type === 'ERROR') throw statusError(event.object);
        yield event;
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
    }
  } catch (e) {
    if (signal?.aborted) return;
    throw e;
  } finally {
    signal?.removeEventListener('abort', abort);
    res.destroy();
  }
}

async function* watchStream<T>(client: Client, path: string, o: WatchOptions): AsyncIterable<WatchEvent<T>> {
  const { signal, ...query } = o;
  const res = await client.stream({ method: 'GET', path, query: { ...query, watch: 'true' }, signal });
  yield* watchEvents<T>(res, signal);
}

export function statusError(status: any): ApiError {
  return new ApiError(status?.code ?? 500, status?.reason ?? 'Unknown', status?.message ?? JSON.stringify(status), status);
}

async function errorFrom(res: Response, spec: RequestSpec): Promise<ApiError> {
  const text = await readAll(res);
  let status: any;
  try {
    status = JSON.parse(text);
  } catch {
    status = undefined;
  }
  const message = status?.message ?? (text.trim() || `HTTP ${res.statusCode}`);
  return new ApiError(res.statusCode, status?.reason ?? 'Unknown', `${spec.method} ${spec.path}: ${message}`, status);
}

/**
 * Reads a response to its end and drops it. A response abandoned half-read resets its HTTP/2 stream, and a
 * server counts resets: past its limit (nghttp2 allows about 1,000 at once, then 33 a second) it closes the
 * whole session with GOAWAY INTERNAL_ERROR, ending every watch and write the connection carries. Only a
 * body too large to be worth reading is cut.
 */
export async function discard(res: Response, limit = 1 << 20): Promise<void> {
  let read = 0;
  try {
    for await (const c of res) if ((read += (c as Buffer).length) > limit) break;
  } catch {
    // the stream failed: nothing is left to read
  }
  if (read > limit) res.destroy();
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
  const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  signal?.addEventListener('abort', onAbort, { once: true });
});

export async function readAll(res: Response): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads the client-configuration file and makes a client of it. */
export async function clientFromFile(path: string, opts: ClientOptions & { context?: string } = {}): Promise<Client> {
  return createClient(await loadClientConfig(path, { context: opts.context }), opts);
}

export type { ApiObject };
