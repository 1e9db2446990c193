// The workload flows with unmodified kubectl (1.27 and 1.32) against a server in the reference's domain, with
// its controllers and scheduler in-process and simulated nodes: create deployment and rollout status, scale,
// set image with two ReplicaSets, rollout undo, the three cascade modes of delete, a Job with completions and
// parallelism, a CronJob firing, a DaemonSet on every node, a StatefulSet's ordered pods and claims, and
// drain evicting within a PodDisruptionBudget while the pods come back on other nodes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { kubectlPath, kubectlVersions, startKubectlEnv, type KubectlEnv, type Manifest } from './support.js';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { fakeAnnotation } from '../../src/agent/options.js';

const long = { timeoutMs: 150_000 };

let cluster: TestCluster;
before(async () => {
  cluster = await startTestCluster({ apiDomain: 'k8s.io', nodes: 3 });
  // volumes for the claims of each version's StatefulSet, which its pods wait for
  for (let i = 0; i < 3 * kubectlVersions.length; i++) {
    await cluster.client.resource({ group: '', version: 'v1', resource: 'persistentvolumes' }).create({
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `workloads-${i}` },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/workloads-${i}` } },
    });
  }
});
after(async () => { await cluster?.close(); });

for (const version of kubectlVersions) {
  describe(`workloads with kubectl ${version}`, { skip: existsSync(kubectlPath(version)) ? false : `kubectl ${version} is not installed` }, () => {
    let k: KubectlEnv;
    const ns = `kc-${version.replace('.', '')}`;
    const get = async (what: string) => k.json(['get', what, '-n', ns]);
    const pods = async (selector: string) => (await k.json(['get', 'pods', '-n', ns, '-l', selector])).items
      .filter((p: any) => !p.metadata.deletionTimestamp);
    const runFor = (ms: number) => ({ [fakeAnnotation(cluster.server.names, 'run-for')]: `${ms}ms` });

    before(async () => {
      k = await startKubectlEnv(version, 'k8s.io', cluster.server);
      await k.ok(['create', 'namespace', ns]);
      await waitFor('the default service account', () => k.run(['get', 'serviceaccount', 'default', '-n', ns]).then((r) => r.code === 0));
      // the CronJob starts early: its first run comes at the next minute
      await k.ok(['create', 'cronjob', 'tick', '-n', ns, '--image=tick:1', '--schedule=* * * * *']);
    });
    after(async () => { await k?.close(); });

    test('create deployment, then rollout status reports it rolled out', async () => {
      await k.ok(['create', 'deployment', 'web', '-n', ns, '--image=web:1', '--replicas=3']);
      const out = await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=120s'], long);
      assert.match(out, /successfully rolled out/);
      const d = await get('deployment/web');
      assert.equal(d.status.availableReplicas, 3);
      assert.equal((await pods('app=web')).filter((p: any) => p.status.phase === 'Running').length, 3);
    });

    test('scale up and down', async () => {
      await k.ok(['scale', 'deployment/web', '-n', ns, '--replicas=5']);
      await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=120s'], long);
      assert.equal((await get('deployment/web')).status.availableReplicas, 5);
      await k.ok(['scale', 'deployment/web', '-n', ns, '--replicas=2']);
      await waitFor('2 pods', async () => (await pods('app=web')).length === 2 && (await get('deployment/web')).status.replicas === 2);
      // the controller records its events apart from its writes: the event may come a moment after the pods went
      await waitFor('the scale-down event', async () =>
        /Scaled down replica set web-\w+ to 2/.test(await k.ok(['get', 'events', '-n', ns, '--field-selector', 'reason=ScalingReplicaSet'])));
    });

    test('set image rolls to a second ReplicaSet; rollout undo goes back to the first template', async () => {
      await k.ok(['set', 'image', 'deployment/web', '-n', ns, 'web=web:2']);
      await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=120s'], long);
      const rss = (await get('replicasets')).items.filter((r: any) => r.metadata.name.startsWith('web-'));
      assert.equal(rss.length, 2);
      const current = rss.find((r: any) => r.spec.template.spec.containers[0].image === 'web:2');
      const old = rss.find((r: any) => r.spec.template.spec.containers[0].image === 'web:1');
      assert.equal(current.spec.replicas, 2);
      assert.equal(old.spec.replicas, 0);
      assert.ok((await pods('app=web')).every((p: any) => p.spec.containers[0].image === 'web:2'));

      const undone = await k.ok(['rollout', 'undo', 'deployment/web', '-n', ns]);
      assert.match(undone, /rolled back/);
      await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=120s'], long);
      const d = await get('deployment/web');
      assert.equal(d.spec.template.spec.containers[0].image, 'web:1');
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '3');
      await waitFor('pods of the first template', async () => {
        const list = await pods('app=web');
        return list.length === 2 && list.every((p: any) => p.spec.containers[0].image === 'web:1');
      });
      // the first ReplicaSet is current again, renumbered: kubectl sends the template back with
      // `creationTimestamp: null`, which must not make it a third template
      const after = (await get('replicasets')).items.filter((r: any) => r.metadata.name.startsWith('web-'));
      assert.deepEqual(after.map((r: any) => r.metadata.name).sort(), rss.map((r: any) => r.metadata.name).sort());
      const back = after.find((r: any) => r.metadata.name === old.metadata.name);
      assert.equal(back.metadata.annotations['deployment.kubernetes.io/revision'], '3');
      const history = await k.ok(['rollout', 'history', 'deployment/web', '-n', ns]);
      assert.match(history, /^2\s/m);
      assert.match(history, /^3\s/m);
      assert.doesNotMatch(history, /^1\s/m);
    });

    test('delete --cascade=orphan, background and foreground', async () => {
      for (const name of ['orphan', 'bg', 'fg']) await k.ok(['create', 'deployment', name, '-n', ns, '--image=x:1', '--replicas=2']);
      for (const name of ['orphan', 'bg', 'fg']) await k.ok(['rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=120s'], long);
      const rsOf = async (app: string) => (await get('replicasets')).items.filter((r: any) => r.metadata.labels?.app === app && !r.metadata.deletionTimestamp);

      await k.ok(['delete', 'deployment', 'orphan', '-n', ns, '--cascade=orphan']);
      const orphaned = await waitFor('the ReplicaSet orphaned', async () => { const [rs] = await rsOf('orphan'); return rs && !rs.metadata.ownerReferences && rs; });
      assert.equal((await pods('app=orphan')).length, 2, 'the pods stay');
      assert.equal(orphaned.spec.replicas, 2);

      await k.ok(['delete', 'deployment', 'bg', '-n', ns, '--cascade=background']);
      await waitFor('ReplicaSet and pods collected', async () => (await rsOf('bg')).length === 0 && (await pods('app=bg')).length === 0);

      // foreground: kubectl waits for the Deployment to go, which happens only after its dependents went
      await k.ok(['delete', 'deployment', 'fg', '-n', ns, '--cascade=foreground', '--timeout=120s'], long);
      const leftRs = (await get('replicasets')).items.filter((r: any) => r.metadata.labels?.app === 'fg');
      assert.deepEqual(leftRs.map((r: any) => r.metadata.name), [], 'the ReplicaSet went before the Deployment');
      const leftPods = (await k.json(['get', 'pods', '-n', ns, '-l', 'app=fg'])).items;
      assert.deepEqual(leftPods.map((p: any) => p.metadata.name), [], 'the pods went before the Deployment');
    });

    test('a Job with completions and parallelism completes', async () => {
      const job: Manifest = {
        apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'work', namespace: ns },
        spec: { completions: 4, parallelism: 2, template: { metadata: { annotations: runFor(300) }, spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'work:1' }] } } },
      };
      await k.ok(['apply', '-f', k.manifest(`job-${ns}.yaml`, [job])]);
      await k.ok(['wait', '--for=condition=complete', 'job/work', '-n', ns, '--timeout=120s'], long);
      const j = await get('job/work');
      assert.equal(j.status.succeeded, 4);
      const table = await k.ok(['get', 'job', 'work', '-n', ns]);
      assert.match(table, /4\/4/);
    });

    test('a DaemonSet has one pod on every node', async () => {
      const ds: Manifest = {
        apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'node-agent', namespace: ns },
        spec: { selector: { matchLabels: { app: 'node-agent' } }, template: { metadata: { labels: { app: 'node-agent' } }, spec: { containers: [{ name: 'a', image: 'agent:1' }] } } },
      };
      await k.ok(['apply', '-f', k.manifest(`ds-${ns}.yaml`, [ds])]);
      const out = await k.ok(['rollout', 'status', 'daemonset/node-agent', '-n', ns, '--timeout=120s'], long);
      assert.match(out, /successfully rolled out/);
      const nodes = (await pods('app=node-agent')).map((p: any) => p.spec.nodeName).sort();
      assert.deepEqual(nodes, [...cluster.nodes].sort());
    });

    test('a StatefulSet creates its pods in order, each with its claim', async () => {
      const sts: Manifest = {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: ns },
        spec: {
          serviceName: 'db', replicas: 3, selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      };
      // the order of creation, as a watch started before the apply sees it
      const podsApi = cluster.client.resource({ group: '', version: 'v1', resource: 'pods' }, ns);
      const from = (await podsApi.list({ labelSelector: 'app=db' })).metadata.resourceVersion;
      const stop = new AbortController();
      const added: string[] = [];
      const watching = (async () => {
        for await (const e of podsApi.watch({ labelSelector: 'app=db', resourceVersion: from, signal: stop.signal })) if (e.type === 'ADDED') added.push(e.object.metadata.name);
      })().catch(() => {});
      await k.ok(['apply', '-f', k.manifest(`sts-${ns}.yaml`, [sts])]);
      await k.ok(['rollout', 'status', 'statefulset/db', '-n', ns, '--timeout=120s'], long);
      await waitFor('3 pods seen', () => added.length >= 3);
      stop.abort();
      await watching;
      assert.deepEqual(added, ['db-0', 'db-1', 'db-2']);
      const claims = (await get('pvc')).items.map((c: any) => c.metadata.name).sort();
      assert.deepEqual(claims, ['data-db-0', 'data-db-1', 'data-db-2']);
    });

    test('drain evicts within the PodDisruptionBudget and the pods come back on other nodes', async () => {
      await k.ok(['create', 'deployment', 'spread', '-n', ns, '--image=s:1', '--replicas=6']);
      await k.ok(['rollout', 'status', 'deployment/spread', '-n', ns, '--timeout=120s'], long);
      await k.ok(['create', 'poddisruptionbudget', 'spread', '-n', ns, '--selector=app=spread', '--max-unavailable=1']);
      await waitFor('the budget computed', async () => (await get('pdb/spread')).status?.disruptionsAllowed === 1);
      const counts = new Map<string, number>();
      for (const p of await pods('app=spread')) counts.set(p.spec.nodeName, (counts.get(p.spec.nodeName) ?? 0) + 1);
      const [node] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
      // the healthy count never drops below what the budget wants while the node drains
      let lowest = Infinity;
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          const d = await cluster.client.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, ns).get('spread');
          lowest = Math.min(lowest, d.status?.availableReplicas ?? 0);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      try {
        const out = await k.ok(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=150s'], { timeoutMs: 170_000 });
        assert.match(out, /drained/);
      } finally {
        watching = false;
        await watcher;
      }
      assert.ok(lowest >= 5, `at most one pod unavailable at a time (lowest available: ${lowest})`);
      await waitFor('6 running elsewhere', async () => {
        const list = await pods('app=spread');
        return list.length === 6 && list.every((p: any) => p.status.phase === 'Running' && p.spec.nodeName !== node);
      });
      assert.equal((await k.json(['get', 'node', node])).spec.unschedulable, true);
      await k.ok(['uncordon', node]);
    });

    test('the CronJob fired', async () => {
      const job = await waitFor('a Job of the CronJob', async () => (await get('jobs')).items
        .find((j: any) => j.metadata.ownerReferences?.[0]?.kind === 'CronJob' && j.metadata.ownerReferences[0].name === 'tick'), 90_000);
      assert.match(job.metadata.name, /^tick-\d+$/);
      const cj = await waitFor('lastScheduleTime', async () => { const c = await get('cronjob/tick'); return c.status?.lastScheduleTime && c; });
      assert.ok(Date.parse(cj.status.lastScheduleTime) > 0);
    });
  });
}
