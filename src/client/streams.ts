// Connections to a pod's processes and ports through the API server, over WebSocket with the reference's
// channel protocols (`v5.channel.<domain>`, falling back to `v4`): every binary message starts with its channel
// (0 stdin, 1 stdout, 2 stderr, 3 the final Status, 4 terminal size; 255 closes a channel in v5). Port forwarding
// uses the same framing with a data and an error channel per port, each opening with the port number.

import { Duplex } from 'node:stream';
import WebSocket from 'ws';
import type { Naming } from '../api/naming.js';
import { ApiError, resourcePath, statusError, type Client } from './rest-client.js';

export interface ExecOptions {
  namespace: string;
  pod: string;
  container?: string;
  command: string[];
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  tty?: boolean;
  /** the terminal size, sent at the start and when it changes */
  size?: { width: number; height: number };
  /** `exec` runs a command; `attach` joins the container's main process */
  subresource?: 'exec' | 'attach';
}

export interface ExecResult {
  /** the process's exit code (0 when the Status says Success) */
  exitCode: number;
  /** the Status the server ended with */
  status?: any;
}

const channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** the subprotocols offered, newest first, in the server's domain */
export const execProtocols = (names: Naming) => [names.group('v5.channel'), names.group('v4.channel')];

/** Opens an upgraded connection; an answer other than 101 becomes the ApiError of its Status body. */
async function connect(client: Client, path: string, query: Record<string, string | string[]>, protocols: string[]): Promise<WebSocket> {
  const conn = await client.connection(path);
  const url = new URL(conn.url.toString().replace(/^http/, 'ws'));
  for (const [k, v] of Object.entries(query)) for (const each of Array.isArray(v) ? v : [v]) url.searchParams.append(k, each);
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { ...conn.tls, headers: conn.headers, perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let status: any;
        try { status = JSON.parse(text); } catch { status = undefined; }
        reject(status?.kind === 'Status' ? statusError(status) : new ApiError(res.statusCode ?? 500, 'Unknown', text.trim() || `HTTP ${res.statusCode}`));
        ws.terminate();
      });
    });
  });
}

/** Runs a command in a container; resolves when the server reports how it ended. */
export async function execInPod(client: Client, names: Naming, o: ExecOptions): Promise<ExecResult> {
  const query: Record<string, string | string[]> = {
    command: o.command, stdout: String(!!o.stdout), stderr: String(!!o.stderr && !o.tty), stdin: String(!!o.stdin), tty: String(!!o.tty),
    ...(o.container ? { container: o.container } : {}),
  };
  if (o.subresource === 'attach') delete query.command;
  const ws = await connect(client, resourcePath({ group: '', version: 'v1', resource: 'pods' }, o.namespace, o.pod, o.subresource ?? 'exec'), query, execProtocols(names));
  const v5 = ws.protocol === names.group('v5.channel');
  const send = (ch: number, data: Buffer) => ws.send(Buffer.concat([Buffer.from([ch]), data]));
  if (o.tty && o.size) send(channel.resize, Buffer.from(JSON.stringify({ Width: o.size.width, Height: o.size.height })));
  return new Promise<ExecResult>((resolve, reject) => {
    let status: any;
    ws.on('message', (data: Buffer) => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      if (!buf.length) return;
      const body = buf.subarray(1);
      if (buf[0] === channel.stdout) o.stdout?.write(body);
      else if (buf[0] === channel.stderr) o.stderr?.write(body);
      else if (buf[0] === channel.error && body.length) {
        try { status = JSON.parse(body.toString('utf8')); } catch { status = { status: 'Failure', message: body.toString('utf8') }; }
      }
    });
    ws.on('error', reject);
    ws.on('close', () => {
      o.stdin?.removeListener('data', onInput);
      if (!status || status.status === 'Success') return resolve({ exitCode: 0, status });
      const code = status.details?.causes?.find((c: any) => c.reason === 'ExitCode')?.message;
      if (status.reason === 'NonZeroExitCode' && code !== undefined) return resolve({ exitCode: Number(code), status });
      reject(statusError({ code: 500, ...status }));
    });
    const onInput = (chunk: Buffer | string) => send(channel.stdin, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    if (o.stdin) {
      o.stdin.on('data', onInput);
      o.stdin.once('end', () => {
        // v5 closes stdin on its own; older protocols can only close the whole connection
        if (v5) ws.send(Buffer.from([channel.close, channel.stdin]));
      });
    }
  });
}

/** A connection to one port of a pod, as a duplex stream. */
export async function forwardPort(client: Client, names: Naming, namespace: string, pod: string, port: number): Promise<Duplex> {
  const ws = await connect(client, resourcePath({ group: '', version: 'v1', resource: 'pods' }, namespace, pod, 'portforward'), { ports: String(port) }, [names.group('v4.channel')]);
  const seen = new Set<number>();
  const stream = new Duplex({
    write(chunk: Buffer, _enc, done) { ws.send(Buffer.concat([Buffer.from([0]), chunk]), done); },
    final(done) { ws.close(); done(); },
    read() {},
    destroy(err, done) { ws.terminate(); done(err); },
  });
  ws.on('message', (data: Buffer) => {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (!buf.length) return;
    const ch = buf[0]!;
    // the first message of each channel is the port number
    let body = buf.subarray(1);
    if (!seen.has(ch)) { seen.add(ch); body = body.subarray(2); }
    if (!body.length) return;
    if (ch === 0) stream.push(body);
    else if (ch === 1) stream.destroy(new Error(`forwarding port ${port} of ${namespace}/${pod}: ${body.toString('utf8')}`));
  });
  ws.on('close', () => stream.push(null));
  ws.on('error', (e) => stream.destroy(e));
  return stream;
}
