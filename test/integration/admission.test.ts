// The built-in admission plugins through a real server: defaults filled in, refusals with the reference's messages.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { until } from '../support/wait.js';

describe('admission plugins', () => {
  let server: TestServer, c: Client;
  before(async () => {
    server = await startTestServer({ flags: ['--enable-admission-plugins=AlwaysPullImages,DenyServiceExternalIPs'] });
    c = createClient(server);
    // the service-account controller gives every namespace its default account, soon after the server is ready
    await until(async () => (await c.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200, 'the default service account');
  });
  after(async () => { c.close(); await server.close(); });

  const podBody = (name: string, spec: any = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx:1' }], ...spec } });

  test('a pod gets its service account token volume, tolerations, priority and pull policy', async () => {
    const r = await c.request('POST', '/api/v1/namespaces/default/pods', { body: podBody('p1') });
    assert.equal(r.status, 201, r.body);
    const spec = r.json.spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.match(spec.volumes[0].name, /^cluster-api-access-/);
    assert.equal(spec.containers[0].volumeMounts[0].mountPath, '/var/run/secrets/cluster.io/serviceaccount');
    assert.deepEqual(spec.tolerations.map((t: any) => t.key), ['node.cluster.io/not-ready', 'node.cluster.io/unreachable']);
    assert.equal(spec.priority, 0);
    assert.equal(spec.containers[0].imagePullPolicy, 'Always');
  });

  test('a pod without its service account is refused', async () => {
    const r = await c.request('POST', '/api/v1/namespaces/default/pods', { body: podBody('p2', { serviceAccountName: 'ghost' }) });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /error looking up service account default\/ghost/);
  });

  test('a new node is tainted not-ready', async () => {
    const r = await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' } } });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.spec.taints, [{ key: 'node.cluster.io/not-ready', effect: 'NoSchedule' }]);
  });

  // with the resource-quota controller running beside the plugin: its recounts must not undo what admission recorded
  test('quota counts pods and refuses past its limit', async () => {
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/resourcequotas', { body: { metadata: { name: 'q' }, spec: { hard: { pods: '2' } } } })).status, 201);
    // admission counts against a quota once the resource-quota controller has written its status, as in the reference
    await until(async () => (await c.get('/api/v1/namespaces/default/resourcequotas/q')).json.status?.hard?.pods === '2', 'the quota status');
    // the quota is found through the watch cache: pods made before it shows there are not counted
    let used = 0;
    for (let i = 0; i < 50 && used < 2; i++) {
      assert.equal((await c.request('POST', '/api/v1/namespaces/default/pods', { body: podBody(`q${i}`) })).status, 201);
      used = Number((await c.get('/api/v1/namespaces/default/resourcequotas/q')).json.status?.used?.pods ?? 0);
    }
    assert.equal(used, 2);
    const refused = await c.request('POST', '/api/v1/namespaces/default/pods', { body: podBody('over') });
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2/);
  });

  test('PodSecurity enforce refuses, warn adds a Warning header', async () => {
    const ns = (name: string, mode: string) => c.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels: { [`pod-security.cluster.io/${mode}`]: 'restricted' } } } });
    for (const [name, mode] of [['strict', 'enforce'], ['loose', 'warn']]) assert.equal((await ns(name!, mode!)).status, 201);
    const body = podBody('priv', { containers: [{ name: 'c', image: 'nginx:1', securityContext: { privileged: true } }] });
    const refused = await c.request('POST', '/api/v1/namespaces/strict/pods', { body });
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /violates PodSecurity "restricted:latest"/);
    const warned = await c.request('POST', '/api/v1/namespaces/loose/pods', { body });
    assert.equal(warned.status, 201, warned.body);
    assert.match(String(warned.headers.warning), /^299 - "would violate PodSecurity \\"restricted:latest\\": privileged/);
  });

  test('DenyServiceExternalIPs refuses external IPs', async () => {
    const r = await c.request('POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }], externalIPs: ['10.1.2.3'] } } });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /use of external IPs is denied/);
  });
});
