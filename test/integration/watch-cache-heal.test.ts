// The watch cache heals against real etcd. Under a steady write load the network to etcd fails, another client
// writes under the server's prefix and compacts etcd past everything the cache has seen, and etcd restarts; then
// the network comes back. Watchers either go on without loss or get 410 and list again, readyz fails while the cache
// catches up and passes after, and an RBAC change made after the restart takes effect at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { naming } from '../../src/api/naming.js';
import { clientFromFile, type Client as RestClient } from '../../src/client/rest-client.js';
import { startInformer, type Informer } from '../../src/client/informer.js';
import { openEtcdKV } from '../../src/storage/etcd/kv.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/wait.js';
import { createClient, type Client } from './client.js';
import { call, issueClientCert, serverCa } from './auth-support.js';

const names = naming();
const rbac = `/apis/${names.group('rbac.authorization')}/v1`;
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));


let etcd: EtcdServer;
let proxy: TcpProxy;
let server: TestServer;
let c: Client;
let rest: RestClient;

before(async () => {
  etcd = await startEtcd();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(etcd.endpoint).port) });
  server = await startTestServer({ storage: 'etcd', etcdServers: [proxy.endpoint], etcdPrefix: '/heal', flags: ['--authorization-mode=RBAC'] });
  c = createClient(server);
  rest = await clientFromFile(server.kubeconfig, { qps: 0 });
});
after(async () => {
  rest?.close();
  c?.close();
  await server?.close();
  await proxy?.close();
  await etcd?.stop();
});

interface Watcher { informer: Informer<any>; syncs: number; events: Array<{ type: string; rv: string; name: string }> }

function watch(resource: string, ns: string): Watcher {
  const w: Watcher = { syncs: 0, events: [], informer: undefined! };
  w.informer = startInformer(rest.resource({ group: '', version: 'v1', resource }, ns), e => {
    if (e.type === 'sync') w.syncs++;
    else w.events.push({ type: e.type, rv: e.object.metadata.resourceVersion, name: e.object.metadata.name });
  }, { retryDelayMs: 100 });
  return w;
}

test('compaction past the cache and an etcd restart under writes: watchers go on or relist, readyz follows the cache, RBAC changes apply', async t => {
  const ns = 'heal';
  assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  assert.equal((await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'quiet' }, stringData: { a: 'b' } } })).status, 201);
  const watchers = [watch('configmaps', ns), watch('configmaps', ns), watch('configmaps', ns)];
  const quiet = watch('secrets', ns);
  await Promise.all([...watchers, quiet].map(w => w.informer.synced));

  // readyz, sampled all along
  const samples: Array<{ status: number; cacheOk: boolean }> = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const r = await c.get('/readyz?verbose').catch(() => undefined);
      if (r) samples.push({ status: r.status, cacheOk: r.body.includes('[+]poststarthook/start-watch-cache ok') });
      await sleep(25);
    }
  })();

  // the steady write load
  const written: Array<{ name: string; rv: string }> = [];
  let refused = 0;
  let writing = true;
  const load = (async () => {
    for (let i = 0; writing; i++) {
      const r = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `load-${i}` }, data: { i: String(i) } } });
      if (r.status === 201) written.push({ name: r.json.metadata.name, rv: r.json.metadata.resourceVersion }); else refused++;
      await sleep(10);
    }
  })();
  await until(() => written.length >= 20, 'the load to run', 60_000);

  proxy.cut();
  await until(() => samples.some(s => s.status !== 200 && !s.cacheOk), 'readyz to report the watch cache', 60_000);
  // meanwhile another client writes under the server's prefix and compacts past all of it, and etcd restarts
  const other = await openEtcdKV({ endpoints: [etcd.endpoint], prefix: '/heal' });
  try {
    for (let i = 0; i < 5; i++) {
      await other.create(`/registry/core/configmaps/${ns}/direct-${i}`, Buffer.from(JSON.stringify({
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `direct-${i}`, namespace: ns, uid: `direct-${i}`, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }, data: { from: 'elsewhere' },
      })));
    }
    await other.compact(await other.currentRevision());
  } finally {
    await other.close();
  }
  await etcd.restart();
  const restoredAt = samples.length;
  proxy.restore();
  await until(() => samples.length > restoredAt && samples[samples.length - 1].status === 200, 'readyz to pass again', 60_000);
  const healed = samples.slice(restoredAt);
  t.diagnostic(`readyz samples: ${samples.filter(s => s.status !== 200).length} failing (the watch cache among the failures in ${samples.filter(s => !s.cacheOk).length}), then ${healed.filter(s => s.status === 200).length} passing after the network came back`);

  // an RBAC change made after the restart
  const alice = await issueClientCert(serverCa(server), 'alice');
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await call(server, alice, 'GET', path)).status, 403);
  assert.equal((await c.request('POST', `${rbac}/namespaces/${ns}/roles`, { body: {
    metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
  } })).status, 201);
  const granted = performance.now();
  assert.equal((await c.request('POST', `${rbac}/namespaces/${ns}/rolebindings`, { body: {
    metadata: { name: 'alice-reads' }, roleRef: { apiGroup: names.group('rbac.authorization'), kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: names.group('rbac.authorization') }],
  } })).status, 201);
  await until(async () => (await call(server, alice, 'GET', path)).status === 200, 'the RoleBinding to take effect', 30_000);
  const tookMs = performance.now() - granted;
  t.diagnostic(`the RoleBinding made after the restart took effect after ${tookMs.toFixed(0)} ms`);

  const before = written.length;
  await until(() => written.length >= before + 20, 'the load to go on after healing', 60_000);
  writing = false;
  await load;
  assert.equal((await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'after' }, stringData: { a: 'b' } } })).status, 201);

  // every watcher ends with what is stored: the ones that relisted from a list, the others from every change
  const stored = (await c.get(`/api/v1/namespaces/${ns}/configmaps`)).json.items as any[];
  const want = new Map(stored.map(o => [o.metadata.name, o.metadata.resourceVersion]));
  for (const i of [0, 1, 2, 3, 4]) assert.ok(want.has(`direct-${i}`), 'the writes made elsewhere are served');
  for (const w of watchers) {
    await until(() => w.informer.store.size === want.size
      && [...w.informer.store.values()].every((o: any) => want.get(o.metadata.name) === o.metadata.resourceVersion), 'a watcher to hold what is stored', 30_000);
    if (w.syncs === 1) {
      const seen = new Set(w.events.map(e => e.rv));
      assert.deepEqual(written.filter(x => !seen.has(x.rv)), [], 'a watcher that went on saw every write');
    }
  }
  const relisted = watchers.filter(w => w.syncs > 1).length;
  t.diagnostic(`configmaps watchers: ${relisted} got 410 and listed again, ${watchers.length - relisted} went on; ${written.length} writes accepted, ${refused} refused while etcd was away`);
  assert.ok(relisted > 0, 'the resource that changed in the gap could not be carried over');
  await until(() => quiet.informer.store.has(`${ns}/after`), 'the quiet watcher to see a change after healing', 30_000);
  assert.equal(quiet.syncs, 1, 'the watcher of a resource that did not change in the gap went on');

  sampling = false;
  await sampler;
  for (const w of [...watchers, quiet]) w.informer.stop();
});
