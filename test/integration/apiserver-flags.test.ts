// The reference's API server flags that act here, each through a real server: HTTP/2 GOAWAY chance and stream limit,
// --admission-control, --delete-collection-workers, --kubernetes-service-node-port, --aggregator-reject-forwarding-redirect,
// the timeouts of the storage checks, and the log format of the program itself.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session } from 'node:http2';
import { createServer } from 'node:https';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer } from '../../src/testing.js';
import { parseApiServerOptions } from '../../src/config/apiserver-options.js';
import { startApiServer } from '../../src/main/apiserver.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { createClient } from './client.js';
import { until, waitFor } from '../support/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'apiserver-flags-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Creds = { url: string; caCertPem: string; adminCertPem: string; adminKeyPem: string };
const h2 = (s: Creds): ClientHttp2Session => connect(s.url, { ca: s.caCertPem, cert: s.adminCertPem, key: s.adminKeyPem });
const h2Get = (session: ClientHttp2Session, path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
  const stream = session.request({ ':path': path });
  let status = 0, body = '';
  stream.setEncoding('utf8');
  stream.on('response', (h) => { status = Number(h[':status']); });
  stream.on('data', (d: string) => { body += d; });
  stream.on('end', () => resolve({ status, body }));
  stream.on('error', reject);
});

describe('HTTP/2 flags', () => {
  test('--goaway-chance: the session gets a graceful GOAWAY and every request on it is answered; a watch open on it goes on', async () => {
    const server = await startTestServer({ flags: ['--goaway-chance=0.02'] });
    const c = createClient(server);
    const session = h2(server);
    try {
      // a watch opened first stays served after the GOAWAY: in-flight streams finish
      const watch = session.request({ ':path': '/api/v1/namespaces/default/configmaps?watch=true' });
      watch.setEncoding('utf8');
      let watched = '';
      watch.on('data', (d: string) => { watched += d; });
      watch.on('error', () => {});
      await new Promise((r) => watch.once('response', r));
      let goaway: number | undefined;
      session.on('goaway', (code) => { goaway = code; });
      let answered = 0;
      // at 2% a request, 3,000 requests without one GOAWAY would happen once in 10^26 runs
      for (let i = 0; i < 3000 && goaway === undefined; i++) {
        const r = await h2Get(session, '/api/v1/namespaces/default');
        assert.equal(r.status, 200, r.body);
        answered++;
      }
      assert.equal(goaway, 0, `a NO_ERROR GOAWAY after ${answered} answered requests`);
      assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'after-goaway' } } })).status, 201);
      await until(() => watched.includes('after-goaway'), 'the watch opened before the GOAWAY to see the new object');
      watch.close();
    } finally {
      session.destroy();
      c.close();
      await server.close();
    }
  });

  test('--goaway-chance=0 (the default): no GOAWAY', async () => {
    const server = await startTestServer();
    const session = h2(server);
    try {
      let goaway = false;
      session.on('goaway', () => { goaway = true; });
      for (let i = 0; i < 300; i++) assert.equal((await h2Get(session, '/api/v1/namespaces/default')).status, 200);
      assert.equal(goaway, false);
    } finally {
      session.destroy();
      await server.close();
    }
  });

  test('--http2-max-streams-per-connection: advertised in SETTINGS; by default 250, as the reference', async () => {
    const limited = await startTestServer({ flags: ['--http2-max-streams-per-connection=7'] });
    const plain = await startTestServer();
    const sessions = [h2(limited), h2(plain)];
    try {
      const settings = await Promise.all(sessions.map((s) => new Promise<number | undefined>((r) => s.once('remoteSettings', (x) => r(x.maxConcurrentStreams)))));
      assert.equal(settings[0], 7);
      assert.equal(settings[1], 250);
    } finally {
      for (const s of sessions) s.destroy();
      await limited.close();
      await plain.close();
    }
  });
});

describe('admission and collections', () => {
  test('--admission-control: only the named plugins run (ServiceAccount left out: a pod gets no service account)', async () => {
    const on = await startTestServer({ flags: ['--admission-control=NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook'] });
    const c = createClient(on);
    try {
      const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
      const r = await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod });
      assert.equal(r.status, 201, r.body);
      assert.equal(r.json.spec.serviceAccountName, undefined, 'ServiceAccount admission did not run');
      // NamespaceLifecycle, named, still runs
      const missing = await c.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
      assert.equal(missing.status, 404, missing.body);
    } finally {
      c.close();
      await on.close();
    }
    await assert.rejects(startTestServer({ flags: ['--admission-control=NoSuchPlugin'] }), /unknown admission plugin "NoSuchPlugin"/);
  });

  test('--delete-collection-workers: a DELETE of a collection deletes every object, listed in order', async () => {
    const server = await startTestServer({ flags: ['--delete-collection-workers=4'] });
    const c = createClient(server);
    try {
      const names = Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
      for (const name of names) assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name, labels: { doomed: 'yes' } } } })).status, 201);
      const r = await c.request('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=doomed%3Dyes');
      assert.equal(r.status, 200, r.body);
      assert.deepEqual(r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), names);
      assert.equal((await c.get('/api/v1/namespaces/default/configmaps?labelSelector=doomed%3Dyes')).json.items.length, 0);
    } finally {
      c.close();
      await server.close();
    }
  });
});

test('--kubernetes-service-node-port: the server\'s Service is of type NodePort on that port, and back to ClusterIP without it', async () => {
  const dataDir = mkdtempSync(join(scratch, 'node-port-'));
  const first = await startTestServer({ dataDir, storage: 'sqlite', flags: ['--kubernetes-service-node-port=30443'] });
  const c = createClient(first);
  try {
    const svc = await waitFor('the service', async () => { const r = await c.get(`/api/v1/namespaces/default/services/${first.names.vendor}`); return r.status === 200 && r.json; });
    assert.equal(svc.spec.type, 'NodePort');
    assert.equal(svc.spec.ports[0].nodePort, 30443);
    assert.equal(svc.spec.ports[0].name, 'https');
  } finally {
    c.close();
    await first.close();
  }
  const second = await startTestServer({ dataDir, storage: 'sqlite' });
  const c2 = createClient(second);
  try {
    await waitFor('the service back to ClusterIP', async () => {
      const r = await c2.get(`/api/v1/namespaces/default/services/${second.names.vendor}`);
      return r.json?.spec?.type === 'ClusterIP' && r.json.spec.ports[0].nodePort === undefined;
    });
  } finally {
    c2.close();
    await second.close();
  }
});

describe('--aggregator-reject-forwarding-redirect', () => {
  /** a backend that serves its discovery and answers everything else with a redirect */
  async function redirectingBackend() {
    const ca = createCertificateAuthority('redirect-backend-ca', 3600);
    const key = generateKeyPair();
    const cert = issueLeaf(ca, key.publicKey, { commonName: 'redirector.default.svc', dnsNames: ['redirector.default.svc'], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 });
    const backend = createServer({ key: key.keyPem, cert }, (req, res) => {
      if (req.url?.includes('/things')) {
        res.writeHead(302, { location: 'https://elsewhere.example.com/', 'content-type': 'text/plain' });
        res.end('go elsewhere');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'redirect.example.com/v1', resources: [{ name: 'things', namespaced: true, kind: 'Thing', verbs: ['list'] }] }));
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
    return { backend, port: (backend.address() as AddressInfo).port, caPem: ca.certPem };
  }

  for (const reject of [true, false]) {
    test(`${reject ? 'on (the default): a backend\'s redirect becomes a 502' : 'off: the redirect is passed on'}`, async () => {
      const { backend, port, caPem } = await redirectingBackend();
      const server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 200, flags: reject ? [] : ['--aggregator-reject-forwarding-redirect=false'] });
      const c = createClient(server);
      try {
        for (const [path, body] of [
          ['/api/v1/namespaces/default/services', { metadata: { name: 'redirector' }, spec: { ports: [{ port: 443, targetPort: port }] } }],
          ['/api/v1/namespaces/default/endpoints', { metadata: { name: 'redirector' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] }],
          ['/apis/apiregistration.k8s.io/v1/apiservices', {
            metadata: { name: 'v1.redirect.example.com' },
            spec: { group: 'redirect.example.com', version: 'v1', service: { namespace: 'default', name: 'redirector', port: 443 }, caBundle: Buffer.from(caPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 10 },
          }],
        ] as const) assert.equal((await c.request('POST', path, { body })).status, 201);
        await waitFor('the APIService to be available', async () => (await c.get('/apis/apiregistration.k8s.io/v1/apiservices/v1.redirect.example.com'))
          .json?.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Available' && x.status === 'True'));
        const r = await c.get('/apis/redirect.example.com/v1/namespaces/default/things');
        if (reject) {
          assert.equal(r.status, 502);
          assert.equal(r.body, 'the backend attempted to redirect this request, which is not permitted');
          assert.equal(r.headers.location, undefined);
        } else {
          assert.equal(r.status, 302);
          assert.equal(r.headers.location, 'https://elsewhere.example.com/');
        }
      } finally {
        c.close();
        await server.close();
        backend.closeAllConnections();
        await new Promise((r) => backend.close(r));
      }
    });
  }
});

test('--etcd-healthcheck-timeout and --etcd-readycheck-timeout: a storage check slower than its timeout fails', async () => {
  const { options } = parseApiServerOptions(['--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory', `--data-dir=${mkdtempSync(join(scratch, 'etcd-timeouts-'))}`,
    '--controller-manager=false', '--scheduler=false', '--metrics-server=false', '--etcd-readycheck-timeout=50ms', '--etcd-healthcheck-timeout=30s']);
  let slowMs = 0;
  const quiet = { info() {}, warn() {}, error() {} };
  const server = await startApiServer(options, quiet, {
    // the store as it is, but its health check as slow as slowMs
    decorateStorage: (kv) => new Proxy(kv, {
      get(target, prop) {
        if (prop === 'check') return async () => { if (slowMs) await new Promise((r) => setTimeout(r, slowMs)); return target.check(); };
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }),
  });
  const c = createClient(server);
  try {
    await waitFor('readyz', async () => (await c.get('/readyz')).status === 200);
    slowMs = 300;
    const ready = await c.get('/readyz?verbose');
    assert.equal(ready.status, 500, ready.body);
    assert.match(ready.body, /\[-\]etcd failed/);
    const live = await c.get('/livez?verbose');
    assert.equal(live.status, 200, live.body);
    assert.match(live.body, /\[\+\]etcd ok/);
    assert.equal((await c.get('/healthz')).status, 200);
  } finally {
    c.close();
    await server.close();
  }
});

test('--logging-format=json: the program writes its log lines as JSON objects', async () => {
  const dataDir = mkdtempSync(join(scratch, 'json-log-'));
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory',
    `--data-dir=${dataDir}`, '--controller-manager=false', '--scheduler=false', '--metrics-server=false', '--logging-format=json', '--apiserver-count=3'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
  try {
    await until(() => /serving on/.test(err) || child.exitCode !== null, () => `the server to start: ${err}`, 60_000);
    const lines = err.trim().split('\n');
    for (const line of lines) {
      const entry = JSON.parse(line) as { ts: number; v?: number; msg: string };
      assert.equal(typeof entry.ts, 'number', line);
      assert.ok(Math.abs(entry.ts - Date.now() / 1000) < 600, line);
      assert.equal(typeof entry.msg, 'string', line);
    }
    assert.ok(lines.some((l) => JSON.parse(l).v === 0 && /flag --apiserver-count is accepted but has no effect/.test(JSON.parse(l).msg)), err);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  }
});

test('--watch-cache-sizes: a resource keeps only its own size of history; others keep the default', async () => {
  const server = await startTestServer({ flags: ['--watch-cache-sizes=configmaps#3'] });
  const c = createClient(server);
  try {
    const created: Record<string, string[]> = { configmaps: [], secrets: [] };
    // a resource's cache is built on its first read, and its history starts there (older watches go to storage):
    // both are read first, as the controllers may not have read them yet
    for (const resource of ['configmaps', 'secrets']) assert.equal((await c.get(`/api/v1/namespaces/default/${resource}?resourceVersion=0`)).status, 200);
    for (let i = 0; i < 8; i++) for (const resource of ['configmaps', 'secrets']) {
      const r = await c.request('POST', `/api/v1/namespaces/default/${resource}`, { body: { metadata: { name: `h-${i}` } } });
      assert.equal(r.status, 201, r.body);
      created[resource]!.push(r.json.metadata.resourceVersion);
    }
    // storage keeps no old revisions: a watch from one is served only from the watch cache's history
    await server.faults.compactNow();
    /** the first thing a watch from the first object's resourceVersion gets: an event, or the HTTP status of a refusal */
    const firstOf = async (resource: string) => {
      const w = await c.watch(`/api/v1/namespaces/default/${resource}?watch=true&resourceVersion=${created[resource]![0]}`);
      try {
        if (w.status !== 200) return { status: w.status };
        const e = await w.next(10_000);
        return { type: e?.type, code: e?.object?.code, name: e?.object?.metadata?.name };
      } finally { w.close(); }
    };
    // seven configmaps changed since: more than the three kept, so the watch cannot resume (410 Gone)
    const cms = await firstOf('configmaps');
    assert.ok(cms.status === 410 || (cms.type === 'ERROR' && cms.code === 410), JSON.stringify(cms));
    assert.deepEqual(await firstOf('secrets'), { type: 'ADDED', code: undefined, name: 'h-1' });
  } finally {
    c.close();
    await server.close();
  }
});

test('--etcd-count-metric-poll-period: counts are taken once a period; 0 turns apiserver_storage_objects off', async () => {
  const count = (text: string) => Number(/^apiserver_storage_objects\{resource="configmaps"\} (\d+)/m.exec(text)?.[1] ?? NaN);
  const slow = await startTestServer({ flags: ['--etcd-count-metric-poll-period=1h'] });
  const off = await startTestServer({ flags: ['--etcd-count-metric-poll-period=0'] });
  const c = createClient(slow), c0 = createClient(off);
  try {
    const before = count((await c.get('/metrics')).body);
    assert.ok(Number.isInteger(before), 'apiserver_storage_objects is served');
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'counted-later' } } })).status, 201);
    assert.equal(count((await c.get('/metrics')).body), before, 'a scrape within the period sees the counts taken at its start');
    assert.doesNotMatch((await c0.get('/metrics')).body, /^apiserver_storage_objects/m);
  } finally {
    c.close(); c0.close();
    await slow.close();
    await off.close();
  }
});
