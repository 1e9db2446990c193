// One AdmissionReview call: the review sent, the HTTPS POST with the configuration's CA bundle and timeout,
// and the checks on the answer. A failure to get a usable answer is a CallError, which failurePolicy decides on.
import { request as httpsRequest, Agent } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { openStream } from '../../util/node-http2.js';
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import { randomUUID } from 'node:crypto';
import type { ApiObject } from '../../api/meta.js';
import type { Naming } from '../../api/naming.js';
import type { WebhookClientConfig } from '../../api/types/admissionregistration-v1.js';
import { serviceHostName, serviceTarget, serviceUrl, type ServiceRef, type ServiceResolver } from '../../api/apiservices.js';
import { type AdmissionAttributes, type GroupVersionKind, admissionReviewVersions } from '../../api/admission.js';
import type { Webhook } from './match.js';
import { boundedChunks } from '../../util/bounded-body.js';
import { httpFailure } from '../../util/http-failure.js';
import type { CredentialsFor, WebhookCredentials } from './credentials.js';

/** the webhook could not be asked, or its answer was unusable: failurePolicy applies */
export class CallError extends Error {
  constructor(webhook: string, reason: string) {
    super(`failed calling webhook "${webhook}": ${reason}`);
    this.name = 'CallError';
  }
}

export interface AdmissionResponse {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string; details?: unknown; status?: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** a webhook's answer as it was parsed: nothing in it is checked yet */
interface AdmissionReviewAnswer {
  apiVersion?: unknown;
  kind?: unknown;
  response?: { [field in keyof AdmissionResponse | 'uid']?: unknown };
}

/** what the review says about the request, at the version of the resource the webhook registered for */
export interface ReviewTarget {
  version: string;
  /** the kind of the objects sent at that version */
  kind: GroupVersionKind;
  object?: ApiObject;
  oldObject?: ApiObject;
}

export function reviewRequest(a: AdmissionAttributes, t: ReviewTarget, names: Naming) {
  const optionsKind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: '' }[a.operation];
  return {
    uid: randomUUID(),
    kind: { group: t.kind.group, version: t.kind.version, kind: t.kind.kind },
    resource: { group: a.group, version: t.version, resource: a.resource },
    ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: { group: a.kind.group, version: a.kind.version, kind: a.kind.kind },
    requestResource: { group: a.group, version: a.version, resource: a.resource },
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: userInfo(a.user),
    object: t.object ?? null,
    oldObject: t.oldObject ?? null,
    dryRun: a.dryRun,
    options: optionsKind
      ? { kind: optionsKind, apiVersion: `${names.metaGroup}/v1`, ...(a.dryRun ? { dryRun: ['All'] } : {}), ...a.options }
      : null,
  };
}

/** the review's userInfo: only the fields the user has */
function userInfo(u: AdmissionAttributes['user']) {
  const info: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } = {};
  if (!u) return info;
  if (u.username) info.username = u.username;
  if (u.uid) info.uid = u.uid;
  if (u.groups?.length) info.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) info.extra = u.extra;
  return info;
}

/** the first AdmissionReview version the webhook lists that this server speaks */
export function reviewVersion(hook: Webhook): string | undefined {
  return (hook.admissionReviewVersions ?? []).find(v => (admissionReviewVersions as readonly string[]).includes(v));
}

/** how this server reaches one webhook origin with one trust bundle: a shared TLS context, a keep-alive agent for
 *  HTTP/1.1, and an HTTP/2 session when the webhook offers it (as the reference's client prefers): its calls share
 *  one connection, and calls made at once go out in one write rather than a write and a TLS record each */
interface Route {
  secureContext?: SecureContext; agent: Agent; h2?: Promise<ClientHttp2Session | undefined>; lastUsed: number;
  /** the name the serving certificate is checked against when it is not the host connected to (a Service's) */
  servername?: string;
  /** the Authorization header of every call (the plugin's credentials for this webhook) */
  authorization?: string;
}

const routes = new Map<string, Route>();

/** each set of credentials has routes of its own: its connections present its client certificate */
const credentialIds = new WeakMap<WebhookCredentials, number>();
let credentialCount = 0;

function routeFor(url: URL, caBundle: string | undefined, servername?: string, credentials?: WebhookCredentials): Route {
  if (credentials && !credentialIds.has(credentials)) credentialIds.set(credentials, ++credentialCount);
  const key = `${url.origin}\u0000${caBundle ?? ''}\u0000${servername ?? ''}\u0000${credentials ? credentialIds.get(credentials) : ''}`;
  let route = routes.get(key);
  if (!route) {
    // building the TLS context once: per connection it costs more than the call
    const { cert, key: privateKey, authorization } = credentials ?? {};
    const secureContext = caBundle || cert ? createSecureContext({
      ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}), ...(cert ? { cert, key: privateKey } : {}),
    }) : undefined;
    route = { secureContext, agent: new Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo', ...(secureContext ? { secureContext } : {}) }),
      lastUsed: 0, servername, authorization };
    routes.set(key, route);
  }
  return route;
}

/** an HTTP/2 session unused this long is closed (checked now and then: a timer on the session itself would be
 *  refreshed on every frame of every call) */
const h2IdleMs = 60_000;

/** an HTTP/2 session to the origin, or undefined when the webhook speaks only HTTP/1.1 (remembered for the route) */
function http2Session(url: URL, route: Route, timeoutMs: number): Promise<ClientHttp2Session | undefined> {
  route.h2 ??= new Promise<ClientHttp2Session | undefined>((resolve, reject) => {
    const socket = tlsConnect({
      host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 443), servername: route.servername ?? (isIP(url.hostname) ? undefined : url.hostname),
      ALPNProtocols: ['h2', 'http/1.1'], ...(route.secureContext ? { secureContext: route.secureContext } : {}),
    });
    // frames go out as they are written: many calls share the connection, and one held back for the acknowledgement
    // of another (Nagle's algorithm) would wait for it
    socket.setNoDelay(true);
    socket.setTimeout(timeoutMs, () => socket.destroy(timeoutError()));
    socket.once('error', e => { route.h2 = undefined; reject(e); });
    socket.once('secureConnect', () => {
      socket.setTimeout(0);
      if (socket.alpnProtocol !== 'h2') { socket.destroy(); resolve(undefined); return; }
      // no server push (a webhook has none to make, and a pushed stream arriving as the session closes meets Node 20's
      // unsafe refusal, see http/server.ts)
      const session = http2Connect(url.origin, { createConnection: () => socket, settings: { enablePush: false } });
      const idle = setInterval(() => { if (Date.now() - route.lastUsed > h2IdleMs) session.close(); }, h2IdleMs / 2).unref();
      const forget = () => { clearInterval(idle); if (route.h2 === current) route.h2 = undefined; };
      session.on('close', forget).on('goaway', forget).on('error', forget);
      session.unref();
      resolve(session);
    });
  });
  const current = route.h2;
  return current;
}

const isIP = (host: string) => /^[\d.]+$/.test(host) || host.includes(':') || host.startsWith('[');

/** the webhook's URL as the reference shows it: its url, or https://<service>.<namespace>.svc:<port><path> */
function webhookUrl(hook: Webhook): string {
  const cc: WebhookClientConfig = hook.clientConfig ?? {};
  if (cc.url) return cc.url;
  return serviceUrl(cc.service ?? {});
}

/** the reference's words for the usual transport failures */
function describe(e: NodeJS.ErrnoException, host: string): string {
  switch (e.code) {
    case 'ECONNREFUSED': return `dial tcp ${host}: connect: connection refused`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT': case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: ${e.message}`;
    default: return e.message;
  }
}

/** what every call of a webhook shares, worked out on its first call (a configuration's webhooks are the same
 *  objects while it is unchanged): its review version, its URL with the timeout the reference adds, and its route
 *  (a webhook behind a Service has its route found at each call, from the Service's endpoints then) */
interface Prepared {
  version: string; apiVersion: string; url: URL; path: string; timeoutMs: number;
  /** the URL as messages show it (a Service's with its port, as the reference writes it) */
  shown: string;
  route?: Route; service?: ServiceRef; caBundle?: string; credentials?: WebhookCredentials;
}
const preparedHooks = new WeakMap<Webhook, Prepared>();

/** the name a webhook's credentials are kept under: its Service's DNS name (with a port other than 443), or its URL's host */
const credentialsName = (url: URL, service?: ServiceRef) =>
  (service ? `${serviceHostName(service)}${service.port && service.port !== 443 ? `:${service.port}` : ''}` : url.host);

function prepare(hook: Webhook, names: Naming, credentialsFor?: CredentialsFor): Prepared {
  let p = preparedHooks.get(hook);
  if (p) return p;
  const version = reviewVersion(hook);
  if (!version)
    throw new CallError(hook.name, `webhook does not accept known AdmissionReview versions: none of ${JSON.stringify(hook.admissionReviewVersions ?? [])} is one of ${admissionReviewVersions.join(', ')}`);
  const timeoutSeconds = hook.timeoutSeconds ?? 10;
  const url = new URL(webhookUrl(hook));
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const caBundle = hook.clientConfig?.caBundle || undefined, service = hook.clientConfig?.url ? undefined : hook.clientConfig?.service;
  const credentials = credentialsFor?.(credentialsName(url, service));
  p = { version, apiVersion: `${names.group('admission')}/${version}`, url, path: `${url.pathname}${url.search}`, timeoutMs: timeoutSeconds * 1000,
    shown: service ? `${serviceUrl(service)}${url.search}` : String(url),
    ...(service ? { service, caBundle, credentials } : { route: routeFor(url, caBundle, undefined, credentials) }) };
  preparedHooks.set(hook, p);
  return p;
}

/** where a call goes: the webhook's URL, or an endpoint of its Service with the certificate checked against the Service's name */
async function target(p: Prepared, hookName: string, resolveService?: ServiceResolver): Promise<{ url: URL; route: Route }> {
  if (p.route) return { url: p.url, route: p.route };
  const to = await serviceTarget(p.service!, resolveService);
  if (!to.ok) throw new CallError(hookName, `failed to call webhook: Post "${p.shown}": ${to.message}`);
  // the query the reference adds (the timeout) goes with it
  to.url.search = p.url.search;
  return { url: to.url, route: routeFor(to.url, p.caBundle, to.servername, p.credentials) };
}

/** the body goes out as the string it was built as: its bytes are written straight from it, with no Buffer copied first */
async function post(url: URL, route: Route, p: Prepared, body: string): Promise<{ status: number; text: string }> {
  route.lastUsed = Date.now();
  const session = await http2Session(url, route, p.timeoutMs);
  return session && !session.closed && !session.destroyed
    ? postHttp2(session, p.path, body, route, p.timeoutMs) : postHttp1(url, body, route, p.timeoutMs);
}

const timeoutError = () => Object.assign(new Error('context deadline exceeded'), { code: 'TIMEOUT' });

/** the answer's text: a review's answer is small and most often arrives in one chunk, which is read without a copy */
const textOf = (chunks: Buffer[]) => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');

function postHttp2(session: ClientHttp2Session, path: string, body: string, route: Route, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const stream = openStream(session, { ':method': 'POST', ':path': path,
      'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(body),
      ...(route.authorization ? { authorization: route.authorization } : {}) });
    const timer = setTimeout(() => stream.destroy(timeoutError()), timeoutMs);
    let status = 0;
    const chunks = boundedChunks(stream);
    stream.on('response', headers => { status = Number(headers[':status'] ?? 0); });
    stream.on('end', () => { clearTimeout(timer); resolve({ status, text: textOf(chunks) }); });
    stream.on('error', e => { clearTimeout(timer); reject(e); });
    stream.end(body);
  });
}

function postHttp1(url: URL, body: string, route: Route, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, {
      method: 'POST', agent: route.agent, ...(route.servername ? { servername: route.servername } : {}),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body),
        ...(route.authorization ? { Authorization: route.authorization } : {}) },
    }, res => {
      const chunks = boundedChunks(res);
      res.on('end', () => { clearTimeout(timer); resolve({ status: res.statusCode ?? 0, text: textOf(chunks) }); });
      res.on('error', e => { clearTimeout(timer); reject(e); });
    });
    const timer = setTimeout(() => req.destroy(timeoutError()), timeoutMs);
    req.on('error', e => { clearTimeout(timer); reject(e); });
    req.end(body);
  });
}

/** the request's objects as JSON, encoded once for all the webhooks that see them at one version */
export interface EncodedObjects { object: string; oldObject: string }

/** the AdmissionReview as sent; objects already encoded are spliced in rather than serialized again */
function reviewText(apiVersion: string, request: ReturnType<typeof reviewRequest>, encoded?: EncodedObjects): string {
  if (!encoded) return JSON.stringify({ kind: 'AdmissionReview', apiVersion, request });
  const { object: _object, oldObject: _oldObject, ...rest } = request;
  const head = JSON.stringify({ kind: 'AdmissionReview', apiVersion, request: rest });
  return `${head.slice(0, -2)},"object":${encoded.object},"oldObject":${encoded.oldObject}}}`;
}

/** POSTs the review and returns the webhook's checked response; `resolveService` finds a Service's endpoint; a
 *  validating webhook (`mutating` false) may not answer with a patch */
export async function callWebhook(hook: Webhook, request: ReturnType<typeof reviewRequest>, names: Naming,
  opts: { encoded?: EncodedObjects; resolveService?: ServiceResolver; credentials?: CredentialsFor; mutating?: boolean } = {}): Promise<AdmissionResponse> {
  const p = prepare(hook, names, opts.credentials);
  const { version, apiVersion, shown } = p;
  const body = reviewText(apiVersion, request, opts.encoded);
  const to = await target(p, hook.name, opts.resolveService);
  let answer: { status: number; text: string };
  try {
    answer = await post(to.url, to.route, p, body);
  } catch (e) {
    throw new CallError(hook.name, `failed to call webhook: Post "${shown}": ${describe(e as NodeJS.ErrnoException, to.url.host)}`);
  }
  if (answer.status < 200 || answer.status > 299) throw new CallError(hook.name, `failed to call webhook: ${httpFailure(answer.status, answer.text)}`);
  let review: AdmissionReviewAnswer | null;
  try { review = JSON.parse(answer.text); } catch (e) {
    throw new CallError(hook.name, `received invalid webhook response: ${(e as Error).message}`);
  }
  const invalid = (why: string) => new CallError(hook.name, `received invalid webhook response: ${why}`);
  if (!review || typeof review !== 'object') throw invalid('the response is not an AdmissionReview');
  const r = review.response;
  if (version === 'v1') {
    if (review.apiVersion !== apiVersion || review.kind !== 'AdmissionReview')
      throw invalid(`expected webhook response of ${apiVersion}, Kind=AdmissionReview, got ${review.apiVersion ?? ''}, Kind=${review.kind ?? ''}`);
    if (!r || typeof r !== 'object') throw invalid('webhook response was absent');
    if (r.uid !== request.uid) throw invalid(`expected response.uid="${request.uid}", got "${r.uid ?? ''}"`);
    if (opts.mutating) {
      if (r.patch && !r.patchType) throw invalid('webhook returned response.patch but not response.patchType');
      if (!r.patch && r.patchType) throw invalid('webhook returned response.patchType but not response.patch');
      if (r.patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
    } else {
      if (r.patch) throw invalid('validating webhook may not return response.patch');
      if (r.patchType !== undefined && r.patchType !== null) throw invalid('validating webhook may not return response.patchType');
    }
    if (r.patchType && r.patchType !== 'JSONPatch') throw new CallError(hook.name, `unsupported patch type "${String(r.patchType)}"`);
  } else if (!r || typeof r !== 'object') {
    throw invalid('webhook response was absent');
  }
  // v1beta1 answers were never checked for their patch type: a mutating webhook's patch is read as a JSON patch,
  // and a validating webhook's is ignored
  const patch = opts.mutating && typeof r.patch === 'string' && r.patch ? r.patch : undefined;
  return {
    allowed: r.allowed === true,
    status: r.status && typeof r.status === 'object' ? r.status as AdmissionResponse['status'] : undefined,
    patch,
    patchType: patch ? 'JSONPatch' : undefined,
    warnings: Array.isArray(r.warnings) ? r.warnings.map(String) : undefined,
    auditAnnotations: r.auditAnnotations && typeof r.auditAnnotations === 'object' ? r.auditAnnotations as Record<string, string> : undefined,
  };
}
