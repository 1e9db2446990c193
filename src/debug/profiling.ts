// /debug/pprof (--profiling, on by default as in the reference): the process's own profiles, for its operators.
// The reference serves Go's pprof formats; this server serves V8's, which Chrome DevTools and other V8 tools open:
// `profile?seconds=N` a CPU profile (.cpuprofile JSON), `heap` a heap snapshot (.heapsnapshot JSON, streamed as V8
// writes it). One profile at a time, as there; a CPU profile must end within the request timeout.
import { Session } from 'node:inspector';
import type { RequestContext } from '../api/request.js';
import { ApiError, badRequest, methodNotSupported, statusBody } from '../api/status.js';
import { sendStream, sendText } from '../endpoints/respond.js';

export interface ProfilingEndpoints {
  /** answers /debug/pprof and below; false for any other path */
  handle(ctx: RequestContext): Promise<boolean>;
}

const prefix = '/debug/pprof';
const index = 'profiles:\n  profile?seconds=N  CPU profile over N seconds (default 30), V8 .cpuprofile JSON\n  heap               heap snapshot, V8 .heapsnapshot JSON\n';

export function profilingEndpoints(o: { requestTimeoutMs: number }): ProfilingEndpoints {
  let busy = false;
  const post = <T>(session: Session, method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r as T))));

  /** one inspector session for the work, after any other profile has ended */
  async function withSession<T>(work: (session: Session) => Promise<T>): Promise<T> {
    if (busy) throw new ApiError(statusBody(409, 'Conflict', 'another profile is being taken; try again when it ends'));
    busy = true;
    const session = new Session();
    session.connect();
    try { return await work(session); } finally { session.disconnect(); busy = false; }
  }

  async function cpuProfile(ctx: RequestContext) {
    const text = ctx.query.get('seconds');
    const seconds = text === null || text === '' ? 30 : Number(text);
    if (!Number.isInteger(seconds) || seconds <= 0) throw badRequest(`seconds: ${JSON.stringify(text)} is not a positive whole number`);
    if (seconds * 1000 >= o.requestTimeoutMs) throw badRequest(`profile duration exceeds the server's request timeout (${o.requestTimeoutMs / 1000} s)`);
    const profile = await withSession(async (session) => {
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      return (await post<{ profile: object }>(session, 'Profiler.stop')).profile;
    });
    sendText(ctx, 200, JSON.stringify(profile), 'application/json', { 'Content-Disposition': 'attachment; filename="profile.cpuprofile"' });
  }

  async function heapSnapshot(ctx: RequestContext) {
    const chunks: string[] = [];
    await withSession(async (session) => {
      session.on('HeapProfiler.addHeapSnapshotChunk', (m) => { chunks.push((m.params as { chunk: string }).chunk); });
      await post(session, 'HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    });
    // written chunk by chunk: a large heap's snapshot is longer than one string may be
    ctx.res.setHeader('Content-Disposition', 'attachment; filename="heap.heapsnapshot"');
    const bytes = chunks.reduce((n, c) => n + c.length, 0);
    await sendStream(ctx, 200, (function* () { for (const c of chunks) yield Buffer.from(c); })(), { estimate: bytes }, 'application/json');
  }

  return {
    async handle(ctx) {
      if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return false;
      if (ctx.method !== 'GET') throw methodNotSupported(ctx.path, ctx.method);
      const what = ctx.path.slice(prefix.length).replace(/^\/|\/$/g, '');
      if (what === '') sendText(ctx, 200, index, 'text/plain; charset=utf-8');
      else if (what === 'profile') await cpuProfile(ctx);
      else if (what === 'heap') await heapSnapshot(ctx);
      else sendText(ctx, 404, `Unknown profile: ${what}\n`, 'text/plain; charset=utf-8');
      return true;
    },
  };
}
