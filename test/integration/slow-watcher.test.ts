// A watcher that stops reading is closed once its unsent output passes the server's bound, rather than
// growing the server's memory; a watcher that keeps reading gets every event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { request } from 'node:https';
import { connect as http2Connect } from 'node:http2';
import { startTestServer } from '../../src/testing.js';
import { until } from '../support/wait.js';

const big = 'x'.repeat(900 * 1024);

test('a watcher that stops reading is closed; one that reads gets every event', async () => {
  const server = await startTestServer();
  try {
    const auth = { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem };
    const post = (name: string) => new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/default/configmaps`, { ...auth, method: 'POST', headers: { 'content-type': 'application/json' } },
        res => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
      req.on('error', reject);
      req.end(JSON.stringify({ metadata: { name, labels: { test: 'slow-watcher' } }, data: { big } }));
    });

    // the slow watcher: a raw HTTP/1.1 connection that reads the headers, then stops reading
    const port = Number(new URL(server.url).port);
    const slow = connect({ host: '127.0.0.1', port, ...auth, ALPNProtocols: ['http/1.1'] });
    await new Promise<void>(r => slow.once('secureConnect', () => r()));
    slow.write('GET /api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&labelSelector=test%3Dslow-watcher HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>(r => slow.once('data', () => r()));
    slow.pause();
    let slowEnded = false;
    slow.on('end', () => { slowEnded = true; });
    slow.on('close', () => { slowEnded = true; });

    // the reading watcher counts the events (one a line) it gets
    let received = 0;
    // only this test's objects: the server's own controllers may add others (the root CA's ConfigMap) at any time
    const fast = request(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&labelSelector=test%3Dslow-watcher`, auth, res => {
      res.on('data', (d: Buffer) => { for (let at = d.indexOf(10); at >= 0; at = d.indexOf(10, at + 1)) received++; });
    });
    fast.end();

    // each create waits until the reader has the one before: it keeps up however busy the machine, the other never reads
    const count = 40;   // 36 MB of events: far past the 16 MB a watcher may hold back
    for (let i = 0; i < count; i++) {
      assert.equal(await post(`big-${i}`), 201);
      await until(() => received > i, () => `the reading watcher to get event ${i + 1} (got ${received})`, 60_000);
    }
    assert.equal(received, count, 'the reading watcher got every event');

    // once the slow watcher reads again, it finds its stream ended short of the events
    let bytes = 0;
    slow.on('data', (d: Buffer) => { bytes += d.length; });
    slow.resume();
    await until(() => slowEnded, 'the server to close the slow watcher', 120_000);
    assert.ok(bytes < count * big.length, `the slow watcher got less than all events (${bytes} bytes)`);
    fast.destroy();
    slow.destroy();
  } finally {
    await server.close();
  }
});

test('watchers that stop reading share the bytes of each event: memory grows with the events, not with events times watchers', { timeout: 180_000 }, async () => {
  const server = await startTestServer();
  const auth = { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem };
  const session = http2Connect(server.url, auth);
  try {
    const path = '/api/v1/namespaces/default/configmaps?watch=true&labelSelector=test%3Dshared-events';
    // 30 watchers in JSON and 30 in protobuf on one connection, none of them reading
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const s = session.request({ ':path': path, accept: i % 2 ? 'application/json' : server.names.protobufMediaType });
      s.on('response', h => { statuses.push(Number(h[':status'])); s.pause(); });
      s.on('error', () => {});
    }
    await until(() => statuses.length === 60, () => `the 60 watches to start (${statuses.length})`);
    assert.deepEqual([...new Set(statuses)], [200]);
    // one watcher that reads, to know when the events have gone out
    let received = 0;
    const reader = request(`${server.url}${path}`, auth, res => {
      res.on('data', (d: Buffer) => { for (let at = d.indexOf(10); at >= 0; at = d.indexOf(10, at + 1)) received++; });
    });
    reader.end();
    const before = process.memoryUsage().arrayBuffers;
    const value = 'x'.repeat(200 * 1024);
    const count = 15;   // 3 MB of events; each watcher unsharing them would hold 3 MB more, 180 MB in all
    for (let i = 0; i < count; i++) {
      const created = await fetchJson(server.url, auth, { metadata: { name: `shared-${i}`, labels: { test: 'shared-events' } }, data: { value } });
      assert.equal(created, 201);
    }
    await until(() => received >= count, () => `the reading watcher to get ${count} events (got ${received})`, 60_000);
    const grown = process.memoryUsage().arrayBuffers - before;
    assert.ok(grown < 60 * 1024 * 1024, `buffers grew by ${Math.round(grown / 1024 / 1024)} MB for ${count} events of 200 KB and 61 watchers`);
    reader.destroy();
  } finally {
    session.destroy();
    await server.close();
  }
});

function fetchJson(url: string, auth: object, body: unknown) {
  return new Promise<number>((resolve, reject) => {
    const req = request(`${url}/api/v1/namespaces/default/configmaps`, { ...auth, method: 'POST', headers: { 'content-type': 'application/json' } },
      res => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
