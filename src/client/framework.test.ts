// The controller framework against a real API server: shared informers (one list+watch per collection,
// indexes, handlers, deletions noticed at a relist, resync), leader election through a Lease, and the
// event recorder's deduplication and spam limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing.js';
import { clientFromFile, type Client, type ResourceClient, type WatchEvent } from './rest-client.js';
import { createInformerFactory, ownerUidIndex } from './informer.js';
import { withoutManagedFields } from './compact.js';
import { startLeaderElection, type LeaderElector } from './leader-election.js';
import { createEventRecorder } from './events.js';
import { discoverNaming, discoverResources } from './discovery.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' };
const until = async (what: string, f: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('controller framework', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer({ flags: ['--controller-manager=false'] });
    client = await clientFromFile(server.kubeconfig);
  });
  after(async () => {
    client?.close();
    await server?.close();
  });

  test('shared informer: one per collection, indexes by namespace and owner, handlers for every change', async () => {
    const factory = createInformerFactory(client);
    const cms = client.resource(configMaps, 'default');
    await cms.create({ metadata: { name: 'before', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'owner-1' }] } });
    const inf = factory.informer(configMaps);
    assert.equal(factory.informer(configMaps), inf, 'the same informer for the same collection');
    inf.addIndex('owner', ownerUidIndex);
    const seen: string[] = [];
    inf.addHandler({
      added: (o) => seen.push(`add ${o.metadata.name}`),
      updated: (a, b) => { if (a.metadata.resourceVersion !== b.metadata.resourceVersion) seen.push(`update ${b.metadata.name}`); },
      deleted: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    factory.start();
    await factory.waitForSync();
    assert.ok(inf.hasSynced());
    assert.ok(inf.get('default/before'));
    assert.deepEqual(inf.byIndex('owner', 'owner-1').map((o) => o.metadata.name), ['before']);
    const c = await cms.create({ metadata: { name: 'later' }, data: { a: '1' } });
    await cms.update({ ...c, data: { a: '2' } });
    await cms.delete('later');
    await until('the delete seen', () => seen.includes('delete later'));
    assert.deepEqual(seen.filter((s) => s.endsWith('later')), ['add later', 'update later', 'delete later']);
    assert.ok(inf.list('default').some((o) => o.metadata.name === 'before'));
    assert.equal(inf.list('other').length, 0);
    // a handler added late is told about what is known
    const late: string[] = [];
    inf.addHandler({ added: (o) => late.push(o.metadata.name) });
    assert.ok(late.includes('before'));
    factory.stop();
  });

  test('after a 410 the informer relists, and a deletion it missed is told as one with an unknown final state', async () => {
    // a resource client whose first watch fails with 410 after the object went away behind its back
    const real = client.resource(configMaps);
    await client.resource(configMaps, 'default').create({ metadata: { name: 'ghost' } });
    let watches = 0;
    const fakeClient = {
      ...client,
      resource: () => ({
        ...real,
        list: real.list,
        watch: (o: any) => {
          if (watches++ === 0) {
            return (async function* (): AsyncIterable<WatchEvent> {
              await client.resource(configMaps, 'default').delete('ghost');
              throw Object.assign(new (await import('./rest-client.js')).ApiError(410, 'Expired', 'too old'));
            })();
          }
          return real.watch(o);
        },
      }) as ResourceClient,
    } as Client;
    const factory = createInformerFactory(fakeClient);
    const inf = factory.informer(configMaps);
    const deleted: Array<[string, boolean]> = [];
    inf.addHandler({ deleted: (o, unknown) => deleted.push([o.metadata.name, unknown]) });
    factory.start();
    await until('the relist', () => deleted.length > 0);
    assert.deepEqual(deleted, [['ghost', true]]);
    factory.stop();
  });

  test('a transform applies to every object listed or watched before it is kept or handed on: managed fields dropped', async () => {
    const cms = client.resource(configMaps, 'default');
    await cms.create({ metadata: { name: 'trim-listed' }, data: { a: '0' } });
    const factory = createInformerFactory(client, { transform: withoutManagedFields });
    const inf = factory.informer(configMaps);
    const handed: any[] = [];
    inf.addHandler({ added: (o) => handed.push(o), updated: (_, o) => handed.push(o) });
    factory.start();
    await factory.waitForSync();
    const watched = await cms.create({ metadata: { name: 'trim-watched' }, data: { a: '0' } });
    await cms.update({ ...watched, data: { a: '1' } });
    await until('the update seen', () => inf.get('default/trim-watched')?.data?.a === '1');
    assert.ok((await cms.get('trim-listed')).metadata.managedFields?.length, 'the server keeps them');
    for (const key of ['default/trim-listed', 'default/trim-watched']) assert.equal(inf.get(key)!.metadata.managedFields, undefined, key);
    assert.ok(handed.length >= 3 && handed.every((o) => o.metadata.managedFields === undefined));
    factory.stop();
  });

  test('resync tells every handler about every object again', async () => {
    const factory = createInformerFactory(client, { resyncMs: 50 });
    const inf = factory.informer(configMaps);
    let resyncs = 0;
    inf.addHandler({ updated: (a, b) => { if (a === b) resyncs++; } });
    factory.start();
    await until('two resyncs', () => resyncs >= 2);
    factory.stop();
  });

  test('leader election: one of two candidates leads; when it stops, the other takes over', async () => {
    const names = await discoverNaming(client);
    const leases = { group: names.group('coordination'), version: 'v1', resource: 'leases', kind: 'Lease' };
    const leading = new Set<string>();
    const candidate = (identity: string): LeaderElector => startLeaderElection({
      client, leases, namespace: 'default', name: 'test-lock', identity,
      leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200, releaseOnStop: true,
      onStartedLeading: (signal) => { leading.add(identity); signal.addEventListener('abort', () => leading.delete(identity)); },
    });
    const a = candidate('a');
    const b = candidate('b');
    await until('a leader', () => leading.size === 1);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(leading.size, 1, 'never two');
    const [first, second] = a.isLeader() ? [a, b] : [b, a];
    const lease = await client.resource(leases, 'default').get('test-lock');
    assert.equal(lease.spec.holderIdentity, first === a ? 'a' : 'b');
    await first.stop();
    await until('the other takes over', () => second.isLeader());
    const after = await client.resource(leases, 'default').get('test-lock');
    assert.equal(after.spec.holderIdentity, second === a ? 'a' : 'b');
    assert.equal(after.spec.leaseTransitions, 1);
    await second.stop();
  });

  test('event recorder: a repeat raises the count; past the burst, repeats about one object are dropped', async () => {
    const names = await discoverNaming(client);
    const cm = await client.resource(configMaps, 'default').create({ metadata: { name: 'noisy' } });
    const recorder = createEventRecorder(client, { names, component: 'test-controller', host: 'h1' });
    for (let i = 0; i < 3; i++) recorder.event(cm, 'Normal', 'Poked', 'poked once more');
    recorder.event(cm, 'Warning', 'Failed', 'it failed');
    await recorder.flush();
    const events = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list({ fieldSelector: 'involvedObject.name=noisy' })).items;
    const poked = events.find((e: any) => e.reason === 'Poked');
    assert.equal(poked.count, 3);
    assert.equal(poked.source.component, 'test-controller');
    assert.equal(poked.involvedObject.uid, cm.metadata.uid);
    assert.equal(events.find((e: any) => e.reason === 'Failed').type, 'Warning');
    // 25 in a burst per object: 4 used above
    for (let i = 0; i < 40; i++) recorder.event(cm, 'Normal', `Distinct${i}`, `message ${i}`);
    await recorder.flush();
    const all = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list({ fieldSelector: 'involvedObject.name=noisy' })).items;
    assert.equal(all.length, 2 + 21);
    // events.<domain>/v1 with a series for repeats
    const v1 = createEventRecorder(client, { names, component: 'test-scheduler', api: 'events' });
    v1.event(cm, 'Warning', 'FailedScheduling', 'no nodes', { action: 'Scheduling' });
    v1.event(cm, 'Warning', 'FailedScheduling', 'no nodes', { action: 'Scheduling' });
    await v1.flush();
    const ev = (await client.resource({ group: names.group('events'), version: 'v1', resource: 'events' }, 'default').list()).items
      .find((e: any) => e.reportingController === 'test-scheduler');
    assert.equal(ev.regarding.name, 'noisy');
    assert.equal(ev.series.count, 2);
  });

  test('event recorder: an event is named when it is recorded, not when the writes queued before it are done', async () => {
    const names = await discoverNaming(client);
    const cm = await client.resource(configMaps, 'default').create({ metadata: { name: 'queued' } });
    const recorder = createEventRecorder(client, { names, component: 'queue-controller' });
    // the writes go one at a time: the last event waits for twenty round trips
    for (let i = 0; i < 20; i++) recorder.event(cm, 'Normal', `Before${i}`, `event ${i}`);
    recorder.event(cm, 'Normal', 'Last', 'recorded now');
    const recordedBy = BigInt(Date.now() + 1) * 1_000_000n;
    await recorder.flush();
    const events = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list({ fieldSelector: 'involvedObject.name=queued' })).items;
    const last = events.find((e: any) => e.reason === 'Last');
    assert.ok(BigInt(`0x${last.metadata.name.split('.')[1]}`) <= recordedBy, `${last.metadata.name} is named after it was recorded`);
    // and storage lists them in the order they were recorded
    assert.deepEqual(events.map((e: any) => e.reason), [...Array.from({ length: 20 }, (_, i) => `Before${i}`), 'Last']);
  });

  test('discovery lists the preferred version of every resource', async () => {
    const { resources: all, failed } = await discoverResources(client);
    assert.deepEqual(failed, []);
    const deployments = all.find((r) => r.resource === 'deployments');
    assert.deepEqual([deployments?.group, deployments?.version, deployments?.kind, deployments?.namespaced, deployments?.preferred],
      ['apps', 'v1', 'Deployment', true, true]);
    assert.ok(deployments?.verbs.includes('watch'));
    assert.ok(all.every((r) => r.preferred));
    assert.ok(!all.some((r) => r.resource.includes('/')));
  });
});
