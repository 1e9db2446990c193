// Two workarounds for Node 20's HTTP/2: streams opened without its costly AsyncResource.bind, and timers let go of
// once a session or stream is destroyed.
//
// Every ClientHttp2Session.request() binds its start to an AsyncResource, and Node 20's bind also defines the deprecated
// `asyncResource` accessors (DEP0172) on the bound function, two util.deprecate wrappers each time: ~30 µs of CPU per
// stream on this machine class, a fifth of a whole unary call. The storage's etcd calls, admission webhook calls and the REST client of the
// controllers and the scheduler open a stream per request, so the bind is swapped, for the synchronous span of
// request() alone, for one that runs the function in the resource's async scope just the same, without the accessors.
import { AsyncResource } from 'node:async_hooks';
import type { ClientHttp2Session, ClientHttp2Stream, ClientSessionRequestOptions, Http2Session, Http2Stream, OutgoingHttpHeaders } from 'node:http2';

const nodeBind = AsyncResource.prototype.bind;

type Bindable = (this: unknown, ...args: unknown[]) => unknown;

export function scopedBind(this: AsyncResource, fn: Bindable, thisArg?: unknown): Bindable {
  const resource = this;
  return thisArg === undefined
    ? function (this: unknown, ...args: unknown[]) { return resource.runInAsyncScope(fn, this, ...args); }
    : (...args: unknown[]) => resource.runInAsyncScope(fn, thisArg, ...args);
}

/** session.request(headers, options), the same stream, with the cheap bind */
export function openStream(session: ClientHttp2Session, headers: OutgoingHttpHeaders, options?: ClientSessionRequestOptions): ClientHttp2Stream {
  AsyncResource.prototype.bind = scopedBind as unknown as typeof nodeBind;
  try {
    return session.request(headers, options);
  } finally {
    AsyncResource.prototype.bind = nodeBind;
  }
}

/**
 * Stops the timer of session.setTimeout or stream.setTimeout once the session or stream has closed. Node 20 leaves a
 * destroyed session's timer armed (and a stream's too when the stream went down with its session), refusing
 * setTimeout(0) from then on, so the timer holds the object and all its listeners reach (for a server's session, the
 * server and everything it holds) until it fires. Node keeps the timer under a symbol it names `timeout`.
 */
export function releaseTimer(closed: Http2Session | Http2Stream): void {
  const key = Object.getOwnPropertySymbols(closed).find(k => k.description === 'timeout');
  if (key) clearTimeout((closed as unknown as Record<symbol, NodeJS.Timeout | undefined>)[key]);
}
