// Hostile input to the agent's HTTPS port: malformed paths and escapes, bad query numbers, garbage upgrades and
// frames. Each answer is a 4xx (never a 5xx), and the agent keeps serving afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ClientRequest } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { deflateSync, constants as zlibConstants } from 'node:zlib';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { inEveryDomain } from '../../src/api/naming.js';
import { spdyDictionary } from '../../src/agent/streaming/spdy.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { rawExchange, rawGet, statusOf } from '../support/raw-http.js';
import { spdyFrames, spdyReader } from '../support/spdy-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { startAgentServers } from '../../src/agent/server.js';
import { clientFromFile, createClient, type Client } from '../../src/client/rest-client.js';
import { tempDir, ensureDefaultServiceAccount, httpsGet, fakeAgentFlags, servedAgent, waitFor, pod } from './helpers.js';
import { podsRef } from '../../src/agent/status-manager.js';

const raw = (port: number, bytes: string | Buffer, enough?: (answer: string) => boolean) => rawExchange(port, bytes, { enough });
const get = (port: number, target: string, headers = '') => rawGet(port, target, headers);

describe('agent endpoints under hostile input', () => {
  let server: TestServer;
  let client: Client;
  let served: Awaited<ReturnType<typeof servedAgent>>;
  let dir: string;
  let port: number;

  before(async () => {
    dir = tempDir('agent-hostile-');
    server = await startTestServer();
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    served = await servedAgent(client, server.kubeconfig, dir, 'hostile', 'target', [`--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0']);
    port = served.servers.ports.main;
  });

  after(async () => {
    await served?.close();
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a malformed percent-escape in a path is a 400', async () => {
    for (const target of ['/containerLogs/default/target/%zz', '/containerLogs/%E0%A4%A/target/main', '/logs/%ff%']) {
      const answer = await get(port, target);
      assert.equal(statusOf(answer), 400, `${target}: ${answer}`);
    }
    const run = await raw(port, 'POST /run/default/%/main?cmd=ls HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    assert.equal(statusOf(run), 400, run);
    const upgrade = await get(port, '/exec/default/target/%zz?command=ls&output=1', 'Upgrade: SPDY/3.1\r\nConnection: Upgrade\r\n');
    assert.equal(statusOf(upgrade), 400, upgrade);
  });

  test('a request target that is no URL is a 400', async () => {
    for (const target of ['http://[::1/pods', 'http://a:99999/pods', '//[/pods']) {
      const answer = await get(port, target);
      assert.equal(statusOf(answer), 400, `${target}: ${answer}`);
    }
  });

  test('bad log query numbers and times are 400s; names with .. find no container', async () => {
    const base = '/containerLogs/default/target/main';
    for (const q of ['tailLines=1.5', 'limitBytes=1e400', 'sinceSeconds=abc', 'sinceTime=yesterday', 'limitBytes=-0.1', 'tailLines=0x10', 'tailLines=',
      'sinceTime=1', 'sinceTime=2026-01-01', 'sinceSeconds=99999999999999999999999', 'tailLines=9223372036854775808', 'limitBytes=-9223372036854775809']) {
      const answer = await get(port, `${base}?${q}`);
      assert.equal(statusOf(answer), 400, `${q}: ${answer}`);
    }
    for (const q of ['tailLines=-1', 'limitBytes=0', 'sinceSeconds=0', 'sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z']) {
      const answer = await get(port, `${base}?${q}`);
      assert.equal(statusOf(answer), 422, `${q}: ${answer}`);
    }
    for (const q of ['tailLines=0', 'limitBytes=1', 'sinceSeconds=999999999999', 'sinceTime=2026-01-01T00:00:00.5%2B01:00',
      // the largest 64-bit integers, valid for the API server too
      'tailLines=9223372036854775807', 'limitBytes=9223372036854775807', 'sinceSeconds=9223372036854775807']) {
      const answer = await get(port, `${base}?${q}`);
      assert.equal(statusOf(answer), 200, `${q}: ${answer}`);
    }
    for (const target of ['/containerLogs/default/target/..%2F..%2F..%2Fetc%2Fpasswd', '/containerLogs/..%2F..%2Fetc/passwd/main', '/containerLogs/default/target/%2e%2e']) {
      const answer = await get(port, target);
      assert.equal(statusOf(answer), 404, `${target}: ${answer}`);
      assert.doesNotMatch(answer, /root:/);
    }
    assert.equal((await httpsGet(`https://127.0.0.1:${port}/healthz`)).status, 200);
  });

  test('a token the agent cannot check (the API server unreachable) is a 401', async () => {
    const unreachable = createClient({ contextName: 'x', clusterName: 'x', userName: 'x', server: `https://127.0.0.1:${await freePort()}`, insecureSkipTLSVerify: true }, { timeoutMs: 2000 });
    const { options } = await parseAgentOptions([...fakeAgentFlags(server.kubeconfig, dir, 'hostile', 'pki2'),
      `--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0', '--anonymous-auth=false', '--authentication-token-webhook', '--authorization-mode=Webhook']);
    const second = await startAgentServers(options, served.agent.nodes, unreachable);
    try {
      const answer = await get(second.ports.main, '/pods', 'Authorization: Bearer garbage\r\n');
      assert.equal(statusOf(answer), 401, answer);
      const upgrade = await get(second.ports.main, '/exec/default/target/main?command=ls&output=1', 'Authorization: Bearer garbage\r\nUpgrade: SPDY/3.1\r\nConnection: Upgrade\r\n');
      assert.equal(statusOf(upgrade), 401, upgrade);
    } finally {
      await second.close();
      unreachable.close();
    }
  });

  const wsUpgrade = (target: string, protocol: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n`
    + `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`;
  const spdyUpgrade = (target: string, protocol: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n`
    + `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`;
  const healthy = async () => assert.equal((await httpsGet(`https://127.0.0.1:${port}/healthz`)).status, 200);

  test('malformed WebSocket frames close the connection; the agent keeps serving', async () => {
    const frames = [
      Buffer.from([0x82, 0x01, 0x00]), // not masked, as a client's must be
      Buffer.from([0x83, 0x80, 1, 2, 3, 4]), // a reserved opcode
      Buffer.from([0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]), // a length past 2^63
      Buffer.from([0x82, 0xff, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 2, 3, 4]), // a length past the limit
    ];
    for (const [target, protocol] of [
      ['/exec/default/target/main?command=cat&input=1&output=1', inEveryDomain('v4.channel')[0]!],
      ['/attach/default/target/main?input=1&output=1', inEveryDomain('v5.channel')[0]!],
      ['/portForward/default/target?ports=80', inEveryDomain('v4.channel')[0]!],
      ['/portForward/default/target', inEveryDomain('SPDY/3.1+portforward')[0]!],
    ] as const) {
      for (const frame of frames) {
        const answer = await raw(port, Buffer.concat([Buffer.from(wsUpgrade(target, protocol)), frame]));
        assert.equal(statusOf(answer), 101, answer);
        await healthy();
      }
    }
  });

  test('port-forward to ports that are no ports is a 400', async () => {
    for (const ports of ['0', '65536', 'abc', '-1', '1.5', '']) {
      const answer = await raw(port, wsUpgrade(`/portForward/default/target?ports=${ports}`, inEveryDomain('v4.channel')[0]!));
      assert.equal(statusOf(answer), 400, `${ports}: ${answer}`);
    }
  });

  test('malformed SPDY frames and header-block bombs close the connection; the agent keeps serving', async () => {
    const control = (type: number, payload: Buffer, length = payload.length) => {
      const head = Buffer.alloc(8);
      head.writeUInt16BE(0x8003, 0);
      head.writeUInt16BE(type, 2);
      head.writeUInt32BE(length & 0xffffff, 4);
      return Buffer.concat([head, payload]);
    };
    const synStream = (id: number, block: Buffer) => { const p = Buffer.alloc(10); p.writeUInt32BE(id, 0); return control(1, Buffer.concat([p, block])); };
    const compress = (b: Buffer) => deflateSync(b, { dictionary: spdyDictionary, flush: zlibConstants.Z_SYNC_FLUSH });
    const bomb = Buffer.alloc(20 << 20);
    bomb.writeUInt32BE(1, 0);
    bomb.writeUInt32BE(20 << 20 - 8, 4);
    const manyHeaders = Buffer.alloc(4);
    manyHeaders.writeUInt32BE(0xffffffff);
    const frames = [
      control(1, Buffer.alloc(0)), // a SYN_STREAM too short for its stream id
      control(3, Buffer.alloc(2)), // a RST_STREAM too short
      control(6, Buffer.alloc(0)), // a PING without its id
      synStream(1, Buffer.from('not zlib at all')),
      synStream(1, compress(bomb)),
      synStream(1, compress(manyHeaders)),
      synStream(1, compress(Buffer.from([0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]))), // a name longer than the block
    ];
    for (const target of ['/exec/default/target/main?command=cat&input=1&output=1', '/portForward/default/target']) {
      const protocol = inEveryDomain(target.startsWith('/exec') ? 'v4.channel' : 'portforward')[0]!;
      for (const frame of frames) {
        const answer = await raw(port, Buffer.concat([Buffer.from(spdyUpgrade(target, protocol)), frame, frame]));
        assert.equal(statusOf(answer), 101, answer);
        await healthy();
      }
    }
  });

  test('a SPDY frame longer than any client sends closes the connection at once', { timeout: 20_000 }, async () => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(1, 0); // a data frame of stream 1
    head.writeUInt32BE(0xffffff, 4); // of 16 MiB, never sent
    const answer = await raw(port, Buffer.concat([Buffer.from(spdyUpgrade('/portForward/default/target', inEveryDomain('portforward')[0]!)), head]));
    assert.equal(statusOf(answer), 101, answer);
    await healthy();
  });

  // A client that sends a command's stdin faster than the command takes it (here `cat`, whose output the client does
  // not read, so it stops reading too) is held back: the agent stops reading the connection rather than buffering
  // what it sends. Once the client reads again, every byte comes back.
  const flood = 48 << 20;
  /** what `sent()` says went out, once it reached `flood` or stopped growing for a while (the agent no longer reading) */
  const sentWhenHeld = async (sent: () => number) => {
    let last = -1;
    let still = 0;
    while (sent() < flood && still < 40) {
      await new Promise(r => setTimeout(r, 50));
      still = sent() === last ? still + 1 : 0;
      last = sent();
    }
    return sent();
  };

  test('SPDY: a client sending stdin faster than the command reads it is held back, not buffered', { timeout: 120_000 }, async () => {
    const { synStream, data } = spdyFrames();
    const socket: TLSSocket = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise(r => socket.once('secureConnect', r));
    socket.write(`GET /exec/default/target/main?command=cat&input=1&output=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n`
      + `X-Stream-Protocol-Version: ${inEveryDomain('v4.channel')[0]!}\r\n\r\n`);
    await new Promise(r => socket.once('data', r));
    socket.pause();
    for (const [id, type] of [[1, 'error'], [3, 'stdin'], [5, 'stdout']] as const) socket.write(await synStream(id, { streamtype: type }));
    const frame = data(3, Buffer.alloc(32 * 1024, 'x'));
    let sent = 0;
    const pushing = (async () => {
      while (sent < flood && !socket.destroyed) {
        const more = socket.write(frame);
        sent += frame.length - 8;
        if (!more) await new Promise(r => { socket.once('drain', r); socket.once('close', r); });
      }
    })();
    const taken = await sentWhenHeld(() => sent);
    assert.ok(taken < flood / 2, `the agent took ${taken >> 20} MiB of stdin its command was not reading`);

    // reading again, the client gets all it sent back from cat
    let echoed = 0;
    let pending = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 8) {
        const length = pending.readUInt32BE(4) & 0xffffff;
        if (pending.length < 8 + length) break;
        if (!(pending[0]! & 0x80) && pending.readUInt32BE(0) === 5) echoed += length;
        pending = pending.subarray(8 + length);
      }
    });
    socket.resume();
    await pushing;
    await waitFor('the whole stdin echoed', () => echoed === sent, 120_000);
    socket.destroy();
    await healthy();
  });

  test('SPDY: streams closed both ways are forgotten; a peer opening streams without end is refused past a thousand open', { timeout: 120_000 }, async () => {
    const { synStream, data } = spdyFrames();
    const socket: TLSSocket = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false });
    await new Promise(r => socket.once('secureConnect', r));
    const seen = spdyReader(socket);
    socket.write(`GET /portForward/default/target HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n`
      + `X-Stream-Protocol-Version: ${inEveryDomain('portforward')[0]!}\r\n\r\n`);
    // 1,200 forwarded connections, a hundred at a time, each as kubectl opens one: its error stream closed at once,
    // its data stream carrying a request, the pod's answer ending it
    let id = 1;
    for (let batch = 0; batch < 12; batch++) {
      const dataIds: number[] = [];
      for (let i = 0; i < 100; i++) {
        const requestid = String(batch * 100 + i);
        socket.write(await synStream(id, { streamtype: 'error', port: '80', requestid }, true));
        socket.write(await synStream(id + 2, { streamtype: 'data', port: '80', requestid }));
        socket.write(data(id + 2, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), true));
        dataIds.push(id + 2);
        id += 4;
      }
      await waitFor(`the answers of batch ${batch}`, () => dataIds.every(d => seen.ended.has(d) || seen.resets.has(d)));
    }
    assert.equal(seen.resets.size, 0, `streams refused: ${[...seen.resets].slice(0, 5).join(' ')}`);
    // now streams that are never closed: past a thousand open at once, the next is refused
    for (let i = 0; i < 1001; i++, id += 2) socket.write(await synStream(id, { streamtype: 'data', port: '80', requestid: `lone-${i}` }));
    const last = id - 2;
    await waitFor('the last stream refused', () => seen.resets.has(last));
    assert.equal(seen.resets.get(last), 3, 'REFUSED_STREAM');
    assert.equal(seen.resets.size, 1);
    socket.destroy();
    await healthy();
  });

  test('WebSocket: a client sending stdin faster than the command reads it is held back, not buffered', { timeout: 120_000 }, async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/exec/default/target/main?command=cat&input=1&output=1`, [inEveryDomain('v4.channel')[0]!], { rejectUnauthorized: false });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    let echoed = 0;
    ws.on('message', (m: Buffer) => { if (m[0] === 1) echoed += m.length - 1; });
    ws.pause();
    const message = Buffer.alloc(256 * 1024, 'x');
    message[0] = 0;
    let sent = 0;
    const pushing = (async () => {
      while (sent < flood && ws.readyState === ws.OPEN) {
        ws.send(message);
        sent += message.length - 1;
        while (ws.bufferedAmount > 1 << 20 && ws.readyState === ws.OPEN) await new Promise(r => setTimeout(r, 10));
      }
    })();
    const taken = await sentWhenHeld(() => sent - ws.bufferedAmount);
    assert.ok(taken < flood / 2, `the agent took ${taken >> 20} MiB of stdin its command was not reading`);
    ws.resume();
    await pushing;
    await waitFor('the whole stdin echoed', () => echoed === sent, 120_000);
    ws.terminate();
    await healthy();
  });

  test('WebSocket port-forward: a port answering faster than the client reads is held back, not buffered', { timeout: 120_000 }, async () => {
    // the pod's port (the fake runtime's pods without an address share the node's) sends without end, at its client's pace
    let written = 0;
    const endless = createNetServer(socket => {
      socket.on('error', () => undefined);
      const chunk = Buffer.alloc(64 * 1024, 'y');
      const more = () => { while (!socket.destroyed && written < flood && socket.write(chunk)) written += chunk.length; };
      socket.on('drain', () => { written += chunk.length; more(); });
      more();
    });
    await new Promise<void>(r => endless.listen(0, '127.0.0.1', r));
    const podPort = (endless.address() as AddressInfo).port;
    // a pod on the host's network reaches the node's own ports
    await client.resource(podsRef, 'default').create(pod('hostnet', 'hostile', { spec: { hostNetwork: true } }));
    await waitFor('the host-network pod running', () => served.agent.nodes[0]!.workers.pods().some((x) => x.pod.metadata?.name === 'hostnet' && x.pod.status?.phase === 'Running'));
    const ws = new WebSocket(`wss://127.0.0.1:${port}/portForward/default/hostnet?ports=${podPort}`, [inEveryDomain('v4.channel')[0]!], { rejectUnauthorized: false });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    let received = 0;
    ws.on('message', (m: Buffer) => { if (m[0] === 0) received += m.length - 1; });
    ws.pause();
    try {
      const taken = await sentWhenHeld(() => written);
      assert.ok(taken < flood / 2, `the agent read ${taken >> 20} MiB from the port for a client not reading`);
      ws.resume();
      await waitFor('what the port sent, received', () => received >= taken);
    } finally {
      ws.terminate();
      endless.close();
    }
    await healthy();
  });

  test('many followers of one log share one look at it, not a timer and a stat each', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const agentPool = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, rejectUnauthorized: false });
    const followers: ClientRequest[] = [];
    const followerCount = 200;
    try {
      await Promise.all(Array.from({ length: followerCount }, () => new Promise<void>((resolve, reject) => {
        const req = httpsRequest(`https://127.0.0.1:${port}/containerLogs/default/target/main?follow=true`, { agent: agentPool }, (res) => {
          assert.equal(res.statusCode, 200);
          res.resume();
          resolve();
        });
        req.on('error', reject).end();
        followers.push(req);
      })));
      const added = timers() - before;
      assert.ok(added < followerCount / 4, `${added} timers for ${followerCount} followers`);
    } finally {
      for (const req of followers) req.destroy();
      agentPool.destroy();
    }
    await healthy();
  });

  test('an HTTP/2 client, and the HTTP/2 preface sent to the HTTP/1.1 server, get an answer or a refusal; the agent keeps serving', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const session = http2Connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
      session.on('error', (e) => resolve(`refused: ${e.message}`));
      const req = session.request({ ':path': '/healthz' });
      req.on('response', (h) => resolve(`status ${h[':status']}`));
      req.on('error', (e) => resolve(`refused: ${e.message}`));
      req.on('close', () => session.close());
    });
    assert.match(outcome, /^(status 200|refused: )/);
    const preface = await raw(port, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00');
    assert.doesNotMatch(preface, /^HTTP\/1\.1 5/);
    await healthy();
  });
});
