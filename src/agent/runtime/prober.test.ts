// The probes that run outside the container, and what they say on failure (the text after "probe failed: " in
// the Unhealthy events, in the reference's words).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { grpcProbe, httpProbe, tcpProbe } from './prober.js';
import { healthServer } from '../../../test/support/grpc-health.js';

const listen = (s: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) =>
  new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));

/** a port nothing listens on */
async function closedPort() {
  const s = createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

test('HTTP probes pass on 2xx and 3xx; a failure says the status code or the connection error', async () => {
  const server = createHttpServer((req, res) => { res.statusCode = req.url === '/ok' ? 200 : req.url === '/moved' ? 302 : 404; res.end(); });
  const port = await listen(server);
  try {
    assert.deepEqual(await httpProbe({ httpGet: { path: '/ok', port } }, '127.0.0.1', undefined), { ok: true, output: '' });
    assert.equal((await httpProbe({ httpGet: { path: '/moved', port } }, '127.0.0.1', undefined)).ok, true);
    assert.deepEqual(await httpProbe({ httpGet: { path: '/missing', port } }, '127.0.0.1', undefined), { ok: false, output: 'HTTP probe failed with statuscode: 404' });
  } finally {
    server.close();
  }
  const closed = await closedPort();
  assert.deepEqual(await httpProbe({ httpGet: { path: '/healthz', port: closed } }, '127.0.0.1', undefined),
    { ok: false, output: `Get "http://127.0.0.1:${closed}/healthz": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

test('TCP probes pass when a connection opens; a refused one says so as Go\'s dialer does', async () => {
  const server = createServer((s) => s.end());
  const port = await listen(server);
  try {
    assert.deepEqual(await tcpProbe({ tcpSocket: { port } }, '127.0.0.1', undefined), { ok: true, output: '' });
  } finally {
    server.close();
  }
  const closed = await closedPort();
  assert.deepEqual(await tcpProbe({ tcpSocket: { port: closed } }, '127.0.0.1', undefined), { ok: false, output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

test('gRPC probes ask grpc.health.v1.Health/Check and pass on SERVING; a failure says why in the reference\'s words', async () => {
  const server = await healthServer();
  try {
    assert.deepEqual(await grpcProbe({ grpc: { port: server.port } }, '127.0.0.1'), { ok: true, output: '' });
    assert.deepEqual(await grpcProbe({ grpc: { port: server.port, service: 'web' } }, '127.0.0.1'), { ok: true, output: '' });
    assert.deepEqual(await grpcProbe({ grpc: { port: server.port, service: 'db' } }, '127.0.0.1'), { ok: false, output: 'service unhealthy (responded with "NOT_SERVING")' });
    assert.deepEqual(await grpcProbe({ grpc: { port: server.port, service: 'other' } }, '127.0.0.1'),
      { ok: false, output: 'error: health rpc probe failed: rpc error: code = NotFound desc = unknown service' });
  } finally {
    server.close();
  }
  const bare = await healthServer(false);
  try {
    const r = await grpcProbe({ grpc: { port: bare.port } }, '127.0.0.1');
    assert.equal(r.ok, false);
    assert.match(r.output, /^error: this server does not implement the grpc health protocol \(grpc\.health\.v1\.Health\): /);
  } finally {
    bare.close();
  }
  const closed = await closedPort();
  assert.deepEqual(await grpcProbe({ grpc: { port: closed }, timeoutSeconds: 1 }, '127.0.0.1'),
    { ok: false, output: `timeout: failed to connect service "127.0.0.1:${closed}" within 1s: context deadline exceeded` });
});
