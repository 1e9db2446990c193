// The overload's clients, in a process of their own so their work does not slow the probes that measure the server:
// watchers multiplexed on HTTP/2 connections (as client libraries hold them), then list clients that each loop on a
// keep-alive connection of their own, waiting out Retry-After on 429 as client libraries do. Prints one JSON line of counts.
import { connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'node:https';

export interface LoadPlan {
  port: number;
  namespace: string;
  clients: number;
  /** distinct users the clients are spread over (bearer tokens `token-<n>`) */
  users: number;
  watches: number;
  durationMs: number;
}

export interface LoadResult {
  lists: Record<string, number>;
  listErrors: number;
  /** the connection errors by message */
  listErrorKinds: Record<string, number>;
  /** bytes of list bodies read */
  listBytes: number;
  watchesOpened: number;
  watchRefused: Record<string, number>;
  watchErrors: number;
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const result: LoadResult = { lists: {}, listErrors: 0, listErrorKinds: {}, listBytes: 0, watchesOpened: 0, watchRefused: {}, watchErrors: 0 };
  const token = (i: number) => `Bearer token-${i % plan.users}`;
  const agent = new Agent({ keepAlive: true, maxSockets: plan.clients, rejectUnauthorized: false });
  const get = (path: string, auth: string) => new Promise<{ status: number; retryAfter: number; bytes: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: plan.port, path, agent, headers: { authorization: auth } }, res => {
      let bytes = 0, body = '';
      res.on('data', (c: Buffer) => { bytes += c.length; if (res.statusCode !== 200 || body.length < 200) body += c.toString().slice(0, 200); });
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: Number(res.headers['retry-after'] ?? 1), bytes, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });

  // the watchers start from the current version, so they hold no seats once started
  let rv = '';
  for (;;) {
    const r = await get(`/api/v1/namespaces/${plan.namespace}/configmaps?limit=1`, token(0));
    if (r.status === 200) { rv = /"resourceVersion":"(\d+)"/.exec(r.body)![1]; break; }
    await sleep(200);
  }
  const sessions: ClientHttp2Session[] = [];
  const perSession = 100;
  const opened: Array<Promise<void>> = [];
  for (let i = 0; i < plan.watches; i++) {
    if (i % perSession === 0) {
      const s = connect(`https://127.0.0.1:${plan.port}`, { rejectUnauthorized: false, peerMaxConcurrentStreams: perSession });
      s.on('error', () => {});
      sessions.push(s);
    }
    const session = sessions[sessions.length - 1];
    opened.push(new Promise<void>(resolve => {
      const stream = session.request({ ':path': `/api/v1/namespaces/${plan.namespace}/configmaps?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`, authorization: token(i) });
      stream.on('response', h => {
        const status = Number(h[':status']);
        if (status === 200) result.watchesOpened++; else result.watchRefused[status] = (result.watchRefused[status] ?? 0) + 1;
        resolve();
      });
      stream.on('data', () => {});
      stream.on('error', () => { result.watchErrors++; resolve(); });
      stream.end();
    }));
  }
  await Promise.all(opened);

  const end = Date.now() + plan.durationMs;
  await Promise.all(Array.from({ length: plan.clients }, async (_, i) => {
    while (Date.now() < end) {
      try {
        const r = await get(`/api/v1/namespaces/${plan.namespace}/configmaps`, token(i));
        result.lists[r.status] = (result.lists[r.status] ?? 0) + 1;
        if (r.status === 200) result.listBytes += r.bytes;
        if (r.status === 429) await sleep(r.retryAfter * 1000);
      } catch (e) {
        result.listErrors++;
        const kind = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        result.listErrorKinds[kind] = (result.listErrorKinds[kind] ?? 0) + 1;
        await sleep(1000);
      }
    }
  }));
  agent.destroy();
  for (const s of sessions) s.destroy();
  return result;
}

if (process.argv[2] === 'run') {
  runLoad(JSON.parse(process.argv[3]) as LoadPlan).then(r => { process.stdout.write(`${JSON.stringify(r)}\n`); process.exit(0); },
    e => { process.stderr.write(`${(e as Error).stack}\n`); process.exit(1); });
}
