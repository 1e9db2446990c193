// What kubectl users see of the reference's less visible rules, with unmodified kubectl 1.27 and 1.32 against
// one server in the reference's domain: values the server rewrites on decoding (canonical quantities), and the
// answers and exit codes of commands beyond the everyday ones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { kubectlPath, kubectlVersions, startKubectlEnv, type KubectlEnv, type Manifest } from './support.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
before(async () => { server = await startTestServer({ apiDomain: 'k8s.io' }); });
after(async () => { await server?.close(); });

for (const version of kubectlVersions) {
  describe(`kubectl ${version}`, { skip: existsSync(kubectlPath(version)) ? false : `kubectl ${version} is not installed` }, () => {
    let k: KubectlEnv;
    const ns = `compat-${version.replace('.', '')}`;
    before(async () => {
      k = await startKubectlEnv(version, 'k8s.io', server);
      await k.ok(['create', 'namespace', ns]);
    });
    after(async () => { await k?.close(); });

    test('quantities are stored and served in canonical form: 0.5 as 500m, 1024Mi as 1Gi, 1000m as 1', async () => {
      const pod: Manifest = {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'quantities', namespace: ns },
        spec: { containers: [{ name: 'c', image: 'c:1', resources: {
          requests: { cpu: 0.5, memory: '1024Mi' },
          limits: { cpu: '1000m', memory: '1.5Gi', 'ephemeral-storage': 2000 },
        } }] },
      };
      await k.ok(['apply', '-f', k.manifest('quantities.yaml', [pod])]);
      const got = await k.json(['get', 'pod', 'quantities', '-n', ns]);
      assert.deepEqual(got.spec.containers[0].resources, {
        requests: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '2k' },
        limits: { cpu: '1', memory: '1536Mi', 'ephemeral-storage': '2k' },
      });
      // a patch's result is decoded the same way
      await k.ok(['create', '-f', '-', '-n', ns], { input: JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', default: { cpu: '1' } }] } }) });
      await k.ok(['patch', 'limitrange', 'lr', '-n', ns, '--type=merge', '-p', '{"spec":{"limits":[{"type":"Container","default":{"cpu":0.25,"memory":"1048576Ki"}}]}}']);
      assert.deepEqual(JSON.parse(await k.ok(['get', 'limitrange', 'lr', '-n', ns, '-o', 'jsonpath={.spec.limits[0].default}'])), { cpu: '250m', memory: '1Gi' });
      await k.ok(['delete', 'limitrange', 'lr', '-n', ns]);
      const quota = await k.ok(['create', 'quota', 'q', '-n', ns, '--hard=cpu=1500m,memory=2048Mi,pods=10', '--dry-run=server', '-o', 'jsonpath={.spec.hard}']);
      assert.deepEqual(JSON.parse(quota), { cpu: '1500m', memory: '2Gi', pods: '10' });
      const diff = await k.run(['diff', '-f', k.manifest('quantities.yaml', [pod])]);
      assert.equal(diff.code, 0, `kubectl diff finds no change between 0.5 and 500m:\n${diff.stdout}${diff.stderr}`);
    });

    test('an autoscaler written as autoscaling/v1 reads as v2 with its CPU target as a metric (describe hpa shows it)', async () => {
      await k.ok(['create', 'deployment', 'scaled', '-n', ns, '--image=s:1']);
      const hpa: Manifest = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'scaled', namespace: ns },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'scaled' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } };
      await k.ok(['create', '-f', k.manifest('hpa-v1.yaml', [hpa])]);
      const v2 = JSON.parse(await k.ok(['get', '--raw', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/scaled`]));
      assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
      assert.equal(v2.spec.targetCPUUtilizationPercentage, undefined);
      const v1 = JSON.parse(await k.ok(['get', '--raw', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/scaled`]));
      assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
      assert.equal(v1.spec.metrics, undefined);
      const described = await k.ok(['describe', 'hpa', 'scaled', '-n', ns]);
      assert.match(described, /resource cpu on pods\s+\(as a percentage of request\):\s+<unknown> \/ 50%/);
      // kubectl autoscale: 1.27 writes v1, 1.32 v2; both read back the same
      await k.ok(['autoscale', 'deployment', 'scaled', '-n', ns, '--name=auto', '--min=1', '--max=4', '--cpu-percent=70']);
      assert.match(await k.ok(['get', 'hpa', 'auto', '-n', ns]), /<unknown>\/70%/);
      assert.match(await k.ok(['describe', 'hpa', 'auto', '-n', ns]), /<unknown> \/ 70%/);
    });

    test('a DaemonSet and a StatefulSet whose pods the quota refuses still report the generation they observed', async () => {
      const quotaNs = `${ns}-quota`;
      await k.ok(['create', 'namespace', quotaNs]);
      await k.ok(['create', 'quota', 'none', '-n', quotaNs, '--hard=pods=0']);
      // as with the reference, admission counts a quota once its controller has filled in its status
      await waitFor('the quota\'s status', async () => (await k.json(['get', 'quota/none', '-n', quotaNs])).status?.used?.pods === '0');
      await k.ok(['apply', '-f', k.manifest('node.yaml', [{ apiVersion: 'v1', kind: 'Node', metadata: { name: `${ns}-node` } }])]);
      // the node has no agent: its not-ready taint is tolerated, so the DaemonSet wants a pod on it
      const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'c:1' }], tolerations: [{ operator: 'Exists' }] } });
      await k.ok(['apply', '-f', k.manifest('sets.yaml', [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', namespace: quotaNs }, spec: { selector: { matchLabels: { app: 'ds' } }, template: template('ds') } },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'sts', namespace: quotaNs }, spec: { replicas: 1, serviceName: 'sts', selector: { matchLabels: { app: 'sts' } }, template: template('sts') } },
      ])]);
      // the DaemonSet counts the node it could not start a pod on
      await waitFor('the DaemonSet\'s status', async () => {
        const o = await k.json(['get', 'daemonset/ds', '-n', quotaNs]);
        return o.status?.observedGeneration === o.metadata.generation && o.status.desiredNumberScheduled >= 1;
      });
      await waitFor('the StatefulSet\'s status', async () => {
        const o = await k.json(['get', 'statefulset/sts', '-n', quotaNs]);
        return o.status?.observedGeneration === o.metadata.generation;
      });
      // the controllers record their events apart from their status writes: the refusal's may come a moment later
      await waitFor('the FailedCreate event', async () => /exceeded quota: none/.test(await k.ok(['get', 'events', '-n', quotaNs, '--field-selector', 'reason=FailedCreate'])));
      await k.ok(['delete', 'node', `${ns}-node`]);
    });

    test('a ReplicaSet whose pods the quota refuses keeps its first failure condition while it retries with back-off', async () => {
      const quotaNs = `${ns}-rs-quota`;
      await k.ok(['create', 'namespace', quotaNs]);
      await k.ok(['create', 'quota', 'none', '-n', quotaNs, '--hard=pods=0']);
      // as with the reference, admission counts a quota once its controller has filled in its status
      await waitFor('the quota\'s status', async () => (await k.json(['get', 'quota/none', '-n', quotaNs])).status?.used?.pods === '0');
      await k.ok(['create', 'deployment', 'refused', '-n', quotaNs, '--image=r:1']);
      const failure = async () => {
        const [rs] = (await k.json(['get', 'replicasets', '-n', quotaNs])).items;
        return rs?.status?.conditions?.find((c: any) => c.type === 'ReplicaFailure');
      };
      const first = await waitFor('the ReplicaFailure condition', failure);
      assert.match(first.message, /exceeded quota: none/);
      await waitFor('three refused creates', async () => {
        const events = (await k.json(['get', 'events', '-n', quotaNs, '--field-selector', 'reason=FailedCreate,involvedObject.kind=ReplicaSet'])).items;
        return events.reduce((n: number, e: any) => n + (e.count ?? 1), 0) >= 3;
      }, 60_000);
      // each refused pod has a name of its own: a condition rewritten per attempt would name the last one
      assert.deepEqual(await failure(), first);
      const deployment = await k.json(['get', 'deployment', 'refused', '-n', quotaNs]);
      assert.equal(deployment.status.conditions.find((c: any) => c.type === 'ReplicaFailure')?.reason, 'FailedCreate');
    });

    test('create clusterrole --aggregation-rule: the role gathers the rules of the roles its selector matches, under AlwaysAllow too', async () => {
      const selector = `compat-aggregate-${version.replace('.', '')}`;
      const aggregated = `${selector}-all`;
      const rulesOf = async (name: string) => (await k.json(['get', 'clusterrole', name])).rules ?? [];
      await k.ok(['create', 'clusterrole', aggregated, `--aggregation-rule=${selector}=true`]);
      await k.ok(['create', 'clusterrole', `${selector}-maps`, '--verb=get,list', '--resource=configmaps']);
      await k.ok(['create', 'clusterrole', `${selector}-secrets`, '--verb=get', '--resource=secrets']);
      await k.ok(['label', 'clusterrole', `${selector}-maps`, `${selector}-secrets`, `${selector}=true`]);
      await waitFor('the aggregated role holds both rules', async () => (await rulesOf(aggregated)).length === 2 || undefined);
      assert.deepEqual((await rulesOf(aggregated)).map((r: { resources: string[] }) => r.resources[0]), ['configmaps', 'secrets']);
      // a role that loses the label leaves; the built-in view role aggregates what is labelled for it
      await k.ok(['label', 'clusterrole', `${selector}-secrets`, `${selector}-`, `${server.names.group('rbac.authorization')}/aggregate-to-view=true`]);
      await waitFor('the aggregated role drops the unlabelled rule', async () => (await rulesOf(aggregated)).length === 1 || undefined);
      await waitFor('view holds the newly labelled rule', async () =>
        (await rulesOf('view')).some((r: { resources?: string[]; verbs?: string[] }) => r.resources?.includes('secrets') && r.verbs?.length === 1) || undefined);
      await k.ok(['delete', 'clusterrole', aggregated, `${selector}-maps`, `${selector}-secrets`]);
    });

    test('a pod stored with quantities in another form (by an earlier server) can still be labelled', async () => {
      const pod: Manifest = {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stored-before', namespace: ns },
        spec: { containers: [{ name: 'c', image: 'c:1', resources: { requests: { cpu: '500m', memory: '1Gi' } } }] },
      };
      await k.ok(['create', '-f', k.manifest('stored-before.yaml', [pod])]);
      // the store as an earlier server left it: the quantities as they were sent
      const snapshot = await server.snapshot();
      const entry = snapshot.entries.find((e) => e.key.endsWith(`/pods/${ns}/stored-before`));
      assert.ok(entry, 'the pod is in the store');
      const text = Buffer.from(entry.value).toString('utf8');
      assert.ok(text.includes('"cpu":"500m"'), text);
      entry.value = new Uint8Array(Buffer.from(text.replace('"cpu":"500m"', '"cpu":0.5').replace('"memory":"1Gi"', '"memory":"1024Mi"')));
      await server.restore(snapshot);
      await k.ok(['label', 'pod', 'stored-before', '-n', ns, 'tier=db']);
      const got = await k.json(['get', 'pod', 'stored-before', '-n', ns]);
      assert.equal(got.metadata.labels.tier, 'db');
      assert.deepEqual(got.spec.containers[0].resources.requests, { cpu: '500m', memory: '1Gi' });
    });
  });
}

describe('watch=true on an object or subresource path is a get, as in the reference', () => {
  let k: KubectlEnv;
  before(async () => {
    k = await startKubectlEnv('1.32', 'k8s.io', server);
    await k.ok(['create', 'namespace', 'named-watch']);
    await k.ok(['create', 'deployment', 'web', '-n', 'named-watch', '--image=web:1']);
  });
  after(async () => { await k?.close(); });

  for (const [path, kind] of [
    ['/apis/apps/v1/namespaces/named-watch/deployments/web?watch=true', 'Deployment'],
    ['/apis/apps/v1/namespaces/named-watch/deployments/web/status?watch=true', 'Deployment'],
    ['/apis/apps/v1/namespaces/named-watch/deployments/web/scale?watch=1&timeoutSeconds=1', 'Scale'],
  ] as const) {
    test(path, async () => {
      const got = JSON.parse(await k.ok(['get', '--raw', path]));
      assert.equal(got.kind, kind);
      assert.equal(got.metadata.name, 'web');
    });
  }
});
