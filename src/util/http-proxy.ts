// Forwards one HTTP request to another server, as the API server does to the node agents and pods and the agent
// does to the runtime's streaming server: a plain request with its body, or an upgrade (SPDY, WebSocket) whose
// connection is then passed through byte for byte. The callers decide what a refusal or an error becomes.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Duplex, Readable } from 'node:stream';

export interface ProxyTarget {
  /** http: or https: */
  url: URL;
  /** client certificate and trust for https targets; without `ca` and with rejectUnauthorized false, any certificate */
  tls?: { certPem?: string; keyPem?: string; caPem?: string; rejectUnauthorized: boolean; servername?: string };
  /** how long connecting may take, in ms (0 or absent: the system's) */
  timeoutMs?: number;
}

/** headers that belong to one connection and are never passed on */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'http2-settings']);

/**
 * The request's headers fit to pass on: no hop-by-hop or HTTP/2 pseudo headers, none the connection names, and none
 * of `drop` (credentials meant for this server).
 */
export function forwardedHeaders(headers: IncomingHttpHeaders, drop: (name: string) => boolean = () => false): OutgoingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map(s => s.trim()).filter(Boolean));
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (v === undefined || name.startsWith(':') || hopByHop.has(name) || named.has(name) || drop(name)) continue;
    out[name] = v;
  }
  return out;
}

/** the response's headers fit to pass back */
export function responseHeaders(res: IncomingMessage): OutgoingHttpHeaders {
  return forwardedHeaders(res.headers);
}

/** TLS contexts by trust, certificate and key: building one parses the PEMs (a few hundred microseconds), which per
 *  request was 7% of the API server's time with 1,000 nodes whose statistics are scraped through it. A handful of
 *  credentials is in use at a time; past a bound the table starts again */
const contexts = new Map<string, SecureContext>();
function secureContext(ca?: string, cert?: string, key?: string): SecureContext {
  const id = `${ca ?? ''}\0${cert ?? ''}\0${key ?? ''}`;
  let context = contexts.get(id);
  if (!context) {
    if (contexts.size >= 64) contexts.clear();
    contexts.set(id, (context = createSecureContext({ ca, cert, key })));
  }
  return context;
}

function open(target: ProxyTarget, method: string, headers: OutgoingHttpHeaders) {
  const u = target.url;
  const tls = u.protocol === 'https:' ? {
    secureContext: secureContext(target.tls?.caPem, target.tls?.certPem, target.tls?.keyPem),
    rejectUnauthorized: target.tls?.rejectUnauthorized ?? false,
    // the name the certificate is checked against: the one given (a Service's), else the host's unless it is an address
    servername: target.tls?.servername ?? (/^[\d.:[\]]+$/.test(u.hostname) ? undefined : u.hostname),
  } : {};
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)({
    host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port || (u.protocol === 'https:' ? 443 : 80), path: `${u.pathname}${u.search}`,
    method, headers: { ...headers, host: u.host }, agent: false, ...tls,
  });
  if (target.timeoutMs) {
    // the limit is on connecting; an answer may take as long as it takes (logs followed, a long exec)
    const timer = setTimeout(() => req.destroy(new Error(`timed out connecting to ${u.host} after ${target.timeoutMs}ms`)), target.timeoutMs);
    req.once('socket', s => s.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer)));
    req.once('close', () => clearTimeout(timer));
  }
  return req;
}

/** sends a plain request with its body; resolves with the answer's head, its body still to read */
export function forwardRequest(target: ProxyTarget, method: string, headers: OutgoingHttpHeaders, body: Readable | undefined, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = open(target, method, headers);
    req.once('response', resolve);
    req.once('error', reject);
    // a target switching protocols for a request that asked for none has its connection cut by the HTTP client with
    // neither an answer nor an error: without these the request would wait for ever
    req.once('upgrade', (res: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      reject(new Error(`the target switched protocols (to ${JSON.stringify(res.headers.upgrade ?? '')}) for a request that asked for none`));
    });
    req.once('close', () => reject(new Error('the connection closed before an answer came')));
    signal?.addEventListener('abort', () => req.destroy(), { once: true });
    if (body && method !== 'GET' && method !== 'HEAD') body.pipe(req);
    else req.end();
  });
}

export type UpgradeOutcome =
  /** the target switched protocols: the connection was passed through until either side closed it */
  | { upgraded: true }
  /** the target answered without switching: its answer, for the caller to send */
  | { upgraded: false; response: IncomingMessage };

/**
 * Sends an upgrade request and, when the target switches protocols, writes its 101 answer to the client's socket and
 * joins the two connections; resolves when they close (or at once with a refusal).
 */
export function forwardUpgrade(target: ProxyTarget, method: string, headers: OutgoingHttpHeaders, upgrade: string,
  client: { socket: Duplex; head: Buffer }, onSwitch?: () => void): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const req = open(target, method, { ...headers, connection: 'Upgrade', upgrade });
    let answered = false;
    // a client gone while the target is still to answer: the target's connection is not wanted any more
    const clientGone = () => req.destroy(new Error('the client closed its connection'));
    if (client.socket.destroyed) clientGone();
    else client.socket.once('close', clientGone);
    req.once('error', reject);
    req.once('response', response => { answered = true; resolve({ upgraded: false, response }); });
    req.once('close', () => { client.socket.off('close', clientGone); if (!answered) reject(new Error('the connection closed before an answer came')); });
    req.once('upgrade', (res: IncomingMessage, backend: Duplex, backendHead: Buffer) => {
      answered = true;
      const lines = [`HTTP/1.1 101 ${res.statusMessage || 'Switching Protocols'}`];
      for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      client.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      onSwitch?.();
      if (backendHead.length) client.socket.write(backendHead);
      if (client.head.length) backend.write(client.head);
      join(client.socket, backend).then(() => resolve({ upgraded: true }));
    });
    req.end();
  });
}

/**
 * pipes two connections into each other; resolves when both are gone. Once either side ends, what it sent still goes
 * out, then both close, as the reference's proxy closes an upgraded connection when one of its halves is done (a side
 * left half open would otherwise hold the tunnel, and the request, open for as long as the other lasts)
 */
export function join(a: Duplex, b: Duplex): Promise<void> {
  return new Promise(resolve => {
    // a side already gone has no close to come: the other is closed now
    if (a.destroyed || b.destroyed) { a.destroy(); b.destroy(); resolve(); return; }
    let open = 2;
    const done = () => { if (--open === 0) resolve(); };
    const closeBoth = () => { a.destroy(); b.destroy(); };
    for (const [from, to] of [[a, b], [b, a]] as const) {
      from.pipe(to);
      from.once('error', () => to.destroy());
      from.once('end', () => { if (to.writableFinished) closeBoth(); else to.once('finish', closeBoth); });
      // a connection cut without an orderly end cuts the other
      from.once('close', () => { if (!from.readableEnded) to.destroy(); done(); });
    }
  });
}
