// The pod stream protocols against a WebSocket server that speaks them as the reference's API server does:
// exec with v5 channels (stdin echoed to stdout, stderr, the final Status with an exit code, stdin closed by a
// close message), the v4 fallback, refusals as Status errors, and port forwarding with its port-number prefixes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { naming } from '../api/naming.js';
import { ensurePki, type Pki } from '../pki/pki.js';
import { ApiError, createClient, type Client } from './rest-client.js';
import { execInPod, forwardPort } from './streams.js';

const names = naming('cluster.io');
let dir: string;
let pki: Pki;
let server: Server;
let client: Client;
const seen: { url: string; protocol: string; auth?: string }[] = [];
let offered: string[] = [names.group('v5.channel'), names.group('v4.channel')];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'streams-'));
  pki = await ensurePki(dir, { hosts: ['127.0.0.1'] });
  server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (req, res) => {
    res.writeHead(405, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'MethodNotAllowed', code: 405, message: 'not an upgrade' }));
  });
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => [...protocols].find((p) => offered.includes(p)) ?? false,
  });
  server.on('upgrade', (req, socket, head) => {
    if (req.url!.includes('/pods/refused/')) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\n\r\n' + JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods "refused" is forbidden: no exec for you' }));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  wss.on('connection', (ws: WebSocket, req) => {
    seen.push({ url: req.url!, protocol: ws.protocol, auth: req.headers.authorization });
    const url = new URL(req.url!, 'https://x');
    const frame = (ch: number, data: Buffer | string) => ws.send(Buffer.concat([Buffer.from([ch]), Buffer.from(data)]));
    if (url.pathname.endsWith('/portforward')) {
      const port = Number(url.searchParams.get('ports'));
      const prefix = Buffer.from([port & 0xff, port >> 8]);
      frame(0, prefix);
      frame(1, prefix);
      ws.on('message', (m: Buffer) => { if (m[0] === 0) frame(0, Buffer.concat([Buffer.from('echo:'), m.subarray(1)])); });
      return;
    }
    let input = '';
    ws.on('message', (m: Buffer) => {
      if (m[0] === 0) input += m.subarray(1).toString();
      const closed = m[0] === 255 && m[1] === 0;
      const command = url.searchParams.getAll('command');
      if (closed || url.searchParams.get('stdin') !== 'true') finish(command);
    });
    const finish = (command: string[]) => {
      frame(1, `out:${command.join(' ')}:${input}`);
      frame(2, 'err-line');
      const code = input.includes('fail') ? 3 : 0;
      frame(3, JSON.stringify(code ? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NonZeroExitCode', message: 'command terminated with non-zero exit code', details: { causes: [{ reason: 'ExitCode', message: String(code) }] } } : { kind: 'Status', apiVersion: 'v1', status: 'Success' }));
      ws.close();
    };
    if (url.searchParams.get('stdin') !== 'true') setImmediate(() => finish(url.searchParams.getAll('command')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  client = createClient({ contextName: 'c', clusterName: 'c', userName: 'u', server: `https://127.0.0.1:${(server.address() as { port: number }).port}`, caPem: pki.caCertPem, token: 'tok' });
});
after(async () => {
  client?.close();
  server?.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const collect = () => {
  const s = new PassThrough();
  let text = '';
  s.on('data', (c: Buffer) => { text += c.toString(); });
  return { stream: s, text: () => text };
};

test('exec over v5: the reference\'s query, stdin until closed, stdout and stderr apart, exit code from the Status', async () => {
  const out = collect();
  const err = collect();
  const stdin = new PassThrough();
  const done = execInPod(client, names, { namespace: 'ns', pod: 'p', container: 'c', command: ['sh', '-c', 'cat'], stdin, stdout: out.stream, stderr: err.stream });
  stdin.write('hello ');
  stdin.end('world');
  assert.deepEqual(await done, { exitCode: 0, status: { kind: 'Status', apiVersion: 'v1', status: 'Success' } });
  assert.equal(out.text(), 'out:sh -c cat:hello world');
  assert.equal(err.text(), 'err-line');
  const last = seen[seen.length - 1]!;
  assert.equal(last.protocol, names.group('v5.channel'));
  assert.equal(last.auth, 'Bearer tok');
  assert.equal(last.url, '/api/v1/namespaces/ns/pods/p/exec?command=sh&command=-c&command=cat&stdout=true&stderr=true&stdin=true&tty=false&container=c');
});

test('a non-zero exit code comes back as the result', async () => {
  const stdin = new PassThrough();
  const done = execInPod(client, names, { namespace: 'ns', pod: 'p', command: ['false'], stdin, stdout: collect().stream });
  stdin.end('fail please');
  assert.equal((await done).exitCode, 3);
});

test('the v4 protocol when the server has no v5', async () => {
  offered = [names.group('v4.channel')];
  try {
    const out = collect();
    assert.equal((await execInPod(client, names, { namespace: 'ns', pod: 'p', command: ['date'], stdout: out.stream })).exitCode, 0);
    assert.equal(out.text(), 'out:date:');
    assert.equal(seen[seen.length - 1]!.protocol, names.group('v4.channel'));
  } finally {
    offered = [names.group('v5.channel'), names.group('v4.channel')];
  }
});

test('a refused upgrade is the server\'s Status', async () => {
  await assert.rejects(execInPod(client, names, { namespace: 'ns', pod: 'refused', command: ['date'] }),
    (e: unknown) => e instanceof ApiError && e.code === 403 && /no exec for you/.test(e.message));
});

test('port forwarding: one stream per connection, the port prefixes stripped', async () => {
  const tunnel = await forwardPort(client, names, 'ns', 'p', 8080);
  const got = new Promise<string>((resolve) => tunnel.once('data', (c: Buffer) => resolve(c.toString())));
  tunnel.write('ping');
  assert.equal(await got, 'echo:ping');
  assert.equal(seen[seen.length - 1]!.url, '/api/v1/namespaces/ns/pods/p/portforward?ports=8080');
  tunnel.end();
});
