// Exec over SPDY and over WebSocket as the node agent serves it, on a plain loopback server: a client that floods
// stdin of a command that does not read it is held back (its connection not read), and when that client then goes
// away, the agent notices while the connection is held and stops the command, as on any disconnect.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import WebSocket from 'ws';
import { inEveryDomain } from '../../api/naming.js';
import { serveRemoteCommand, type CommandIO, type CommandResult } from './remote-command.js';
import { serveWebSocketCommand } from './websocket.js';
import { spdyFrames } from '../../../test/support/spdy-client.js';
import { waitFor } from '../../../test/support/wait.js';

let server: Server;
let port: number;
/** the commands running: each, like `sleep 1000`, reads no stdin and ends only when stopped */
const running = new Set<CommandIO>();
const stopped: CommandIO[] = [];
const sleep = (io: CommandIO) => new Promise<CommandResult>(resolve => {
  running.add(io);
  io.signal.addEventListener('abort', () => { running.delete(io); stopped.push(io); resolve({ exitCode: 137 }); }, { once: true });
});
const flags = { stdin: true, stdout: true, stderr: false, tty: false };

before(async () => {
  server = createServer((_req, res) => res.writeHead(400).end());
  server.on('upgrade', (req, socket, head) => {
    const u = { req, socket, head };
    void (String(req.headers.upgrade).toLowerCase() === 'websocket' ? serveWebSocketCommand(u, flags, ['sleep', '1000'], sleep) : serveRemoteCommand(u, flags, ['sleep', '1000'], sleep));
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server?.closeAllConnections();
  server?.close();
});

/** what `sent()` says went out, once it stopped growing for a while (the server no longer reading) */
const sentWhenHeld = async (sent: () => number) => {
  let last = -1;
  let still = 0;
  while (still < 20) {
    await new Promise(r => setTimeout(r, 50));
    still = sent() === last ? still + 1 : 0;
    last = sent();
  }
  return sent();
};

test('WebSocket: a client gone while its flooded stdin holds the connection back stops the command', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/exec`, [inEveryDomain('v4.channel')[0]!]);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  await waitFor('the command running', () => running.size === 1);
  const message = Buffer.alloc(64 * 1024, 'x');
  message[0] = 0;
  let sent = 0;
  const flood = setInterval(() => { while (ws.readyState === ws.OPEN && ws.bufferedAmount < 1 << 20) { ws.send(message); sent += message.length; } }, 5);
  try {
    // (what the client sent is what it queued: the agent's pings, answered while held, queue pongs behind the flood)
    await sentWhenHeld(() => sent);
  } finally {
    clearInterval(flood);
  }
  assert.equal(running.size, 1);
  ws.terminate();
  await waitFor('the command stopped', () => running.size === 0);
  assert.equal(stopped.length, 1);
});

test('SPDY: a client gone while its flooded stdin holds the connection back stops the command', async () => {
  const { synStream, data } = spdyFrames();
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise(r => socket.once('connect', r));
  socket.write(`GET /exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${inEveryDomain('v4.channel')[0]!}\r\n\r\n`);
  for (const [id, type] of [[1, 'error'], [3, 'stdin'], [5, 'stdout']] as const) socket.write(await synStream(id, { streamtype: type }));
  await waitFor('the command running', () => running.size === 1);
  const frame = data(3, Buffer.alloc(32 * 1024, 'x'));
  let sent = 0;
  const flood = setInterval(() => { while (!socket.destroyed && socket.writableLength < 1 << 20) { socket.write(frame); sent += frame.length; } }, 5);
  try {
    await sentWhenHeld(() => sent);
  } finally {
    clearInterval(flood);
  }
  assert.equal(running.size, 1);
  socket.destroy();
  await waitFor('the command stopped', () => running.size === 0);
  assert.equal(stopped.length, 2);
});
