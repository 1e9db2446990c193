// A watch over a WebSocket, as browser clients open one: one message per event (text for JSON, binary for protobuf);
// a handshake without an Origin is refused, as by the reference; a bearer token may come as a subprotocol.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClientConfig, type ClientConfig } from '../../src/config/client-config.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { waitFor } from '../support/wait.js';

describe('watch over a WebSocket', () => {
  let server: TestServer;
  let config: ClientConfig;
  before(async () => {
    server = await startTestServer();
    config = await loadClientConfig(server.kubeconfig);
  });
  after(async () => { await server?.close(); });

  const open = (path: string, headers: Record<string, string>) => new WebSocket(`${config.server.replace(/^https/, 'wss')}${path}`,
    { ca: config.caPem, cert: config.certPem, key: config.keyPem, headers });

  test('events arrive one a message, as text; the client\'s close ends the watch', { timeout: 30_000 }, async () => {
    // the test's own objects only (the controllers write ConfigMaps of their own to every namespace)
    const ws = open('/api/v1/namespaces/default/configmaps?watch=1&labelSelector=test%3Dws', { Origin: 'https://dashboard.example' });
    const messages: Array<{ text: string; binary: boolean }> = [];
    ws.on('message', (data, binary) => messages.push({ text: data.toString(), binary }));
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', labels: { test: 'ws' } } } });
    await server.client.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two', labels: { test: 'ws' } } } });
    await waitFor('two events', () => messages.length >= 2);
    assert.deepEqual(messages.map(m => m.binary), [false, false]);
    const events = messages.map(m => JSON.parse(m.text));
    assert.deepEqual(events.map(e => [e.type, e.object.metadata.name]), [['ADDED', 'one'], ['ADDED', 'two']]);
    ws.close();
    await new Promise(resolve => ws.once('close', resolve));
  });

  test('a protobuf watch gets binary messages', { timeout: 30_000 }, async () => {
    const ws = open('/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0', { Origin: 'https://dashboard.example', Accept: server.names.protobufMediaType });
    const first = await new Promise<{ data: Buffer; binary: boolean }>((resolve, reject) => {
      ws.once('message', (data, binary) => resolve({ data: data as Buffer, binary }));
      ws.once('error', reject);
    });
    assert.equal(first.binary, true);
    assert.ok(first.data.length > 4);
    ws.terminate();
  });

  test('a handshake without an Origin is refused 403', async () => {
    const ws = open('/api/v1/namespaces/default/configmaps?watch=1', {});
    const status = await new Promise<number>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.once('error', () => resolve(-1));
    });
    assert.equal(status, 403);
    ws.terminate();
  });
});

describe('a bearer token in a WebSocket subprotocol (browsers cannot send an Authorization header)', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ws-token-'));
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,u-1,"system:masters"\n');
    server = await startTestServer({ flags: ['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`] });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tokenProtocol = (token: string) => `base64url.bearer.authorization.cluster.io.${Buffer.from(token).toString('base64url')}`;
  /** the handshake's outcome: 101 and the protocol the server chose, or the refusal's status */
  const handshake = (protocols: string[]) => new Promise<{ status: number; protocol?: string }>((resolve) => {
    const ws = new WebSocket(`${server.url.replace(/^https/, 'wss')}/api/v1/namespaces/default/configmaps?watch=1`, protocols,
      { ca: server.caCertPem, headers: { Origin: 'https://dashboard.example' } });
    ws.once('unexpected-response', (_req, res) => { resolve({ status: res.statusCode ?? 0 }); ws.terminate(); });
    ws.once('open', () => { resolve({ status: 101, protocol: ws.protocol }); ws.terminate(); });
    ws.once('error', () => resolve({ status: -1 }));
  });

  test('the token authenticates the watch and is taken out of the handshake: the server echoes the other protocol', async () => {
    assert.deepEqual(await handshake([tokenProtocol('alice-token'), 'base64.binary.k8s.io']), { status: 101, protocol: 'base64.binary.k8s.io' });
  });

  test('refused as the reference refuses them: an unknown token, bad base64, two tokens, a token with no other protocol; none is anonymous (403)', async () => {
    assert.equal((await handshake([tokenProtocol('nobody'), 'base64.binary.k8s.io'])).status, 401);
    for (const encoded of ['a', 'YWxp+2U', 'YWxpY2U.dG9rZW4'])
      assert.equal((await handshake([`base64url.bearer.authorization.cluster.io.${encoded}`, 'base64.binary.k8s.io'])).status, 401, encoded);
    assert.equal((await handshake([tokenProtocol('alice-token'), tokenProtocol('other-token'), 'base64.binary.k8s.io'])).status, 401);
    assert.equal((await handshake([tokenProtocol('alice-token')])).status, 401);
    assert.equal((await handshake(['base64.binary.k8s.io'])).status, 403);
  });
});
