// A minimal gRPC client for unary calls, straight on node:http2. The guarded writes are most of
// the storage's traffic, and on a machine where etcd and the server share the CPUs the general
// gRPC client's per-call work (interceptors, retry buffering, call tracking) takes CPU etcd needs:
// this path does only what one unary call needs. Calls are never retried, so a write whose reply
// was lost is reported, not repeated. Errors are shaped as @grpc/grpc-js reports them.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { openStream, releaseTimer } from '../../util/node-http2.js';

export interface UnaryChannelOptions {
  /** every call fails if its reply has not come after this long */
  deadlineMs: number;
  /** a ping is sent this often while calls are in flight, as gRPC keepalive does */
  keepaliveMs: number;
  /** a connection whose ping is not answered within this is dropped, failing its calls */
  keepaliveTimeoutMs: number;
  /** towards https:// endpoints: the CA (else the system's roots), and a client certificate and key (PEM) */
  tls?: { caPem?: string; certPem?: string; keyPem?: string };
}

export interface UnaryChannel {
  /** sends one serialized request to the method at path; resolves with the serialized reply */
  call(path: string, message: Buffer): Promise<Buffer>;
  close(): void;
}

/** a gRPC status error as @grpc/grpc-js shapes it: etcd3's castGrpcError understands these */
export type StatusError = Error & { code: number; details: string };

const UNKNOWN = 2;
const DEADLINE_EXCEEDED = 4;
const INTERNAL = 13;
const UNAVAILABLE = 14;
const STATUS_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED',
  'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
];

export function statusError(code: number, details: string): StatusError {
  return Object.assign(new Error(`${code} ${STATUS_NAMES[code] ?? 'UNKNOWN'}: ${details}`), { code, details });
}

/** the 5-byte gRPC message prefix: not compressed, then the length */
const PREFIX_BYTES = 5;

/**
 * One HTTP/2 connection at a time, to one endpoint; a connection that fails is dropped and the
 * next call connects to the next endpoint in turn. A call whose connection never came up was not sent: it is
 * tried on the next endpoints then, each at most once.
 */
export function openUnaryChannel(endpoints: string[], opts: UnaryChannelOptions): UnaryChannel {
  const urls = endpoints.map(e => /^https?:\/\//.test(e) ? e : `http://${e}`);
  const timeoutHeader = `${Math.ceil(opts.deadlineMs / 1000)}S`;
  let next = 0;
  let session: ClientHttp2Session | undefined;
  let inFlight = 0;
  let closed = false;

  const open = (): ClientHttp2Session => {
    const url = urls[next];
    next = (next + 1) % urls.length;
    const s = connect(url, { ca: opts.tls?.caPem, cert: opts.tls?.certPem, key: opts.tls?.keyPem, settings: { enablePush: false } });
    const drop = () => {
      clearInterval(keepalive);
      if (session === s) session = undefined;
    };
    // Unanswered pings mean a dead peer; pinging only while calls are in flight, as etcd's
    // keepalive policy wants.
    const keepalive = setInterval(() => {
      if (inFlight === 0 || s.destroyed) return;
      const timer = setTimeout(() => s.destroy(new Error(`keepalive ping to ${url} not answered`)), opts.keepaliveTimeoutMs);
      timer.unref();
      if (!s.ping(() => clearTimeout(timer))) clearTimeout(timer);
    }, opts.keepaliveMs);
    keepalive.unref();
    // A connection error fails the calls on it; the session's own error event needs a listener.
    s.on('error', drop).on('goaway', drop).on('close', drop).once('connect', () => connected.add(s));
    s.unref();
    return s;
  };

  /** sessions that connected: a call on one that never did was never sent, and goes to the next endpoint */
  const connected = new WeakSet<ClientHttp2Session>();
  const call = (path: string, message: Buffer) => send(path, message, urls.length - 1);
  const send = (path: string, message: Buffer, spareTries: number) => new Promise<Buffer>((resolve, reject) => {
    if (closed) {
      reject(statusError(UNAVAILABLE, 'the channel is closed'));
      return;
    }
    const s = session ??= open();
    const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, PREFIX_BYTES);

    let stream;
    try {
      stream = openStream(s, {
        ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': timeoutHeader,
      });
    } catch (err) {
      // A session that is closing refuses new streams before it emits close.
      if (session === s) session = undefined;
      reject(statusError(UNAVAILABLE, (err as Error).message));
      return;
    }
    if (inFlight++ === 0) s.ref();
    const chunks: Buffer[] = [];
    let status: IncomingHttpHeaders | undefined;
    let failure: StatusError | undefined;
    stream.on('response', headers => { if (headers['grpc-status'] !== undefined) status = headers; });
    stream.on('trailers', trailers => { status = trailers; });
    stream.on('data', (chunk: Buffer) => { chunks.push(chunk); });
    stream.on('error', err => { failure ??= statusError(UNAVAILABLE, err.message); });
    stream.setTimeout(opts.deadlineMs, () => {
      failure ??= statusError(DEADLINE_EXCEEDED, 'Deadline exceeded');
      stream.close(constants.NGHTTP2_CANCEL);
    });
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (failure && !connected.has(s) && spareTries > 0 && !closed) {
        if (session === s) session = undefined;
        return void send(path, message, spareTries - 1).then(resolve, reject);
      }
      if (failure) return reject(failure);
      if (!status) return reject(statusError(UNAVAILABLE, `stream closed without a status (HTTP/2 code ${stream.rstCode})`));
      const code = Number(status['grpc-status']);
      if (code !== 0) return reject(statusError(Number.isInteger(code) ? code : UNKNOWN, grpcMessage(status)));
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      if (body.length < PREFIX_BYTES || body[0] !== 0 || body.readUInt32BE(1) !== body.length - PREFIX_BYTES) {
        return reject(statusError(INTERNAL, 'the reply is not one uncompressed gRPC message'));
      }
      resolve(body.subarray(PREFIX_BYTES));
    };
    // The status ends the call even while the request is still being sent (etcd answers a
    // request over its size limit at once and stops reading it): stop sending then.
    stream.on('end', () => {
      if (!status) return;
      settle();
      if (!stream.writableFinished) stream.close(constants.NGHTTP2_CANCEL);
    });
    stream.on('close', () => {
      releaseTimer(stream);
      if (--inFlight === 0 && !s.destroyed) s.unref();
      settle();
    });
    stream.end(frame);
  });

  return {
    call,
    close() {
      closed = true;
      session?.destroy();
      session = undefined;
    },
  };
}

/** grpc-message is percent-encoded */
function grpcMessage(status: IncomingHttpHeaders): string {
  const raw = status['grpc-message'];
  const text = Array.isArray(raw) ? raw.join(',') : raw ?? '';
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The same unary calls through @grpc/grpc-js, for requests too large for the lean path: a request the server
 * refuses for its size is answered while still being sent, which grpc-js handles and the lean path does not.
 * As the lean path, calls go to one endpoint at a time; one that cannot be reached is left for the next in turn.
 */
export async function openGrpcChannel(endpoints: string[], opts: UnaryChannelOptions): Promise<UnaryChannel> {
  const { Client, Metadata, credentials, status } = await import('@grpc/grpc-js');
  const pem = (p: string | undefined) => (p ? Buffer.from(p) : null);
  const connect = (endpoint: string) => new Client(endpoint.replace(/^https?:\/\//, ''), /^https:/.test(endpoint)
    ? credentials.createSsl(pem(opts.tls?.caPem), pem(opts.tls?.keyPem), pem(opts.tls?.certPem)) : credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1,
    'grpc.keepalive_time_ms': opts.keepaliveMs, 'grpc.keepalive_timeout_ms': opts.keepaliveTimeoutMs,
  });
  const clients: Array<InstanceType<typeof Client> | undefined> = endpoints.map(() => undefined);
  let current = 0;
  const same = (b: Buffer) => b;
  return {
    call: (path, message) => new Promise<Buffer>((resolve, reject) => {
      const at = current;
      const client = (clients[at] ??= connect(endpoints[at]));
      client.makeUnaryRequest(path, same, same, message, new Metadata(), { deadline: Date.now() + opts.deadlineMs }, (err, reply) => {
        if (!err) return resolve(reply!);
        // the call itself is not repeated: a write whose reply was lost is reported, not applied twice
        if (err.code === status.UNAVAILABLE && current === at) current = (at + 1) % endpoints.length;
        reject(err);
      });
    }),
    close: () => { for (const c of clients) c?.close(); },
  };
}
