// @kubernetes/client-node 1.4.0, unmodified, against a fresh server in each API domain mode. The core
// and apps APIs work in both; the generated classes of `*.k8s.io` groups have that domain compiled
// into their paths, so in `cluster.io` mode only the generic object API reaches those groups.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException, AppsV1Api, CoreV1Api, Health, KubeConfig, KubernetesObjectApi, ListWatch, PatchStrategy, RbacAuthorizationV1Api,
  Watch, makeInformer, setHeaderOptions, type KubernetesObject, type V1ConfigMap, type V1Deployment,
} from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { apiDomains, sleep } from './support.js';
import { waitFor } from '../support/wait.js';

const fieldManager = 'e2e-client-node';

/** The status code and Status body of a failed call. */
async function failure(call: Promise<unknown>): Promise<{ code: number; status: any }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, status: body };
  }
  assert.fail('the call succeeded');
}

/** Resolves when `check` returns true, polling the events collected so far. */
async function eventually(check: () => boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const configMap = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): V1ConfigMap =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data });

const deployment = (namespace: string, name: string): V1Deployment => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] },
    },
  },
});

for (const domain of apiDomains) {
  describe(`client-node 1.4.0, ${domain} mode`, () => {
    let server: TestServer;
    let kc: KubeConfig;
    let core: CoreV1Api;
    let apps: AppsV1Api;
    const ns = 'cn-test';

    before(async () => {
      server = await startTestServer({ apiDomain: domain });
      kc = new KubeConfig();
      kc.loadFromFile(server.kubeconfig);
      core = kc.makeApiClient(CoreV1Api);
      apps = kc.makeApiClient(AppsV1Api);
      await core.createNamespace({ body: { metadata: { name: ns } } });
    });
    after(async () => { await server?.close(); });

    test('list: namespaces, label selectors, pages', async () => {
      const nss = await core.listNamespace();
      assert.deepEqual(nss.items.map((n) => n.metadata!.name).sort(), [...server.names.initialNamespaces, ns].sort());
      for (const [name, app] of [['l1', 'a'], ['l2', 'b'], ['l3', 'a']] as const) {
        await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, name, {}, { app, list: 'yes' }) });
      }
      const selected = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'list=yes,app=a' });
      assert.deepEqual(selected.items.map((c) => c.metadata!.name), ['l1', 'l3']);
      const names: string[] = [];
      let cont: string | undefined;
      let pages = 0;
      do {
        const page = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'list', limit: 1, _continue: cont });
        names.push(...page.items.map((c) => c.metadata!.name!));
        cont = page.metadata?._continue || undefined;
        pages++;
      } while (cont);
      assert.deepEqual(names, ['l1', 'l2', 'l3']);
      assert.ok(pages >= 3);
      const all = await core.listConfigMapForAllNamespaces({ labelSelector: 'list=yes' });
      assert.equal(all.items.length, 3);
    });

    test('create and read (core and apps); dry run; AlreadyExists and NotFound', async () => {
      const created = await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'c1', { a: '1' }), fieldManager });
      assert.equal(created.metadata!.name, 'c1');
      assert.match(created.metadata!.uid!, /^[0-9a-f-]{36}$/);
      const read = await core.readNamespacedConfigMap({ name: 'c1', namespace: ns });
      assert.deepEqual(read.data, { a: '1' });
      assert.equal(read.metadata!.resourceVersion, created.metadata!.resourceVersion);

      const dep = await apps.createNamespacedDeployment({ namespace: ns, body: deployment(ns, 'd1') });
      assert.equal(dep.metadata!.generation, 1);
      assert.equal((await apps.readNamespacedDeployment({ name: 'd1', namespace: ns })).spec!.replicas, 1);

      const dry = await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'c-dry', {}), dryRun: 'All', fieldValidation: 'Strict' });
      assert.equal(dry.metadata!.name, 'c-dry');
      assert.equal((await failure(core.readNamespacedConfigMap({ name: 'c-dry', namespace: ns }))).code, 404);

      const dup = await failure(core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'c1', {}) }));
      assert.equal(dup.code, 409);
      assert.equal(dup.status.reason, 'AlreadyExists');
      const missing = await failure(core.readNamespacedConfigMap({ name: 'nope', namespace: ns }));
      assert.deepEqual([missing.code, missing.status.kind, missing.status.reason, missing.status.message], [404, 'Status', 'NotFound', 'configmaps "nope" not found']);
      assert.deepEqual(missing.status.details, { name: 'nope', kind: 'configmaps' });
    });

    test('patch: json (the default), merge, strategic; replace with a stale resourceVersion', async () => {
      await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'p1', { a: '1', b: '2' }) });
      const jsonPatched = await core.patchNamespacedConfigMap({ name: 'p1', namespace: ns, body: [{ op: 'replace', path: '/data/a', value: 'j' }] });
      assert.deepEqual(jsonPatched.data, { a: 'j', b: '2' });
      const merged = await core.patchNamespacedConfigMap({ name: 'p1', namespace: ns, body: { data: { b: null, m: 'x' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      assert.deepEqual(merged.data, { a: 'j', m: 'x' });

      await apps.createNamespacedDeployment({ namespace: ns, body: deployment(ns, 'p-dep') });
      const strategic = await apps.patchNamespacedDeployment({ name: 'p-dep', namespace: ns,
        body: { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.26' }] } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
      const container = strategic.spec!.template.spec!.containers[0]!;
      assert.equal(container.image, 'nginx:1.26');
      assert.equal(container.ports?.[0]?.containerPort, 80, 'containers merge by name');

      const stale = await failure(core.replaceNamespacedConfigMap({ name: 'p1', namespace: ns,
        body: { ...configMap(ns, 'p1', {}), metadata: { name: 'p1', namespace: ns, resourceVersion: jsonPatched.metadata!.resourceVersion } } }));
      assert.equal(stale.code, 409);
      assert.equal(stale.status.reason, 'Conflict');
    });

    test('create records managedFields for the field manager', async () => {
      const created = await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'mf', { a: '1' }), fieldManager });
      const entry = created.metadata!.managedFields?.[0];
      assert.deepEqual([entry?.manager, entry?.operation, entry?.apiVersion, entry?.fieldsType], [fieldManager, 'Update', 'v1', 'FieldsV1']);
      assert.deepEqual(entry?.fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    });

    test('server-side apply (application/apply-patch+yaml with a JSON body) creates, then updates', async () => {
      const apply = (data: Record<string, string>) => core.patchNamespacedConfigMap({ name: 'cn-ssa', namespace: ns, fieldManager, force: true,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cn-ssa', namespace: ns }, data } },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply));
      const created = await apply({ k: 'v' });
      assert.deepEqual(created.data, { k: 'v' });
      assert.deepEqual(created.metadata!.managedFields!.map((f) => [f.manager, f.operation]), [[fieldManager, 'Apply']]);
      const updated = await apply({ k2: 'v2' });
      assert.deepEqual(updated.data, { k2: 'v2' }, 'a field the manager stops applying is removed');
    });

    test('watch: ADDED, MODIFIED, DELETED', async () => {
      const events: string[] = [];
      let ended: unknown = 'open';
      const list = await core.listNamespacedConfigMap({ namespace: ns });
      const controller = await new Watch(kc).watch(`/api/v1/namespaces/${ns}/configmaps`,
        { resourceVersion: list.metadata!.resourceVersion, allowWatchBookmarks: true },
        (type, obj: V1ConfigMap) => { if (type !== 'BOOKMARK') events.push(`${type} ${obj.metadata!.name} ${JSON.stringify(obj.data ?? {})}`); },
        (err) => { ended = err; });
      try {
        await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'w1', { v: '1' }) });
        await core.patchNamespacedConfigMap({ name: 'w1', namespace: ns, body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        await core.deleteNamespacedConfigMap({ name: 'w1', namespace: ns });
        await eventually(() => events.length >= 3, 'three watch events');
        assert.deepEqual(events, ['ADDED w1 {"v":"1"}', 'MODIFIED w1 {"v":"2"}', 'DELETED w1 {"v":"2"}']);
        assert.equal(ended, 'open');
      } finally {
        controller.abort();
      }
    });

    test('informer (makeInformer): add, update, delete', async () => {
      const selector = 'informed=yes';
      await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'i0', { v: '0' }, { informed: 'yes' }) });
      const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`,
        () => core.listNamespacedConfigMap({ namespace: ns, labelSelector: selector }), selector);
      const seen: string[] = [];
      informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`));
      informer.on('update', (o) => seen.push(`update ${o.metadata!.name} ${o.data?.v}`));
      informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
      informer.on('error', () => {}); // stop() aborts the watch and reports it (harmless on 1.4.0)
      await informer.start();
      try {
        await eventually(() => seen.includes('add i0'), 'the listed object');
        await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'i1', { v: '1' }, { informed: 'yes' }) });
        await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'other', {}) });
        await core.patchNamespacedConfigMap({ name: 'i1', namespace: ns, body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        await core.deleteNamespacedConfigMap({ name: 'i0', namespace: ns });
        await eventually(() => seen.length >= 4, 'four informer events');
        assert.deepEqual(seen, ['add i0', 'add i1', 'update i1 2', 'delete i0']);
        assert.deepEqual(informer.list(ns).map((o) => o.metadata!.name), ['i1']);
        // an object that stops matching the selector leaves the watch as a deletion
        await core.patchNamespacedConfigMap({ name: 'i1', namespace: ns, body: { metadata: { labels: { informed: 'no' } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        await eventually(() => seen.length >= 5, 'the object leaving the selector');
        assert.equal(seen[4], 'delete i1');
        assert.deepEqual(informer.list(ns), []);
      } finally {
        await informer.stop();
      }
    });

    test('informer with label and field selectors; it carries on when the server\'s storage watch is broken and relisted', async () => {
      // makeInformer of 1.4.0 takes a label selector only; the ListWatch it builds takes both
      const informer = new ListWatch<V1ConfigMap>(`/api/v1/namespaces/${ns}/configmaps`, new Watch(kc),
        () => core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'team=a', fieldSelector: 'metadata.name!=a-skipped' }), false, 'team=a', 'metadata.name!=a-skipped');
      const added: string[] = [];
      informer.on('add', (o) => added.push(o.metadata!.name!));
      informer.on('error', () => {});
      await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'a-listed', {}, { team: 'a' }) });
      await informer.start();
      try {
        await eventually(() => added.includes('a-listed'), 'the listed object');
        for (const [name, team] of [['a-skipped', 'a'], ['b-other', 'b'], ['a-watched', 'a']] as const)
          await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, name, {}, { team }) });
        await eventually(() => added.includes('a-watched'), 'the watched object');
        // the storage's watches end as by compaction, with a write in the gap: the watch cache lists again, and
        // its watchers either go on or get 410 and list again; either way the informer sees what follows
        server.faults.breakWatches();
        await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'a-after-break', {}, { team: 'a' }) });
        await eventually(() => added.includes('a-after-break'), 'the object written after the break', 30_000);
        assert.deepEqual([...new Set(added)].sort(), ['a-after-break', 'a-listed', 'a-watched']);
        assert.deepEqual(informer.list(ns).map((o) => o.metadata!.name).sort(), ['a-after-break', 'a-listed', 'a-watched']);
      } finally {
        await informer.stop();
      }
    });

    test('delete: options in the query, then gone', async () => {
      await core.createNamespacedConfigMap({ namespace: ns, body: configMap(ns, 'd1', {}) });
      await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'd-pod' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
      const dryDeleted = await core.deleteNamespacedConfigMap({ name: 'd1', namespace: ns, dryRun: 'All' });
      assert.ok(dryDeleted);
      await core.readNamespacedConfigMap({ name: 'd1', namespace: ns });
      await core.deleteNamespacedConfigMap({ name: 'd1', namespace: ns, propagationPolicy: 'Background' });
      assert.equal((await failure(core.readNamespacedConfigMap({ name: 'd1', namespace: ns }))).code, 404);
      await core.deleteNamespacedPod({ name: 'd-pod', namespace: ns, gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
      // foreground deletion keeps the pod, marked, until the garbage collector has seen to its dependents
      await waitFor('the pod gone after its foreground deletion', async () =>
        (await failure(core.readNamespacedPod({ name: 'd-pod', namespace: ns }))).code === 404);
      assert.equal((await failure(core.deleteNamespacedConfigMap({ name: 'd1', namespace: ns }))).code, 404);
    });

    test('health: readyz and livez', async () => {
      const health = new Health(kc);
      assert.equal(await health.readyz({}), true);
      assert.equal(await health.livez({}), true);
    });

    test(`typed API of a domain group (RbacAuthorizationV1Api): ${domain === 'k8s.io' ? 'works' : '404, its paths name k8s.io'}`, async () => {
      const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
      const role = { metadata: { name: 'reader', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
      if (domain === 'k8s.io') {
        const created = await rbac.createNamespacedRole({ namespace: ns, body: role });
        assert.equal(created.apiVersion, 'rbac.authorization.k8s.io/v1');
        assert.deepEqual((await rbac.listNamespacedRole({ namespace: ns })).items.map((r) => r.metadata!.name), ['reader']);
      } else {
        const r = await failure(rbac.createNamespacedRole({ namespace: ns, body: role }));
        assert.equal(r.code, 404);
        assert.equal((await failure(rbac.listClusterRole())).code, 404);
      }
    });

    test('generic object API reaches a domain group under its served name (the cluster.io workaround)', async () => {
      const objects = KubernetesObjectApi.makeApiClient(kc);
      const apiVersion = `${server.names.group('rbac.authorization')}/v1`;
      const header = { apiVersion, kind: 'Role', metadata: { name: 'generic-reader', namespace: ns } };
      const spec: KubernetesObject = { ...header, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } as KubernetesObject;
      const created = await objects.create(spec);
      assert.equal(created.apiVersion, apiVersion);
      const read = await objects.read(header);
      assert.equal(read.metadata!.name, 'generic-reader');
      const cm = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p1', namespace: ns } });
      assert.equal(cm.kind, 'ConfigMap');
      await objects.delete(spec);
      assert.equal((await failure(objects.read(header))).code, 404);
    });
  });
}
