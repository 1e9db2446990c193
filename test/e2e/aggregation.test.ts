// The aggregation layer with a real backend: a small aggregated API server (HTTPS, its own group) behind an
// APIService whose Service reaches it through its Endpoints. Discovery lists its group, kubectl gets and watches its
// resources through the API server, the Available condition follows the backend going down and up, and the backend
// sees the requesting user in the front-proxy headers, signed by the proxy client certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as tlsConnect } from 'node:tls';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from '../integration/client.js';
import { startAggregatedServer, type AggregatedServer, type AuthenticationConfig } from '../support/aggregated-server.js';
import { waitFor } from '../support/cluster.js';
import { startKubectlEnv, type KubectlEnv } from './support.js';

const group = 'wardle.example.com', version = 'v1alpha1';

describe('an aggregated API server behind an APIService', { concurrency: 1 }, () => {
  let server: TestServer, c: Client, backend: AggregatedServer, k: KubectlEnv;
  const apiServicePath = `/apis/apiregistration.k8s.io/v1/apiservices/${version}.${group}`;
  const available = async () => (await c.get(apiServicePath)).json?.status?.conditions?.find((x: { type: string }) => x.type === 'Available');

  before(async () => {
    server = await startTestServer({ apiDomain: 'k8s.io', apiServiceCheckIntervalMs: 200 });
    c = createClient(server);
    const auth = (await c.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).json?.data as AuthenticationConfig;
    assert.ok(auth?.['requestheader-client-ca-file'], 'the API server publishes its front-proxy CA');
    backend = await startAggregatedServer({ group, version, service: 'wardle', namespace: 'default', auth });
    for (const [path, body] of [
      ['/api/v1/namespaces/default/services', { metadata: { name: 'wardle' }, spec: { ports: [{ port: 443, targetPort: backend.port }] } }],
      ['/api/v1/namespaces/default/endpoints', { metadata: { name: 'wardle' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: backend.port }] }] }],
      ['/apis/apiregistration.k8s.io/v1/apiservices', {
        metadata: { name: `${version}.${group}` },
        spec: { group, version, service: { namespace: 'default', name: 'wardle', port: 443 }, caBundle: Buffer.from(backend.caPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 10 },
      }],
    ] as const) {
      const r = await c.request('POST', path, { body });
      assert.equal(r.status, 201, r.body);
    }
    k = await startKubectlEnv('1.27', 'k8s.io', server);
  });
  after(async () => {
    await k?.close();
    c?.close();
    await backend?.stop().catch(() => {});
    await server?.close();
  });

  test('the APIService becomes Available once its backend answers discovery', async () => {
    const cond = await waitFor('Available=True', async () => { const a = await available(); return a?.status === 'True' && a; });
    assert.equal(cond.reason, 'Passed');
  });

  test('discovery lists the group, in legacy and aggregated form, after the built-in groups of higher priority', async () => {
    const groups = (await c.get('/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.ok(groups.includes(group), groups.join(' '));
    assert.ok(groups.indexOf(group) > groups.indexOf('apps'), 'groupPriorityMinimum orders the groups');
    const agg = await c.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
    const entry = agg.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === group);
    assert.deepEqual(entry.versions[0].resources.map((r: { resource: string }) => r.resource), ['flunders']);
    assert.equal((await c.get(`/apis/${group}`)).json.preferredVersion.version, version);
    const list = (await c.get(`/apis/${group}/${version}`)).json;
    assert.equal(list.resources[0].name, 'flunders');
    const apiServices = await k.ok(['get', 'apiservices']);
    assert.match(apiServices, /v1\.apps\s+Local\s+True/, 'the built-in group versions have local APIServices');
    assert.match(apiServices, new RegExp(`${version}\\.${group}\\s+default/wardle\\s+True`));
  });

  test('kubectl gets and watches the resources through the API server; the backend sees the user from the front proxy', async () => {
    assert.match(await k.ok(['api-resources', '--api-group', group]), /flunders/);
    const got = await k.ok(['get', 'flunders', '-n', 'default', '-o', 'name']);
    assert.deepEqual(got.trim().split('\n'), ['flunder.wardle.example.com/alpha', 'flunder.wardle.example.com/beta']);
    assert.equal(JSON.parse(await k.ok(['get', 'flunder', 'beta', '-n', 'default', '-o', 'json'])).spec.reference, 'beta');
    const w = k.watch(['get', 'flunders', '-n', 'default', '--watch', '-o', 'name']);
    await waitFor('the watch to reach the backend', () => backend.watching() > 0);
    backend.emit('ADDED', 'gamma');
    await w.line(/gamma/, { timeoutMs: 60_000 });
    await w.stop();
    const seen = backend.seen.filter(s => s.username === 'admin');
    assert.ok(seen.length > 0, 'requests arrive as the requesting user');
    assert.ok(seen.every(s => s.groups.includes('system:masters') && s.proxyName === 'front-proxy-client'));
    assert.equal(backend.refused, 0);
  });

  test('an upgrade request is passed through to the backend, with the user in the front-proxy headers', async () => {
    const path = `/apis/${group}/${version}/namespaces/default/flunders/alpha/echo`;
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
    await once(socket, 'secureConnect');
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`);
    let received = '';
    socket.setEncoding('utf8').on('data', (d: string) => { received += d; });
    await waitFor('the switch and the greeting', () => /hello admin\n/.test(received));
    assert.match(received, /^HTTP\/1\.1 101 /);
    socket.write('ping\n');
    await waitFor('the echo', () => received.endsWith('ping\n'));
    socket.destroy();
  });

  test('the merged OpenAPI carries the backend\'s definitions; v3 lists and serves its group version', async () => {
    const v2 = (await c.get('/openapi/v2', { accept: 'application/json' })).json;
    assert.ok(v2.definitions[`com.example.${version}.Flunder`]);
    assert.ok(v2.definitions['io.k8s.api.core.v1.Pod'], 'the server\'s own definitions stay');
    const index = (await c.get('/openapi/v3')).json;
    assert.ok(index.paths[`apis/${group}/${version}`]);
  });

  test('Available follows the backend going down and up', async () => {
    await backend.stop();
    const down = await waitFor('Available=False', async () => { const a = await available(); return a?.status === 'False' && a; });
    assert.equal(down.reason, 'FailedDiscoveryCheck');
    const r = await c.get(`/apis/${group}/${version}/namespaces/default/flunders`);
    assert.equal(r.status, 503, r.body);
    await backend.start();
    await waitFor('Available=True again', async () => (await available())?.status === 'True');
    assert.equal((await c.get(`/apis/${group}/${version}/namespaces/default/flunders`)).json.items.length, 2);
  });

  test('an APIService whose Service has no endpoints is not available, with the reference\'s reason', async () => {
    assert.equal((await c.request('DELETE', '/api/v1/namespaces/default/endpoints/wardle')).status, 200);
    const cond = await waitFor('EndpointsNotFound', async () => { const a = await available(); return a?.reason === 'EndpointsNotFound' && a; });
    assert.equal(cond.status, 'False');
    assert.match(cond.message, /cannot find endpoints for service\/wardle in "default"/);
  });
});
