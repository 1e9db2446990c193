// Many clients at once on the same few objects, as controllers and operators write them: every kind of write mixed
// (updates with and without resourceVersion, the three patch types, server-side apply by several managers, status
// and scale, finalizers, deletes with preconditions and propagation policies, delete-collection, namespace deletion),
// against a real server on the memory and the SQLite store. What must hold: no 5xx, no lost update, every
// acknowledged write seen by the next read and by every watch in resourceVersion order, and nothing left stuck.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serverOn, type Backend } from './servers.js';
import { createClient, type Client, type Reply, type WatchStream } from './client.js';
import { until } from '../support/wait.js';

const merge = 'application/merge-patch+json';
const strategic = 'application/strategic-merge-patch+json';
const jsonPatch = 'application/json-patch+json';
const applyType = 'application/apply-patch+yaml';
const hold = 'example.com/hold';

/** runs `workers` loops at once, each calling body(worker, i) for i of its own share of `total` */
async function inParallel(workers: number, total: number, body: (worker: number, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    for (let i = next++; i < total; i = next++) await body(w, i);
  }));
}

/** what every request of a test answered: 5xx and any status not allowed for its kind are failures */
function recorder(c: Client) {
  const failures: string[] = [];
  const counts = new Map<number, number>();
  return {
    failures,
    counts,
    async send(method: string, path: string, allowed: number[], opts: { body?: unknown; contentType?: string } = {}): Promise<Reply> {
      const r = await c.request(method, path, opts);
      counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
      if (r.status >= 500 || !allowed.includes(r.status))
        failures.push(`${method} ${path} ${opts.contentType ?? ''} → ${r.status} ${r.body.slice(0, 300)}`);
      return r;
    },
    summary: () => [...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' '),
  };
}

/** a watch read into memory as it arrives */
function pump(w: WatchStream) {
  const events: Array<{ type: string; name: string; rv: number; obj: any }> = [];
  let open = true;
  void (async () => {
    while (open) {
      const ev = await w.next(60_000);
      if (!ev) { if (!open) break; continue; }
      if (ev.type === 'BOOKMARK') continue;
      events.push({ type: ev.type, name: ev.object?.metadata?.name, rv: Number(ev.object?.metadata?.resourceVersion), obj: ev.object });
    }
  })();
  void w.ended.then(() => { open = false; });
  return { events, stop() { open = false; w.close(); }, ended: () => !open };
}

/** the watch's events are in strictly rising resourceVersion order (no duplicate), and hold every acknowledged one */
function checkWatch(events: Array<{ type: string; name: string; rv: number }>, acked: Array<{ name: string; rv: number }>, what: string) {
  for (let i = 1; i < events.length; i++)
    assert.ok(events[i].rv > events[i - 1].rv, `${what}: event ${i} (${events[i].type} ${events[i].name} rv ${events[i].rv}) after rv ${events[i - 1].rv}`);
  const seen = new Set(events.map(e => `${e.name}@${e.rv}`));
  const missing = acked.filter(a => !seen.has(`${a.name}@${a.rv}`));
  assert.deepEqual(missing.slice(0, 5), [], `${what}: ${missing.length} acknowledged writes never came to the watch`);
}

/** managedFields hold one entry per manager, operation and subresource */
function checkManagedFields(obj: any, what: string) {
  const keys = (obj.metadata.managedFields ?? []).map((m: any) => `${m.manager}/${m.operation}/${m.subresource ?? ''}`);
  assert.equal(new Set(keys).size, keys.length, `${what}: duplicate managedFields entries ${JSON.stringify(keys)}`);
}

const deployment = (name: string) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas: 1, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
});

// the two backends' suites run at once: much of each is waiting on the controllers
describe('concurrent clients on the same objects', { concurrency: true }, () => {
for (const backend of ['sqlite', 'memory'] as Backend[]) {
  // the increments on the embedded default store as the brief numbers them; fewer on the memory store, whose share of
  // the run's time goes to the other tests
  const increments = backend === 'sqlite' ? 500 : 100;
  describe(`[${backend}]`, { concurrency: 1 }, () => {
    let running: Awaited<ReturnType<typeof serverOn>>;
    let c: Client;
    let nsCount = 0;
    before(async () => {
      running = await serverOn(backend);
      c = createClient(running.server);
    });
    after(async () => { c?.close(); await running?.close(); });

    async function namespace(): Promise<{ ns: string; rv: string }> {
      const ns = `race-${process.pid % 10000}-${++nsCount}`;
      const r = await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
      assert.equal(r.status, 201, r.body);
      return { ns, rv: r.json.metadata.resourceVersion };
    }

    test(`${increments} read-modify-write increments by 20 clients retrying on 409 end at exactly ${increments}; two watches see each write once, in order`, async () => {
      const { ns, rv } = await namespace();
      const rec = recorder(c);
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const early = pump(await c.watch(`${base}?watch=1&resourceVersion=${rv}`));
      const created = await rec.send('POST', base, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter', annotations: { n: '0' } } } });
      const acked: Array<{ name: string; rv: number }> = [{ name: 'counter', rv: Number(created.json.metadata.resourceVersion) }];
      let late: ReturnType<typeof pump> | undefined;
      // as informers start: the cache's current state (resourceVersion 0), then the changes after it
      let fromCache: ReturnType<typeof pump> | undefined;
      let conflicts = 0;
      await inParallel(20, increments, async (_, i) => {
        if (i === increments / 2) late = pump(await c.watch(`${base}?watch=1&resourceVersion=${acked[acked.length - 1].rv}`));
        if (i === increments / 4) fromCache = pump(await c.watch(`${base}?watch=1&resourceVersion=0`));
        for (;;) {
          const cur = (await rec.send('GET', `${base}/counter`, [200])).json;
          cur.metadata.annotations.n = String(Number(cur.metadata.annotations.n) + 1);
          const r = await rec.send('PUT', `${base}/counter`, [200, 409], { body: cur });
          if (r.status === 409) { conflicts++; continue; }
          if (r.status !== 200) return;
          const written = Number(r.json.metadata.resourceVersion);
          acked.push({ name: 'counter', rv: written });
          const next = await rec.send('GET', `${base}/counter`, [200]);
          assert.ok(Number(next.json.metadata.resourceVersion) >= written, `a read after the write acknowledged at ${written} got ${next.json.metadata.resourceVersion}`);
          return;
        }
      });
      assert.deepEqual(rec.failures, []);
      const final = (await c.get(`${base}/counter`)).json;
      assert.equal(final.metadata.annotations.n, String(increments), `${conflicts} conflicts retried`);
      const last = Number(final.metadata.resourceVersion);
      const reached = (w?: ReturnType<typeof pump>) => !!w?.events.some(e => e.rv >= last);
      await until(() => reached(early) && reached(late) && reached(fromCache), 'the watches to reach the last write');
      early.stop(); late!.stop(); fromCache!.stop();
      assert.equal(fromCache!.events[0].type, 'ADDED');
      const cacheFrom = early.events.findIndex(e => e.rv === fromCache!.events[0].rv);
      assert.ok(cacheFrom >= 0, 'the state a watch from resourceVersion 0 starts with is one that was written');
      assert.deepEqual(fromCache!.events.slice(1).map(e => e.rv), early.events.slice(cacheFrom + 1).map(e => e.rv), 'a watch from the cached state sees every change after it');
      checkWatch(early.events, acked, 'watch from before');
      assert.equal(early.events.length, increments + 1, 'one event per write');
      const lateFrom = early.events.findIndex(e => e.rv > late!.events[0].rv - 1);
      assert.deepEqual(late!.events.map(e => e.rv), early.events.slice(lateFrom).map(e => e.rv), 'a watch started midway sees the same events from there');
    });

    test('mixed writers (updates, patches, apply by several managers, status, scale, labels, finalizers) on 3 ConfigMaps and a Deployment', async () => {
      const { ns, rv } = await namespace();
      const rec = recorder(c);
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const deps = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const cmWatch = pump(await c.watch(`${cms}?watch=1&resourceVersion=${rv}`));
      const depWatch = pump(await c.watch(`${deps}?watch=1&resourceVersion=${rv}`));
      const names = ['a', 'b', 'c'];
      const acked: Array<{ name: string; rv: number }> = [];
      const depAcked: Array<{ name: string; rv: number }> = [];
      for (const name of names) {
        const r = await rec.send('POST', cms, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { start: '1' } } });
        acked.push({ name, rv: Number(r.json.metadata.resourceVersion) });
      }
      const d = await rec.send('POST', deps, [201], { body: deployment('web') });
      depAcked.push({ name: 'web', rv: Number(d.json.metadata.resourceVersion) });
      const managers = ['alpha', 'beta', 'gamma'];
      type Op = (name: string, i: number) => Promise<Reply>;
      const cmOps: Op[] = [
        async (name, i) => {   // update with the resourceVersion read
          const cur = (await rec.send('GET', `${cms}/${name}`, [200])).json;
          cur.data = { ...cur.data, [`put-${i % 7}`]: String(i) };
          return rec.send('PUT', `${cms}/${name}`, [200, 409], { body: cur });
        },
        async (name, i) => {   // update without one
          const cur = (await rec.send('GET', `${cms}/${name}`, [200])).json;
          delete cur.metadata.resourceVersion;
          cur.metadata.labels = { ...cur.metadata.labels, [`l${i % 5}`]: String(i) };
          return rec.send('PUT', `${cms}/${name}`, [200], { body: cur });
        },
        (name, i) => rec.send('PATCH', `${cms}/${name}`, [200], { body: [{ op: 'add', path: `/data/json-${i % 6}`, value: String(i) }], contentType: jsonPatch }),
        (name, i) => rec.send('PATCH', `${cms}/${name}`, [200], { body: { metadata: { labels: { [`m${i % 4}`]: i % 3 ? String(i) : null } }, data: { merged: String(i) } }, contentType: merge }),
        (name, i) => rec.send('PATCH', `${cms}/${name}`, [200], { body: { metadata: { annotations: { [`s${i % 4}`]: String(i) } } }, contentType: strategic }),
        (name, i) => rec.send('PATCH', `${cms}/${name}`, [200], { body: { metadata: { finalizers: [`${hold}-${i % 3}`] } }, contentType: strategic }),
        (name, i) => rec.send('PATCH', `${cms}/${name}`, [200], { body: { metadata: { [`$deleteFromPrimitiveList/finalizers`]: [`${hold}-${i % 3}`] } }, contentType: strategic }),
        (name, i) => {         // apply by one of three managers, sharing one field: unforced applies conflict
          const manager = managers[i % managers.length];
          const force = i % 2 === 0;
          const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [`by-${manager}`]: String(i) } }, data: { shared: String(i), [`own-${manager}`]: String(i) } };
          return rec.send('PATCH', `${cms}/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`, force ? [200] : [200, 409], { body: JSON.stringify(body), contentType: applyType });
        },
      ];
      const depOps: Op[] = [
        async (name, i) => {   // status by update with the resourceVersion read
          const cur = (await rec.send('GET', `${deps}/${name}/status`, [200])).json;
          cur.status = { ...cur.status, observedGeneration: cur.metadata.generation, conditions: [{ type: 'Progressing', status: 'True', reason: `r${i}`, message: 'm' }] };
          return rec.send('PUT', `${deps}/${name}/status`, [200, 409], { body: cur });
        },
        (name, i) => rec.send('PATCH', `${deps}/${name}/status`, [200], { body: { status: { collisionCount: i % 4 } }, contentType: merge }),
        async (name, i) => {   // scale by update of the Scale read
          const cur = (await rec.send('GET', `${deps}/${name}/scale`, [200])).json;
          return rec.send('PUT', `${deps}/${name}/scale`, [200, 409], { body: { ...cur, spec: { replicas: i % 3 } } });
        },
        (name, i) => rec.send('PATCH', `${deps}/${name}/scale`, [200], { body: { spec: { replicas: (i + 1) % 3 } }, contentType: merge }),
        (name, i) => rec.send('PATCH', `${deps}/${name}`, [200], { body: { metadata: { annotations: { [`a${i % 3}`]: String(i) } } }, contentType: strategic }),
        (name, i) => {
          const manager = managers[i % managers.length];
          const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { [`by-${manager}`]: String(i) } }, spec: { ...deployment(name).spec, minReadySeconds: i % 5 } };
          return rec.send('PATCH', `${deps}/${name}?fieldManager=${manager}&force=true`, [200], { body: JSON.stringify(body), contentType: applyType });
        },
      ];
      await inParallel(100, 1200, async (_, i) => {
        const onDeployment = i % 4 === 3;
        const name = onDeployment ? 'web' : names[i % names.length];
        const ops = onDeployment ? depOps : cmOps;
        const r = await ops[Math.floor(i / 4) % ops.length](name, i);
        if (r.status !== 200) return;
        const written = Number(r.json.metadata.resourceVersion);
        (onDeployment ? depAcked : acked).push({ name, rv: written });
        const next = await rec.send('GET', `${onDeployment ? deps : cms}/${name}`, [200]);
        assert.ok(Number(next.json.metadata.resourceVersion) >= written, `a read of ${name} after its write acknowledged at ${written} got ${next.json.metadata.resourceVersion}`);
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      const last = Math.max(...acked.map(a => a.rv), ...depAcked.map(a => a.rv));
      await until(() => Math.max(0, ...cmWatch.events.map(e => e.rv), ...depWatch.events.map(e => e.rv)) >= last, 'the watches to reach the last write');
      const finals = await Promise.all([...names.map(n => c.get(`${cms}/${n}`)), c.get(`${deps}/web`)]);
      for (const f of finals) checkManagedFields(f.json, f.json.metadata.name);
      // the watches caught up with every object's final state
      for (const f of finals) {
        const w = f.json.kind === 'Deployment' ? depWatch : cmWatch;
        await until(() => w.events.some(e => e.name === f.json.metadata.name && e.rv >= Number(f.json.metadata.resourceVersion)), `the watch to see ${f.json.metadata.name}`);
      }
      cmWatch.stop(); depWatch.stop();
      checkWatch(cmWatch.events, acked, 'ConfigMap watch');
      checkWatch(depWatch.events, depAcked, 'Deployment watch');
      // the finalizers go, then the deletes end the objects
      for (const n of names) {
        const r = await c.request('PATCH', `${cms}/${n}`, { body: { metadata: { finalizers: null } }, contentType: merge });
        assert.equal(r.status, 200, r.body);
        assert.equal((await c.request('DELETE', `${cms}/${n}`)).status, 200);
        assert.equal((await c.get(`${cms}/${n}`)).status, 404);
      }
      console.log(`[${backend}] mixed writers: ${rec.summary()}`);
    });

    test('deletes race with finalizer removals, label writers and other deletes: every object goes', async () => {
      const { ns } = await namespace();
      const rec = recorder(c);
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const count = 30;
      const uids: string[] = [];
      for (let n = 0; n < count; n++) {
        const r = await rec.send('POST', cms, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `f${n}`, finalizers: [hold, `${hold}-2`] } } });
        uids.push(r.json.metadata.uid);
      }
      await inParallel(100, count * 12, async (_, i) => {
        const n = i % count;
        const path = `${cms}/f${n}`;
        switch (Math.floor(i / count)) {
          case 0: case 5:
            await rec.send('DELETE', path, [200, 202, 404], { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: ['Foreground', 'Background', 'Orphan'][i % 3] } }); break;
          case 1: case 6:
            await rec.send('PATCH', path, [200, 404], { body: { metadata: { labels: { touched: String(i) } } }, contentType: merge }); break;
          case 2:
            // a finalizer added once deletion started is refused (422), else it holds the object a little longer
            await rec.send('PATCH', path, [200, 404, 422], { body: { metadata: { finalizers: [`${hold}-3`] } }, contentType: strategic }); break;
          case 3: case 8:
            await rec.send('PATCH', path, [200, 404], { body: { metadata: { '$deleteFromPrimitiveList/finalizers': [hold] } }, contentType: strategic }); break;
          case 4: {
            const cur = await rec.send('GET', path, [200, 404]);
            if (cur.status !== 200) break;
            await rec.send('DELETE', path, [200, 404, 409], { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: uids[n], resourceVersion: cur.json.metadata.resourceVersion } } });
            break;
          }
          case 7: case 10:
            await rec.send('PATCH', path, [200, 404], { body: { metadata: { '$deleteFromPrimitiveList/finalizers': [`${hold}-2`, `${hold}-3`] } }, contentType: strategic }); break;
          case 9: {
            // the last finalizers go by an update with the resourceVersion read
            const cur = await rec.send('GET', path, [200, 404]);
            if (cur.status !== 200) break;
            cur.json.metadata.finalizers = [];
            await rec.send('PUT', path, [200, 404, 409], { body: cur.json });
            break;
          }
          default:
            await rec.send('DELETE', path, [200, 404]);
        }
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      // whatever still holds a finalizer loses it: the deletion that started then completes
      for (let n = 0; n < count; n++) {
        const path = `${cms}/f${n}`;
        const cur = await c.get(path);
        if (cur.status === 404) continue;
        if (!cur.json.metadata.deletionTimestamp) assert.equal((await c.request('DELETE', path)).status, 200);
        const r = await c.request('PATCH', path, { body: { metadata: { finalizers: null } }, contentType: merge });
        assert.ok([200, 404].includes(r.status), r.body);
      }
      await until(async () => (await c.get(cms)).json.items.length === 0, 'every ConfigMap to go');
      console.log(`[${backend}] finalizers and deletes: ${rec.summary()}`);
    });

    test('owners deleted Foreground, Background and Orphan, some with preconditions, while their dependents are written', async () => {
      const { ns } = await namespace();
      const rec = recorder(c);
      const owners = `/api/v1/namespaces/${ns}/configmaps`;
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      const ownerCount = 12, perOwner = 5;
      const policies = ['Foreground', 'Background', 'Orphan'] as const;
      const ownerUids: string[] = [];
      for (let o = 0; o < ownerCount; o++) {
        const r = await rec.send('POST', owners, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o${o}` } } });
        ownerUids.push(r.json.metadata.uid);
      }
      await inParallel(60, ownerCount * perOwner, async (_, i) => {
        const o = i % ownerCount;
        await rec.send('POST', secrets, [201], { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `o${o}-d${Math.floor(i / ownerCount)}`,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: `o${o}`, uid: ownerUids[o], blockOwnerDeletion: i % 2 === 0 }] } } });
      });
      await inParallel(120, ownerCount * 20, async (_, i) => {
        const o = i % ownerCount;
        const round = Math.floor(i / ownerCount);
        const policy = policies[o % 3];
        if (round % 5 === 0) {
          // deletes of the owner: with its policy, repeated, some with preconditions on a fresh read
          const body: any = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy };
          if (round === 5) {
            const cur = await rec.send('GET', `${owners}/o${o}`, [200, 404]);
            if (cur.status !== 200) return;
            body.preconditions = { uid: ownerUids[o], resourceVersion: cur.json.metadata.resourceVersion };
          }
          await rec.send('DELETE', `${owners}/o${o}`, [200, 202, 404, ...(body.preconditions ? [409] : [])], { body });
        } else if (round % 5 === 1) {
          await rec.send('PATCH', `${owners}/o${o}`, [200, 404], { body: { metadata: { labels: { round: String(round) } } }, contentType: merge });
        } else {
          const d = round % perOwner;
          await rec.send('PATCH', `${secrets}/o${o}-d${d}`, [200, 404], { body: { metadata: { annotations: { round: String(round) } }, data: { v: Buffer.from(String(i)).toString('base64') } }, contentType: strategic });
        }
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      let owned: any[] = [];
      await until(async () => (owned = (await c.get(owners)).json.items).length === 0, () => `every owner to go: ${JSON.stringify(owned.map(x => [x.metadata.name, x.metadata.finalizers]))}`, 60_000);
      const orphans = (o: number) => policies[o % 3] === 'Orphan';
      const left = async () => (await c.get(secrets)).json.items as any[];
      await until(async () => (await left()).every((s: any) => orphans(Number(s.metadata.name.slice(1).split('-')[0]))), 'the dependents of collected owners to go', 60_000);
      const kept = await left();
      assert.equal(kept.length, ownerCount / 3 * perOwner, 'every orphaned dependent stays');
      for (const s of kept) assert.equal(s.metadata.ownerReferences, undefined, `${s.metadata.name} lost its reference to the gone owner`);
      console.log(`[${backend}] propagation: ${rec.summary()}`);
    });

    test('appliers create the same new objects at once while updaters write and others delete them: watches see each life in order', async () => {
      const { ns, rv } = await namespace();
      const rec = recorder(c);
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const w = pump(await c.watch(`${cms}?watch=1&resourceVersion=${rv}`));
      const acked: Array<{ name: string; rv: number }> = [];
      const managers = ['alpha', 'beta', 'gamma', 'delta'];
      await inParallel(100, 1000, async (_, i) => {
        const name = `n${i % 5}`;
        const round = Math.floor(i / 5);
        let r: Reply;
        if (round % 10 === 9) {
          r = await rec.send('DELETE', `${cms}/${name}`, [200, 404]);
        } else if (round % 3 === 0) {
          // an update without a resourceVersion (a ConfigMap is not created by one: 404 while it is absent)
          r = await rec.send('PUT', `${cms}/${name}`, [200, 404], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { put: String(i) } } });
        } else {
          const manager = managers[i % managers.length];
          const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [`by-${manager}`]: 'x' } }, data: { [`own-${manager}`]: String(i) } };
          r = await rec.send('PATCH', `${cms}/${name}?fieldManager=${manager}`, [200, 201], { body: JSON.stringify(body), contentType: applyType });
        }
        // a delete that ends the object answers a Status, without a resourceVersion
        if ((r.status === 200 || r.status === 201) && r.json.kind !== 'Status') acked.push({ name, rv: Number(r.json.metadata.resourceVersion) });
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      const last = Math.max(...acked.map(a => a.rv));
      await until(() => w.events.some(e => e.rv >= last), () => `the watch to reach the last write ${last}: ended ${w.ended()}, ${w.events.length} events, last ${JSON.stringify(w.events.slice(-3).map(e => [e.type, e.name, e.rv]))}, acked last ${JSON.stringify(acked.filter(a => a.rv >= last - 3))}`);
      w.stop();
      checkWatch(w.events, acked, 'watch of created, updated and deleted objects');
      // each name's life: ADDED, then MODIFIED events, then DELETED, and again
      for (let n = 0; n < 5; n++) {
        let alive = false;
        for (const e of w.events.filter(e => e.name === `n${n}`)) {
          assert.equal(e.type, alive ? (e.type === 'DELETED' ? 'DELETED' : 'MODIFIED') : 'ADDED', `n${n} at rv ${e.rv}`);
          alive = e.type !== 'DELETED';
        }
        const cur = await c.get(`${cms}/n${n}`);
        if (cur.status === 200) checkManagedFields(cur.json, `n${n}`);
      }
      console.log(`[${backend}] create races: ${rec.summary()}`);
    });

    test('labels toggled by many writers at once: a watch by label sees each object enter and leave in turn, ending as it is', async () => {
      const { ns, rv } = await namespace();
      const rec = recorder(c);
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const w = pump(await c.watch(`${cms}?watch=1&labelSelector=on%3Dyes&resourceVersion=${rv}`));
      for (let n = 0; n < 4; n++) await rec.send('POST', cms, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `t${n}`, labels: { on: 'no' } } } });
      await inParallel(80, 800, async (_, i) => {
        const label = i % 3 === 0 ? null : i % 3 === 1 ? 'yes' : 'no';
        await rec.send('PATCH', `${cms}/t${i % 4}`, [200], { body: { metadata: { labels: { on: label }, annotations: { i: String(i) } } }, contentType: merge });
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      const last = Number((await c.get(cms)).json.metadata.resourceVersion);
      // a marker written last, inside the selector: once the watch has it, it has everything before
      const marker = await rec.send('POST', cms, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'marker', labels: { on: 'yes' } } } });
      assert.ok(Number(marker.json.metadata.resourceVersion) > last);
      await until(() => w.events.some(e => e.name === 'marker'), 'the marker to come to the watch');
      w.stop();
      checkWatch(w.events, [], 'watch by label');
      for (let n = 0; n < 4; n++) {
        const events = w.events.filter(e => e.name === `t${n}`);
        let inside = false;
        for (const e of events) {
          assert.equal(e.type, inside ? (e.type === 'DELETED' ? 'DELETED' : 'MODIFIED') : 'ADDED', `t${n} at rv ${e.rv}`);
          inside = e.type !== 'DELETED';
          if (e.type !== 'DELETED') assert.equal(e.obj.metadata.labels?.on, 'yes', `t${n} at rv ${e.rv} sent while outside the selector`);
        }
        const now = (await c.get(`${cms}/t${n}`)).json;
        assert.equal(inside, now.metadata.labels?.on === 'yes', `t${n}: the watch ends with it ${inside ? 'inside' : 'outside'}, it is ${JSON.stringify(now.metadata.labels)}`);
      }
    });

    test('Deployments deleted Foreground, Background and Orphan while clients scale them: nothing of the collected ones is left', async () => {
      const { ns } = await namespace();
      const rec = recorder(c);
      const deps = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const policies = ['Foreground', 'Background', 'Orphan'] as const;
      for (let n = 0; n < 3; n++) await rec.send('POST', deps, [201], { body: { ...deployment(`w${n}`), spec: { ...deployment(`w${n}`).spec, replicas: 2 } } });
      await until(async () => (await c.get(`/api/v1/namespaces/${ns}/pods`)).json.items.length >= 6, 'the pods of the Deployments');
      await inParallel(60, 300, async (_, i) => {
        const n = i % 3;
        if (i === 150 + n) {
          await rec.send('DELETE', `${deps}/w${n}`, [200, 202], { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policies[n] } });
          return;
        }
        await rec.send('PATCH', `${deps}/w${n}/scale`, [200, 404, 409, 422], { body: { spec: { replicas: i % 4 } }, contentType: merge });
      });
      assert.deepEqual(rec.failures, [], rec.summary());
      await until(async () => (await c.get(deps)).json.items.length === 0, 'the Deployments to go', 60_000);
      const owned = async (path: string, owner: string) => ((await c.get(`${path}`)).json.items as any[]).filter(x => x.metadata.labels?.app === owner);
      for (let n = 0; n < 2; n++) {
        await until(async () => (await owned(`/apis/apps/v1/namespaces/${ns}/replicasets`, `w${n}`)).length === 0 && (await owned(`/api/v1/namespaces/${ns}/pods`, `w${n}`)).length === 0,
          `the ReplicaSets and Pods of w${n} (${policies[n]}) to go`, 60_000);
      }
      const kept = await owned(`/apis/apps/v1/namespaces/${ns}/replicasets`, 'w2');
      assert.ok(kept.length >= 1, 'the orphaned ReplicaSets stay');
      for (const rs of kept) assert.equal(rs.metadata.ownerReferences, undefined, `${rs.metadata.name} keeps no reference to the gone Deployment`);
      console.log(`[${backend}] Deployment deletion: ${rec.summary()}`);
    });

    test('delete-collection while creates go on: no 5xx, and a last delete-collection leaves nothing', async () => {
      const { ns } = await namespace();
      const rec = recorder(c);
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      let creating = true;
      const creators = inParallel(60, 600, async (_, i) => {
        await rec.send('POST', cms, [201], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dc${i}`, labels: { batch: 'x' } } } });
        if (i % 3 === 0) await rec.send('PATCH', `${cms}/dc${i}`, [200, 404], { body: { data: { v: String(i) } }, contentType: merge });
      }).finally(() => { creating = false; });
      let sweeps = 0;
      await Promise.all(Array.from({ length: 4 }, async () => {
        while (creating) {
          sweeps++;
          await rec.send('DELETE', `${cms}?labelSelector=batch%3Dx`, [200]);
        }
      }));
      await creators;
      await rec.send('DELETE', `${cms}?labelSelector=batch%3Dx`, [200]);
      assert.deepEqual(rec.failures, [], rec.summary());
      assert.deepEqual((await c.get(cms)).json.items.map((x: any) => x.metadata.name), []);
      console.log(`[${backend}] delete-collection (${sweeps} sweeps): ${rec.summary()}`);
    });

    test('namespaces deleted while objects are created in them finish deleting, with nothing left behind', async () => {
      const rec = recorder(c);
      const spaces = await Promise.all(Array.from({ length: 4 }, () => namespace()));
      await Promise.all(spaces.map(async ({ ns }) => {
        let stop = false;
        let made = 0;
        const creators = Array.from({ length: 25 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const kind = (w + i) % 3;
            const r = kind === 0
              ? await rec.send('POST', `/api/v1/namespaces/${ns}/configmaps`, [201, 403, 404], { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${w}-${i}`, ...(i % 4 === 0 ? { finalizers: [hold] } : {}) } } })
              : kind === 1
                ? await rec.send('POST', `/api/v1/namespaces/${ns}/secrets`, [201, 403, 404], { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${w}-${i}` } } })
                : await rec.send('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, [201, 403, 404], { body: deployment(`d${w}-${i}`) });
            if (r.status === 201) made++;
            // creates are refused once the namespace is terminating or gone
            if (r.status === 403 || r.status === 404) stop = true;
            // a finalizer that nobody removes would keep the namespace; this client removes its own
            if (r.status === 201 && kind === 0 && i % 4 === 0)
              await rec.send('PATCH', `/api/v1/namespaces/${ns}/configmaps/c${w}-${i}`, [200, 404], { body: { metadata: { finalizers: null } }, contentType: merge });
          }
        });
        await until(() => made >= 40, `creates in ${ns}`, 60_000);
        await rec.send('DELETE', `/api/v1/namespaces/${ns}`, [200]);
        await Promise.all(creators);
      }));
      assert.deepEqual(rec.failures, [], rec.summary());
      for (const { ns } of spaces) {
        let last: Reply | undefined;
        await until(async () => (last = await c.get(`/api/v1/namespaces/${ns}`)).status === 404, () => `namespace ${ns} to go: ${JSON.stringify(last?.json?.status)}`, 60_000);
        for (const list of ['/api/v1/configmaps', '/api/v1/secrets', '/apis/apps/v1/deployments', '/apis/apps/v1/replicasets', '/api/v1/pods']) {
          const r = await c.get(`${list}?fieldSelector=metadata.namespace%3D${ns}`);
          assert.deepEqual(r.json.items.map((x: any) => x.metadata.name), [], `${list} in the deleted namespace ${ns}`);
        }
      }
      console.log(`[${backend}] namespace deletion: ${rec.summary()}`);
    });
  });
}
});
