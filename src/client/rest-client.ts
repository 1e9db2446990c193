// The shared REST client: one HTTP/2 connection per configuration, TLS with client certificates,
// bearer tokens (static or from an exec plugin), JSON bodies, a QPS/burst limit, typed resource
// clients with get/list/create/update/patch/delete, the status sub-client and raw watch streams.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { connect as http2Connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { loadClientConfig, type ClientConfig } from '../config/client-config.js';
import { execCredential, type ExecToken } from './exec-credential.js';
import { tokenBucket } from './rate-limit.js';

export interface ClientOptions {
  /** requests per second (0 or less: unlimited); default 50 */
  qps?: number;
  /** requests that may go at once before the QPS limit applies; default 100 */
  burst?: number;
  userAgent?: string;
  /** per-request timeout for non-streaming requests; default 60 s */
  timeoutMs?: number;
}

/**
 * Which collection: core resources have group ''. The type parameter names the objects it holds, so
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
  limit?: number;
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  force?: boolean;
}

export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** extra request headers (an Accept other than JSON, ...) */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** An answer other than 2xx; `status` is the server's Status object when it sent one. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly code: number, readonly reason: string, message: string, readonly status?: any) {
    super(message);
  }
}

export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409;
export const isAlreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === 'AlreadyExists';
export const isGone = (e: unknown) => e instanceof ApiError && e.code === 410;

/** Supplies the Authorization header of each request (a bearer token that may be refreshed). */
export type CredentialSource = (refresh: boolean) => Promise<string | undefined>;

export interface Client {
  readonly config: ClientConfig;
  /** a JSON request; resolves with the decoded body */
  request<T = any>(spec: RequestSpec): Promise<T>;
  /** a streaming request (watch, logs); the caller reads and ends the response */
  stream(spec: RequestSpec): Promise<Response>;
  resource<T = any>(ref: ResourceRef<T>, namespace?: string): ResourceClient<T>;
  /**
   * A client on the same connection that authenticates each request with the given credentials and has
   * its own QPS limit. The connection must carry no client certificate, which would take precedence.
   */
  withCredentials(credentials: CredentialSource, opts?: ClientOptions): Client;
  /** a client on the same connection with the same credentials and a QPS limit of its own */
  withLimits(opts: ClientOptions): Client;
  close(): void;
}

export interface ListResult<T> { metadata: { resourceVersion?: string; continue?: string }; items: T[] }

export interface ResourceClient<T = any> {
  get(name: string): Promise<T>;
  list(opts?: ListOptions): Promise<ListResult<T>>;
  create(obj: T, opts?: WriteOptions): Promise<T>;
  update(obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus(obj: T, opts?: WriteOptions): Promise<T>;
  patch(name: string, patch: unknown, type?: PatchType, opts?: WriteOptions): Promise<T>;
  patchStatus(name: string, patch: unknown, type?: PatchType, opts?: WriteOptions): Promise<T>;
  delete(name: string, opts?: DeleteOptions): Promise<T | undefined>;
  /** one watch stream; ends when the server closes it; an expired resourceVersion throws an ApiError 410 */
  watch(opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /** the verbs of the `status` subresource (the same as updateStatus and patchStatus) */
  status: { update(obj: T, opts?: WriteOptions): Promise<T>; patch(name: string, patch: unknown, type?: PatchType, opts?: WriteOptions): Promise<T> };
}

const maxThrottledRetries = 10;

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

const patchTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export function createClient(config: ClientConfig, opts: ClientOptions = {}): Client {
  const base = new URL(config.server);
  const transport = base.protocol === 'https:' ? http2Transport(base, config) : http1Transport();
  let execToken: ExecToken | undefined;

  const authorization: CredentialSource = async (refresh) => {
    if (config.token) return `Bearer ${config.token}`;
    if (config.username !== undefined && config.password !== undefined)
      return `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`;
    if (config.exec) {
      if (refresh || !execToken || (execToken.expiresAt !== undefined && execToken.expiresAt <= Date.now())) {
        execToken = await execCredential(config.exec, config);
      }
      return execToken.token ? `Bearer ${execToken.token}` : undefined;
    }
    return undefined;
  };
  return clientOn(config, transport, authorization, !!config.exec, opts);
}

/** A client over a transport; clients made with withCredentials share it, and only the first closes it. */
function clientOn(config: ClientConfig, transport: Transport, authorization: CredentialSource, retryUnauthorized: boolean,
  opts: ClientOptions, owner = true): Client {
  const base = new URL(config.server);
  const limiter = tokenBucket(opts.qps ?? 50, opts.burst ?? 100);
  const timeoutMs = opts.timeoutMs ?? 60_000;

  const send = async (spec: RequestSpec, streaming: boolean, retried = false, throttled = 0): Promise<Response> => {
    await limiter.take();
    const url = new URL(base.pathname.replace(/\/$/, '') + spec.path, base);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const body = spec.body === undefined ? undefined : typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    if (opts.userAgent) headers['user-agent'] = opts.userAgent;
    if (body !== undefined) headers['content-type'] = spec.contentType ?? 'application/json';
    const auth = await authorization(retried);
    if (auth) headers.authorization = auth;
    const res = await sendRefusable(() => transport.send({ method: spec.method, url, headers, body, signal: spec.signal, timeoutMs: streaming ? undefined : timeoutMs }));
    if (res.statusCode === 401 && retryUnauthorized && !retried) {
      res.destroy();
      return send(spec, streaming, true, throttled);
    }
    // the server did not take the request: try again after the delay it asks for, as the reference client does
    if (res.statusCode === 429 && throttled < maxThrottledRetries) {
      res.destroy();
      const seconds = Number(res.headers['retry-after']);
      await new Promise((r) => setTimeout(r, (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000));
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
    withCredentials: (credentials, o = opts) => clientOn(config, transport, credentials, true, o, false),
    withLimits: (o) => clientOn(config, transport, authorization, retryUnauthorized, { ...opts, ...o }, false),
    close: () => { if (owner) transport.close(); },
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
  send(r: { method: string; url: URL; headers: Record<string, string>; body?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<Response>;
  close(): void;
}

/**
 * HTTPS goes over one HTTP/2 connection, as the reference client does: every request and watch is a
 * stream of it, so a process with many watches (one per simulated node) holds a single TLS session.
 */
function http2Transport(base: URL, config: ClientConfig): Transport {
  let session: ClientHttp2Session | undefined;
  const connectOptions = {
    ca: config.caPem, cert: config.certPem, key: config.keyPem, servername: config.tlsServerName,
    rejectUnauthorized: !config.insecureSkipTLSVerify,
    settings: { initialWindowSize: 4 * 2 ** 20 },
  };
  let closed = false;
  const open = (): ClientHttp2Session => {
    // a closed client opens no new connection (a late request would keep the server from closing)
    if (closed) throw new Error(`the client of ${base.origin} is closed`);
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2Connect(base.origin, connectOptions);
    s.on('error', () => {}); // failures reach the streams; the next request reconnects
    s.on('close', () => { if (session === s) session = undefined; });
    s.on('goaway', () => { if (session === s) session = undefined; });
    s.on('connect', () => s.setLocalWindowSize(32 * 2 ** 20));
    session = s;
    return s;
  };
  return {
    send({ method, url, headers, body, signal, timeoutMs }) {
      return new Promise<Response>((resolve, reject) => {
        let stream: ClientHttp2Stream;
        try {
          stream = open().request({ ':method': method, ':path': url.pathname + url.search, ...headers }, { endStream: body === undefined, signal });
        } catch (e) {
          return reject(e);
        }
        stream.on('error', reject);
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
      session?.close();
      session?.destroy();
      session = undefined;
    },
  };
}

/** Plain HTTP (a server without TLS) goes over HTTP/1.1 with kept-alive connections. */
function http1Transport(): Transport {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 64 });
  return {
    send({ method, url, headers, body, signal, timeoutMs }) {
      return new Promise<Response>((resolve, reject) => {
        const h = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
        const req = httpRequest(url, { method, headers: h, agent, signal }, (res) =>
          resolve(res as unknown as Response));
        req.on('error', reject);
        if (timeoutMs) req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${timeoutMs} ms`)));
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** `/api/v1/namespaces/ns/pods/name/status` and the like */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const root = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const item = name !== undefined ? `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}` : '';
  return `${root}${ns}/${ref.resource}${item}`;
}

function resourceClient<T>(client: Client, ref: ResourceRef, namespace?: string): ResourceClient<T> {
  const path = (name?: string, sub?: string) => resourcePath(ref, namespace, name, sub);
  const nameOf = (obj: any): string => {
    const name = obj?.metadata?.name;
    if (!name) throw new Error(`${ref.resource}: the object has no metadata.name`);
    return name;
  };
  const writeQuery = (o?: WriteOptions) => ({ fieldManager: o?.fieldManager, dryRun: o?.dryRun ? 'All' : undefined, force: o?.force });
  const patch = (sub?: string) => (name: string, body: unknown, type: PatchType = 'merge', o?: WriteOptions) =>
    client.request<T>({ method: 'PATCH', path: path(name, sub), body: type === 'apply' && typeof body !== 'string' ? JSON.stringify(body) : body, contentType: patchTypes[type], query: writeQuery(o) });
  const update = (sub?: string) => (obj: T, o?: WriteOptions) =>
    client.request<T>({ method: 'PUT', path: path(nameOf(obj), sub), body: obj, query: writeQuery(o) });

  const status = { update: update('status'), patch: patch('status') };
  return {
    get: (name) => client.request<T>({ method: 'GET', path: path(name) }),
    list: (o = {}) => client.request({ method: 'GET', path: path(), query: { ...o } }),
    create: (obj, o) => client.request<T>({ method: 'POST', path: path(), body: obj, query: writeQuery(o) }),
    update: update(),
    updateStatus: status.update,
    patch: patch(),
    patchStatus: status.patch,
    delete: (name, o = {}) =>
      client.request<T>({ method: 'DELETE', path: path(name), body: { kind: 'DeleteOptions', apiVersion: 'v1', ...o } }),
    watch: (o = {}) => watchStream<T>(client, path(), o),
    status,
  };
}

async function* watchStream<T>(client: Client, path: string, o: WatchOptions): AsyncIterable<WatchEvent<T>> {
  const { signal, ...query } = o;
  const res = await client.stream({ method: 'GET', path, query: { ...query, watch: 'true' }, signal });
  const abort = () => res.destroy();
  signal?.addEventListener('abort', abort);
  let rest = '';
  try {
    for await (const chunk of res) {
      rest += chunk.toString('utf8');
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl).trim();
        rest = rest.slice(nl + 1);
        if (!line) continue;
        const event = JSON.parse(line) as WatchEvent<T>;
        if (event.type === 'ERROR') throw statusError(event.object as any);
        yield event;
      }
    }
  } catch (e) {
    if (signal?.aborted) return;
    throw e;
  } finally {
    signal?.removeEventListener('abort', abort);
    res.destroy();
  }
}

function statusError(status: any): ApiError {
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

async function readAll(res: Response): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads the client-configuration file and makes a client of it. */
export async function clientFromFile(path: string, opts: ClientOptions & { context?: string } = {}): Promise<Client> {
  return createClient(await loadClientConfig(path, { context: opts.context }), opts);
}
