// Hostile requests the generated sweep does not reach, each with the answer the reference gives: sent over HTTP/1.1
// and HTTP/2, against a real server process in each API domain.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { startFuzzServer, type FuzzServer } from './hostile.js';
import { until } from '../support/wait.js';

interface Answer { status: number; body: string }

function viaHttp1(server: FuzzServer, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, ca: server.ca, cert: server.cert, key: server.key, method, path,
      headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, res => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** resolves once the stream has closed, so a stream the server leaves open keeps the test waiting (and failing) */
function viaHttp2(session: ClientHttp2Session, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: !body });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', h => { status = Number(h[':status']); });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
    if (body) stream.end(body);
  });
}

for (const domain of ['k8s.io', 'cluster.io']) describe(`API domain ${domain}`, () => {
  let server: FuzzServer;
  let session: ClientHttp2Session;
  const both = async (method: string, path: string, headers?: Record<string, string>, body?: Buffer) =>
    [await viaHttp1(server, method, path, headers, body), await viaHttp2(session, method, path, headers, body)];

  before(async () => {
    server = await startFuzzServer([`--api-domain=${domain}`]);
    // the client's own session memory must hold a body larger than the server's limit
    session = http2Connect(`https://127.0.0.1:${server.port}`, { ca: server.ca, cert: server.cert, key: server.key, maxSessionMemory: 100 });
  });
  after(async () => {
    session?.destroy();
    await server?.stop();
  });

  test(`${domain}: a list, watch or collection delete with a limit or timeoutSeconds that is not a number is a 400, as the reference decodes every list option`, { timeout: 60_000 }, async () => {
    for (const value of ['abc', '99999999999999999999', '1e3']) {
      for (const a of await both('GET', `/api/v1/namespaces/default/configmaps?timeoutSeconds=${value}`)) {
        assert.equal(a.status, 400, a.body);
        assert.match(a.body, /timeoutSeconds: Invalid value/);
      }
    }
    // a watch and a delete of the collection decode the same options (the watch would otherwise start and stream)
    for (const [method, path] of [['GET', '/api/v1/namespaces/default/configmaps?watch=1&limit=abc'], ['GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1x'],
      ['DELETE', '/api/v1/namespaces/default/configmaps?dryRun=All&timeoutSeconds=abc'], ['DELETE', '/api/v1/namespaces/default/configmaps?dryRun=All&limit=1e3']]) {
      for (const a of await both(method, path)) {
        assert.equal(a.status, 400, `${method} ${path}: ${a.body}`);
        assert.match(a.body, /(limit|timeoutSeconds): Invalid value/);
      }
    }
    // negative is a number: a list has no use for it and takes it
    for (const a of await both('GET', '/api/v1/namespaces/default/configmaps?timeoutSeconds=-1')) assert.equal(a.status, 200, a.body);
  });

  test(`${domain}: watches on an HTTP/2 connection cut while they wait their turn all end: none stays registered`, { timeout: 120_000 }, async () => {
    const watchers = async () => {
      const text = (await viaHttp1(server, 'GET', '/metrics')).body;
      return Number(/^apiserver_registered_watchers\{[^}]*kind="PodTemplate"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const baseline = await watchers();
    const doomed = http2Connect(`https://127.0.0.1:${server.port}`, { ca: server.ca, cert: server.cert, key: server.key, peerMaxConcurrentStreams: 10_000 });
    doomed.on('error', () => { /* cut below */ });
    await new Promise(resolve => doomed.once('remoteSettings', resolve));
    // more than the server starts at once, so many are still on their way through the handler when the connection goes
    const started = new Promise(resolve => {
      for (let i = 0; i < 5000; i++) doomed.request({ ':path': '/api/v1/namespaces/default/podtemplates?watch=1' }).on('error', () => {}).once('response', resolve);
    });
    // cut as soon as the first has started, the others still on their way
    await started;
    doomed.destroy();
    let left = -1;
    await until(async () => (left = await watchers()) === baseline, () => `the watchers to go back to ${baseline} (${left} left)`, 60_000);
  });

  // without the reset, the stream never closes: the test's timeout is the failure
  test(`${domain}: over HTTP/2, a body past the limit is a 413 and its stream is then reset, not left open with the client blocked`, { timeout: 60_000 }, async () => {
    const body = Buffer.alloc(5 * 1024 * 1024, 0x20);
    const a = await viaHttp2(session, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, body);
    assert.equal(a.status, 413, a.body);
    assert.match(a.body, /RequestEntityTooLarge/);
    // the session still serves
    assert.equal((await viaHttp2(session, 'GET', '/api')).status, 200);
  });

  test(`${domain}: one HTTP/1.1 keep-alive connection carries hundreds of requests with bodies, each sent as the answer before it arrives, without a reset`, { timeout: 180_000 }, async () => {
    // an answer of tens of kilobytes is still draining on the server when the client, which has read it, sends the next
    // request: the server must read that request, not fail on it and reset the connection
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ns = '/api/v1/namespaces/default';
    const bodies = [
      (n: number) => [`${ns}/endpoints`, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' }, subsets: [{ addresses: Array.from({ length: n }, (_, i) => ({ ip: `10.0.${(i >> 8) & 255}.${i & 255}` })), ports: [{ port: 80 }] }] }],
      (n: number) => [`${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'eA=='])) }],
      (n: number) => [`${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { tolerations: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, operator: 'Exists' })), containers: [{ name: 'c', image: 'x' }] } }],
      (n: number) => ['/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x', env: Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: 'v' })) }] } } } }],
    ] as const;
    const failures: string[] = [];
    let sockets = 0;
    try {
      for (let round = 0; round < 20; round++) for (const make of bodies) for (const n of [1000, 2000, 4000]) {
        const [path, obj] = make(n);
        const body = Buffer.from(JSON.stringify(obj));
        const status = await new Promise<number | string>(resolve => {
          const req = httpsRequest({ host: '127.0.0.1', port: server.port, ca: server.ca, cert: server.cert, key: server.key, agent, method: 'POST', path: `${path}?dryRun=All`,
            headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, res => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
          req.on('socket', s => { if (!(s as { counted?: boolean }).counted) { (s as { counted?: boolean }).counted = true; sockets++; } });
          req.on('error', e => resolve((e as NodeJS.ErrnoException).code ?? e.message));
          req.end(body);
        });
        if (status !== 201) failures.push(`${path} (${n}): ${status}`);
      }
    } finally {
      agent.destroy();
    }
    assert.deepEqual(failures, []);
    assert.equal(sockets, 1, 'every request went over the one connection');
  });
});
