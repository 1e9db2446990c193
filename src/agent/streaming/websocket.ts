// Exec, attach and port-forward over WebSocket, the channel protocols of the reference's node agents: each binary
// message starts with its channel (0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; v5 adds 255, the client's
// "stream closed"); the base64 forms carry the channel as a digit and the payload in base64. Port-forward gives
// each port of `ports` a data and an error channel (2i, 2i+1), each opened by a message carrying the port.
import { EventEmitter } from 'node:events';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import { WebSocketServer, createWebSocketStream, type WebSocket } from 'ws';
import { portForwardOver } from './port-forward.js';
import { heldProbe } from './held.js';
import { exitStatus, headerValues, refuseUpgrade, type CommandIO, type CommandResult, type StreamFlags, type Upgrade } from './remote-command.js';
import { inEveryDomain } from '../../api/naming.js';

const commandProtocols = ['v5.channel', 'v4.channel', 'v4.base64.channel', 'channel', 'base64.channel'].flatMap(inEveryDomain);
const portForwardProtocols = ['v4.channel', 'portforward', 'channel'].flatMap(inEveryDomain);
/** how long a v5 client is given to set up its streams */
const v5SetupMs = 150;
const server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 << 20 });

/** accepts the WebSocket with the first protocol the client offers that is served, or refuses in plain HTTP */
function accept(u: Upgrade, served: string[]): Promise<{ ws: WebSocket; protocol: string } | undefined> {
  const offered = headerValues(u.req, 'sec-websocket-protocol');
  const protocol = offered.find(p => served.includes(p));
  if (!protocol) {
    refuseUpgrade(u.socket, 400, `unable to upgrade: requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${served.join(' ')}]`);
    return Promise.resolve(undefined);
  }
  return new Promise(resolve => server.handleUpgrade(u.req, u.socket, u.head, ws => resolve({ ws: withoutErrorCrash(ws), protocol })));
}

/**
 * a peer's malformed frame is an 'error' on the socket (the library closes the connection itself); unheard, it
 * would end the process
 */
function withoutErrorCrash(ws: WebSocket): WebSocket {
  ws.on('error', () => undefined);
  return ws;
}

/** a channel's messages as bytes to send */
function framer(protocol: string) {
  const base64 = protocol.includes('base64');
  return {
    encode: (channel: number, data: Buffer): Buffer | string => (base64 ? `${String.fromCharCode(48 + channel)}${data.toString('base64')}` : Buffer.concat([Buffer.from([channel]), data])),
    decode(message: Buffer, isBinary: boolean): { channel: number; data: Buffer } | undefined {
      if (!message.length) return undefined;
      if (base64 && !isBinary) return { channel: message[0]! - 48, data: Buffer.from(message.subarray(1).toString('utf8'), 'base64') };
      return { channel: message[0]!, data: message.subarray(1) };
    },
  };
}

/** the probe of each connection held (held.ts): pinged while not read, so that a client gone is noticed */
const probes = new WeakMap<WebSocket, ReturnType<typeof heldProbe>>();
function probeOf(ws: WebSocket) {
  let p = probes.get(ws);
  if (!p) {
    const probe = heldProbe(() => ws.isPaused && ws.readyState === ws.OPEN, () => ws.bufferedAmount === 0, () => ws.ping());
    ws.once('close', probe.stop);
    probes.set(ws, p = probe);
  }
  return p;
}

/**
 * writes what a client sent to where it goes; while that is behind, the client's messages are not read, so a
 * client sending faster than its reader takes (or to one that never reads) is held back rather than buffered
 */
function writeHeld(ws: WebSocket, to: Writable, data: Buffer) {
  if (to.write(data) || ws.isPaused) return;
  ws.pause();
  probeOf(ws).start();
  const go = () => { to.off('drain', go); to.off('close', go); if (ws.readyState === ws.OPEN) ws.resume(); };
  to.once('drain', go);
  to.once('close', go);
}

/** sends what a pod's port answers to the client; while the client is not reading, the port is not read either */
function sendHeld(ws: WebSocket, from: Duplex, frame: Buffer | string) {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(frame, () => { if (from.isPaused() && ws.bufferedAmount < heldBytes) from.resume(); });
  if (ws.bufferedAmount >= heldBytes) from.pause();
}
/** bytes sent to a client but not yet taken by its connection before the sender waits */
const heldBytes = 256 * 1024;

const sendOn = (ws: WebSocket, frame: Buffer | string) => new Promise<void>(resolve => (ws.readyState === ws.OPEN ? ws.send(frame, () => resolve()) : resolve()));

export async function serveWebSocketCommand(u: Upgrade, flags: StreamFlags, command: string[], run: (io: CommandIO) => Promise<CommandResult>): Promise<void> {
  const accepted = await accept(u, commandProtocols);
  if (!accepted) return;
  const { ws, protocol } = accepted;
  const f = framer(protocol);
  const aborter = new AbortController();
  ws.once('close', () => aborter.abort());
  const stdin = flags.stdin ? new PassThrough() : undefined;
  const resizes = new EventEmitter();
  ws.on('message', (message: Buffer, isBinary: boolean) => {
    const m = f.decode(message, isBinary);
    if (!m) return;
    if (m.channel === 0 && stdin && !stdin.writableEnded) writeHeld(ws, stdin, m.data);
    else if (m.channel === 4) {
      try { const size = JSON.parse(m.data.toString('utf8')); resizes.emit('resize', { width: Number(size.Width), height: Number(size.Height) }); } catch { /* not a size */ }
    } else if (m.channel === 255 && m.data[0] === 0) stdin?.end();
  });
  ws.once('close', () => stdin?.end());
  const channel = (n: number) => new Writable({ write(chunk: Buffer, _e, cb) { sendOn(ws, f.encode(n, chunk)).then(() => cb()); } });
  const io: CommandIO = {
    stdin, stdout: flags.stdout ? channel(1) : undefined, stderr: flags.stderr && !flags.tty ? channel(2) : undefined,
    tty: flags.tty, resizes, signal: aborter.signal,
  };
  // kubectl's v5 client (1.30 to 1.32) sets its streams up only after the handshake and drops what comes before;
  // a moment's wait keeps a quick command's output from arriving first, as the reference's slower path does
  if (protocol.startsWith('v5')) await new Promise(r => setTimeout(r, v5SetupMs));
  const result = await run(io).catch((e: Error) => ({ error: e.message }));
  // the output is all out before the end is told
  await Promise.all([io.stdout, io.stderr].filter((w): w is Writable => !!w).map(w => new Promise(r => w.end(r))));
  const status = protocol.startsWith('v4') || protocol.startsWith('v5')
    ? JSON.stringify(exitStatus(result, command))
    : 'error' in result ? result.error : result.exitCode ? `command terminated with non-zero exit code: exit code ${result.exitCode}` : '';
  if (status) await sendOn(ws, f.encode(3, Buffer.from(status)));
  closeSoon(ws, u.socket);
}

/** a normal close, and the connection ended after it: some clients never answer the close frame */
function closeSoon(ws: WebSocket, socket: Duplex) {
  ws.close(1000);
  socket.end();
}

/** the port-forward of kubectl 1.30 and later: SPDY carried in the WebSocket's binary messages */
const tunnelProtocols = inEveryDomain('SPDY/3.1+portforward');
const tunnelChosen = new WeakMap<object, string>();
const tunnelServer = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 << 20, handleProtocols: (_offered, req) => tunnelChosen.get(req) ?? false });

export async function serveWebSocketPortForward(u: Upgrade, ports: number[], podName: string, open: (port: number) => Promise<Duplex>): Promise<void> {
  const tunnel = headerValues(u.req, 'sec-websocket-protocol').find(p => tunnelProtocols.includes(p));
  if (tunnel) {
    tunnelChosen.set(u.req, tunnel);
    // the protocol's name is not a token of the WebSocket grammar, which the library enforces: it is answered as it is
    u.req.headers['sec-websocket-protocol'] = 'tunnel';
    const ws = await new Promise<WebSocket>(resolve => tunnelServer.handleUpgrade(u.req, u.socket, u.head, ws => resolve(withoutErrorCrash(ws))));
    await portForwardOver(createWebSocketStream(ws), Buffer.alloc(0), podName, open);
    return;
  }
  if (!ports.length || ports.some(p => !Number.isInteger(p) || p < 1 || p > 65535)) return refuseUpgrade(u.socket, 400, 'query parameter "ports" is required and must name ports');
  const accepted = await accept(u, portForwardProtocols);
  if (!accepted) return;
  const { ws, protocol } = accepted;
  const f = framer(protocol);
  const targets: (Duplex | undefined)[] = [];
  const portBytes = (p: number) => Buffer.from([p & 0xff, p >> 8]);
  ws.on('message', (message: Buffer, isBinary: boolean) => {
    const m = f.decode(message, isBinary);
    const t = m && m.channel % 2 === 0 ? targets[m.channel / 2] : undefined;
    if (t && m && !t.destroyed) writeHeld(ws, t, m.data);
  });
  ws.once('close', () => { for (const t of targets) t?.destroy(); });
  await Promise.all(ports.map(async (port, i) => {
    await sendOn(ws, f.encode(2 * i, portBytes(port)));
    await sendOn(ws, f.encode(2 * i + 1, portBytes(port)));
    try {
      const t = await open(port);
      targets[i] = t;
      t.on('data', (d: Buffer) => sendHeld(ws, t, f.encode(2 * i, d)));
      t.once('close', () => closeSoon(ws, u.socket));
      t.on('error', e => sendOn(ws, f.encode(2 * i + 1, Buffer.from(`error forwarding port ${port} to pod ${podName}: ${e.message}`))));
    } catch (e) {
      await sendOn(ws, f.encode(2 * i + 1, Buffer.from(`error forwarding port ${port} to pod ${podName}: ${(e as Error).message}`)));
    }
  }));
  await new Promise(resolve => ws.once('close', resolve));
}
