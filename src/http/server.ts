// The HTTPS listener: HTTP/2 and HTTP/1.1 on one port, client certificates requested (the pipeline verifies
// them), one request context per request, and the requests in flight for graceful shutdown.
import { constants as http2Constants, createSecureServer, Http2ServerRequest, type Http2ServerResponse, type Http2Session, type Http2Stream } from 'node:http2';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { asResponse, type RequestContext } from '../api/request.js';
import { preciseNow } from '../api/meta.js';
import { releaseTimer } from '../util/node-http2.js';

/** the reference's HTTP/2 upload buffer per stream: at least 99% of objects fit */
const uploadWindowPerStream = 256 * 1024;
/** the reference sizes a connection's upload buffer for this many streams (its default limit of streams) */
const windowStreams = 250;
/** the reference's limit on a request's header bytes (Go's server refuses past it); Node's own is 16 KiB */
export const maxHeaderBytes = 1024 * 1024;

/** a request's own Audit-ID, used as the reference uses it (its events and the echoed header carry it), when it is one printable token */
const auditIdOf = (v: string | string[] | undefined): string | undefined =>
  (typeof v === 'string' && /^[\x21-\x7e]{1,256}$/.test(v) ? v : undefined);

/**
 * HTTP/2: nghttp2 refuses a stream whose header list passes the limit the server advertises (a reset, no answer), so
 * the advertised limit is twice the one served, and a list between the two is answered 431 as over HTTP/1.1 (and as
 * the reference's HTTP/2 server answers a list past its limit)
 */
const http2HeaderListCeiling = 2 * maxHeaderBytes;
/** HTTP/2 counts headers as well as their bytes: as many as the ceiling can hold at HPACK's 32 bytes of overhead each */
const maxHeaderPairs = http2HeaderListCeiling / 32;

/** an HTTP/2 header list's size as the protocol counts it (names, values and 32 bytes a field; Node reads both as Latin-1) */
function headerListSize(rawHeaders: string[]): number {
  let size = 0;
  for (const h of rawHeaders) size += h.length;
  return size + 16 * rawHeaders.length;
}
/** the reference closes a connection with no request in progress after this long (Go's keep-alive timeout) */
const defaultIdleTimeoutMs = 90_000;
/** the reference's limit on the time to read a request's headers (and, before them, to finish the TLS handshake) */
const defaultHeadersTimeoutMs = 32_000;
/** the reference's HTTP/2 server waits this long for a client's connection preface */
const defaultPrefaceTimeoutMs = 10_000;
/** how long an HTTP/2 PING may go unanswered (Go's HTTP/2 health check waits as long) */
const defaultPingTimeoutMs = 15_000;

export interface Logger { info(msg: string): void; warn(msg: string): void; error(msg: string): void }

export interface HttpsOptions {
  port: number;
  host: string;
  keyPem: string;
  certPem: string;
  /** CAs whose client certificates the handshake accepts */
  clientCaPems: string[];
  /** other certificates, each served to clients asking for one of its names by SNI (exact, or `*.` and one label) */
  sniCertificates?: SniCertificate[];
  /** the oldest TLS version spoken, and the cipher list (OpenSSL's names): Node's defaults when absent */
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
  log: Logger;
  /** a connection with no request in progress is closed after this long (90 s, as the reference) */
  idleTimeoutMs?: number;
  /** an HTTP/1.1 request whose headers have not all come in this long is refused (32 s, as the reference) */
  headersTimeoutMs?: number;
  /** HTTP/2: a connection whose client has not sent its preface (its SETTINGS) this long after the handshake is closed (10 s, as the reference) */
  http2PrefaceTimeoutMs?: number;
  /** HTTP/2: how long a PING sent to a connection quiet for the idle timeout with streams open may go unanswered before the connection is cut (15 s) */
  http2PingTimeoutMs?: number;
  /** HTTP/2: the chance that a request's connection is asked to go (a graceful GOAWAY), so clients spread over servers */
  goawayChance?: number;
  /** HTTP/2: the streams a client may have open at once on one connection; absent or 0: no limit */
  maxConcurrentStreams?: number;
}

export interface SniCertificate { names: string[]; keyPem: string; certPem: string }

/** the certificate for the name a client asks for: an exact name first, then a wildcard, else the default one */
export function sniLookup<T>(entries: readonly { names: readonly string[]; value: T }[], servername: string): T | undefined {
  const name = servername.toLowerCase();
  const wildcard = name.includes('.') ? `*${name.slice(name.indexOf('.'))}` : undefined;
  return entries.find(e => e.names.includes(name))?.value ?? (wildcard ? entries.find(e => e.names.includes(wildcard))?.value : undefined);
}

/** the SNI callback of the listener: each certificate's context made once, with the listener's client CAs and TLS limits */
function sniCallback(o: HttpsOptions): ((servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void) | undefined {
  if (!o.sniCertificates?.length) return undefined;
  const entries = o.sniCertificates.map(c => ({
    names: c.names.map(n => n.toLowerCase()),
    value: createSecureContext({ key: c.keyPem, cert: c.certPem, ca: o.clientCaPems,
      ...(o.minVersion ? { minVersion: o.minVersion } : {}), ...(o.ciphers ? { ciphers: o.ciphers } : {}) }),
  }));
  return (servername, cb) => cb(null, sniLookup(entries, servername));
}

export interface HttpsServer {
  port: number;
  /** requests being served */
  inflight: ReadonlySet<RequestContext>;
  /**
   * stops accepting connections and asks the open ones to go once their requests are answered (a GOAWAY on HTTP/2,
   * the end of the connection after its response on HTTP/1.1); resolves when they are gone
   */
  close(): Promise<void>;
  /** ends the long-running requests as their timeout would: watches end cleanly, proxied streams and tunnels are cut */
  endLongRunning(): void;
  /** cuts every connection that is still open */
  destroy(): void;
}

/** connection-level failures (handshakes, sessions) are logged, at most this many a minute, so a scanner cannot flood the log */
function rateLimitedLog(log: Logger, perMinute = 20) {
  let windowStart = 0, count = 0, dropped = 0;
  return (msg: string) => {
    const now = Date.now();
    if (now - windowStart > 60_000) {
      if (dropped) log.warn(`${dropped} more connection errors in the last minute were not logged`);
      windowStart = now; count = 0; dropped = 0;
    }
    if (++count <= perMinute) log.warn(msg); else dropped++;
  };
}

/**
 * Fails with a clear message when the address cannot be listened on (in use, not this machine's), so that a server
 * checks it before it writes anything; the port is free again when this returns.
 */
export async function checkCanListen(host: string, port: number): Promise<void> {
  const probe = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code === 'EADDRINUSE'
      ? `cannot listen on ${host}:${port}: the address is in use (is another server running? --secure-port chooses another port)`
      : `cannot listen on ${host}:${port}: ${e.message}`)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** the streams a client may have open at once on one HTTP/2 connection unless configured (the reference's default) */
const defaultMaxConcurrentStreams = 250;

export async function listenHttps(o: HttpsOptions, handle: (ctx: RequestContext) => Promise<void>): Promise<HttpsServer> {
  const inflight = new Set<RequestContext>();
  /** how to abort each request in flight (the server's end of long-running ones) */
  const abortOf = new Map<RequestContext, () => void>();
  /** HTTP/1.1 connections with a request in progress, and how many */
  const busy = new Map<TLSSocket, number>();
  let closing: Promise<void> | undefined;
  /** upgraded connections (exec, attach, port-forward tunnels), cut when the server closes */
  const tunnels = new Set<Duplex>();
  const onRequest = (req: Http2ServerRequest, rawRes: Http2ServerResponse, connection?: Duplex, upgrade?: RequestContext['upgrade']) => {
    // the protocol is the connection's: an HTTP/1.1 request line may name any version (HTTP/2.0 among them)
    const http2 = (req as unknown) instanceof Http2ServerRequest;
    if (!http2 && req.httpVersionMajor !== 1) {
      // as the reference's server answers it; the connection closes after it
      rawRes.writeHead(505, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('unsupported protocol version\n');
      return;
    }
    if (http2 && headerListSize(req.rawHeaders) > maxHeaderBytes) {
      rawRes.writeHead(431, { 'content-type': 'text/plain; charset=utf-8' }).end(`request header fields too large: the limit is ${maxHeaderBytes} bytes\n`);
      return;
    }
    const target = requestTarget(req.method, req.url ?? '/');
    // the server as a whole (asterisk form): an empty 200, as the reference's server answers it before any handler
    if (target === '*' && req.method === 'OPTIONS') { rawRes.writeHead(200, { 'content-length': '0' }).end(); return; }
    const res = asResponse(rawRes);
    const qmark = target.indexOf('?');
    let aborter: AbortController | undefined;
    let signal: AbortSignal | undefined;
    let responseClosed = false;
    const ctx: RequestContext = {
      get signal() {
        if (!signal) {
          aborter = new AbortController();
          signal = ctx.deadline ? AbortSignal.any([aborter.signal, AbortSignal.timeout(Math.max(0, ctx.deadline - Date.now()))]) : aborter.signal;
          // first asked for after the client went (a stream of a connection cut while its request waited its turn)
          if (responseClosed) aborter.abort();
        }
        return signal;
      },
      clientGone: () => responseClosed,
      id: auditIdOf(req.headers['audit-id']) ?? randomUUID(), req, res, method: req.method ?? 'GET',
      path: qmark < 0 ? target : target.slice(0, qmark),
      query: new URLSearchParams(qmark < 0 ? '' : target.slice(qmark + 1)),
      headers: req.headers, receivedAt: preciseNow(),
      info: { isResourceRequest: false, path: '', verb: '', apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] },
      warnings: [], longRunning: false, upgrade,
    };
    ctx.info.path = ctx.path;
    res.on('close', () => { responseClosed = true; aborter?.abort(); });
    // an HTTP/2 request whose body is left partly read (refused as too large) while the client is still sending it is
    // reset with NO_ERROR once its answer is out, as the reference's server does: Node's server does so only for a body
    // never read, and otherwise keeps the stream open, the client blocked on its window, for as long as the connection
    // lasts. Only then: a reset jumps ahead of answer frames still waiting for the client's window, so a stream whose
    // client has sent everything (every GET) is never reset, however large its answer
    if (http2 && !connection && !req.stream.endAfterHeaders) {
      const stream = req.stream;
      // on the next turn, as Node does for an unread body: the frame that ends the answer is sent first
      stream.once('finish', () => setImmediate(() => {
        if (!req.complete && !stream.closed && !stream.state?.remoteClose) stream.close(http2Constants.NGHTTP2_NO_ERROR);
      }));
    }
    // a connection chosen to go is closed gracefully: a GOAWAY (NO_ERROR) tells the client to open a new one for its next
    // requests, while the streams it has open, this one included, are served to their end
    if (o.goawayChance && http2 && !connection && Math.random() < o.goawayChance) {
      const session = req.stream.session;
      if (session && !session.closed) session.close();
    }
    inflight.add(ctx);
    abortOf.set(ctx, () => { void ctx.signal; aborter!.abort(); });
    const socket = http2 ? undefined : (req.socket as TLSSocket);
    const pipelined = socket && !connection;
    if (socket) busy.set(socket, (busy.get(socket) ?? 0) + 1);
    if (pipelined && busy.get(socket)! >= maxPipelinedRequests) pauseReading(socket);
    handle(ctx).finally(() => {
      inflight.delete(ctx);
      abortOf.delete(ctx);
      // an upgrade or CONNECT that was neither answered nor passed on leaves no connection behind
      if (connection && !res.writableEnded) connection.destroy();
      if (!socket) return;
      const n = (busy.get(socket) ?? 1) - 1;
      if (n > 0) busy.set(socket, n);
      else { busy.delete(socket); if (closing) socket.end(); }
      if (pipelined && n < maxPipelinedRequests) resumeReading(socket);
    });
  };
  const headersTimeout = o.headersTimeoutMs ?? defaultHeadersTimeoutMs;
  const server = createSecureServer({
    // a connection that does not finish its handshake goes when its headers would be late (Node's default is 120 s)
    handshakeTimeout: headersTimeout,
    allowHTTP1: true, key: o.keyPem, cert: o.certPem, ca: o.clientCaPems, requestCert: true, rejectUnauthorized: false,
    SNICallback: sniCallback(o),
    ...(o.minVersion ? { minVersion: o.minVersion } : {}), ...(o.ciphers ? { ciphers: o.ciphers } : {}),
    // node agents multiplex many streams on one connection; the default 10 MB per session refuses streams under load
    maxSessionMemory: 64,
    // the reference's upload windows: a stream may send 256 KiB unacknowledged (most objects in one go), a connection
    // that times 250 streams; Node's 64 KiB for a whole connection held many writes on one connection to window updates.
    // A client may have 250 streams open at once on a connection, as with the reference, unless asked otherwise
    // (--http2-max-streams-per-connection): each open stream holds memory, and the project's client opens another
    // connection when one is full (an agent carries the watches of many simulated nodes)
    // nghttp2 ends a connection whose header block takes more than 8 CONTINUATION frames: the reference's 256 KiB frames
    // let a client that sizes frames by these settings (Go, once it has them) send 1 MiB; at 16 KiB frames, ~144 KB
    settings: {
      initialWindowSize: uploadWindowPerStream, maxFrameSize: uploadWindowPerStream, maxHeaderListSize: http2HeaderListCeiling,
      maxConcurrentStreams: o.maxConcurrentStreams || defaultMaxConcurrentStreams,
    },
    maxHeaderListPairs: maxHeaderPairs,
  }, onRequest);
  // Expect: 100-continue: the 100 goes out when the body is first read, as the reference's server sends it, so that a
  // request refused on its headers (a body past the limit, no permission) gets its answer alone and the client never
  // sends the body (Node's server would send 100 Continue as soon as the headers are in)
  server.on('checkContinue', (req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | ServerResponse) => {
    continueOnFirstRead(req, res);
    server.emit('request', req, res);
  });
  const idleTimeoutMs = o.idleTimeoutMs ?? defaultIdleTimeoutMs;
  // the HTTP/1.1 side of the server reads these from the server object, as an HTTP/1.1-only server would
  // (the headers timeout is checked every connectionsCheckingInterval; Node's 30 s would let one wait up to twice as long)
  // (and none of a request's headers is dropped for their count, which Node's 2,000 would do: only their bytes are limited)
  Object.assign(server, { maxHeaderSize: maxHeaderBytes, maxHeadersCount: 0, keepAliveTimeout: idleTimeoutMs, headersTimeout, connectionsCheckingInterval: Math.ceil(headersTimeout / 4) });
  // an upgrade request goes through the same pipeline, with a response written straight to its connection for
  // refusals; a proxy that upgrades it takes the connection over. A CONNECT request (which Node's server would
  // otherwise drop unanswered) is answered the same way and never tunnels: no resource serves the CONNECT method,
  // so the answer is a Status (405 on a resource, 404 on another path) and the connection closes after it
  const onConnection = (takeOver: boolean) => (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // sent in one go behind a request still being answered (HTTP/1.1 pipelining), it waits for that answer: the
    // connection takes one response at a time
    const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (answering) {
      socket.pause();
      answering.once('finish', () => setImmediate(() => { if (!socket.destroyed) { socket.resume(); onConnection(takeOver)(req, socket, head); } }));
      answering.once('close', () => { if (!answering.writableFinished) socket.destroy(); });
      return;
    }
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => socket.end());
    tunnels.add(socket);
    socket.once('close', () => tunnels.delete(socket));
    socket.on('error', () => socket.destroy());
    onRequest(req as unknown as Http2ServerRequest, res as unknown as Http2ServerResponse, socket, takeOver ? { socket, head } : undefined);
  };
  server.on('upgrade', onConnection(true));
  const onHttp1Connect = onConnection(false);
  // Node's server hands an HTTP/2 CONNECT stream to this event too, with its request and response
  server.on('connect', (req: IncomingMessage | Http2ServerRequest, socketOrResponse: Duplex | Http2ServerResponse, head: Buffer) =>
    req instanceof Http2ServerRequest ? onRequest(req, socketOrResponse as Http2ServerResponse)
      : onHttp1Connect(req as IncomingMessage, socketOrResponse as Duplex, head));
  const connectionError = rateLimitedLog(o.log);
  server.on('sessionError', (e: Error) => connectionError(`HTTP/2 session error: ${e.message}`));
  server.on('tlsClientError', (e: Error, socket) => connectionError(`TLS handshake error from ${socket.remoteAddress ?? 'unknown'}: ${e.message}`));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => { server.off('error', reject); resolve(); });
  });
  // open connections, so a close does not wait on clients that keep theirs open
  const sessions = new Set<Http2Session>();
  const sockets = new Set<TLSSocket>();
  server.on('session', (s: Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
    closeOnlyOnceGoawaySent(s);
    try { s.setLocalWindowSize(uploadWindowPerStream * windowStreams); } catch { /* closed already */ }
    closeWhenIdle(s, idleTimeoutMs);
    cutWhenUnanswered(s, idleTimeoutMs, o.http2PingTimeoutMs ?? defaultPingTimeoutMs);
    // a client that never sends its preface would otherwise hold the connection for the whole idle timeout
    const preface = setTimeout(() => s.destroy(), o.http2PrefaceTimeoutMs ?? defaultPrefaceTimeoutMs);
    preface.unref();
    s.once('remoteSettings', () => clearTimeout(preface));
    s.once('close', () => clearTimeout(preface));
  });
  server.on('secureConnection', (s: TLSSocket) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  // before Node's HTTP/1.1 side takes the connection: it must read it as a stream, not hand it to its parser natively.
  // Node pauses the parser of a connection whose answer has not drained when the next request comes in; read
  // natively, the TLS layer keeps passing it what it has already decrypted, and the paused parser fails on it
  // (HPE_PAUSED), resetting a keep-alive connection in the middle of a request
  server.prependListener('secureConnection', (s: TLSSocket) => {
    if (s.alpnProtocol === 'h2') return;
    const handle = (s as unknown as { _handle?: { _consumed?: boolean } })._handle;
    if (handle) handle._consumed = true;
  });
  return {
    port: (server.address() as AddressInfo).port,
    inflight,
    close: () => (closing ??= new Promise<void>(resolve => {
      server.close(() => resolve());
      // HTTP/2 sessions finish their open streams and go; HTTP/1.1 connections end after their response (an HTTP/2
      // session's socket is its own to end: a session shows a stand-in for it, never the socket itself)
      for (const s of sessions) s.close();
      for (const s of sockets) if (s.alpnProtocol !== 'h2' && !busy.has(s)) s.end();
    })),
    endLongRunning() {
      for (const ctx of inflight) if (ctx.longRunning) abortOf.get(ctx)?.();
      for (const t of tunnels) t.destroy();
    },
    destroy() {
      for (const s of sessions) s.destroy();
      for (const s of sockets) s.destroy();
      for (const t of tunnels) t.destroy();
    },
  };
}

/** the path and query a request names */
function requestTarget(method: string | undefined, url: string): string {
  if (url.startsWith('/')) return url;
  // a CONNECT to host:port (authority form) names no path, as with the reference
  if (method === 'CONNECT') return '';
  // absolute form (http://host/path?query), which a server must take as the path it names (RFC 9112, 3.2.2)
  const authority = /^https?:\/\/[^/?#]*/i.exec(url);
  if (!authority) return url;
  const rest = url.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Sends a request's 100 Continue when its body is first asked for, if no answer has started by then. An HTTP/1.1
 * connection whose body is never read is closed after the answer: the client may send the body all the same, and
 * the connection cannot serve another request until it has been read
 */
function continueOnFirstRead(req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | ServerResponse) {
  const http1 = res instanceof ServerResponse ? res : undefined;
  const keepAlive = http1?.shouldKeepAlive;
  if (http1) http1.shouldKeepAlive = false;
  const read = req._read;
  req._read = function (size: number) {
    req._read = read;
    if (!res.headersSent) {
      res.writeContinue();
      if (http1) http1.shouldKeepAlive = keepAlive!;
    }
    return read.call(this, size);
  };
}

/**
 * Makes every graceful close of the session, Node's own included, send its GOAWAY before the session counts as closed.
 * Node 20 marks a session closed as soon as a GOAWAY is queued, and refuses a stream that opens before that GOAWAY is on
 * the wire with a reset sent from within nghttp2's reading of the stream; the reset re-enters nghttp2, which frees the
 * stream it is still reading, and the process later aborts on a corrupted heap. A close called while frames are read
 * opens that window: Node's own, on a client's GOAWAY sent with more requests behind it, and ours, from a request
 * handler (--goaway-chance). Here the GOAWAY goes out from outside any read (a stream opened before it is out is served,
 * or refused by nghttp2 itself once it is), and the session is marked closed, to go once its streams end, only when
 * nothing is left queued to send.
 */
function closeOnlyOnceGoawaySent(session: Http2Session) {
  const markClosed = session.close.bind(session);
  let going = false;
  session.close = (callback?: () => void) => {
    if (session.closed || session.destroyed) return;
    if (callback) session.once('close', callback);
    if (going) return;
    going = true;
    setImmediate(() => {
      if (session.destroyed) return;
      session.goaway(http2Constants.NGHTTP2_NO_ERROR);
      const closeWhenSent = () => {
        if (session.closed || session.destroyed) return;
        if ((session.state.outboundQueueSize ?? 0) === 0) markClosed();
        else setTimeout(closeWhenSent, 10).unref();
      };
      setImmediate(closeWhenSent);
    });
  };
}

/**
 * Closes an HTTP/2 connection (a GOAWAY) once it has had no open stream for `idleMs`. Node's own session timeout
 * counts any quiet time, which would cut a watch that waits for events; the reference counts only time without streams.
 */
function closeWhenIdle(session: Http2Session, idleMs: number) {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), idleMs);
    timer.unref();
  };
  arm();
  session.on('stream', (stream: Http2Stream) => {
    if (open++ === 0) clearTimeout(timer);
    stream.once('close', () => { if (--open === 0 && !session.closed) arm(); });
  });
  session.once('close', () => clearTimeout(timer));
}

/**
 * Cuts an HTTP/2 connection that has been quiet for `quietMs` and then leaves a PING unanswered for `answerMs`. A
 * frame that breaks the protocol for the whole connection (a stream made to depend on itself, padding longer than
 * its frame) arriving behind a request makes nghttp2 send a GOAWAY and stop reading, and Node 20 neither closes the
 * session nor tells it: the request's stream never ends, so the session never counts as idle, no graceful close
 * ever completes, and the connection (its socket, its memory) stays held after the client has gone, since nobody
 * reads it any more. Such a session sends no PING and reads no answer; a live client answers one (every HTTP/2
 * implementation does) however quiet its streams, a watch waiting for events among them.
 */
function cutWhenUnanswered(session: Http2Session, quietMs: number, answerMs: number) {
  let waiting: NodeJS.Timeout | undefined;
  session.setTimeout(quietMs, () => {
    if (waiting || session.destroyed) return;
    waiting = setTimeout(() => session.destroy(), answerMs);
    waiting.unref();
    const answered = (err: Error | null) => {
      clearTimeout(waiting);
      waiting = undefined;
      if (err && !session.destroyed) session.destroy();
    };
    try { if (!session.ping(answered)) session.destroy(); } catch { session.destroy(); }
  });
  session.once('close', () => {
    clearTimeout(waiting);
    releaseTimer(session);
  });
}

/**
 * HTTP/1.1 requests one connection may have in progress at once (pipelined, sent without waiting for answers): past
 * it the connection is not read until some are answered and their answers taken by the client. A client that sends
 * requests by the thousand in one go and reads nothing back would otherwise have them all served at once, their
 * answers held in memory (the reference's server reads a connection's next request only once it has answered one)
 */
const maxPipelinedRequests = 16;
/** connections this server stopped reading for their pipelined requests, and whether one waits for its writes to drain */
const pausedForPipelining = new WeakMap<TLSSocket, { draining: boolean }>();

/**
 * Stops reading the connection until `resumeReading`. Node's server would read it again on its own (as a request's
 * body is read or passed over, as answers queued behind another are written out): that resume waits too
 */
function pauseReading(socket: TLSSocket) {
  if (pausedForPipelining.has(socket)) return;
  pausedForPipelining.set(socket, { draining: false });
  socket.pause();
  socket.resume = () => socket;
}

/** reads the connection again once what was written to it has gone out to the client */
function resumeReading(socket: TLSSocket) {
  const paused = pausedForPipelining.get(socket);
  if (!paused || paused.draining || socket.destroyed) return;
  if (socket.writableNeedDrain) {
    paused.draining = true;
    socket.once('drain', () => { paused.draining = false; resumeReading(socket); });
    return;
  }
  pausedForPipelining.delete(socket);
  delete (socket as Partial<TLSSocket>).resume;
  // (unless Node's server paused it for answers of its own still queued: it resumes it once they are out)
  if (!(socket as TLSSocket & { _paused?: boolean })._paused) socket.resume();
}

