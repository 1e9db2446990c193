// HTTP/2 sessions under stream resets. nghttp2 closes a session whose peer resets streams faster than it allows
// (about 1,000 at once, then 33 a second) with GOAWAY INTERNAL_ERROR: a client that resets a stream per refused
// request loses every watch and write of its connection. The client reads refused answers to their end instead
// of resetting them, and one client's resets close only its own session, never another's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { loadClientConfig } from '../../src/config/client-config.js';
import { createClient, clientFromFile, type Client, type WatchEvent } from '../../src/client/rest-client.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { until } from '../support/wait.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps' };

let server: TestServer;
before(async () => { server = await startTestServer(); });
after(async () => { await server?.close(); });

test('a client that resets thousands of streams does not take down another client\'s session', async (t) => {
  const config = await loadClientConfig(server.kubeconfig);
  const steady: Client = await clientFromFile(server.kubeconfig);
  const stopper = new AbortController();
  try {
    const ns = `reset-${Date.now()}`;
    await steady.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    const cms = steady.resource(configMaps, ns);
    const first = await cms.create({ metadata: { name: 'before' } });
    const events: WatchEvent[] = [];
    let watchEnded: unknown;
    void (async () => {
      for await (const e of cms.watch({ resourceVersion: first.metadata.resourceVersion, signal: stopper.signal })) events.push(e);
    })().then(() => { watchEnded = 'ended'; }, (e) => { watchEnded = e; });

    // the offender: its own connection, every stream reset as soon as the answer's headers arrive
    const offender = connect(config.server, { ca: config.caPem, cert: config.certPem, key: config.keyPem, servername: config.tlsServerName });
    offender.on('error', () => {});
    let offenderGoaway: number | undefined;
    offender.on('goaway', (code) => { offenderGoaway = code; });
    let answered = 0;
    for (let sent = 0; sent < 3000 && !offender.closed && !offender.destroyed; sent++) {
      const s = offender.request({ ':path': `/api/v1/namespaces/${ns}/configmaps/before` });
      s.on('error', () => {});
      s.on('response', () => { answered++; s.destroy(); });
      s.on('close', () => { if (!s.rstCode) answered++; });
      if (sent % 200 === 199) await new Promise((r) => setImmediate(r));
    }
    await until(() => answered > 0 || offender.closed, 'the offender to get answers');
    offender.destroy();

    // the steady client's watch is still open on its session and sees what happens next
    await cms.create({ metadata: { name: 'after' } });
    await until(() => events.some((e) => e.object.metadata.name === 'after') || watchEnded !== undefined,
      () => `the steady watch to see the new object; ended: ${String(watchEnded)}`);
    assert.equal(watchEnded, undefined, 'the steady client\'s watch ended');
    assert.equal((await cms.get('after')).metadata.name, 'after');
    // recorded for the reader: nghttp2's protection closes the offender's own session (INTERNAL_ERROR is 2)
    t.diagnostic(`offender session goaway code: ${offenderGoaway ?? 'none'}`);
  } finally {
    stopper.abort();
    steady.close();
  }
});

/** an HTTP/2 server that refuses each request `refusals` times with 429 before answering it */
async function throttlingServer(refusals: number) {
  const ca = createCertificateAuthority('test-ca', 3600);
  const { keyPem, publicKey } = generateKeyPair();
  const cert = issueLeaf(ca, publicKey, { commonName: 'localhost', ips: ['127.0.0.1'], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 });
  const tries = new Map<string, number>();
  const stats = { sessions: 0, goaways: 0, resets: 0, answered: 0 };
  const h2: Http2SecureServer = createSecureServer({ key: keyPem, cert }, (req, res) => {
    const n = (tries.get(req.url) ?? 0) + 1;
    tries.set(req.url, n);
    req.stream.on('close', () => { if (req.stream.rstCode && req.stream.rstCode !== 0) stats.resets++; });
    if (n <= refusals) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'too many requests', details: { pad: 'x'.repeat(2000) } }));
      return;
    }
    stats.answered++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: req.url } }));
  });
  h2.on('session', (s) => { stats.sessions++; s.on('goaway', () => { stats.goaways++; }); });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(h2.address() as AddressInfo).port}`, ca: ca.certPem, stats, close: () => new Promise<void>((r) => h2.close(() => r())) };
}

test('requests refused with 429 are read to their end and sent again after a pause: the session stays up', { timeout: 120_000 }, async () => {
  const upstream = await throttlingServer(5);
  const client = createClient({ contextName: 't', clusterName: 't', userName: 't', server: upstream.url, caPem: upstream.ca }, { qps: 0, backoff: { baseMs: 1, maxMs: 5 } });
  try {
    // 400 requests refused 5 times each: 2,000 refusals, past nghttp2's allowance had each been reset
    const answers = await Promise.all(Array.from({ length: 400 }, (_, i) => client.request({ method: 'GET', path: `/item/${i}` })));
    assert.equal(answers.length, 400);
    assert.equal(upstream.stats.answered, 400);
    assert.equal(upstream.stats.sessions, 1, 'the client opened another connection');
    assert.equal(upstream.stats.resets, 0, 'the client reset refused streams');
  } finally {
    client.close();
    await upstream.close();
  }
});
