// Two API servers on one etcd, as larger installations run them: Services created through both at once never share
// a cluster IP or a node port, because both allocate from the same stored allocation objects. Several started at once
// on a fresh store all come up, though each makes the same default Service. An aggregated API server that trusts
// the front proxies published in the extension-apiserver-authentication ConfigMap answers through every server, and a
// server restarted on its data directory publishes the front-proxy CA it had, not one more.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { delegatedAuth } from '../../src/metricsserver/delegated-auth.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';
import { waitFor } from '../support/wait.js';
import { createClient, type Client } from './client.js';

let etcd: EtcdServer;
let servers: TestServer[] = [];
let clients: Client[] = [];

before(async () => {
  etcd = await startEtcd();
  const shared = { storage: 'etcd' as const, etcdServers: [etcd.endpoint], etcdPrefix: '/shared', flags: ['--service-cluster-ip-range=10.96.0.0/16'] };
  servers = await Promise.all([startTestServer({ ...shared, apiServiceCheckIntervalMs: 200 }), startTestServer({ ...shared, apiServiceCheckIntervalMs: 200 })]);
  clients = servers.map(s => createClient(s));
});
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(servers.map(s => s.close()));
  await etcd?.stop();
});

test('two API servers on one etcd create 2,000 Services concurrently: no two share a cluster IP or a node port', async t => {
  const ns = 'shared';
  assert.equal((await clients[0].request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  const total = 2000;
  const inFlightPerServer = 32;
  let next = 0;
  const failures: string[] = [];
  const started = performance.now();
  // each server gets its own stream of creates, inFlightPerServer at a time
  await Promise.all(clients.flatMap((c, s) => Array.from({ length: inFlightPerServer }, async () => {
    for (let i = next++; i < total; i = next++) {
      const r = await c.request('POST', `/api/v1/namespaces/${ns}/services`, {
        body: { metadata: { name: `svc-${i}` }, spec: { type: 'NodePort', selector: { app: `a${i}` }, ports: [{ port: 80 }] } },
      });
      if (r.status !== 201) failures.push(`server ${s}, svc-${i}: ${r.status} ${r.body.slice(0, 200)}`);
    }
  })));
  const seconds = (performance.now() - started) / 1000;
  t.diagnostic(`${total} Services through 2 servers in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s)`);
  assert.deepEqual(failures, []);

  for (const c of clients) {
    const list = await c.get(`/api/v1/namespaces/${ns}/services`);
    assert.equal(list.status, 200);
    const items: any[] = list.json.items;
    assert.equal(items.length, total);
    const ips = items.map(s => s.spec.clusterIP);
    const ports = items.map(s => s.spec.ports[0].nodePort);
    assert.equal(new Set(ips).size, total, 'no two Services share a cluster IP');
    assert.equal(new Set(ports).size, total, 'no two Services share a node port');
    for (const ip of ips) assert.match(ip, /^10\.96\.\d+\.\d+$/);
    for (const p of ports) assert.ok(p >= 30000 && p <= 32767, String(p));
  }
});

test('four API servers started at once on a fresh store all become ready, with one default Service among them', async () => {
  const fresh = { storage: 'etcd' as const, etcdServers: [etcd.endpoint], etcdPrefix: '/fresh', flags: ['--service-cluster-ip-range=10.97.0.0/16'] };
  const started = await Promise.allSettled(Array.from({ length: 4 }, () => startTestServer(fresh)));
  const up = started.flatMap(s => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    assert.deepEqual(started.flatMap(s => (s.status === 'rejected' ? [String(s.reason)] : [])), []);
    const c = createClient(up[0]!);
    try {
      const service = await c.get(`/api/v1/namespaces/default/services/${up[0]!.names.vendor}`);
      assert.equal(service.status, 200, service.body);
      assert.equal(service.json.spec.clusterIP, '10.97.0.1');
    } finally { c.close(); }
  } finally {
    await Promise.all(up.map(s => s.close()));
  }
});

test('an aggregated API server that trusts the published front-proxy CAs answers through each of two servers', async () => {
  // the backend authenticates as extension API servers do: the request-header settings of the ConfigMap
  const auth = delegatedAuth(servers[0]!.client, servers[0]!.names);
  await auth.synced;
  const group = 'wardle.example.com';
  const ca = createCertificateAuthority('wardle-ca', 3600);
  const key = generateKeyPair();
  const cert = issueLeaf(ca, key.publicKey, { commonName: 'wardle.default.svc', dnsNames: ['wardle.default.svc'], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600 });
  const backend = createServer({ key: key.keyPem, cert, requestCert: true, rejectUnauthorized: false }, async (req, res) => {
    const user = await auth.authenticate(req);
    res.writeHead(user ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(user
      ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1alpha1`, resources: [{ name: 'flunders', namespaced: true, kind: 'Flunder', verbs: ['get'] }], user: user.username }
      : { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  try {
    const port = (backend.address() as AddressInfo).port;
    const registration = servers[0]!.names.group('apiregistration');
    for (const [path, body] of [
      ['/api/v1/namespaces/default/services', { metadata: { name: 'wardle' }, spec: { ports: [{ port: 443, targetPort: port }] } }],
      ['/api/v1/namespaces/default/endpoints', { metadata: { name: 'wardle' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] }],
      [`/apis/${registration}/v1/apiservices`, {
        metadata: { name: `v1alpha1.${group}` },
        spec: { group, version: 'v1alpha1', service: { namespace: 'default', name: 'wardle', port: 443 }, caBundle: Buffer.from(ca.certPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 10 },
      }],
    ] as const) assert.equal((await clients[0]!.request('POST', path, { body })).status, 201);
    for (const [i, c] of clients.entries()) {
      const r = await waitFor(`the backend's answer through server ${i}`, async () => { const r = await c.get(`/apis/${group}/v1alpha1`); return r.status === 200 && r; });
      assert.equal(r.json.user, 'admin', `server ${i} forwards its user`);
    }
  } finally {
    auth.stop();
    backend.closeAllConnections();
    await new Promise((r) => backend.close(r));
  }
});

test('a server restarted on its data directory publishes the same front-proxy CA: the published trust does not grow', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shared-etcd-restart-'));
  const opts = { storage: 'etcd' as const, etcdServers: [etcd.endpoint], etcdPrefix: '/restarted', dataDir, flags: ['--controller-manager=false'] };
  const published = async (s: TestServer) => {
    const cm = await s.client.resource<{ data?: Record<string, string> }>({ group: '', version: 'v1', resource: 'configmaps' }, s.names.systemNamespace)
      .get('extension-apiserver-authentication');
    return cm.data?.['requestheader-client-ca-file'] ?? '';
  };
  try {
    const first = await startTestServer(opts);
    const before = await published(first).finally(() => first.close());
    const again = await startTestServer(opts);
    const after = await published(again).finally(() => again.close());
    assert.equal(after.match(/BEGIN CERTIFICATE/g)?.length, 1, 'one front-proxy CA published');
    assert.equal(after, before);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a server joining the store brings the default RBAC policy back, leaving additions and opted-out objects alone', async () => {
  const opts = { storage: 'etcd' as const, etcdServers: [etcd.endpoint], etcdPrefix: '/rbac-joined', flags: ['--controller-manager=false'] };
  const first = await startTestServer(opts);
  const rbac = `/apis/${first.names.group('rbac.authorization')}/v1`;
  const autoupdate = `rbac.authorization.${first.names.labelDomain}/autoupdate`;
  const c = createClient(first);
  let joined: TestServer | undefined;
  try {
    const discovery = (await c.get(`${rbac}/clusterroles/system:discovery`)).json;
    const defaults = discovery.rules;
    const extra = { nonResourceURLs: ['/extra'], verbs: ['get'] };
    assert.equal((await c.request('PUT', `${rbac}/clusterroles/system:discovery`, { body: { ...discovery, rules: [extra] } })).status, 200);
    const viewer = (await c.get(`${rbac}/clusterroles/system:public-info-viewer`)).json;
    viewer.metadata.annotations[autoupdate] = 'false';
    viewer.rules = [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }];
    assert.equal((await c.request('PUT', `${rbac}/clusterroles/system:public-info-viewer`, { body: viewer })).status, 200);
    const basic = (await c.get(`${rbac}/clusterrolebindings/system:basic-user`)).json;
    const bob = { kind: 'User', name: 'bob', apiGroup: first.names.group('rbac.authorization') };
    assert.equal((await c.request('PUT', `${rbac}/clusterrolebindings/system:basic-user`, { body: { ...basic, subjects: [bob] } })).status, 200);

    joined = await startTestServer(opts);
    const j = createClient(joined);
    try {
      const repaired = (await j.get(`${rbac}/clusterroles/system:discovery`)).json.rules;
      assert.deepEqual(repaired[0], extra, 'what was added stays');
      const urls = repaired.flatMap((r: { nonResourceURLs: string[] }) => r.nonResourceURLs).sort();
      assert.deepEqual(urls, [...defaults.flatMap((r: { nonResourceURLs: string[] }) => r.nonResourceURLs), '/extra'].sort());
      assert.deepEqual((await j.get(`${rbac}/clusterroles/system:public-info-viewer`)).json.rules, viewer.rules, 'opted out: left as it is');
      assert.deepEqual((await j.get(`${rbac}/clusterrolebindings/system:basic-user`)).json.subjects, [bob, ...basic.subjects]);
    } finally { j.close(); }
  } finally {
    c.close();
    await first.close();
    await joined?.close();
  }
});

test('the API servers\' own Service lists every live server, and the lease of one gone without a word is cleared', async () => {
  const names = servers[0]!.names;
  const ports = (eps: any) => (eps.subsets ?? []).flatMap((s: any) => s.ports.map((p: any) => p.port)).sort();
  const own = servers.map(s => Number(new URL(s.url).port)).sort();
  await waitFor('both servers in the endpoints', async () => JSON.stringify(ports((await clients[1]!.get(`/api/v1/namespaces/default/endpoints/${names.vendor}`)).json)) === JSON.stringify(own));
  // a server that was killed: its lease, last renewed a minute ago, stays behind
  const leases = `/apis/${names.group('coordination')}/v1/namespaces/${names.systemNamespace}/leases`;
  const renewed = new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z');
  assert.equal((await clients[0]!.request('POST', leases, { body: {
    metadata: { name: 'apiserver-endpoint-killed', labels: { [`apiserver.${names.labelDomain}/endpoint`]: '' }, annotations: { [`apiserver.${names.labelDomain}/advertise-address`]: '127.0.0.1', [`apiserver.${names.labelDomain}/port`]: '1' } },
    spec: { holderIdentity: '127.0.0.1:1', leaseDurationSeconds: 15, renewTime: renewed },
  } })).status, 201);
  await waitFor('the expired lease to be deleted', async () => (await clients[1]!.get(`${leases}/apiserver-endpoint-killed`)).status === 404);
  assert.deepEqual(ports((await clients[0]!.get(`/api/v1/namespaces/default/endpoints/${names.vendor}`)).json), own);
});
