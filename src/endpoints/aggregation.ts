// The aggregation proxy: requests for a group version an APIService hands to a backend server go there over HTTPS,
// streamed both ways (watches included), upgrades (SPDY, WebSocket) passed through once the backend switches
// protocols, with the front-proxy identity: this server's proxy client certificate
// and the requesting user in the request-header headers the backend trusts. The same client probes a backend for
// the availability check and fetches its discovery and OpenAPI documents.
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { APIService } from '../api/types/apiregistration-v1.js';
import { serviceHostName, type BackendAddress } from '../api/apiservices.js';
import type { RequestContext } from '../api/request.js';
import type { UserInfo } from '../api/auth.js';
import { methodNotSupported, serviceUnavailable, timeout } from '../api/status.js';
import { forwardUpgrade, responseHeaders } from '../util/http-proxy.js';
import { boundedChunks, settledWithin } from '../util/bounded-body.js';
import type { ApiServiceLookup } from '../registry/resources/apiregistration/apiservices/lookup.js';

/** the client certificate this server shows a backend, and the headers it names the user in */
export interface FrontProxyIdentity {
  certPem: string;
  keyPem: string;
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface BackendResponse { status: number; headers: IncomingMessage['headers']; body: Buffer }

/** headers that belong to one connection, never passed on */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host',
  'http2-settings', 'proxy-authorization', 'proxy-authenticate']);

/** the TLS settings of a backend: its CA bundle, or no verification when the APIService asks for none */
function tlsOptions(a: APIService, identity: FrontProxyIdentity): RequestOptions {
  const ref = a.spec!.service!;
  const ca = a.spec?.caBundle ? Buffer.from(a.spec.caBundle, 'base64').toString('utf8') : undefined;
  return {
    cert: identity.certPem, key: identity.keyPem, ca, rejectUnauthorized: !a.spec?.insecureSkipTLSVerify,
    // the serving certificate is checked against the Service's name, as the reference does
    servername: serviceHostName(ref),
  };
}

/** the user as the request-header headers carry it */
function userHeaders(user: UserInfo | undefined, identity: FrontProxyIdentity): OutgoingHttpHeaders {
  if (!user) return {};
  const out: OutgoingHttpHeaders = { [identity.usernameHeaders[0] ?? 'X-Remote-User']: user.username };
  if (user.groups?.length) out[identity.groupHeaders[0] ?? 'X-Remote-Group'] = user.groups;
  const prefix = identity.extraHeaderPrefixes[0] ?? 'X-Remote-Extra-';
  for (const [k, vs] of Object.entries(user.extra ?? {})) out[`${prefix}${encodeURIComponent(k)}`] = vs;
  return out;
}

export interface Aggregator {
  /** proxies a request for a remote group version; false when no APIService hands the path to a backend */
  handle(ctx: RequestContext): Promise<boolean>;
  /** one request of this server's own to a backend (the availability check, discovery, OpenAPI) */
  fetch(a: APIService, path: string, timeoutMs: number): Promise<BackendResponse>;
}

/** what a client gets instead of a backend's redirect (--aggregator-reject-forwarding-redirect), as the reference answers */
export const forwardingRedirectRefused = 'the backend attempted to redirect this request, which is not permitted';

/** a redirect a backend answered with, which the proxy does not pass on when so configured */
const isRedirect = (status: number | undefined, headers: IncomingMessage['headers']) =>
  status !== undefined && status >= 300 && status <= 399 && !!headers.location;

/** answers a refused redirect: a 502 in plain text, the backend's answer dropped */
function refuseRedirect(ctx: RequestContext, backend: IncomingMessage): void {
  backend.resume();
  ctx.res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(forwardingRedirectRefused) });
  ctx.res.end(forwardingRedirectRefused);
}

export function aggregator(lookup: ApiServiceLookup, identity: () => FrontProxyIdentity,
  opts: { rejectForwardingRedirect?: boolean; openapiV3Here?: (a: APIService) => boolean } = {}): Aggregator {
  const rejectRedirects = opts.rejectForwardingRedirect ?? true;
  const target = (a: APIService): Extract<BackendAddress, { ok: true }> => {
    const address = lookup.address(a);
    if (!address.ok) throw serviceUnavailable(address.message);
    return address;
  };

  /** the APIService a path belongs to: /apis/<group>/<version>[/...] and its OpenAPI v3 document */
  const remoteOf = (path: string) => {
    const m = /^\/(?:openapi\/v3\/)?apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(path);
    return m ? lookup.remote(m[1], m[2]) : undefined;
  };

  return {
    async handle(ctx) {
      const a = remoteOf(ctx.path);
      if (!a) return false;
      // a backend without OpenAPI v3 documents: this server answers its group version's, converted from its v2 one
      if (ctx.path.startsWith('/openapi/v3/') && opts.openapiV3Here?.(a)) return false;
      if (lookup.available(a)?.status !== 'True')
        throw serviceUnavailable(`the server is currently unable to handle the request (APIService ${a.metadata?.name} is not available)`);
      // a CONNECT is not passed on: Node's client would wait for a tunnel, and no API server serves the method
      if (ctx.method === 'CONNECT') throw methodNotSupported(ctx.path, ctx.method);
      const { host, port } = target(a);
      const headers: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(ctx.headers)) {
        if (k.startsWith(':') || hopByHop.has(k) || k === 'authorization' || k.startsWith('impersonate-')) continue;
        if ([...identity().usernameHeaders, ...identity().groupHeaders].some(h => h.toLowerCase() === k)) continue;
        if (identity().extraHeaderPrefixes.some(p => k.startsWith(p.toLowerCase()))) continue;
        headers[k] = v;
      }
      Object.assign(headers, userHeaders(ctx.user, identity()));
      // the client's address is added to those it came through, as the reference's proxy adds it: a backend's own audit
      // names the client, not this server
      const client = (ctx.req.socket?.remoteAddress ?? '').replace(/^::ffff:/, '');
      if (client) headers['x-forwarded-for'] = [ctx.headers['x-forwarded-for'], client].flat().filter(Boolean).join(', ');
      const query = ctx.query.toString();
      const upgrade = ctx.upgrade && String(ctx.headers.upgrade ?? '');
      if (upgrade && ctx.upgrade) {
        const tls = tlsOptions(a, identity());
        const target = {
          url: new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}${ctx.path}${query ? `?${query}` : ''}`),
          tls: { certPem: identity().certPem, keyPem: identity().keyPem, caPem: tls.ca as string | undefined, rejectUnauthorized: !!tls.rejectUnauthorized, servername: tls.servername },
          timeoutMs: 30_000,
        };
        const outcome = await forwardUpgrade(target, ctx.method, headers, upgrade, ctx.upgrade)
          .catch(e => { throw serviceUnavailable(`error trying to reach service: ${(e as Error).message}`); });
        // a backend that answers without switching protocols: its answer goes back as it is
        if (!outcome.upgraded) {
          if (rejectRedirects && isRedirect(outcome.response.statusCode, outcome.response.headers)) { refuseRedirect(ctx, outcome.response); return true; }
          ctx.res.writeHead(outcome.response.statusCode ?? 502, responseHeaders(outcome.response));
          await new Promise<void>(resolve => {
            outcome.response.pipe(ctx.res as unknown as NodeJS.WritableStream);
            outcome.response.once('end', resolve).once('error', () => { ctx.res.end(); resolve(); });
          });
        }
        return true;
      }
      await new Promise<void>((settled, failed) => {
        // the request's time limit holds for a backend as for this server's own handlers: one that has not answered in
        // time gets the reference's 504 (the answer is cut when it had begun), and the backend's request is cancelled
        const timer = ctx.deadline === undefined ? undefined : setTimeout(() => {
          upstream.destroy();
          if (ctx.res.headersSent) { ctx.res.destroy(); resolve(); return; }
          reject(timeout('Timeout: request did not complete within requested timeout - context deadline exceeded', 0));
        }, Math.max(0, ctx.deadline - Date.now()));
        const resolve = () => { clearTimeout(timer); settled(); };
        const reject = (e: unknown) => { clearTimeout(timer); failed(e); };
        const upstream = httpsRequest({
          host, port, method: ctx.method, path: `${ctx.path}${query ? `?${query}` : ''}`, headers, ...tlsOptions(a, identity()),
        }, res => {
          if (rejectRedirects && isRedirect(res.statusCode, res.headers)) { refuseRedirect(ctx, res); res.once('end', () => resolve()); return; }
          const out: OutgoingHttpHeaders = {};
          for (const [k, v] of Object.entries(res.headers)) if (!hopByHop.has(k) && v !== undefined) out[k] = v;
          ctx.res.writeHead(res.statusCode ?? 502, out);
          // a watch's events reach the client as they come, at the pace it reads them
          ctx.res.flushHeaders?.();
          res.pipe(ctx.res as unknown as NodeJS.WritableStream);
          res.on('end', () => resolve());
          res.on('error', () => { ctx.res.end(); resolve(); });
        });
        upstream.on('error', e => {
          if (ctx.res.headersSent) { ctx.res.end(); resolve(); return; }
          reject(serviceUnavailable(`error trying to reach service: ${e.message}`));
        });
        ctx.res.on('close', () => { upstream.destroy(); resolve(); });
        // a client gone before the request went upstream (its close has fired already) is not served
        if (ctx.signal.aborted) { upstream.destroy(); resolve(); }
        ctx.req.on('data', (chunk: Buffer) => upstream.write(chunk));
        ctx.req.on('end', () => upstream.end());
        if (ctx.req.readableEnded) upstream.end();
      });
      return true;
    },

    fetch(a, path, timeoutMs) {
      const { host, port } = target(a);
      // the whole answer within the time, not only each piece of it: a backend that trickles its document would
      // otherwise hold the availability checks of every APIService, which wait for each other
      const call = settledWithin<BackendResponse>(timeoutMs, `no complete response within ${timeoutMs / 1000}s`, e => req.destroy(e));
      const req = httpsRequest({
        host, port, method: 'GET', path, headers: { accept: 'application/json', ...userHeaders({ username: 'system:kube-aggregator', groups: ['system:masters'] }, identity()) },
        ...tlsOptions(a, identity()), timeout: timeoutMs,
      }, res => {
        // a discovery or OpenAPI document has a bound: a backend cannot make this server hold more
        const chunks = boundedChunks(res);
        res.on('end', () => call.resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', call.reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs / 1000}s`)));
      req.on('error', call.reject);
      req.end();
      return call.promise;
    },
  };
}
