// kubectl 1.27 and 1.32, unmodified, against a fresh server in each API domain mode. In `k8s.io` mode
// kubectl gets what it asks for (aggregated discovery, server-side tables); in `cluster.io` mode it
// falls back to legacy discovery and client-side `NAME AGE` tables, and kubectl 1.32's typed
// creates (protobuf bodies with the reference media type) are refused with 415.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  apiDomains, configMaps, kubectlVersions, namespaceManifest, sleep, tableHeader, tableNames, tableRows,
  startKubectlEnv, type KubectlEnv, type KubectlVersion, type Manifest,
} from './support.js';
import type { ApiDomain } from '../../src/api/naming.js';
import { until, waitFor } from '../support/wait.js';
import { createClient } from '../integration/client.js';
import { startTestServer, type TestServer } from '../../src/testing.js';


const deployment = (namespace: string, name: string, image = 'nginx:1.25'): Manifest => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name, namespace, labels: { app: name } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] },
    },
  },
});
const service = (namespace: string, name: string): Manifest => ({
  apiVersion: 'v1', kind: 'Service',
  metadata: { name, namespace },
  spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 80 }] },
});
const pod = (namespace: string, name: string): Manifest => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace, labels: { app: name } },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] },
});

/** Paths of the requests kubectl logs at -v=6. */
function requestPaths(stderr: string): string[] {
  return [...stderr.matchAll(/\] (GET|POST|PUT|PATCH|DELETE) https:\/\/[^/]+(\/\S*)/g)].map((m) => `${m[1]} ${m[2]}`);
}

/** watch requests on ConfigMaps the server is serving now (its apiserver_registered_watchers gauge) */
async function configMapWatchers(server: TestServer): Promise<number> {
  const c = createClient(server);
  try {
    const text = (await c.get('/metrics')).body;
    return [...text.matchAll(/^apiserver_registered_watchers\{[^}]*kind="ConfigMap"[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  } finally { c.close(); }
}

/** One client version against one fresh server in one domain mode; the tests run in order. */
function suite(version: KubectlVersion, domain: ApiDomain) {
  describe(`kubectl ${version}, ${domain} mode`, { concurrency: 1 }, () => {
    let k: KubectlEnv;
    /** kubectl asks for meta.k8s.io Tables: only a k8s.io server can answer them */
    const serverTables = domain === 'k8s.io';
    const otherDomain = apiDomains.find((d) => d !== domain)!;

    let server: TestServer;
    // the tests count what their namespaces hold: no root-CA ConfigMap among it (test/integration/endpoints.test.ts has it)
    before(async () => { k = await startKubectlEnv(version, domain, server = await startTestServer({ apiDomain: domain, flags: ['--controllers=*,-root-ca-cert-publisher'] })); });
    after(async () => { await k?.close(); await server?.close(); });

    /** creates a namespace and objects in it with `create -f` */
    const setup = async (ns: string, objects: Manifest[]) => {
      await k.ok(['create', '-f', k.manifest(`${ns}-setup.yaml`, [namespaceManifest(ns), ...objects])]);
    };

    test('version', async () => {
      const v = JSON.parse(await k.ok(['version', '-o', 'json']));
      assert.equal(v.clientVersion.minor, version.split('.')[1]);
      assert.equal(v.serverVersion.major, '1');
      assert.equal(v.serverVersion.minor, '27');
      assert.match(v.serverVersion.gitVersion, /^v1\.27\.\d+/);
    });

    test('api-versions lists the groups under the domain', async () => {
      const out = (await k.ok(['api-versions'])).split('\n');
      for (const gv of ['v1', 'apps/v1', 'batch/v1', `rbac.authorization.${domain}/v1`, `coordination.${domain}/v1`]) {
        assert.ok(out.includes(gv), `${gv} missing from:\n${out.join('\n')}`);
      }
      assert.ok(!out.some((l) => l.includes(otherDomain)), `a group of ${otherDomain} in ${domain} mode`);
    });

    test(`discovery is ${serverTables ? 'aggregated (2 requests)' : 'legacy (one request per group version)'}`, async () => {
      const { stderr } = await k.run(['api-versions', '-v=6', '--cache-dir', `${k.server.dataDir}/fresh-discovery-cache`]);
      const paths = requestPaths(stderr).map((p) => p.replace(/\?.*/, ''));
      if (serverTables) {
        assert.deepEqual(paths, ['GET /api', 'GET /apis']);
      } else {
        assert.ok(paths.includes('GET /api/v1') && paths.includes('GET /apis/apps/v1'), paths.join('\n'));
        assert.ok(paths.length > 10, paths.join('\n'));
      }
    });

    test('api-resources', async () => {
      const rows = tableRows(await k.ok(['api-resources']));
      assert.deepEqual(rows[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
      const row = (name: string) => rows.find((r) => r[0] === name);
      assert.deepEqual(row('configmaps'), ['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
      assert.deepEqual(row('namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
      assert.deepEqual(row('deployments'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
      assert.deepEqual(row('clusterroles'), ['clusterroles', `rbac.authorization.${domain}/v1`, 'false', 'ClusterRole']);
      const wide = tableRows(await k.ok(['api-resources', '-o', 'wide', '--api-group=apps']));
      assert.deepEqual(wide.find((r) => r[0] === 'deployments')?.slice(-2),
        ['create,delete,deletecollection,get,list,patch,update,watch', 'all']);
    });

    test('get ns: the four initial namespaces', async () => {
      const out = await k.ok(['get', 'ns']);
      const expected = ['default', `${prefix(domain)}-node-lease`, `${prefix(domain)}-public`, `${prefix(domain)}-system`].sort();
      assert.deepEqual([...k.server.names.initialNamespaces].sort(), expected);
      assert.deepEqual(tableNames(out), expected);
      if (serverTables) {
        assert.deepEqual(tableHeader(out), ['NAME', 'STATUS', 'AGE']);
        assert.ok(tableRows(out).slice(1).every((r) => r[1] === 'Active'), out);
      } else {
        assert.deepEqual(tableHeader(out), ['NAME', 'AGE']);
      }
      const list = await k.json(['get', 'ns']);
      assert.deepEqual(list.items.map((n: any) => n.metadata.name).sort(), expected);
      for (const n of list.items) {
        assert.equal(n.status.phase, 'Active');
        assert.equal(n.metadata.labels[`${labelDomain(domain)}/metadata.name`], n.metadata.name);
      }
    });

    describe('get', () => {
      const ns = 'list-test';
      const cms = configMaps(ns, [
        { name: 'cm-a', labels: { app: 'web', tier: 'front' }, data: { order: '4' } },
        { name: 'cm-b', labels: { app: 'web', tier: 'back' }, data: { order: '3', extra: 'x' } },
        { name: 'cm-c', labels: { app: 'db' }, data: { order: '2' } },
        { name: 'cm-d', labels: { app: 'web' }, data: { order: '1' } },
      ]);
      before(() => setup(ns, cms));

      test('human table', async () => {
        const out = await k.ok(['get', 'cm', '-n', ns]);
        assert.deepEqual(tableNames(out), ['cm-a', 'cm-b', 'cm-c', 'cm-d']);
        if (serverTables) {
          assert.deepEqual(tableHeader(out), ['NAME', 'DATA', 'AGE']);
          assert.deepEqual(tableRows(out).slice(1).map((r) => r[1]), ['1', '2', '1', '1']);
        } else {
          assert.deepEqual(tableHeader(out), ['NAME', 'AGE']);
        }
      });

      test('human table across namespaces (-A) and with labels', async () => {
        const all = tableRows(await k.ok(['get', 'cm', '-A']));
        assert.equal(all[0]![0], 'NAMESPACE');
        assert.deepEqual(all.filter((r) => r[0] === ns).map((r) => r[1]), ['cm-a', 'cm-b', 'cm-c', 'cm-d']);
        const labelled = tableRows(await k.ok(['get', 'cm', 'cm-a', '-n', ns, '--show-labels']));
        assert.equal(labelled[0]!.at(-1), 'LABELS');
        assert.equal(labelled[1]!.at(-1), 'app=web,tier=front');
      });

      test('-o json', async () => {
        const list = await k.json(['get', 'cm', '-n', ns]);
        assert.equal(list.kind, 'List');
        assert.deepEqual(list.items.map((i: any) => [i.apiVersion, i.kind, i.metadata.name, i.metadata.namespace, i.data.order]),
          [['v1', 'ConfigMap', 'cm-a', ns, '4'], ['v1', 'ConfigMap', 'cm-b', ns, '3'], ['v1', 'ConfigMap', 'cm-c', ns, '2'], ['v1', 'ConfigMap', 'cm-d', ns, '1']]);
        for (const i of list.items) {
          assert.match(i.metadata.uid, /^[0-9a-f-]{36}$/);
          assert.match(i.metadata.resourceVersion, /^\d+$/);
          assert.match(i.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        }
        const one = await k.json(['get', 'cm', 'cm-b', '-n', ns]);
        assert.deepEqual(one.data, { order: '3', extra: 'x' });
        assert.deepEqual(one.metadata.labels, { app: 'web', tier: 'back' });
      });

      test('-o yaml', async () => {
        const list = parse(await k.ok(['get', 'cm', '-n', ns, '-o', 'yaml']));
        assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['cm-a', 'cm-b', 'cm-c', 'cm-d']);
        const one = parse(await k.ok(['get', 'cm', 'cm-c', '-n', ns, '-o', 'yaml']));
        assert.equal(one.kind, 'ConfigMap');
        assert.deepEqual(one.data, { order: '2' });
      });

      test('-l (equality and set-based selectors)', async () => {
        const names = async (selector: string) => tableNames(await k.ok(['get', 'cm', '-n', ns, '-l', selector]));
        assert.deepEqual(await names('app=web'), ['cm-a', 'cm-b', 'cm-d']);
        assert.deepEqual(await names('app=web,tier'), ['cm-a', 'cm-b']);
        assert.deepEqual(await names('app!=web'), ['cm-c']);
        assert.deepEqual(await names('tier in (back,side)'), ['cm-b']);
        assert.deepEqual(await names('!tier'), ['cm-c', 'cm-d']);
        const none = await k.run(['get', 'cm', '-n', ns, '-l', 'app=none']);
        assert.equal(none.code, 0);
        assert.match(none.stderr, /No resources found in list-test namespace/);
        const byField = await k.json(['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=cm-c']);
        assert.deepEqual(byField.items.map((i: any) => i.metadata.name), ['cm-c']);
      });

      test('--sort-by', async () => {
        assert.deepEqual(tableNames(await k.ok(['get', 'cm', '-n', ns, '--sort-by=.data.order'])), ['cm-d', 'cm-c', 'cm-b', 'cm-a']);
        const json = await k.json(['get', 'cm', '-n', ns, '--sort-by=.data.order']);
        assert.deepEqual(json.items.map((i: any) => i.metadata.name), ['cm-d', 'cm-c', 'cm-b', 'cm-a']);
      });

      test('--chunk-size=1 pages through with continue tokens', async () => {
        const { code, stdout, stderr } = await k.run(['get', 'cm', '-n', ns, '--chunk-size=1', '-v=6']);
        assert.equal(code, 0, stderr);
        assert.deepEqual(tableNames(stdout), ['cm-a', 'cm-b', 'cm-c', 'cm-d']);
        assert.equal(tableRows(stdout).filter((r) => r[0] === 'NAME').length, 1, 'one header');
        const lists = requestPaths(stderr).filter((p) => p.startsWith(`GET /api/v1/namespaces/${ns}/configmaps?`));
        assert.ok(lists.length >= 4, lists.join('\n'));
        assert.ok(lists.every((p) => /[?&]limit=1(&|$)/.test(p)), lists.join('\n'));
        assert.equal(lists.filter((p) => p.includes('continue=')).length, lists.length - 1, lists.join('\n'));
        const json = await k.json(['get', 'cm', '-n', ns, '--chunk-size=1']);
        assert.deepEqual(json.items.map((i: any) => i.metadata.name), ['cm-a', 'cm-b', 'cm-c', 'cm-d']);
      });

      test('a missing object: the Status error', async () => {
        const r = await k.run(['get', 'cm', 'nope', '-n', ns]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, /Error from server \(NotFound\): configmaps "nope" not found/);
        // kubectl looks the namespace up after a 404 and reports that instead
        const badNs = await k.run(['get', 'cm', 'nope', '-n', 'no-such-ns']);
        assert.match(badNs.stderr, /Error from server \(NotFound\): namespaces "no-such-ns" not found/);
      });
    });

    test('get -w: the initial list, then ADDED, MODIFIED and DELETED lines', async () => {
      const ns = 'watch-test';
      await setup(ns, configMaps(ns, [{ name: 'w-a', data: { v: '1' } }]));
      const w = k.watch(['get', 'cm', '-n', ns, '-w', '--output-watch-events']);
      try {
        const header = await w.line(/^EVENT\s+NAME/);
        assert.deepEqual(tableHeader(header), serverTables ? ['EVENT', 'NAME', 'DATA', 'AGE'] : ['EVENT', 'NAME', 'AGE']);
        await w.line(/^ADDED\s+w-a\s/);
        let from = w.lines.length;
        await k.ok(['create', '-f', k.manifest('w-b.yaml', configMaps(ns, [{ name: 'w-b', data: { v: '1', u: '2' } }]))]);
        const added = await w.line(/^ADDED\s+w-b\s/, { from });
        if (serverTables) assert.equal(tableRows(added)[0]![2], '2');
        from = w.lines.length;
        await k.ok(['label', 'cm', 'w-a', '-n', ns, 'changed=yes']);
        await w.line(/^MODIFIED\s+w-a\s/, { from });
        from = w.lines.length;
        await k.ok(['delete', 'cm', 'w-b', '-n', ns]);
        await w.line(/^DELETED\s+w-b\s/, { from });
      } finally {
        await w.stop();
      }
      assert.deepEqual(tableRows(w.lines.join('\n')).slice(1).map((r) => `${r[0]} ${r[1]}`),
        ['ADDED w-a', 'ADDED w-b', 'MODIFIED w-a', 'DELETED w-b'], 'each change once, in order');
    });

    test('get -w -o json streams the objects', async () => {
      const ns = 'watch-json';
      await setup(ns, configMaps(ns, [{ name: 'seed' }]));
      const w = k.watch(['get', 'cm', '-n', ns, '-w', '-o', 'json']);
      try {
        // the watch starts from the list's resourceVersion, so nothing after the list is missed
        await w.line(/"name": "seed"/);
        await k.ok(['create', '-f', k.manifest('wj.yaml', configMaps(ns, [{ name: 'wj', data: { v: '1' } }]))]);
        await w.line(/"name": "wj"/);
        await k.ok(['patch', 'cm', 'wj', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"2"}}']);
        await w.line(/"v": "2"/);
      } finally {
        await w.stop();
      }
    });

    describe('create -f', () => {
      const ns = 'create-test';
      before(() => setup(ns, []));

      test('configmaps, a Deployment, a Service and a Pod', async () => {
        const file = k.manifest('workload.yaml', [
          ...configMaps(ns, [{ name: 'c1', data: { a: '1' } }, { name: 'c2', data: { b: '2' } }]),
          deployment(ns, 'web'), service(ns, 'web'), pod(ns, 'solo'),
        ]);
        const out = await k.ok(['create', '-f', file]);
        assert.deepEqual(out.trim().split('\n'), [
          'configmap/c1 created', 'configmap/c2 created', 'deployment.apps/web created', 'service/web created', 'pod/solo created',
        ]);
        const list = await k.json(['get', 'cm,deploy,svc,pod', '-n', ns]);
        // (the Deployment's own pods, made by its controllers, are not part of the file)
        list.items = list.items.filter((i: any) => !i.metadata.ownerReferences);
        assert.deepEqual(list.items.map((i: any) => `${i.apiVersion} ${i.kind} ${i.metadata.name}`), [
          'v1 ConfigMap c1', 'v1 ConfigMap c2', 'apps/v1 Deployment web', 'v1 Service web', 'v1 Pod solo',
        ]);
        const dep = list.items[2];
        assert.equal(dep.metadata.generation, 1);
        assert.equal(dep.spec.replicas, 2);
        assert.equal(dep.spec.template.spec.containers[0].ports[0].containerPort, 80);
        const again = await k.run(['create', '-f', file]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /Error from server \(AlreadyExists\): error when creating ".*workload.yaml": configmaps "c1" already exists/);
      });

      test('generateName, strict field validation, invalid names', async () => {
        const generated = await k.ok(['create', '-f', k.manifest('gen.yaml', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', namespace: ns } }])]);
        assert.match(generated.trim(), /^configmap\/gen-[a-z0-9]{5} created$/);
        const unknownField = k.manifest('unknown.yaml', [{ ...configMaps(ns, [{ name: 'strict' }])[0]!, bogus: 1 }]);
        const strict = await k.run(['create', '-f', unknownField]);
        assert.equal(strict.code, 1);
        assert.match(strict.stderr, /Error from server \(BadRequest\): error when creating ".*unknown.yaml": .*strict decoding error: unknown field "bogus"/);
        assert.match((await k.run(['get', 'cm', 'strict', '-n', ns])).stderr, /NotFound/);
        await k.ok(['create', '-f', unknownField, '--validate=false']);
        assert.equal((await k.json(['get', 'cm', 'strict', '-n', ns])).bogus, undefined);
        const badName = await k.run(['create', '-f', k.manifest('bad-name.yaml', configMaps(ns, [{ name: 'Bad_Name' }]))]);
        assert.equal(badName.code, 1);
        assert.match(badName.stderr, /The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
      });

      test('a Deployment whose selector does not match its template is invalid', async () => {
        const bad = deployment(ns, 'mismatch');
        (bad.spec as any).template.metadata.labels = { app: 'other' };
        const r = await k.run(['create', '-f', k.manifest('mismatch.yaml', [bad])]);
        assert.equal(r.code, 1, r.stdout);
        assert.match(r.stderr, /The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: .*`selector` does not match template `labels`/);
      });

      test('pods in the human table', async () => {
        // the Deployment's pods, which its controllers make meanwhile, are left out
        const out = await k.ok(['get', 'pods', '-n', ns, '--field-selector', 'metadata.name=solo']);
        if (serverTables) {
          assert.deepEqual(tableRows(out), [['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'], ['solo', '0/1', 'Pending', '0', tableRows(out)[1]![4]!]]);
        } else {
          assert.deepEqual(tableHeader(out), ['NAME', 'AGE']);
          assert.deepEqual(tableNames(out), ['solo']);
        }
      });

      test('Deployment defaults', async () => {
        const dep = await k.json(['get', 'deploy', 'web', '-n', ns]);
        assert.deepEqual(dep.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
        assert.equal(dep.spec.revisionHistoryLimit, 10);
        assert.equal(dep.spec.progressDeadlineSeconds, 600);
        assert.equal(dep.spec.template.spec.restartPolicy, 'Always');
        assert.equal(dep.spec.template.spec.containers[0].ports[0].protocol, 'TCP');
      });

      test('Pod defaults', async () => {
        const p = await k.json(['get', 'pod', 'solo', '-n', ns]);
        assert.equal(p.spec.restartPolicy, 'Always');
        assert.equal(p.spec.dnsPolicy, 'ClusterFirst');
        assert.equal(p.spec.terminationGracePeriodSeconds, 30);
        assert.equal(p.spec.schedulerName, 'default-scheduler');
        assert.equal(p.spec.containers[0].imagePullPolicy, 'IfNotPresent');
        assert.equal(p.spec.containers[0].terminationMessagePath, '/dev/termination-log');
      });

      test('Service defaults and a cluster IP', async () => {
        const svc = await k.json(['get', 'svc', 'web', '-n', ns]);
        assert.equal(svc.spec.type, 'ClusterIP');
        assert.equal(svc.spec.sessionAffinity, 'None');
        assert.equal(svc.spec.ports[0].protocol, 'TCP');
        assert.match(svc.spec.clusterIP, /^10\.0\.0\.\d+$/, 'allocated from the default --service-cluster-ip-range 10.0.0.0/24');
        assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP]);
      });
    });

    test('expose and create service <type>; apply -k with a generator; apply set-last-applied, then apply drops what it recorded', async () => {
      const ns = 'expose';
      await setup(ns, [deployment(ns, 'web'), pod(ns, 'single')]);
      // kubectl 1.32 posts these typed objects as protobuf, which only a k8s.io server reads (see typed creates below)
      if (version === '1.27' || domain === 'k8s.io') {
        await k.ok(['expose', 'deployment', 'web', '-n', ns, '--port=8080', '--target-port=80', '--name=web-svc']);
        await k.ok(['expose', 'pod', 'single', '-n', ns, '--port=81', '--type=NodePort']);
        await k.ok(['create', 'service', 'externalname', 'ext', '-n', ns, '--external-name=db.example.com']);
        await k.ok(['create', 'service', 'clusterip', 'headless', '-n', ns, '--clusterip=None']);
        await k.ok(['create', 'service', 'loadbalancer', 'lb', '-n', ns, '--tcp=443:8443']);
        const svc = Object.fromEntries((await k.json(['get', 'svc', '-n', ns])).items.map((s: any) => [s.metadata.name, s.spec]));
        assert.deepEqual(svc['web-svc'].selector, { app: 'web' });
        assert.deepEqual(svc['web-svc'].ports, [{ port: 8080, targetPort: 80, protocol: 'TCP' }]);
        assert.match(svc['web-svc'].clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
        assert.equal(svc.single.type, 'NodePort');
        assert.deepEqual(svc.single.selector, { app: 'single' });
        assert.ok(svc.single.ports[0].nodePort >= 30000 && svc.single.ports[0].nodePort <= 32767, JSON.stringify(svc.single.ports));
        assert.equal(svc.ext.type, 'ExternalName');
        assert.equal(svc.ext.externalName, 'db.example.com');
        assert.equal(svc.ext.clusterIP, undefined);
        assert.equal(svc.headless.clusterIP, 'None');
        assert.equal(svc.lb.type, 'LoadBalancer');
        assert.deepEqual([svc.lb.ports[0].port, svc.lb.ports[0].targetPort], [443, 8443]);
        assert.ok(svc.lb.ports[0].nodePort >= 30000, JSON.stringify(svc.lb.ports));
      }
      const kustomization = mkdtempSync(join(tmpdir(), 'kustomize-'));
      try {
        writeFileSync(join(kustomization, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {x: y}\n');
        writeFileSync(join(kustomization, 'kustomization.yaml'),
          `namespace: ${ns}\nnamePrefix: kz-\ncommonLabels: {kz: "1"}\nresources: [cm.yaml]\nconfigMapGenerator:\n- name: gen\n  literals: [a=b]\n`);
        await k.ok(['apply', '-k', kustomization]);
        const made = (await k.json(['get', 'cm', '-n', ns, '-l', 'kz=1'])).items.map((c: any) => c.metadata.name).sort();
        assert.equal(made.length, 2, made.join());
        assert.match(made[0], /^kz-gen-[a-z0-9]{10}$/);
        assert.equal(made[1], 'kz-plain');
      } finally { rmSync(kustomization, { recursive: true, force: true }); }
      // what set-last-applied records is what the next apply takes away when the manifest drops it
      const manifest = k.manifest('last-applied.yaml', configMaps(ns, [{ name: 'created', data: { a: '1', b: '2' } }]));
      await k.ok(['create', '-f', manifest]);
      await k.ok(['apply', 'set-last-applied', '-f', manifest, '--create-annotation']);
      assert.deepEqual((await k.json(['apply', 'view-last-applied', 'cm', 'created', '-n', ns])).data, { a: '1', b: '2' });
      await k.ok(['apply', '-f', k.manifest('last-applied.yaml', configMaps(ns, [{ name: 'created', data: { a: '1' } }]))]);
      assert.deepEqual((await k.json(['get', 'cm', 'created', '-n', ns])).data, { a: '1' });
    });

    test('apply -f (client-side): create, change, unchanged', async () => {
      const ns = 'apply-test';
      await setup(ns, []);
      const write = (data: Record<string, string>, labels?: Record<string, string>) =>
        k.manifest('applied.yaml', configMaps(ns, [{ name: 'applied', data, labels }]));
      assert.equal((await k.ok(['apply', '-f', write({ a: '1', b: '2' })])).trim(), 'configmap/applied created');
      const first = await k.json(['get', 'cm', 'applied', '-n', ns]);
      const lastApplied = JSON.parse(first.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      assert.deepEqual(lastApplied.data, { a: '1', b: '2' });
      assert.equal((await k.ok(['apply', '-f', write({ a: '1', c: '3' }, { stage: 'two' })])).trim(), 'configmap/applied configured');
      const second = await k.json(['get', 'cm', 'applied', '-n', ns]);
      assert.deepEqual(second.data, { a: '1', c: '3' }, 'b was removed because it left the applied configuration');
      assert.deepEqual(second.metadata.labels, { stage: 'two' });
      assert.ok(Number(second.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
      assert.equal((await k.ok(['apply', '-f', write({ a: '1', c: '3' }, { stage: 'two' })])).trim(), 'configmap/applied unchanged');
      // A Deployment: the container list merges by name (strategic merge), so the ports stay.
      const dep = deployment(ns, 'applied-web');
      await k.ok(['apply', '-f', k.manifest('dep.yaml', [dep])]);
      (dep.spec as any).template.spec.containers[0].image = 'nginx:1.26';
      assert.equal((await k.ok(['apply', '-f', k.manifest('dep.yaml', [dep])])).trim(), 'deployment.apps/applied-web configured');
      const live = await k.json(['get', 'deploy', 'applied-web', '-n', ns]);
      assert.equal(live.spec.template.spec.containers[0].image, 'nginx:1.26');
      assert.equal(live.metadata.generation, 2);
    });

    test('patch: strategic (default), --type merge, --type json', async () => {
      const ns = 'patch-test';
      await setup(ns, [deployment(ns, 'p-web'), ...configMaps(ns, [{ name: 'p-cm', data: { a: '1', b: '2' } }])]);
      // strategic merge: containers merge by name, so the port survives an image change
      assert.equal((await k.ok(['patch', 'deploy', 'p-web', '-n', ns, '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}}}'])).trim(), 'deployment.apps/p-web patched');
      const dep = await k.json(['get', 'deploy', 'p-web', '-n', ns]);
      assert.equal(dep.spec.template.spec.containers.length, 1);
      assert.equal(dep.spec.template.spec.containers[0].image, 'nginx:1.26');
      assert.equal(dep.spec.template.spec.containers[0].ports[0].containerPort, 80);
      // strategic merge: $patch delete removes one list element by its merge key
      await k.ok(['patch', 'deploy', 'p-web', '-n', ns, '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}']);
      assert.deepEqual((await k.json(['get', 'deploy', 'p-web', '-n', ns])).spec.template.spec.containers.map((c: any) => c.name).sort(), ['nginx', 'side']);
      await k.ok(['patch', 'deploy', 'p-web', '-n', ns, '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}']);
      assert.deepEqual((await k.json(['get', 'deploy', 'p-web', '-n', ns])).spec.template.spec.containers.map((c: any) => c.name), ['nginx']);
      // merge patch: null removes a key
      assert.equal((await k.ok(['patch', 'cm', 'p-cm', '-n', ns, '--type', 'merge', '-p', '{"data":{"a":null,"m":"x"}}'])).trim(), 'configmap/p-cm patched');
      assert.deepEqual((await k.json(['get', 'cm', 'p-cm', '-n', ns])).data, { b: '2', m: 'x' });
      // merge patch on a list replaces it (the port is gone)
      await k.ok(['patch', 'deploy', 'p-web', '-n', ns, '--type', 'merge', '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}']);
      assert.equal((await k.json(['get', 'deploy', 'p-web', '-n', ns])).spec.template.spec.containers[0].ports, undefined);
      // JSON patch: add, replace, remove; a failed test op is rejected and changes nothing
      assert.equal((await k.ok(['patch', 'cm', 'p-cm', '-n', ns, '--type', 'json', '-p',
        '[{"op":"add","path":"/data/j","value":"y"},{"op":"replace","path":"/data/b","value":"3"},{"op":"remove","path":"/data/m"}]'])).trim(), 'configmap/p-cm patched');
      assert.deepEqual((await k.json(['get', 'cm', 'p-cm', '-n', ns])).data, { b: '3', j: 'y' });
      const failed = await k.run(['patch', 'cm', 'p-cm', '-n', ns, '--type', 'json', '-p',
        '[{"op":"replace","path":"/data/b","value":"4"},{"op":"test","path":"/data/j","value":"nope"}]']);
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /is invalid.*testing value \/data\/j failed/);
      assert.deepEqual((await k.json(['get', 'cm', 'p-cm', '-n', ns])).data, { b: '3', j: 'y' });
    });

    test('label and annotate', async () => {
      const ns = 'label-test';
      await setup(ns, configMaps(ns, [{ name: 'l-cm', labels: { keep: 'me' } }]));
      assert.equal((await k.ok(['label', 'cm', 'l-cm', '-n', ns, 'tier=a'])).trim(), 'configmap/l-cm labeled');
      const clash = await k.run(['label', 'cm', 'l-cm', '-n', ns, 'tier=b']);
      assert.equal(clash.code, 1);
      assert.match(clash.stderr, /already has a value \(a\), and --overwrite is false/);
      await k.ok(['label', 'cm', 'l-cm', '-n', ns, 'tier=b', '--overwrite']);
      assert.match(await k.ok(['annotate', 'cm', 'l-cm', '-n', ns, 'note=hello world']), /^configmap\/l-cm annotated?\n$/);
      let cm = await k.json(['get', 'cm', 'l-cm', '-n', ns]);
      assert.deepEqual(cm.metadata.labels, { keep: 'me', tier: 'b' });
      assert.equal(cm.metadata.annotations.note, 'hello world');
      await k.ok(['label', 'cm', 'l-cm', '-n', ns, 'tier-']);
      await k.ok(['annotate', 'cm', 'l-cm', '-n', ns, 'note-']);
      cm = await k.json(['get', 'cm', 'l-cm', '-n', ns]);
      assert.deepEqual(cm.metadata.labels, { keep: 'me' });
      assert.equal(cm.metadata.annotations?.note, undefined);
      await k.ok(['label', 'cm', '-n', ns, '--all', 'bulk=1']);
      assert.deepEqual(tableNames(await k.ok(['get', 'cm', '-n', ns, '-l', 'bulk=1'])), ['l-cm']);
    });

    test('delete, and wait --for=delete', async () => {
      const ns = 'delete-test';
      const file = k.manifest('del.yaml', configMaps(ns, [{ name: 'd-file' }]));
      await setup(ns, configMaps(ns, [{ name: 'd-one' }, { name: 'd-wait' }, { name: 'd-stays' }]));
      await k.ok(['create', '-f', file]);
      assert.equal((await k.ok(['delete', 'cm', 'd-one', '-n', ns])).trim(), 'configmap "d-one" deleted');
      assert.equal((await k.ok(['delete', '-f', file])).trim(), 'configmap "d-file" deleted');
      for (const name of ['d-one', 'd-file']) {
        assert.match((await k.run(['get', 'cm', name, '-n', ns])).stderr, /NotFound/);
      }
      const missing = await k.run(['delete', 'cm', 'd-one', '-n', ns]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "d-one" not found/);
      // wait sees the deletion as it happens (a DELETED watch event)
      const watchers = await configMapWatchers(server);
      const waiting = k.run(['wait', '--for=delete', 'cm/d-wait', '-n', ns, '--timeout=120s']);
      // kubectl prints that the condition is met only when it sees the deletion; it deletes once kubectl is watching
      await until(async () => (await sleep(100), (await configMapWatchers(server)) > watchers), 'kubectl watching the ConfigMap', 120_000);
      await k.ok(['delete', 'cm', 'd-wait', '-n', ns, '--wait=false']);
      const waited = await waiting;
      assert.equal(waited.code, 0, waited.stderr);
      assert.match(waited.stdout, /configmap\/d-wait condition met/);
      // and times out when nothing is deleted
      const timedOut = await k.run(['wait', '--for=delete', 'cm/d-stays', '-n', ns, '--timeout=1s']);
      assert.notEqual(timedOut.code, 0);
      assert.match(timedOut.stderr, /timed out waiting for the condition/);
    });

    test('diff: exit 0 when equal, 1 with the differences, nothing changed', async () => {
      const ns = 'diff-test';
      const write = (data: Record<string, string>) => k.manifest('diff.yaml', configMaps(ns, [{ name: 'df', data }]));
      await setup(ns, []);
      await k.ok(['apply', '-f', write({ a: '1' })]);
      const same = await k.run(['diff', '-f', write({ a: '1' })]);
      assert.equal(same.code, 0, same.stderr);
      assert.equal(same.stdout, '');
      const changed = await k.run(['diff', '-f', write({ a: '2', added: 'new' })]);
      assert.equal(changed.code, 1, changed.stderr);
      assert.match(changed.stdout, /^-  a: "1"$/m);
      assert.match(changed.stdout, /^\+  a: "2"$/m);
      assert.match(changed.stdout, /^\+  added: new$/m);
      assert.deepEqual((await k.json(['get', 'cm', 'df', '-n', ns])).data, { a: '1' });
    });

    test('diff of an unchanged object that create wrote (no annotations): exit 0; empty optional lists and maps are not kept', async () => {
      const ns = 'diff-created';
      const manifest = k.manifest('created.yaml', configMaps(ns, [{ name: 'plain', data: { a: '1' } }]));
      await setup(ns, []);
      await k.ok(['create', '-f', manifest]);
      // kubectl's patch sets metadata.annotations to {}: the reference's typed object leaves an empty map out
      const same = await k.run(['diff', '-f', manifest]);
      assert.equal(same.stderr, '');
      assert.equal(same.stdout, '');
      assert.equal(same.code, 0);
      const empty = (await k.json(['create', '-f', k.manifest('empty.yaml', [{
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty', namespace: ns, labels: {}, annotations: {}, finalizers: [] },
        spec: { automountServiceAccountToken: false, nodeSelector: {}, volumes: [], containers: [{ name: 'c', image: 'x', args: [], env: [], securityContext: {} }] },
      }])]));
      assert.deepEqual(Object.keys(empty.metadata).filter((f) => ['labels', 'annotations', 'finalizers'].includes(f)), []);
      assert.equal(empty.spec.nodeSelector, undefined);
      assert.equal(empty.spec.volumes, undefined);
      assert.equal(empty.spec.containers[0].args, undefined);
      assert.equal(empty.spec.containers[0].env, undefined);
      // an empty struct is not a collection: kept, as the reference keeps it
      assert.deepEqual(empty.spec.containers[0].securityContext, {});
    });

    test('--dry-run=server on create, patch and delete persists nothing', async () => {
      const ns = 'dry-test';
      await setup(ns, configMaps(ns, [{ name: 'dry-live', data: { v: '1' } }]));
      const created = await k.ok(['create', '-f', k.manifest('dry.yaml', configMaps(ns, [{ name: 'dry-new' }])), '--dry-run=server']);
      assert.equal(created.trim(), 'configmap/dry-new created (server dry run)');
      assert.match((await k.run(['get', 'cm', 'dry-new', '-n', ns])).stderr, /NotFound/);
      const dryCreated = await k.json(['create', '-f', k.manifest('dry.yaml', configMaps(ns, [{ name: 'dry-new' }])), '--dry-run=server']);
      assert.equal(dryCreated.metadata.name, 'dry-new');
      assert.match(dryCreated.metadata.uid, /^[0-9a-f-]{36}$/, 'the server fills in what a create would');

      const before = await k.json(['get', 'cm', 'dry-live', '-n', ns]);
      const patched = await k.json(['patch', 'cm', 'dry-live', '-n', ns, '-p', '{"data":{"v":"2"}}', '--dry-run=server']);
      assert.equal(patched.data.v, '2', 'the reply shows the patched object');
      const after = await k.json(['get', 'cm', 'dry-live', '-n', ns]);
      assert.equal(after.data.v, '1');
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);

      assert.equal((await k.ok(['delete', 'cm', 'dry-live', '-n', ns, '--dry-run=server'])).trim(), 'configmap "dry-live" deleted (server dry run)');
      assert.equal((await k.json(['get', 'cm', 'dry-live', '-n', ns])).metadata.resourceVersion, before.metadata.resourceVersion);
    });

    test('replace -f, and a stale resourceVersion conflicts', async () => {
      const ns = 'replace-test';
      await setup(ns, configMaps(ns, [{ name: 'r-cm', data: { a: '1' } }]));
      const live = await k.json(['get', 'cm', 'r-cm', '-n', ns]);
      const file = k.manifest('r.yaml', configMaps(ns, [{ name: 'r-cm', data: { b: '2' } }]));
      assert.equal((await k.ok(['replace', '-f', file])).trim(), 'configmap/r-cm replaced');
      assert.deepEqual((await k.json(['get', 'cm', 'r-cm', '-n', ns])).data, { b: '2' });
      const stale = k.manifest('stale.yaml', [{ ...live, data: { c: '3' } }]);
      const conflict = await k.run(['replace', '-f', stale]);
      assert.equal(conflict.code, 1);
      assert.match(conflict.stderr, /Error from server \(Conflict\).*the object has been modified; please apply your changes to the latest version and try again/);
      assert.deepEqual((await k.json(['get', 'cm', 'r-cm', '-n', ns])).data, { b: '2' });
      const missing = await k.run(['replace', '-f', k.manifest('m.yaml', configMaps(ns, [{ name: 'r-missing' }]))]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /NotFound/);
    });

    test('get --raw: /readyz?verbose, /livez, /healthz', async () => {
      const readyz = (await k.ok(['get', '--raw', '/readyz?verbose'])).trim().split('\n');
      assert.equal(readyz[0], '[+]ping ok');
      assert.ok(readyz.slice(0, -1).every((l) => /^\[\+\][\w/-]+ ok$/.test(l)), readyz.join('\n'));
      assert.ok(readyz.includes('[+]etcd ok') || readyz.includes('[+]log ok'), readyz.join('\n'));
      assert.equal(readyz.at(-1), 'readyz check passed');
      assert.equal(await k.ok(['get', '--raw', '/livez']), 'ok');
      assert.equal(await k.ok(['get', '--raw', '/healthz']), 'ok');
      assert.equal(await k.ok(['get', '--raw', '/readyz/ping']), 'ok');
      assert.equal((await k.ok(['get', '--raw', '/livez?verbose'])).trim().split('\n').at(-1), 'livez check passed');
      const raw = JSON.parse(await k.ok(['get', '--raw', '/api/v1/namespaces/default']));
      assert.equal(raw.kind, 'Namespace');
    });

    test('get componentstatuses: the controller manager, the scheduler (not run here) and the store, with the warning', async () => {
      // the controller manager is healthy once it runs with synced informers
      const r = await waitFor('the controller manager healthy', async () => {
        const run = await k.run(['get', 'componentstatuses', '-o', 'json']);
        return run.code === 0 && JSON.parse(run.stdout).items.some((c: any) => c.metadata.name === 'controller-manager' && c.conditions[0].status === 'True') && run;
      }, 120_000, 500);
      assert.match(r.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
      const byName = Object.fromEntries(JSON.parse(r.stdout).items.map((c: any) => [c.metadata.name, c.conditions[0].status]));
      assert.deepEqual(byName, { 'controller-manager': 'True', scheduler: 'Unknown', memory: 'True' });
      const table = tableRows(await k.ok(['get', 'cs']));
      if (serverTables) {
        assert.deepEqual(table[0], ['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
        assert.deepEqual(table.find((row) => row[0] === 'controller-manager'), ['controller-manager', 'Healthy', 'ok']);
      } else {
        assert.deepEqual(tableNames(await k.ok(['get', 'cs'])).sort(), ['controller-manager', 'memory', 'scheduler']);
      }
      assert.equal((await k.json(['get', 'cs', 'scheduler'])).kind, 'ComponentStatus');
      assert.match((await k.run(['get', 'cs', 'nothing'])).stderr, /NotFound/);
    });

    test('get --subresource=scale prints the Scale\'s columns; --subresource=status the parent\'s', async () => {
      const ns = `scale-${version.replace('.', '')}`;
      await setup(ns, [deployment(ns, 'scaled')]);
      await k.ok(['scale', 'deployment/scaled', '-n', ns, '--replicas=3']);
      const scale = await k.json(['get', 'deployment', 'scaled', '-n', ns, '--subresource=scale']);
      assert.deepEqual([scale.kind, scale.spec.replicas], ['Scale', 3]);
      const table = tableRows(await k.ok(['get', 'deployment', 'scaled', '-n', ns, '--subresource=scale']));
      if (serverTables) {
        assert.deepEqual(table[0], ['NAME', 'DESIRED', 'AVAILABLE']);
        assert.deepEqual(table[1]?.slice(0, 2), ['scaled', '3']);
        assert.deepEqual(tableHeader(await k.ok(['get', 'deployment', 'scaled', '-n', ns, '--subresource=status'])), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
      } else {
        assert.equal(table[1]?.[0], 'scaled');
      }
    });

    test('delete ns with objects in it completes (the server finalizes it)', async () => {
      const ns = 'doomed';
      await setup(ns, [...configMaps(ns, [{ name: 'x1' }, { name: 'x2' }]), deployment(ns, 'dweb'), service(ns, 'dweb'), pod(ns, 'dpod')]);
      // kubectl waits for the namespace to go; a busy machine may take a while, a stuck finalizer never ends
      const r = await k.run(['delete', 'ns', ns, '--timeout=120s']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), `namespace "${ns}" deleted`);
      assert.match((await k.run(['get', 'ns', ns])).stderr, /Error from server \(NotFound\): namespaces "doomed" not found/);
      for (const kind of ['configmaps', 'pods', 'services']) {
        assert.deepEqual(JSON.parse(await k.ok(['get', '--raw', `/api/v1/namespaces/${ns}/${kind}`])).items, []);
      }
      assert.deepEqual(JSON.parse(await k.ok(['get', '--raw', `/apis/apps/v1/namespaces/${ns}/deployments`])).items, []);
      // the name is free again
      await setup(ns, []);
      // the initial namespaces other than the lease one may not be deleted (NamespaceLifecycle)
      for (const immortal of ['default', `${prefix(domain)}-system`, `${prefix(domain)}-public`]) {
        const refused = await k.run(['delete', 'ns', immortal, '--dry-run=server']);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, new RegExp(`Error from server \\(Forbidden\\): namespaces "${immortal}" is forbidden: this namespace may not be deleted`));
      }
    });

    test('explain reads the OpenAPI v3 schemas', async () => {
      const out = await k.ok(['explain', 'configmap.data']);
      assert.match(out, /^KIND:\s+ConfigMap$/m);
      assert.match(out, /^FIELD:\s+data/m);
      assert.match(await k.ok(['explain', 'deployments.spec.replicas']), /^KIND:\s+Deployment$/m);
    });

    if (domain === 'k8s.io') {
      test('auth can-i and auth whoami (SelfSubjectAccessReview, SelfSubjectReview)', async () => {
        assert.equal((await k.ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
        assert.equal((await k.ok(['auth', 'can-i', 'get', 'pods', '--subresource=log'])).trim(), 'yes');
        const who = JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json']));
        assert.equal(who.status.userInfo.username, 'admin');
        assert.ok(who.status.userInfo.groups.includes('system:masters'));
      });
    } else {
      test('auth can-i and auth whoami fail: kubectl names the k8s.io review groups', async () => {
        const canI = await k.run(['auth', 'can-i', 'create', 'pods']);
        assert.equal(canI.code, 1);
        assert.match(canI.stderr, /Error from server \(NotFound\): the server could not find the requested resource/);
        const who = await k.run(['auth', 'whoami']);
        assert.equal(who.code, 1);
        assert.match(who.stderr, /the selfsubjectreviews API is not enabled/);
      });
    }

    describe('typed creates (create configmap / create deployment)', () => {
      // kubectl 1.27 posts JSON; 1.32 posts protobuf with the reference media type, which only a k8s.io server takes.
      const bodyType = version === '1.27' ? 'application/json' : 'application/vnd.kubernetes.protobuf';
      const works = version === '1.27' || domain === 'k8s.io';
      const ns = 'typed';
      before(() => setup(ns, []));

      test(works ? 'succeed' : 'fail with 415 (protobuf with the reference media type)', async () => {
        const cm = await k.run(['create', 'configmap', 'lit', '-n', ns, '--from-literal=a=b', '--from-literal=c=d', '-v=8']);
        assert.match(cm.stderr, new RegExp(`POST https://\\S+/api/v1/namespaces/${ns}/configmaps\\?fieldManager=kubectl-create`));
        assert.ok(cm.stderr.includes(`Content-Type: ${bodyType}`), `the body is sent as ${bodyType}`);
        const dep = await k.run(['create', 'deployment', 'typed-web', '-n', ns, '--image=nginx:1.25', '--replicas=3']);
        if (works) {
          assert.equal(cm.code, 0, cm.stderr);
          assert.equal(cm.stdout.trim(), 'configmap/lit created');
          assert.deepEqual((await k.json(['get', 'cm', 'lit', '-n', ns])).data, { a: 'b', c: 'd' });
          assert.equal(dep.code, 0, dep.stderr);
          assert.equal(dep.stdout.trim(), 'deployment.apps/typed-web created');
          const live = await k.json(['get', 'deploy', 'typed-web', '-n', ns]);
          assert.equal(live.spec.replicas, 3);
          assert.equal(live.spec.template.spec.containers[0].image, 'nginx:1.25');
          const dry = await k.run(['create', 'configmap', 'lit-dry', '-n', ns, '--from-literal=a=b', '--dry-run=server']);
          assert.equal(dry.stdout.trim(), 'configmap/lit-dry created (server dry run)');
          assert.match((await k.run(['get', 'cm', 'lit-dry', '-n', ns])).stderr, /NotFound/);
        } else {
          for (const r of [cm, dep]) {
            assert.equal(r.code, 1);
            assert.match(r.stderr, /the body of the request was in an unknown format - accepted media types include/);
          }
          assert.deepEqual((await k.json(['get', 'cm,deploy', '-n', ns])).items, []);
        }
      });
    });
  });
}

// The four groups are independent (one server each); two at a time keeps the run short on two cores.
describe('kubectl against the API server', { concurrency: 2 }, () => {
  for (const version of kubectlVersions) for (const domain of apiDomains) suite(version, domain);
});

function prefix(domain: string) { return domain === 'k8s.io' ? 'kube' : 'cluster'; }
function labelDomain(domain: string) { return domain === 'k8s.io' ? 'kubernetes.io' : 'cluster.io'; }
