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

  test('a kind counted by listing (count/<resource>.<group>) gives its share back as soon as an object of it is deleted', async () => {
    await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota-listed' } } });
    const quotas = '/api/v1/namespaces/quota-listed/resourcequotas';
    const hard = { 'count/replicasets.apps': '1' };
    assert.equal((await c.request('POST', quotas, { body: { metadata: { name: 'rs' }, spec: { hard } } })).status, 201);
    await until(async () => (await c.get(`${quotas}/rs`)).json.status?.used?.['count/replicasets.apps'] === '0', 'the first count');
    const rs = (name: string) => ({ metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { a: name } },
      template: { metadata: { labels: { a: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } });
    const replicaSets = '/apis/apps/v1/namespaces/quota-listed/replicasets';
    assert.equal((await c.request('POST', replicaSets, { body: rs('one') })).status, 201);
    assert.equal((await c.request('POST', replicaSets, { body: rs('two') })).status, 403);
    assert.equal((await c.request('DELETE', `${replicaSets}/one`)).status, 200);
    // given back by the deletion (the resync of every quota is minutes away)
    await until(async () => (await c.get(`${quotas}/rs`)).json.status?.used?.['count/replicasets.apps'] === '0', 'the share given back');
    assert.equal((await c.request('POST', replicaSets, { body: rs('two') })).status, 201);
  });

  test('count/pods counts finished pods too; a pod stuck being deleted stops counting past its grace period', async () => {
    await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quota-ending' } } });
    const base = '/api/v1/namespaces/quota-ending';
    const hard = { pods: '5', 'count/pods': '5' };
    assert.equal((await c.request('POST', `${base}/resourcequotas`, { body: { metadata: { name: 'q' }, spec: { hard } } })).status, 201);
    const usedHere = async () => (await c.get(`${base}/resourcequotas/q`)).json.status?.used ?? {};
    await until(async () => (await usedHere()).pods === '0', 'the first count');
    assert.equal((await c.request('POST', `${base}/pods`, { body: { metadata: { name: 'done' }, spec: { containers: [{ name: 'c', image: 'x' }] } } })).status, 201);
    const done = (await c.get(`${base}/pods/done`)).json;
    assert.equal((await c.request('PUT', `${base}/pods/done/status`, { body: { ...done, status: { phase: 'Succeeded' } } })).status, 200);
    await until(async () => { const u = await usedHere(); return u.pods === '0' && u['count/pods'] === '1'; }, 'a finished pod in count/pods only');
    // on a node that is gone (nothing will confirm the deletion), held by a finalizer
    const stuck = { metadata: { name: 'stuck', finalizers: ['example.com/hold'] }, spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'x' }] } };
    assert.equal((await c.request('POST', `${base}/pods`, { body: stuck })).status, 201);
    await until(async () => (await usedHere()).pods === '1', 'the stuck pod charged');
    assert.equal((await c.request('DELETE', `${base}/pods/stuck`, { body: { gracePeriodSeconds: 1 } })).status, 200);
    await until(async () => { const u = await usedHere(); return u.pods === '0' && u['count/pods'] === '2'; }, 'the stuck pod no longer charged');
    assert.equal((await c.request('PATCH', `${base}/pods/stuck`, { body: JSON.stringify({ metadata: { finalizers: null } }), contentType: 'application/merge-patch+json' })).status, 200);
    await until(async () => (await usedHere())['count/pods'] === '1', 'the stuck pod gone');
  });

  test('a scope selector on PriorityClass counts only the pods of those classes, in admission and in the recount', async () => {
    assert.equal((await c.request('POST', '/apis/scheduling.cluster.io/v1/priorityclasses', { body: { metadata: { name: 'gold' }, value: 1000 } })).status, 201);
    const scoped = { metadata: { name: 'gold' }, spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['gold'] }] } } };
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'scoped' } } })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/namespaces/scoped/resourcequotas', { body: scoped })).status, 201);
    await until(async () => (await c.get('/api/v1/namespaces/scoped/resourcequotas/gold')).json.status?.hard?.pods === '1', 'status.hard');
    const classed = (name: string) => ({ ...pod(name, '10m'), spec: { ...pod(name, '10m').spec, priorityClassName: 'gold' } });
    // pods of no class are not counted: however many there are
    for (const name of ['plain-1', 'plain-2']) assert.equal((await c.request('POST', '/api/v1/namespaces/scoped/pods', { body: pod(name, '10m') })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/namespaces/scoped/pods', { body: classed('gold-1') })).status, 201);
    const refused = await c.request('POST', '/api/v1/namespaces/scoped/pods', { body: classed('gold-2') });
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /exceeded quota: gold, requested: pods=1, used: pods=1, limited: pods=1/);
    // a recount (the spec changed) counts the same pods
    const cur = (await c.get('/api/v1/namespaces/scoped/resourcequotas/gold')).json;
    assert.equal((await c.request('PUT', '/api/v1/namespaces/scoped/resourcequotas/gold', { body: { ...cur, spec: { ...cur.spec, hard: { pods: '3' } } } })).status, 200);
    await until(async () => { const s = (await c.get('/api/v1/namespaces/scoped/resourcequotas/gold')).json.status; return s?.hard?.pods === '3' && s?.used?.pods === '1'; }, 'the recount');
  });

  test('a pod without the requests or limits a compute quota caps is refused, naming each resource and the containers that miss it', async () => {
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'compute' } } })).status, 201);
    const hard = { cpu: '2', 'limits.memory': '1Gi', 'requests.ephemeral-storage': '1Gi' };
    assert.equal((await c.request('POST', '/api/v1/namespaces/compute/resourcequotas', { body: { metadata: { name: 'compute' }, spec: { hard } } })).status, 201);
    await until(async () => !!(await c.get('/api/v1/namespaces/compute/resourcequotas/compute')).json.status?.hard, 'status.hard');
    const refused = await c.request('POST', '/api/v1/namespaces/compute/pods', { body: { metadata: { name: 'p' }, spec: { containers: [
      { name: 'app', image: 'x:1' },
      { name: 'side', image: 'x:1', resources: { requests: { cpu: '100m' } } },
    ] } } });
    assert.equal(refused.status, 403);
    // ephemeral storage is counted but never required, as the reference
    assert.equal(refused.json.message, 'pods "p" is forbidden: failed quota: compute: must specify cpu for: app; limits.memory for: app,side');
  });

  test('a quota is validated as the reference validates it: known resources, whole counts, scopes that fit and agree', async () => {
    const make = (name: string, spec: Record<string, unknown>) => c.request('POST', `${ns}/resourcequotas`, { body: { metadata: { name }, spec } });
    const refused = async (name: string, spec: Record<string, unknown>) => { const r = await make(name, spec); assert.equal(r.status, 422, r.body); return r.json.message as string; };
    assert.equal(await refused('unknown', { hard: { foo: '1' } }), 'ResourceQuota "unknown" is invalid: spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota');
    assert.match(await refused('negative', { hard: { pods: '-1' } }), /spec.hard\[pods\]: Invalid value: "-1": must be greater than or equal to 0/);
    assert.match(await refused('fraction', { hard: { pods: '1.5' } }), /spec.hard\[pods\]: Invalid value: "1500m": must be an integer/);
    assert.match(await refused('conflict', { hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }), /spec.scopes: Invalid value: .*: conflicting scopes/);
    assert.match(await refused('misfit', { hard: { configmaps: '1' }, scopes: ['Terminating'] }), /spec.scopes: Invalid value: .*: unsupported scope applied to resource/);
    assert.match(await refused('operator', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }),
      /spec.scopeSelector.matchExpressions\[0\].values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector/);
    // what the reference admits: object counts of any kind, extended resources by their requests, compute under a pod scope
    assert.equal((await make('fine', { hard: { pods: '2', cpu: '1', 'count/deployments.apps': '3', 'requests.example.com/dongle': '2' }, scopes: ['NotTerminating'] })).status, 201);
  });
});
