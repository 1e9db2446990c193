// kubectl 1.20 (Debian's kubernetes-client), unmodified, against a cluster (controllers, scheduler, a simulated node)
// in each API domain mode. It predates aggregated discovery and OpenAPI v3, validates manifests against the OpenAPI v2
// document (in protobuf), and its generators name API versions a 1.27 server no longer serves (batch/v1beta1 CronJobs,
// policy/v1beta1 disruption budgets): those are refused as a 1.27 kube-apiserver refuses them, and the everyday
// commands on the core and apps groups work in both domains.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import {
  apiDomains, kubectlPath, oldKubectlVersion, startKubectlEnv, tableHeader, tableNames, type KubectlEnv, type Manifest,
} from './support.js';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';

const skip = existsSync(kubectlPath(oldKubectlVersion)) ? false : `kubectl ${oldKubectlVersion} is not installed`;

const deployment = (namespace: string, name: string, image: string): Manifest => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace },
  spec: {
    replicas: 2, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
  },
});

for (const domain of apiDomains) {
  describe(`kubectl ${oldKubectlVersion}, ${domain} mode`, { skip, concurrency: 1 }, () => {
    let cluster: TestCluster;
    let k: KubectlEnv;
    const ns = 'old';
    before(async () => {
      cluster = await startTestCluster({ apiDomain: domain, nodes: 1 });
      k = await startKubectlEnv(oldKubectlVersion, domain, cluster.server);
      await k.ok(['create', 'namespace', ns]);
    });
    after(async () => { await k?.close(); await cluster?.close(); });

    test('version, api-versions and api-resources from legacy discovery', async () => {
      assert.match(await k.ok(['version', '--short']), /Server Version: v1\.27\./);
      const versions = (await k.ok(['api-versions'])).trim().split('\n');
      for (const v of ['v1', 'apps/v1', 'batch/v1', 'policy/v1', `rbac.authorization.${domain}/v1`]) assert.ok(versions.includes(v), v);
      const resources = tableNames(await k.ok(['api-resources', '--api-group=apps']));
      assert.deepEqual(resources.sort(), ['controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets']);
    });

    test('apply (validated against OpenAPI v2), get tables, strategic patch, diff, scale, rollout undo, delete', async () => {
      const file = k.manifest('web.yaml', [deployment(ns, 'web', 'web:1')]);
      assert.equal((await k.ok(['apply', '-f', file])).trim(), 'deployment.apps/web created');
      // client-side validation reads the OpenAPI v2 schema: an unknown field is refused before anything is sent
      const bad = deployment(ns, 'bad', 'web:1');
      (bad.spec as Record<string, unknown>).replicaz = 1;
      const refused = await k.run(['apply', '-f', k.manifest('bad.yaml', [bad])]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /unknown field "replicaz"/);
      await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
      const table = await k.ok(['get', 'deployments', '-n', ns]);
      // a k8s.io server answers kubectl's Table request; elsewhere kubectl prints its own NAME/AGE table
      assert.deepEqual(tableHeader(table), domain === 'k8s.io' ? ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'] : ['NAME', 'AGE']);
      await k.ok(['patch', 'deployment', 'web', '-n', ns, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"web:2"}]}}}}']);
      await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
      const changed = deployment(ns, 'web', 'web:3');
      const diff = await k.run(['diff', '-f', k.manifest('web3.yaml', [changed])]);
      assert.equal(diff.code, 1, diff.stderr);
      assert.match(diff.stdout, /^-\s+- image: web:2$/m);
      assert.match(diff.stdout, /^\+\s+- image: web:3$/m);
      await k.ok(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']);
      await waitFor('three ready replicas', async () => (await k.json(['get', 'deployment', 'web', '-n', ns])).status.readyReplicas === 3 || undefined);
      // kubectl finds a Deployment's revisions by the reference's annotation on its ReplicaSets, which only a k8s.io
      // server writes under that name
      if (domain === 'k8s.io') {
        assert.match(await k.ok(['rollout', 'history', 'deployment/web', '-n', ns, '--revision=1']), /Image:\s+web:1/);
        await k.ok(['rollout', 'undo', 'deployment/web', '-n', ns, '--to-revision=1']);
        await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=60s']);
        assert.equal((await k.json(['get', 'deployment', 'web', '-n', ns])).spec.template.spec.containers[0].image, 'web:1');
      }
      assert.equal((await k.ok(['delete', 'deployment', 'web', '-n', ns])).trim(), 'deployment.apps "web" deleted');
    });

    test('typed creates of the core and apps groups; get -w sees the change', async () => {
      assert.equal((await k.ok(['create', 'configmap', 'lit', '-n', ns, '--from-literal=a=b'])).trim(), 'configmap/lit created');
      assert.equal((await k.ok(['create', 'deployment', 'typed', '-n', ns, '--image=t:1'])).trim(), 'deployment.apps/typed created');
      assert.equal((await k.ok(['create', 'service', 'clusterip', 'typed', '-n', ns, '--tcp=80:8080'])).trim(), 'service/typed created');
      const w = k.watch(['get', 'configmap', 'lit', '-n', ns, '-w', '-o', 'jsonpath={.data.a}{"\\n"}']);
      try {
        await w.line(/^b$/);
        await k.ok(['patch', 'configmap', 'lit', '-n', ns, '--type=merge', '-p', '{"data":{"a":"c"}}']);
        await w.line(/^c$/);
      } finally { await w.stop(); }
    });

    test('generators of API versions a 1.27 server no longer serves are refused as the reference refuses them', async () => {
      const cronjob = await k.run(['create', 'cronjob', 'old-cron', '-n', ns, '--image=c:1', '--schedule=* * * * *']);
      assert.equal(cronjob.code, 1);
      assert.match(cronjob.stderr, /the server could not find the requested resource \(\/apis\/batch\/v1beta1\/namespaces\/old\/cronjobs\)/);
      const pdb = await k.run(['create', 'poddisruptionbudget', 'old-pdb', '-n', ns, '--selector=app=x', '--min-available=1']);
      assert.equal(pdb.code, 1);
      assert.match(pdb.stderr, /no matches for kind "PodDisruptionBudget" in version "policy\/v1beta1"/);
      // what the current versions hold is still there to read
      assert.deepEqual((await k.json(['get', 'cronjobs.v1.batch,poddisruptionbudgets.v1.policy', '-n', ns])).items, []);
    });

    test('auth can-i: the review groups are under the domain', async () => {
      const r = await k.run(['auth', 'can-i', 'list', 'pods', '-n', ns]);
      if (domain === 'k8s.io') {
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.trim(), 'yes');
      } else {
        assert.equal(r.code, 1);
        assert.match(r.stderr, /Error from server \(NotFound\): the server could not find the requested resource/);
      }
    });
  });
}
