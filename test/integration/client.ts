// A small HTTPS client for the integration tests: plain requests with the admin certificate, and a watch
// reader that yields parsed events as they arrive.
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** the body text (gunzipped when the server compressed it) */
  body: string;
  /** the bytes as received */
  raw: Buffer;
  /** the body as JSON, or undefined when it is not JSON */
  json: any;
}

export interface RequestOptions {
  /** an object is sent as JSON; a string or Buffer as is */
  body?: unknown;
  headers?: Record<string, string>;
  contentType?: string;
}

export interface WatchEvent { type: string; object: any }

export interface WatchStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** milliseconds from sending the request to the response headers */
  headersAfterMs: number;
  /** the next event, or undefined when the stream ended or nothing came within timeoutMs */
  next(timeoutMs?: number): Promise<WatchEvent | undefined>;
  /** events until the stream ends (or the timeout passes) */
  collect(timeoutMs?: number): Promise<WatchEvent[]>;
  /** resolves when the server ends the stream */
  ended: Promise<void>;
  close(): void;
  /** the body text when the server answered with an error instead of a stream */
  errorBody?: any;
}

export interface Client {
  request(method: string, path: string, opts?: RequestOptions): Promise<Reply>;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  watch(path: string, headers?: Record<string, string>): Promise<WatchStream>;
  close(): void;
}

export function createClient(server: { url: string; caCertPem: string; adminCertPem: string; adminKeyPem: string }): Client {
  const agent = new Agent({ keepAlive: true, ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, maxSockets: Infinity });
  const base = new URL(server.url);

  function send(method: string, path: string, opts: RequestOptions = {}): Promise<IncomingMessage> {
    const headers: Record<string, string> = { ...opts.headers };
    let payload: Buffer | undefined;
    if (opts.body !== undefined) {
      payload = Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
      headers['content-type'] ??= opts.contentType ?? 'application/json';
      headers['content-length'] = String(payload.length);
    } else if (opts.contentType) {
      headers['content-type'] = opts.contentType;
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest({ agent, host: base.hostname, port: base.port, method, path, headers }, resolve);
      req.on('error', reject);
      req.end(payload);
    });
  }

  async function request(method: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
    const res = await send(method, path, opts);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const text = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
    let json: any;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    return { status: res.statusCode!, headers: res.headers, body: text, raw, json };
  }

  async function watch(path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
    const started = performance.now();
    const res = await send('GET', path, { headers });
    const headersAfterMs = performance.now() - started;
    const queue: WatchEvent[] = [];
    let waiting: (() => void) | undefined;
    let done = false;
    let buffer = '';
    let endedResolve!: () => void;
    const ended = new Promise<void>(r => { endedResolve = r; });
    const wake = () => { const w = waiting; waiting = undefined; w?.(); };
    let errorBody: any;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (!line) continue;
        // a refused watch answers one Status, newline-terminated as the reference writes it
        if (res.statusCode === 200) queue.push(JSON.parse(line)); else errorBody = JSON.parse(line);
      }
      wake();
    });
    const finish = () => {
      if (done) return;
      done = true;
      if (buffer.trim()) {
        try {
          const last = JSON.parse(buffer);
          if (res.statusCode === 200) queue.push(last); else errorBody = last;
        } catch { /* a partial line at close */ }
      }
      endedResolve();
      wake();
    };
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', finish);

    const stream: WatchStream = {
      status: res.statusCode!, headers: res.headers, headersAfterMs, ended,
      get errorBody() { return errorBody; },
      async next(timeoutMs = 5000) {
        const deadline = Date.now() + timeoutMs;
        while (!queue.length && !done && Date.now() < deadline) {
          await new Promise<void>(resolve => {
            const t = setTimeout(resolve, deadline - Date.now());
            waiting = () => { clearTimeout(t); resolve(); };
          });
        }
        return queue.shift();
      },
      async collect(timeoutMs = 5000) {
        const out: WatchEvent[] = [];
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const ev = await stream.next(Math.max(0, deadline - Date.now()));
          if (!ev) return out;
          out.push(ev);
        }
      },
      close() { res.destroy(); finish(); },
    };
    if (res.statusCode !== 200) await ended;
    return stream;
  }

  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    watch,
    close: () => agent.destroy(),
  };
}
