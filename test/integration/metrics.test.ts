// /metrics: the reference's main families, with their labels, in a text a Prometheus parser reads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import parse from 'parse-prometheus-text-format';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';

let server: TestServer, c: Client;
before(async () => {
  server = await startTestServer({ apiDomain: 'k8s.io' });
  c = createClient(server);
});
after(async () => { c.close(); await server.close(); });

test('a scrape parses and lists each family the reference\'s dashboards read', async () => {
  await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'm' }, data: { a: '1' } } });
  const w = await c.watch('/api/v1/namespaces/default/configmaps?watch=true');
  assert.equal((await w.next())?.type, 'ADDED');
  const r = await c.get('/metrics');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const families = new Map(parse(r.body).map(f => [f.name, f]));
  for (const name of [
    'apiserver_request_total', 'apiserver_request_duration_seconds', 'apiserver_current_inflight_requests', 'apiserver_longrunning_requests',
    'apiserver_registered_watchers', 'apiserver_watch_events_total', 'apiserver_watch_events_sizes', 'apiserver_storage_objects',
    'etcd_request_duration_seconds', 'etcd_requests_total', 'apiserver_admission_step_admission_duration_seconds',
    'apiserver_admission_controller_admission_duration_seconds', 'apiserver_admission_webhook_admission_duration_seconds',
    'apiserver_admission_webhook_rejection_count', 'authentication_attempts', 'authentication_duration_seconds',
    'authorization_attempts_total', 'authorization_duration_seconds', 'kubernetes_feature_enabled',
    'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes',
  ]) assert.ok(families.has(name), `missing ${name}`);
  const series = (name: string) => families.get(name)!.metrics;
  const created = series('apiserver_request_total').find(m => m.labels?.verb === 'POST' && m.labels?.resource === 'configmaps');
  assert.deepEqual({ ...created!.labels }, { verb: 'POST', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '201' });
  assert.ok(series('apiserver_registered_watchers').some(m => m.labels?.kind === 'ConfigMap' && Number(m.value) >= 1));
  assert.ok(series('apiserver_watch_events_total').some(m => m.labels?.kind === 'ConfigMap' && Number(m.value) >= 1));
  assert.ok(series('apiserver_storage_objects').some(m => m.labels?.resource === 'configmaps' && Number(m.value) >= 1));
  // the parser keeps no labels of histogram series: those are read from the text
  assert.match(r.body, /^etcd_request_duration_seconds_count\{operation="create",type="configmaps"\} [1-9]/m);
  assert.ok(series('etcd_requests_total').some(m => m.labels?.operation === 'create' && m.labels?.type === 'configmaps'));
  assert.match(r.body, /^apiserver_admission_controller_admission_duration_seconds_count\{name="NamespaceLifecycle",type="validate",operation="CREATE",rejected="false"\} [1-9]/m);
  assert.ok(series('authentication_attempts').some(m => m.labels?.result === 'success' && Number(m.value) >= 1));
  assert.ok(series('authorization_attempts_total').some(m => m.labels?.result === 'allowed'));
  assert.deepEqual(series('kubernetes_feature_enabled').find(m => m.labels?.name === 'WatchList')?.labels, { name: 'WatchList', stage: 'ALPHA' });
  w.close();
});

test('requests for resources the server does not serve are counted without their made-up names', async () => {
  // an APIService whose backend is not there: its group version is remote, but no discovery says what it serves
  const apiService = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.made.up' },
    spec: { group: 'made.up', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'default', name: 'absent', port: 443 } } };
  assert.equal((await c.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: apiService })).status, 201);
  await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'known' } } });
  const requestSeries = async () => new Set((await c.get('/metrics')).body.split('\n').filter(l => l.startsWith('apiserver_request_')).map(l => l.replace(/ \S+$/, '')));
  const madeUp = (i: number) => [
    `/apis/made.up.too/v${i}/things-${i}`, `/apis/made.up/v1/things-${i}`, `/apis/made.up/v1/namespaces/default/things-${i}/x`,
    `/api/v1/namespaces/default/configmaps/known/sub-${i}`, `/api/v1/things-${i}`, `/apis/apps/v1/things-${i}`,
    // discovery paths of groups and versions nobody serves
    `/apis/made.up.group-${i}/v${i}`, `/apis/made.up/things-${i}`, `/api/things-${i}`,
  ];
  for (const path of madeUp(0)) assert.ok((await c.get(path)).status >= 400, path);
  const before = await requestSeries();
  for (let i = 1; i < 20; i++) for (const path of madeUp(i)) assert.ok((await c.get(path)).status >= 400, path);
  assert.deepEqual((await c.get('/metrics')).body.match(/(things|sub|group)-\d+/g) ?? [], []);
  // the server's own clients may add series meanwhile; none may come from the made-up paths (unserved resources carry
  // empty group, version and resource labels, so after the first round they fall into series that already exist)
  const added = [...await requestSeries()].filter(k => !before.has(k));
  const fromMadeUp = (k: string) => /made\.up|version="v([3-9]|1\d)"/.test(k) || (/[{,]resource=""/.test(k) && /scope="(namespace|cluster|resource)"/.test(k));
  assert.deepEqual(added.filter(fromMadeUp), [],
    'made-up paths add no series');
  assert.equal((await c.get('/api/v1/namespaces/default/configmaps/absent')).status, 404);
  assert.match((await c.get('/metrics')).body, /^apiserver_request_total\{[^}]*resource="configmaps"[^}]*code="404"/m, 'a served resource keeps its labels');
});
