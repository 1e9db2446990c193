// ResourceQuota status kept by the quota controller: hard copied from the spec, used recomputed from what the
// namespace holds, so deleted and finished objects give their share back (admission only ever adds).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { until } from '../support/wait.js';

describe('resource quota controller', () => {
  let server: TestServer;
  let c: Client;
  const ns = '/api/v1/namespaces/quota';
  before(async () => {
    server = await startTestServer({ flags: ['--controllers=*,-root-ca-cert-publisher'] });
    c = createClient(server);
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota' } } })).status, 201);
  });
  after(async () => { c.close(); await server.close(); });

  const used = async () => (await c.get(`${ns}/resourcequotas/q`)).json.status?.used ?? {};
  const pod = (name: string, cpu: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'x:1', resources: { requests: { cpu }, limits: { cpu } } }] } });

  test('used follows creations, deletions and finished pods', async () => {
    const hard = { pods: '5', 'requests.cpu': '2', configmaps: '10', 'count/deployments.apps': '3', services: '4', 'services.nodeports': '2' };
    assert.equal((await c.request('POST', `${ns}/resourcequotas`, { body: { metadata: { name: 'q' }, spec: { hard } } })).status, 201);
    await until(async () => JSON.stringify((await c.get(`${ns}/resourcequotas/q`)).json.status?.hard) === JSON.stringify(hard), 'status.hard');
    for (const [name, cpu] of [['a', '500m'], ['b', '1'], ['d', '250m']]) assert.equal((await c.request('POST', `${ns}/pods`, { body: pod(name, cpu) })).status, 201);
    assert.equal((await c.request('POST', `${ns}/configmaps`, { body: { metadata: { name: 'cm' } } })).status, 201);
    assert.equal((await c.request('POST', `${ns}/services`, { body: { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } } })).status, 201);
    assert.equal((await c.request('POST', `/apis/apps/v1/namespaces/quota/deployments`, { body: { metadata: { name: 'd' }, spec: {
      replicas: 0, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } } })).status, 201);
    const want = { pods: '3', 'requests.cpu': '1750m', configmaps: '1', 'count/deployments.apps': '1', services: '1', 'services.nodeports': '1' };
    await until(async () => JSON.stringify(Object.entries(await used()).sort()) === JSON.stringify(Object.entries(want).sort()), 'the usage of what was made');
    // a deleted pod and a finished one give their share back
    assert.equal((await c.request('DELETE', `${ns}/pods/a`, { body: { gracePeriodSeconds: 0 } })).status, 200);
    const b = (await c.get(`${ns}/pods/b`)).json;
    assert.equal((await c.request('PUT', `${ns}/pods/b/status`, { body: { ...b, status: { phase: 'Succeeded' } } })).status, 200);
    await until(async () => { const u = await used(); return u.pods === '1' && u['requests.cpu'] === '250m'; }, 'the usage to drop');
  });
});
