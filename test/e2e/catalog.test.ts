// The built-in catalog seen through kubectl 1.27 and 1.32 in both domain modes: explain from the OpenAPI
// schemas, the human tables of the common kinds, every `kubectl create <generator>`, and a multi-document
// `apply -f` run twice. In `cluster.io` mode kubectl prints client-side `NAME AGE` tables, and kubectl 1.32's
// typed creates (protobuf bodies with the reference media type) are refused with 415.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiDomains, kubectlVersions, namespaceManifest, startKubectlEnv, tableHeader, tableNames,
  type KubectlEnv, type KubectlVersion, type Manifest,
} from './support.js';
import { createCertificateAuthority } from '../../src/pki/certificates.js';
import type { ApiDomain } from '../../src/api/naming.js';

/**
 * a kubectl generator command, the `resource/name` it makes, and a check of what reads back; `path` is the
 * typed client's collection when its group is named under the domain (kubectl compiles `<group>.k8s.io` in)
 */
interface Generator { args: string[]; object: string; path?: string; check(o: any): void }

function generators(ns: string, certDir: string): Generator[] {
  const { certPem, keyPem } = createCertificateAuthority('web.example.com', 3600);
  const cert = join(certDir, 'tls.crt'), key = join(certDir, 'tls.key');
  writeFileSync(cert, certPem);
  writeFileSync(key, keyPem);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    { args: ['configmap', 'gen-cm', '--from-literal=a=b'], object: 'configmap/gen-cm', check: (o) => assert.deepEqual(o.data, { a: 'b' }) },
    {
      args: ['secret', 'generic', 'gen-secret', '--from-literal=password=hunter2'], object: 'secret/gen-secret',
      check: (o) => { assert.equal(o.type, 'Opaque'); assert.deepEqual(o.data, { password: b64('hunter2') }); },
    },
    {
      args: ['secret', 'tls', 'gen-tls', `--cert=${cert}`, `--key=${key}`], object: 'secret/gen-tls',
      check: (o) => { assert.match(o.type, /\/tls$/); assert.equal(o.data['tls.crt'], b64(certPem)); assert.equal(o.data['tls.key'], b64(keyPem)); },
    },
    {
      args: ['secret', 'docker-registry', 'gen-pull', '--docker-server=registry.local:5000', '--docker-username=u', '--docker-password=p'],
      object: 'secret/gen-pull',
      check: (o) => {
        assert.match(o.type, /\/dockerconfigjson$/);
        const auths = JSON.parse(Buffer.from(o.data['.dockerconfigjson'], 'base64').toString()).auths;
        assert.equal(auths['registry.local:5000'].username, 'u');
      },
    },
    { args: ['namespace', `${ns}-extra`], object: `namespace/${ns}-extra`, check: (o) => assert.equal(o.status.phase, 'Active') },
    { args: ['serviceaccount', 'gen-sa'], object: 'serviceaccount/gen-sa', check: (o) => assert.equal(o.kind, 'ServiceAccount') },
    {
      args: ['deployment', 'gen-deploy', '--image=nginx:1.25', '--replicas=2'], object: 'deployment/gen-deploy',
      check: (o) => {
        assert.equal(o.spec.replicas, 2);
        assert.equal(o.spec.template.spec.containers[0].image, 'nginx:1.25');
        assert.equal(o.spec.strategy.type, 'RollingUpdate', 'defaulted by the server');
      },
    },
    {
      args: ['role', 'gen-role', '--verb=get,list', '--resource=pods'], object: 'role/gen-role',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
      check: (o) => assert.deepEqual(o.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]),
    },
    {
      args: ['rolebinding', 'gen-rb', '--role=gen-role', '--user=alice'], object: 'rolebinding/gen-rb',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
      check: (o) => { assert.equal(o.roleRef.name, 'gen-role'); assert.equal(o.subjects[0].name, 'alice'); },
    },
    {
      args: ['clusterrole', `${ns}-cr`, '--verb=get', '--resource=nodes'], object: `clusterrole/${ns}-cr`,
      path: `/apis/rbac.authorization.k8s.io/v1/clusterroles`,
      check: (o) => assert.deepEqual(o.rules[0].resources, ['nodes']),
    },
    {
      args: ['clusterrolebinding', `${ns}-crb`, `--clusterrole=${ns}-cr`, '--group=readers'], object: `clusterrolebinding/${ns}-crb`,
      path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`,
      check: (o) => { assert.equal(o.roleRef.kind, 'ClusterRole'); assert.equal(o.subjects[0].kind, 'Group'); },
    },
    {
      args: ['job', 'gen-job', '--image=busybox:1.36', '--', 'true'], object: 'job/gen-job',
      check: (o) => { assert.deepEqual(o.spec.template.spec.containers[0].command, ['true']); assert.equal(o.spec.backoffLimit, 6); },
    },
    {
      args: ['cronjob', 'gen-cron', '--image=busybox:1.36', '--schedule=*/5 * * * *'], object: 'cronjob/gen-cron',
      check: (o) => { assert.equal(o.spec.schedule, '*/5 * * * *'); assert.equal(o.spec.concurrencyPolicy, 'Allow'); },
    },
    {
      args: ['service', 'clusterip', 'gen-cip', '--tcp=80:8080'], object: 'service/gen-cip',
      check: (o) => { assert.equal(o.spec.type, 'ClusterIP'); assert.match(o.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/); assert.equal(o.spec.ports[0].targetPort, 8080); },
    },
    {
      args: ['service', 'nodeport', 'gen-np', '--tcp=80:8080'], object: 'service/gen-np',
      check: (o) => { assert.equal(o.spec.type, 'NodePort'); assert.ok(o.spec.ports[0].nodePort > 0); },
    },
    {
      args: ['service', 'loadbalancer', 'gen-lb', '--tcp=443:8443'], object: 'service/gen-lb',
      check: (o) => { assert.equal(o.spec.type, 'LoadBalancer'); assert.ok(o.spec.ports[0].nodePort > 0); },
    },
    {
      args: ['service', 'externalname', 'gen-ext', '--external-name=db.example.com'], object: 'service/gen-ext',
      check: (o) => { assert.equal(o.spec.type, 'ExternalName'); assert.equal(o.spec.externalName, 'db.example.com'); },
    },
    { args: ['quota', 'gen-quota', '--hard=pods=10,cpu=2'], object: 'resourcequota/gen-quota', check: (o) => assert.deepEqual(o.spec.hard, { pods: '10', cpu: '2' }) },
    {
      args: ['priorityclass', `${ns}-pc`, '--value=1000', '--description=gen'], object: `priorityclass/${ns}-pc`,
      path: `/apis/scheduling.k8s.io/v1/priorityclasses`,
      check: (o) => { assert.equal(o.value, 1000); assert.equal(o.preemptionPolicy, 'PreemptLowerPriority'); },
    },
    {
      args: ['pdb', 'gen-pdb', '--selector=app=web', '--min-available=1'], object: 'poddisruptionbudget/gen-pdb',
      check: (o) => { assert.equal(o.spec.minAvailable, 1); assert.deepEqual(o.spec.selector.matchLabels, { app: 'web' }); },
    },
    {
      args: ['ingress', 'gen-ing', '--rule=shop.example.com/api*=gen-cip:80'], object: 'ingress/gen-ing',
      path: `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
      check: (o) => {
        const path = o.spec.rules[0].http.paths[0];
        assert.equal(o.spec.rules[0].host, 'shop.example.com');
        assert.equal(path.pathType, 'Prefix');
        assert.deepEqual(path.backend.service, { name: 'gen-cip', port: { number: 80 } });
      },
    },
  ];
}

function suite(version: KubectlVersion, domain: ApiDomain) {
  describe(`kubectl ${version}, ${domain} mode: the catalog`, { concurrency: 1 }, () => {
    let k: KubectlEnv;
    const serverTables = domain === 'k8s.io';
    const rbac = `rbac.authorization.${domain}/v1`;

    before(async () => { k = await startKubectlEnv(version, domain); });
    after(async () => { await k?.close(); });

    test('explain pods.spec.containers and deployments.spec.strategy name the fields', async () => {
      const containers = await k.ok(['explain', 'pods.spec.containers']);
      assert.match(containers, /^KIND:\s+Pod$/m);
      assert.match(containers, /^FIELD:\s+containers\s+<\[\]Container>/m);
      for (const f of ['name', 'image', 'imagePullPolicy', 'ports', 'env', 'resources', 'volumeMounts', 'livenessProbe']) {
        assert.match(containers, new RegExp(`^\\s+${f}\\s+<`, 'm'), `${f} in:\n${containers}`);
      }
      const strategy = await k.ok(['explain', 'deployments.spec.strategy']);
      assert.match(strategy, /^KIND:\s+Deployment$/m);
      assert.match(strategy, /^FIELD:\s+strategy\s+<DeploymentStrategy>/m);
      assert.match(strategy, /^\s+rollingUpdate\s+<RollingUpdateDeployment>/m);
      assert.match(strategy, /^\s+type\s+<string>/m);
    });

    test('human tables of pods, deployments, services and nodes', async () => {
      const ns = 'tables';
      const labels = { app: 'web' };
      await k.ok(['create', '-f', k.manifest('tables.yaml', [
        namespaceManifest(ns),
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-pod', namespace: ns, labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
        {
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns },
          spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } },
        },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: labels, ports: [{ port: 80 }] } },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'table-node' } },
      ])]);
      const headers: Array<[string, string[]]> = [
        ['pods', ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']],
        ['deployments', ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']],
        ['services', ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']],
        ['nodes', ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']],
      ];
      for (const [resource, header] of headers) {
        const out = await k.ok(['get', resource, '-n', ns]);
        assert.deepEqual(tableHeader(out), serverTables ? header : ['NAME', 'AGE'], `${resource}:\n${out}`);
        assert.ok(tableNames(out).includes(resource === 'pods' ? 'web-pod' : resource === 'nodes' ? 'table-node' : 'web'), out);
      }
    });

    // In cluster.io mode the typed clients of `<group>.k8s.io` groups post to paths this server does not serve (404),
    // and kubectl 1.32 posts protobuf with the reference media type, which only a k8s.io server takes (415).
    test('every kubectl create <generator>: created and read back, or refused as the client predicts, storing nothing', async () => {
      const ns = 'gen';
      await k.ok(['create', '-f', k.manifest('gen-ns.yaml', [namespaceManifest(ns)])]);
      const gens = generators(ns, k.server.dataDir);
      const outcome = (g: Generator) =>
        domain === 'k8s.io' ? 'created' : g.path ? 'not found' : version === '1.32' ? 'unsupported media type' : 'created';
      for (const g of gens) {
        const r = await k.run(['create', '-n', ns, ...g.args]);
        const what = `${g.args.join(' ')}: ${r.stderr}${r.stdout}`;
        switch (outcome(g)) {
          case 'created':
            assert.equal(r.code, 0, what);
            assert.match(r.stdout.trim(), new RegExp(`^\\S+/${g.object.split('/')[1]} created$`), what);
            break;
          case 'not found':
            assert.equal(r.code, 1, what);
            assert.ok(r.stderr.trim().endsWith(`the server could not find the requested resource (${g.path})`), what);
            break;
          default:
            assert.equal(r.code, 1, what);
            assert.match(r.stderr, /the body of the request was in an unknown format - accepted media types include/, what);
        }
      }
      const got = await k.run(['get', ...gens.map((g) => g.object), '-n', ns, '-o', 'json', '--ignore-not-found']);
      assert.equal(got.code, 0, got.stderr);
      const items: any[] = got.stdout.trim() === '' ? [] : JSON.parse(got.stdout).items;
      const made = gens.filter((g) => outcome(g) === 'created');
      assert.deepEqual(items.map((o) => o.metadata.name), made.map((g) => g.object.split('/')[1]));
      made.forEach((g, i) => g.check(items[i]));
    });

    test('apply -f of a Deployment, Service, ConfigMap, Role and RoleBinding, twice: the second time unchanged', async () => {
      const ns = 'applied';
      await k.ok(['create', '-f', k.manifest('applied-ns.yaml', [namespaceManifest(ns)])]);
      const labels = { app: 'shop' };
      const objects: Manifest[] = [
        {
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop', namespace: ns },
          spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'shop', image: 'shop:2.1', ports: [{ containerPort: 8080 }] }] } } },
        },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'shop', namespace: ns }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop', namespace: ns }, data: { LOG_LEVEL: 'info' } },
        { apiVersion: rbac, kind: 'Role', metadata: { name: 'shop', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
        {
          apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'shop', namespace: ns },
          roleRef: { apiGroup: `rbac.authorization.${domain}`, kind: 'Role', name: 'shop' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
        },
      ];
      const file = k.manifest('shop.yaml', objects);
      const lines = (out: string) => out.trim().split('\n').sort();
      const expected = (verb: string) => [
        `configmap/shop ${verb}`, `deployment.apps/shop ${verb}`, `role.rbac.authorization.${domain}/shop ${verb}`,
        `rolebinding.rbac.authorization.${domain}/shop ${verb}`, `service/shop ${verb}`,
      ];
      assert.deepEqual(lines(await k.ok(['apply', '-f', file])), expected('created'));
      const before = await k.json(['get', 'deploy,svc,cm,role,rolebinding', '-n', ns]);
      assert.deepEqual(lines(await k.ok(['apply', '-f', file])), expected('unchanged'));
      const afterwards = await k.json(['get', 'deploy,svc,cm,role,rolebinding', '-n', ns]);
      assert.deepEqual(afterwards.items.map((o: any) => o.metadata.resourceVersion), before.items.map((o: any) => o.metadata.resourceVersion));
      assert.equal(afterwards.items[0].spec.strategy.type, 'RollingUpdate');
    });
  });
}

// The four groups are independent (one server each); two at a time on two cores.
describe('the built-in catalog through kubectl', { concurrency: 2 }, () => {
  for (const version of kubectlVersions) for (const domain of apiDomains) suite(version, domain);
});
