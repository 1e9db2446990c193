// The node side of exec and attach (the reference's remote-command protocol) for runtimes the agent serves itself:
// the client upgrades to SPDY/3.1 and opens one stream per purpose (error, stdin, stdout, stderr, resize), named by
// a `streamType` header; the command's output goes out on its streams, and its end is reported on the error
// stream, as a Status (v4 and later) or plain text (v2, v3), before everything is closed.
import { EventEmitter } from 'node:events';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex, Readable, Writable } from 'node:stream';
import { spdyServer, type SpdyStream } from './spdy.js';
import { inEveryDomain } from '../../api/naming.js';

export interface Upgrade {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

/** what a command is given: its streams as the client asked for them */
export interface CommandIO {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** terminal sizes the client sends ('resize' events of { width, height }) */
  resizes: EventEmitter;
  /** aborted when the client goes away */
  signal: AbortSignal;
}

/** how a command ended: its exit code, or a failure to run it at all */
export type CommandResult = { exitCode: number } | { error: string };

export interface StreamFlags { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }

/** the remote-command protocols served, newest first (v5 adds nothing over SPDY, so clients fall back to v4) */
const protocols = ['v4.channel', 'v3.channel', 'v2.channel', 'channel'].flatMap(inEveryDomain);
/** how long a client has to open the streams it asked for (the reference's streamCreationTimeout) */
export const streamCreationTimeoutMs = 30_000;

/** the stream flags of an exec or attach request: the agent's names (input, output, error) or the API's */
export function streamFlags(q: URLSearchParams): StreamFlags {
  const on = (...names: string[]) => names.some(n => { const v = q.get(n); return v !== null && v !== '' && v !== '0' && v.toLowerCase() !== 'false'; });
  return { stdin: on('input', 'stdin'), stdout: on('output', 'stdout'), stderr: on('error', 'stderr'), tty: on('tty') };
}

/** the values of a header given several times or comma-separated */
export function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  return (Array.isArray(v) ? v : v ? [v] : []).flatMap(s => s.split(',')).map(s => s.trim()).filter(Boolean);
}

/** answers an upgrade that cannot be served, in plain HTTP, so clients see why (and try their fallback) */
export function refuseUpgrade(socket: Duplex, code: number, message: string) {
  const body = `${message}\n`;
  socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Error'}\r\n`
    + `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** switches the connection to SPDY with the first protocol of `offered` that is also in `served`, or refuses */
export function acceptSpdy(u: Upgrade, served: string[]): string | undefined {
  if (String(u.req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') {
    refuseUpgrade(u.socket, 400, `unable to upgrade: this endpoint serves SPDY/3.1 (upgrade requested: ${u.req.headers.upgrade ?? 'none'})`);
    return undefined;
  }
  const offered = headerValues(u.req, 'x-stream-protocol-version');
  const chosen = offered.length ? offered.find(p => served.includes(p)) : served[served.length - 1];
  if (!chosen) {
    refuseUpgrade(u.socket, 403, `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${served.join(' ')}]`);
    return undefined;
  }
  u.socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${chosen}\r\n\r\n`);
  return chosen;
}

/** the Status a v4 client reads from the error stream */
export function exitStatus(result: CommandResult, command: string[]): object {
  if ('error' in result) return { metadata: {}, status: 'Failure', message: result.error, reason: 'InternalError', code: 500 };
  if (result.exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${result.exitCode}`,
    details: { causes: [{ reason: 'ExitCode', message: String(result.exitCode) }] },
  };
}

/** feeds `{"Width":..,"Height":..}` messages, one per line, to 'resize' events */
export function readResizes(from: Readable, to: EventEmitter) {
  let text = '';
  from.on('data', (d: Buffer) => {
    text += d.toString('utf8');
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl).trim();
      text = text.slice(nl + 1);
      try { const m = JSON.parse(line); to.emit('resize', { width: Number(m.Width), height: Number(m.Height) }); } catch { /* not a size */ }
    }
    if (text.length > 4096) text = '';
  });
}

/** serves one exec or attach over SPDY: `run` gets the command's streams and says how it ended */
export async function serveRemoteCommand(u: Upgrade, flags: StreamFlags, command: string[], run: (io: CommandIO) => Promise<CommandResult>): Promise<void> {
  const protocol = acceptSpdy(u, protocols);
  if (!protocol) return;
  const version = protocol.startsWith('channel.') ? 1 : Number(protocol[1]);
  const wanted = new Set<string>();
  if (version >= 2) wanted.add('error');
  if (flags.stdin) wanted.add('stdin');
  if (flags.stdout) wanted.add('stdout');
  if (flags.stderr && !flags.tty) wanted.add('stderr');
  if (flags.tty && version >= 3) wanted.add('resize');
  const streams = new Map<string, SpdyStream>();
  const aborter = new AbortController();
  let ready!: () => void;
  const allOpen = new Promise<void>(resolve => { ready = resolve; });
  const conn = spdyServer(u.socket, u.head, s => {
    const type = s.headers.streamtype ?? '';
    s.reply();
    if (!wanted.has(type) || streams.has(type)) return s.reset();
    streams.set(type, s);
    if (streams.size === wanted.size) ready();
  });
  conn.closed.then(() => aborter.abort());
  const timer = setTimeout(() => aborter.abort(), streamCreationTimeoutMs);
  await Promise.race([allOpen, new Promise(resolve => aborter.signal.addEventListener('abort', resolve, { once: true }))]);
  clearTimeout(timer);
  if (aborter.signal.aborted) return conn.close();

  const resizes = new EventEmitter();
  const resize = streams.get('resize');
  if (resize) readResizes(resize.incoming, resizes);
  const io: CommandIO = {
    stdin: streams.get('stdin')?.incoming, stdout: streams.get('stdout')?.outgoing, stderr: streams.get('stderr')?.outgoing,
    tty: flags.tty, resizes, signal: aborter.signal,
  };
  const result = await run(io).catch((e: Error) => ({ error: e.message }));
  // the output is all out before the end is told
  await Promise.all(['stdout', 'stderr'].map(t => streams.get(t)).filter(Boolean).map(s => new Promise<void>(resolve => s!.outgoing.end(resolve))));
  const error = streams.get('error');
  if (error) {
    if (version >= 4) error.outgoing.write(JSON.stringify(exitStatus(result, command)));
    else if ('error' in result) error.outgoing.write(result.error);
    else if (result.exitCode !== 0) error.outgoing.write(`command terminated with non-zero exit code: exit code ${result.exitCode}`);
  }
  if (error) await new Promise<void>(resolve => error.outgoing.end(resolve));
  await conn.close();
}
