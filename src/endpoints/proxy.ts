// The one proxy of connect subresources: the request goes to the target a resource's handler named (a node agent,
// a pod, a service's endpoint). Plain requests are streamed both ways; upgrade requests (exec, attach,
// port-forward over SPDY or WebSocket) are passed through once the target switches protocols. Upgrades need
// HTTP/1.1, as with the reference: an HTTP/2 request for a subresource that must upgrade is refused.
import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '../api/request.js';
import { ApiError, badRequest, serviceUnavailable, statusBody } from '../api/status.js';
import type { ConnectTarget } from '../registry/types.js';
import { forwardedHeaders, forwardRequest, forwardUpgrade, responseHeaders } from '../util/http-proxy.js';
import { setWarnings } from './respond.js';

/** an error text of a target is read up to this many bytes */
const maxErrorBytes = 64 * 1024;

/** credentials meant for this server stay here; the target gets the server's own */
const ownHeader = (name: string) => name === 'authorization' || name.startsWith('impersonate-');

const reasons: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 429: 'TooManyRequests', 503: 'ServiceUnavailable' };

export async function proxy(ctx: RequestContext, target: ConnectTarget): Promise<void> {
  const upgrade = ctx.upgrade && String(ctx.headers.upgrade ?? '');
  if (target.upgradeRequired && !upgrade) throw badRequest('Upgrade request required');
  const headers = forwardedHeaders(ctx.headers, ownHeader);
  const unreachable = (e: Error) => serviceUnavailable(`error trying to reach ${target.url.host}: ${e.message}`);
  if (upgrade && ctx.upgrade) {
    const outcome = await forwardUpgrade(target, ctx.method, headers, upgrade, ctx.upgrade, () => ctx.audit?.switchedProtocols())
      .catch(e => { throw unreachable(e); });
    if (!outcome.upgraded) await relay(ctx, outcome.response, target);
    return;
  }
  const response = await forwardRequest(target, ctx.method, headers, ctx.req as unknown as IncomingMessage, ctx.signal).catch(e => { throw unreachable(e); });
  await relay(ctx, response, target);
}

/** the target's answer, sent on: as it is, or as a Status when the target refused and the handler asked for that */
async function relay(ctx: RequestContext, response: IncomingMessage, target: ConnectTarget) {
  const code = response.statusCode ?? 502;
  if (target.errorsAsStatus && (code < 200 || code > 299)) {
    let text = '';
    for await (const chunk of response) {
      text += chunk;
      if (text.length > maxErrorBytes) { response.destroy(); break; }
    }
    throw new ApiError(statusBody(code, reasons[code] ?? 'InternalError', text.trim() || `the node answered ${code}`));
  }
  setWarnings(ctx);
  const res = ctx.res;
  for (const [k, v] of Object.entries(responseHeaders(response))) if (v !== undefined) res.setHeader(k, v);
  res.writeHead(code);
  if (typeof (res as { flushHeaders?: () => void }).flushHeaders === 'function') res.flushHeaders();
  await new Promise<void>(resolve => {
    response.pipe(res);
    response.once('end', resolve);
    response.once('error', () => { res.destroy(); resolve(); });
    res.once('close', () => { response.destroy(); resolve(); });
  });
}
