// The testing kit as controller authors use it: CRDs loaded from a folder, admission webhooks served from the
// test process, snapshots restored and forked, and faults injected at the storage under the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { ApiError, isConflict, retryOnConflict, type WatchEvent } from '../../src/client/rest-client.js';
import { startInformer } from '../../src/client/informer.js';
import { kindClient } from '../../src/client/typed.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps' };

async function until<T>(what: string, f: () => T | undefined | false | Promise<T | undefined | false>, limit = 2000): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await f();
    if (v) return v;
    if (i > limit) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('testing kit', () => {
  let server: TestServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kit-'));
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('loadCRDs applies the definitions of a folder, waits until they are served, and skips other kinds', async () => {
    const group = server.names.group('apiextensions');
    writeFileSync(join(dir, 'widgets.yaml'), `apiVersion: ${group}/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.test
spec:
  group: example.test
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-crd}
`);
    const loaded = await server.loadCRDs(dir);
    assert.deepEqual(loaded.map((c) => c.metadata.name), ['widgets.example.test']);
    const widgets = server.client.resource({ group: 'example.test', version: 'v1', resource: 'widgets' }, 'default');
    await widgets.create({ apiVersion: 'example.test/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } });
    assert.equal((await widgets.get('w')).spec.size, 3);
    // loading again is harmless
    assert.equal((await server.loadCRDs(join(dir, 'widgets.yaml'))).length, 1);
    await assert.rejects(server.client.resource(configMaps, 'default').get('not-a-crd'), (e: unknown) => e instanceof ApiError && e.code === 404);
  });

  test('loadCRDs refuses a definition of the other domain\'s group rather than skipping it', async () => {
    const group = server.names.group('apiextensions');
    const other = group === 'apiextensions.k8s.io' ? 'apiextensions.cluster.io' : 'apiextensions.k8s.io';
    const file = join(dir, 'gadgets.yaml');
    writeFileSync(file, `apiVersion: ${other}/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.test}
spec:
  group: example.test
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`);
    await assert.rejects(server.loadCRDs(file), (e: Error) => e.message.includes(`gadgets.yaml: CustomResourceDefinition gadgets.example.test is of ${other}/v1, but this server serves ${group}/v1: start the test server with apiDomain: '${other.slice('apiextensions.'.length)}'`));
    rmSync(file);
  });

  test('admission webhooks served in-process: a mutating one changes objects, a validating one refuses', async () => {
    const mutate = await server.webhook({
      name: 'add-owner', type: 'mutating',
      rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
      handler: (req) => ({ object: { ...req.object, metadata: { ...req.object.metadata, labels: { ...(req.object.metadata.labels ?? {}), owner: req.userInfo.username } } } }),
    });
    const validate = await server.webhook({
      name: 'no-forbidden', type: 'validating',
      rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
      handler: (req) => (req.object?.data?.forbidden ? { allowed: false, message: 'the key "forbidden" is not allowed' } : { allowed: true }),
    });
    try {
      const cms = server.client.resource(configMaps, 'default');
      const made = await cms.create({ metadata: { name: 'hooked' }, data: { ok: '1' } });
      assert.equal(made.metadata.labels.owner, 'admin');
      await assert.rejects(cms.create({ metadata: { name: 'refused' }, data: { forbidden: 'x' } }),
        (e: unknown) => e instanceof ApiError && e.code === 403 && /the key "forbidden" is not allowed/.test(e.message));
      assert.ok(mutate.requests.some((r) => r.name === 'hooked' && r.operation === 'CREATE'));
      assert.ok(validate.requests.some((r) => r.object?.metadata?.labels?.owner === 'admin'), 'validation sees the mutated object');
    } finally {
      await mutate.close();
      await validate.close();
    }
    // once closed, the hooks are gone
    await server.client.resource(configMaps, 'default').create({ metadata: { name: 'after-hooks' }, data: { forbidden: 'now fine' } });
  });

  test('snapshot and restore: state goes back, resourceVersions keep rising, watchers see the changes', async () => {
    const cms = server.client.resource(configMaps, 'snap');
    await server.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'snap' } });
    const a = await cms.create({ metadata: { name: 'a' }, data: { v: 'before' } });
    const snapshot = await server.snapshot();
    await cms.update({ ...a, data: { v: 'after' } });
    await cms.create({ metadata: { name: 'b' } });
    const list = await cms.list();
    const seen: WatchEvent[] = [];
    const stop = new AbortController();
    const watching = (async () => { for await (const e of cms.watch({ resourceVersion: list.metadata.resourceVersion, signal: stop.signal })) seen.push(e); })();
    await server.restore(snapshot);
    const restored = await cms.get('a');
    assert.equal(restored.data.v, 'before');
    assert.ok(Number(restored.metadata.resourceVersion) > Number(list.metadata.resourceVersion), 'a restore is a new write');
    await assert.rejects(cms.get('b'), (e: unknown) => e instanceof ApiError && e.code === 404);
    await until('the watcher to see the restore', () => seen.some((e) => e.type === 'DELETED' && e.object.metadata.name === 'b') && seen.some((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'a'));
    stop.abort();
    await watching;
  });

  test('fork: a new server with the same state, independent of the first', async () => {
    const cms = server.client.resource(configMaps, 'default');
    await cms.create({ metadata: { name: 'forked' }, data: { from: 'original' } });
    const copy = await server.fork();
    try {
      assert.notEqual(copy.url, server.url);
      const theirs = copy.client.resource(configMaps, 'default');
      assert.equal((await theirs.get('forked')).data.from, 'original');
      await theirs.create({ metadata: { name: 'only-in-fork' } });
      await assert.rejects(cms.get('only-in-fork'), (e: unknown) => e instanceof ApiError && e.code === 404);
      await cms.delete('forked');
      assert.equal((await theirs.get('forked')).data.from, 'original');
    } finally {
      await copy.close();
    }
  });

  test('fault: a lost compare-and-swap race makes a stale update 409; patches and conflict retries still succeed', async () => {
    const cms = server.client.resource(configMaps, 'default');
    const c = await cms.create({ metadata: { name: 'raced' }, data: { n: '0' } });
    server.faults.conflictOnNextWrite({ resource: 'configmaps', namespace: 'default', name: 'raced' });
    await assert.rejects(cms.update({ ...c, data: { n: '1' } }), (e: unknown) => isConflict(e));
    server.faults.conflictOnNextWrite({ resource: 'configmaps', namespace: 'default', name: 'raced' });
    assert.equal((await cms.patch('raced', { data: { n: '2' } })).data.n, '2');
    server.faults.conflictOnNextWrite({ resource: 'configmaps', namespace: 'default', name: 'raced' }, 2);
    let attempts = 0;
    const done = await retryOnConflict(async () => {
      attempts++;
      const cur = await cms.get('raced');
      return cms.update({ ...cur, data: { n: '3' } });
    });
    assert.equal(done.data.n, '3');
    assert.equal(attempts, 3, 'two lost races, then success');
    assert.ok(server.faults.injected.conflicts >= 4);
  });

  test('fault: compaction expires continue tokens (410)', async () => {
    const cms = server.client.resource(configMaps, 'default');
    for (const n of ['p1', 'p2', 'p3']) await cms.create({ metadata: { name: n } });
    const first = await cms.list({ limit: 1 });
    assert.ok(first.metadata.continue);
    await cms.create({ metadata: { name: 'p4' } });
    await server.faults.compactNow();
    await assert.rejects(cms.list({ limit: 1, continue: first.metadata.continue }), (e: unknown) => e instanceof ApiError && e.code === 410);
  });

  test('fault: latency is added to every storage operation', async () => {
    const cms = server.client.resource(configMaps, 'default');
    server.faults.setLatency(40);
    try {
      const started = performance.now();
      await cms.create({ metadata: { name: 'slow' } });
      assert.ok(performance.now() - started >= 40, 'a write waits at least the latency');
    } finally {
      server.faults.setLatency(0);
    }
  });

  // The fault is the storage's; the watch cache meets it by relisting: its watchers either continue without loss or
  // end with 410 (and relist), and an informer keeps up either way.
  test('fault: watches broken as by a compaction: watchers continue or get 410, an informer relists and keeps up', async () => {
    const own = await startTestServer();
    after(() => own.close());
    const cms = own.client.resource(configMaps, 'default');
    const events: string[] = [];
    const informer = startInformer(cms, (e) => events.push(e.type === 'sync' ? 'sync' : `${e.type}:${(e.object as any).metadata.name}`), { retryDelayMs: 20 });
    const stop = new AbortController();
    try {
      await informer.synced;
      const list = await cms.list();
      const watched: Array<WatchEvent | Error> = [];
      let ended = false;
      const direct = (async () => {
        try {
          for await (const e of cms.watch({ resourceVersion: list.metadata.resourceVersion, signal: stop.signal })) watched.push(e);
        } catch (e) {
          watched.push(e as Error);
        } finally {
          ended = true;
        }
      })();
      own.faults.breakWatches();
      await cms.create({ metadata: { name: 'after-break' } });
      await until('the direct watch to see the object made after the break, or to end', () =>
        ended || watched.some((e) => !(e instanceof Error) && e.type === 'ADDED' && (e.object as any).metadata.name === 'after-break'));
      const errors = watched.filter((e): e is Error => e instanceof Error);
      assert.ok(errors.every((e) => e instanceof ApiError && e.code === 410), `a watch that ends does so with 410: ${errors.map(String).join('; ')}`);
      await until('the informer to see the object made after the break', () => informer.store.has('default/after-break'));
      assert.ok(own.faults.injected.brokenWatches >= 1);
      stop.abort();
      await direct;
    } finally {
      stop.abort();
      informer.stop();
    }
  });

  test('kindClient: built-in kinds typed from the generated types, the path from discovery, in either domain', async () => {
    for (const server2 of [server, await startTestServer({ apiDomain: 'k8s.io' })]) {
      try {
        const roles = kindClient(server2.client, `${server2.names.group('rbac.authorization')}/v1`, 'Role', 'default');
        const made = await roles.create({ metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
        const rules: string[] | undefined = made.rules?.[0]?.verbs;
        assert.deepEqual(rules, ['get']);
        const deployments = kindClient(server2.client, 'apps/v1', 'Deployment', 'default');
        const d = await deployments.create({ metadata: { name: 'typed' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
        const replicas: number | undefined = d.spec?.replicas;
        assert.equal(replicas, 1, 'defaulted by the server');
        assert.equal((await deployments.status.get('typed')).metadata?.name, 'typed');
      } finally {
        if (server2 !== server) await server2.close();
      }
    }
  });

  test('userKubeconfig: a configuration for another user, signed by the server\'s CA', async () => {
    const path = await server.userKubeconfig('erin', ['devs']);
    const { clientFromFile } = await import('../../src/client/rest-client.js');
    const client = await clientFromFile(path);
    try {
      const group = server.names.group('authentication');
      const review = await client.request({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } });
      assert.equal(review.status.userInfo.username, 'erin');
      assert.ok(review.status.userInfo.groups.includes('devs'));
    } finally {
      client.close();
    }
  });
});

test('a server that fails to start leaves no data folder behind', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kit-start-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = parent;
  try {
    await assert.rejects(startTestServer({ flags: ['--feature-gates=ServerSideApply=false'] }), /ServerSideApply/);
    assert.deepEqual(readdirSync(parent), []);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(parent, { recursive: true, force: true });
  }
});

test('with RBAC among the flags, the in-process controllers still work: a Deployment gets its ReplicaSet and Pods', async () => {
  const server = await startTestServer({ flags: ['--authorization-mode=Node,RBAC'] });
  try {
    const deployments = kindClient(server.client, 'apps/v1', 'Deployment', 'default');
    await deployments.create({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const pods = server.client.resource({ group: '', version: 'v1', resource: 'pods' }, 'default');
    await until('the deployment\'s two pods', async () => (await pods.list({ labelSelector: 'app=web' })).items.length === 2);
    // a user without roles is still refused: RBAC decides for everyone but the controllers' own accounts
    const { clientFromFile } = await import('../../src/client/rest-client.js');
    const alice = await clientFromFile(await server.userKubeconfig('alice'));
    try {
      await assert.rejects(alice.resource({ group: '', version: 'v1', resource: 'pods' }, 'default').list(), (e: unknown) => e instanceof ApiError && e.code === 403);
    } finally {
      alice.close();
    }
  } finally {
    await server.close();
  }
});

test('a process that exits with servers never closed leaves no data folders behind', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kit-exit-'));
  try {
    const kit = new URL('../../src/testing.js', import.meta.url).href;
    // as a test runner's forced exit does: two servers started, neither closed, then process.exit()
    const script = `const { startTestServer } = await import(${JSON.stringify(kit)});
await Promise.all([startTestServer(), startTestServer({ storage: 'sqlite' })]);
process.exit(0);`;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: parent } });
    assert.deepEqual(readdirSync(parent), []);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
