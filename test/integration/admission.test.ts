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

  test('PodSecurity: a pod controller\'s template is warned about, never refused', async () => {
    const labels = { 'pod-security.cluster.io/enforce': 'restricted', 'pod-security.cluster.io/warn': 'baseline' };
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'templates', labels } } })).status, 201);
    const template = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }], hostNetwork: true } };
    const made = await c.request('POST', '/apis/apps/v1/namespaces/templates/deployments', { body: { metadata: { name: 'w' }, spec: { replicas: 0, selector: { matchLabels: { app: 'w' } }, template } } });
    assert.equal(made.status, 201, made.body);
    assert.match(String(made.headers.warning), /would violate PodSecurity \\"baseline:latest\\": host namespaces \(hostNetwork=true\)/);
    const job = await c.request('POST', '/apis/batch/v1/namespaces/templates/cronjobs', { body: { metadata: { name: 'cj' }, spec: { schedule: '* * * * *',
      jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } } } } });
    assert.equal(job.status, 201, job.body);
    assert.match(String(job.headers.warning), /host namespaces/);
  });

  test('PodSecurity: unreadable namespace labels are refused; raising the enforced level warns of the pods already there', async () => {
    const label = (mode: string) => `pod-security.cluster.io/${mode}`;
    const bad = await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'unreadable', labels: { [label('enforce')]: 'strict' } } } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.message, `Namespace "unreadable" is invalid: metadata.labels[${label('enforce')}]: Invalid value: "strict": must be one of privileged, baseline, restricted`);
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'raised' } } })).status, 201);
    for (const name of ['b', 'a', 'c']) assert.equal((await c.request('POST', '/api/v1/namespaces/raised/pods', { body: podBody(name) })).status, 201);
    const ns = (await c.get('/api/v1/namespaces/raised')).json;
    const wrongVersion = await c.request('PUT', '/api/v1/namespaces/raised', { body: { ...ns, metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, [label('warn-version')]: 'v2' } } } });
    assert.equal(wrongVersion.status, 422);
    assert.match(wrongVersion.json.message, /Invalid value: "v2": must be "latest" or "v1.x"/);
    // the pods break the new level the same way: one warning names the first of them and counts the others
    await until(async () => (await c.request('GET', '/api/v1/namespaces/raised/pods')).json.items.length === 3, 'the pods in the cache');
    const raised = await c.request('PUT', '/api/v1/namespaces/raised', { body: { ...ns, metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, [label('enforce')]: 'restricted' } } } });
    assert.equal(raised.status, 200, raised.body);
    const warning = String(raised.headers.warning);
    assert.match(warning, /existing pods in namespace \\"raised\\" violate the new PodSecurity enforce level \\"restricted:latest\\"/);
    assert.match(warning, /a \(and 2 other pods\): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile/);
  });

  test('DenyServiceExternalIPs refuses external IPs', async () => {
    const r = await c.request('POST', '/api/v1/namespaces/default/services', {
      body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }], externalIPs: ['10.1.2.3'] } } });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /use of external IPs is denied/);
  });
});
