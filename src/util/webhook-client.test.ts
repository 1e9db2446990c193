import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openWebhookClient, webhookClient } from './webhook-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'webhook-client-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const config = (server: unknown) => JSON.stringify({
  apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'hook', cluster: { server } }], users: [{ name: 'u', user: { token: 'secret' } }],
  contexts: [{ name: 'c', context: { cluster: 'hook', user: 'u' } }], 'current-context': 'c',
});

test('a plain http server is reached over http, as the reference\'s client configurations allow (audit sinks often listen on it)', async () => {
  const seen: Array<{ url?: string; auth?: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d; }).on('end', () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
  try {
    const file = join(mkdtempSync(join(scratch, 'c-')), 'hook.kubeconfig');
    writeFileSync(file, config(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`));
    const client = await webhookClient(file);
    assert.deepEqual(await client.post({ kind: 'EventList' }), { ok: true });
    assert.deepEqual(seen, [{ url: '/events', auth: 'Bearer secret', body: '{"kind":"EventList"}' }]);
  } finally {
    server.close();
  }
});

test('a configuration without a usable server is refused with a message naming the file', async () => {
  const dir = mkdtempSync(join(scratch, 'c-'));
  await webhookClient(join(dir, 'none')).catch(() => {});   // loads the YAML library
  for (const [server, message] of [[undefined, /names no server/], ['::not a url', /is not a URL/], ['ftp://127.0.0.1/x', /must use https or http, not ftp:/]] as const) {
    const file = join(dir, 'hook.kubeconfig');
    writeFileSync(file, config(server));
    assert.throws(() => openWebhookClient(file), (e: Error) => e.message.startsWith(file) && message.test(e.message));
  }
});

test('an answer that trickles in is given up at the time limit, as one that never comes', async () => {
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const t = setInterval(() => res.write(' '), 20);
    timers.add(t);
    res.on('close', () => { clearInterval(t); timers.delete(t); });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
  try {
    const file = join(mkdtempSync(join(scratch, 'c-')), 'hook.kubeconfig');
    writeFileSync(file, config(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
    await webhookClient(join(tmpdir(), 'none')).catch(() => {});
    await assert.rejects(openWebhookClient(file, 300).post({}), /did not answer in time/);
  } finally {
    for (const t of timers) clearInterval(t);
    server.closeAllConnections();
    server.close();
  }
});
