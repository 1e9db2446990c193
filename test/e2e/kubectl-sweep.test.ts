// The less everyday kubectl commands (1.27, unmodified) against a cluster with its controllers, scheduler and
// simulated nodes, under Node,RBAC: explain, api-resources and api-versions, auth can-i / whoami / reconcile,
// create token and the typed creates, rollouts of the three workload kinds, the set commands, scale and autoscale,
// label / annotate / taint, wait, the output flavours of get, apply --prune and server-side apply, replace --force,
// patch of subresources, edit, and the server's wording when admission refuses a pod a controller creates.
// In the cluster.io domain kubectl knows none of the domain's groups, so only what lives in the core and apps
// groups is exercised there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubectlEnv, tableHeader, tableRows, type KubectlEnv, type Manifest } from './support.js';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { startTestServer } from '../../src/testing.js';
import type { ApiDomain } from '../../src/api/naming.js';

const long = { timeoutMs: 150_000 };

/** an EDITOR for `kubectl edit`: a script that runs sed on the file kubectl hands it */
function editor(dir: string, name: string, sedExpression: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nsed -i '${sedExpression}' "$1"\n`);
  chmodSync(path, 0o755);
  return path;
}

const workloads = (ns: string): Manifest[] => [
  {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: ns },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } } },
  },
  {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: ns },
    spec: {
      serviceName: 'db', replicas: 2, selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'db:1' }] } },
    },
  },
];

function suite(domain: ApiDomain) {
  const full = domain === 'k8s.io';
  describe(`kubectl 1.27 sweep, ${domain} mode`, { concurrency: 1 }, () => {
    let cluster: TestCluster;
    let k: KubectlEnv;
    let dir: string;
    const ns = 'sweep';
    // the namespace first: arguments after `--` belong to the container
    const kn = (args: string[], opts?: Parameters<KubectlEnv['ok']>[1]) => k.ok(['-n', ns, ...args], opts);
    const jn = async (args: string[]) => k.json(['-n', ns, ...args]);

    before(async () => {
      cluster = await startTestCluster({ apiDomain: domain, nodes: 2, flags: ['--authorization-mode=Node,RBAC', '--use-service-account-credentials=true'] });
      k = await startKubectlEnv('1.27', domain, cluster.server);
      dir = mkdtempSync(join(tmpdir(), 'sweep-'));
      await k.ok(['create', 'namespace', ns]);
      await waitFor('the default service account', () => k.run(['get', 'serviceaccount', 'default', '-n', ns]).then((r) => r.code === 0));
    });
    after(async () => {
      await k?.close();
      await cluster?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('explain: a nested field, a map of quantities, --recursive', async () => {
      const resources = await k.ok(['explain', 'pod.spec.containers.resources']);
      assert.match(resources, /^KIND:\s+Pod$/m);
      assert.match(resources, /^FIELD:\s+resources <ResourceRequirements>$/m);
      assert.match(resources, /^\s+limits\s+<map\[string\]Quantity>$/m);
      assert.match(resources, /^\s+requests\s+<map\[string\]Quantity>$/m);
      assert.match(await k.ok(['explain', 'pod.spec.containers']), /^\s+name\s+<string> -required-$/m);
      const recursive = await k.ok(['explain', 'deployment', '--recursive']);
      assert.match(recursive, /^ {4}strategy\s+<DeploymentStrategy>$/m);
      assert.match(recursive, /^ {6}rollingUpdate\s+<RollingUpdateDeployment>$/m);
      assert.match(await k.ok(['explain', 'cronjob.spec.jobTemplate.spec.template.spec.containers.image']), /^FIELD:\s+image <string>$/m);
    });

    test('api-resources -o wide, --namespaced=false, --verbs; api-versions', async () => {
      const wide = tableRows(await k.ok(['api-resources', '-o', 'wide']));
      assert.deepEqual(wide[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
      const row = (name: string) => wide.find((r) => r[0] === name);
      assert.deepEqual(row('pods'), ['pods', 'po', 'v1', 'true', 'Pod', 'create,delete,deletecollection,get,list,patch,update,watch', 'all']);
      assert.deepEqual(row('namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace', 'create,delete,get,list,patch,update,watch']);
      assert.deepEqual(row('bindings'), ['bindings', 'v1', 'true', 'Binding', 'create']);
      const clusterScoped = tableRows(await k.ok(['api-resources', '--namespaced=false', '--verbs=list'])).slice(1).map((r) => r[0]);
      assert.ok(clusterScoped.includes('nodes') && clusterScoped.includes('namespaces'));
      assert.ok(!clusterScoped.includes('pods') && !clusterScoped.includes('bindings'));
      const versions = (await k.ok(['api-versions'])).trim().split('\n');
      for (const v of ['v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', `authentication.${domain}/v1`, `rbac.authorization.${domain}/v1`]) assert.ok(versions.includes(v), v);
      // an alpha version is served only when --runtime-config enables it
      assert.ok(!versions.includes(`authentication.${domain}/v1alpha1`));
    });

    test('create token: --duration, bound to a pod or a secret; the wrong pod and a short duration are refused', { skip: !full && 'kubectl names the k8s.io authentication group' }, async () => {
      await kn(['create', 'serviceaccount', 'robot']);
      const claims = (token: string) => JSON.parse(Buffer.from(token.trim().split('.')[1]!, 'base64url').toString());
      const plain = claims(await kn(['create', 'token', 'robot', '--duration=20m']));
      assert.equal(plain.sub, `system:serviceaccount:${ns}:robot`);
      assert.equal(plain.exp - plain.iat, 1200);
      await kn(['run', 'bound', '--image=busybox', '--overrides={"spec":{"serviceAccountName":"robot"}}']);
      const bound = claims(await kn(['create', 'token', 'robot', '--bound-object-kind=Pod', '--bound-object-name=bound']));
      assert.equal(bound['kubernetes.io'].pod.name, 'bound');
      await kn(['create', 'secret', 'generic', 'anchor', '--from-literal=a=b']);
      assert.equal(claims(await kn(['create', 'token', 'robot', '--bound-object-kind=Secret', '--bound-object-name=anchor']))['kubernetes.io'].secret.name, 'anchor');
      const other = await k.run(['create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=bound', '-n', ns]);
      assert.notEqual(other.code, 0);
      assert.match(other.stderr, /cannot bind token for serviceaccount "default" to pod running with different serviceaccount name/);
      const short = await k.run(['create', 'token', 'robot', '--duration=1s', '-n', ns]);
      assert.match(short.stderr, /spec\.expirationSeconds: Invalid value: 1: may not specify a duration less than 10 minutes/);
    });

    test('auth can-i with --as, --as-group and subresources, --list; auth reconcile', { skip: !full && 'kubectl names the k8s.io authorization group' }, async () => {
      const can = async (...args: string[]) => (await k.run(['auth', 'can-i', ...args, '-n', ns])).stdout.trim();
      assert.equal(await can('create', 'pods', '--as=bob'), 'no');
      assert.equal(await can('get', 'pods', '--subresource=log', '--as=bob', '--as-group=system:masters'), 'yes');
      const list = await k.ok(['auth', 'can-i', '--list', '--as=bob', '-n', ns]);
      assert.deepEqual(tableHeader(list), ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
      assert.match(list, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      const rbac = k.manifest('rbac.yaml', [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader', namespace: ns }, rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader-bob', namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }] },
      ]);
      const first = await k.ok(['auth', 'reconcile', '-f', rbac]);
      assert.match(first, /role\.rbac\.authorization\.k8s\.io\/reader reconciled/);
      assert.equal(await can('list', 'pods', '--as=bob'), 'yes');
      assert.equal(await can('get', 'pods', '--subresource=log', '--as=bob'), 'yes');
      assert.equal(await can('delete', 'pods', '--as=bob'), 'no');
      // a rule added in the file is added to the stored role
      await k.ok(['auth', 'reconcile', '-f', k.manifest('rbac2.yaml', [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader', namespace: ns }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }] },
      ])]);
      assert.equal(await can('delete', 'pods', '--as=bob'), 'yes');
      assert.equal(await can('list', 'pods', '--as=bob'), 'yes', 'reconcile without --remove-extra-permissions keeps the rules it was not given');
    });

    test('create secret tls / docker-registry / generic --from-file, cronjob, job --from, quota, priorityclass, pdb, role, rolebinding, ingress', { skip: !full && 'kubectl names the k8s.io groups' }, async () => {
      // a certificate and its key: the admin's, which the server wrote to its data folder
      const pki = join(cluster.server.dataDir, 'pki');
      copyFileSync(join(pki, 'admin.crt'), join(dir, 'tls.crt'));
      copyFileSync(join(pki, 'admin.key'), join(dir, 'tls.key'));
      writeFileSync(join(dir, 'settings.txt'), 'a=1\n');
      await kn(['create', 'secret', 'tls', 'web-tls', `--cert=${join(dir, 'tls.crt')}`, `--key=${join(dir, 'tls.key')}`]);
      await kn(['create', 'secret', 'docker-registry', 'pull', '--docker-server=registry.example', '--docker-username=u', '--docker-password=p']);
      await kn(['create', 'secret', 'generic', 'files', `--from-file=${join(dir, 'settings.txt')}`, `--from-file=other=${join(dir, 'settings.txt')}`]);
      const types = Object.fromEntries((await jn(['get', 'secrets', 'web-tls', 'pull', 'files'])).items.map((s: any) => [s.metadata.name, [s.type, Object.keys(s.data).sort()]]));
      assert.deepEqual(types, {
        'web-tls': ['kubernetes.io/tls', ['tls.crt', 'tls.key']],
        pull: ['kubernetes.io/dockerconfigjson', ['.dockerconfigjson']],
        files: ['Opaque', ['other', 'settings.txt']],
      });
      await kn(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'echo', 'hi']);
      await kn(['create', 'job', 'now', '--from=cronjob/nightly']);
      const job = await jn(['get', 'job', 'now']);
      assert.equal(job.metadata.ownerReferences[0].kind, 'CronJob');
      assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      // the simulated node runs the job's pod to completion
      await waitFor('the job\'s pod', async () => (await jn(['get', 'job', 'now'])).status?.succeeded === 1, 120_000);
      await kn(['create', 'quota', 'small', '--hard=pods=50,count/secrets=40']);
      await waitFor('the quota counting', async () => (await jn(['get', 'quota', 'small'])).status?.used?.pods !== undefined);
      await k.ok(['create', 'priorityclass', 'sweep-high', '--value=1000', '--description=high']);
      await kn(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']);
      await kn(['create', 'role', 'editor', '--verb=get,update', '--resource=pods,deployments.apps', '--resource-name=x']);
      await kn(['create', 'rolebinding', 'editor-carol', '--role=editor', '--user=carol', `--serviceaccount=${ns}:robot`]);
      await kn(['create', 'ingress', 'site', '--rule=foo.example/bar*=web:8080,tls=web-tls', '--class=default']);
      const ingress = await jn(['get', 'ingress', 'site']);
      assert.deepEqual(ingress.spec.rules[0].http.paths[0], { path: '/bar', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 8080 } } } });
      assert.deepEqual(ingress.spec.tls, [{ hosts: ['foo.example'], secretName: 'web-tls' }]);
      const role = await jn(['get', 'role', 'editor']);
      assert.deepEqual(role.rules.map((r: any) => [r.apiGroups, r.resources, r.resourceNames]), [[[''], ['pods'], ['x']], [['apps'], ['deployments'], ['x']]]);
    });

    test('a pod admission refuses is named by its generateName; the ReplicaSet reports the server\'s own message', async () => {
      // the refusal as kubectl prints it
      const pod = k.manifest('gen.yaml', [{ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'gen-', namespace: ns }, spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'busybox' }] } }]);
      const refused = await k.run(['create', '-f', pod]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /pods "gen-" is forbidden: error looking up service account sweep\/ghost: serviceaccount "ghost" not found/);
      // a controller's event and condition carry the Status message, nothing of the request
      await kn(['create', 'deployment', 'orphaned', '--image=busybox']);
      await kn(['set', 'serviceaccount', 'deployment/orphaned', 'ghost']);
      const event = await waitFor('a FailedCreate event', async () => (await jn(['get', 'events', '--field-selector=reason=FailedCreate'])).items
        .find((e: any) => e.involvedObject.kind === 'ReplicaSet' && e.involvedObject.name.startsWith('orphaned-')), 120_000);
      assert.match(event.message, /^Error creating: pods "orphaned-[a-z0-9]+-" is forbidden: error looking up service account sweep\/ghost: serviceaccount "ghost" not found$/);
      const rs = await waitFor('the ReplicaFailure condition', async () => (await jn(['get', 'rs', '-l', 'app=orphaned'])).items
        .find((r: any) => r.status?.conditions?.some((c: any) => c.type === 'ReplicaFailure')), 60_000);
      const failure = rs.status.conditions.find((c: any) => c.type === 'ReplicaFailure');
      assert.equal(failure.reason, 'FailedCreate');
      assert.match(failure.message, /^pods "orphaned-[a-z0-9]+-" is forbidden: error looking up service account/);
      await kn(['delete', 'deployment', 'orphaned']);
    });

    test('rollout status, history, undo, restart of a DaemonSet and a StatefulSet; pause and resume are refused', async () => {
      await k.ok(['apply', '-f', k.manifest('workloads.yaml', workloads(ns))]);
      for (const [what, name, done] of [
        ['daemonset/agent', 'agent', /daemon set "agent" successfully rolled out/],
        // the reference defaults a StatefulSet's partition to 0, and kubectl words a partitioned roll out so
        ['statefulset/db', 'db', /partitioned roll out complete: 2 new pods have been updated/],
      ] as const) {
        assert.match(await kn(['rollout', 'status', what, '--timeout=120s'], long), done);
        await kn(['set', 'image', what, 'c=img:2']);
        assert.match(await kn(['rollout', 'status', what, '--timeout=120s'], long), done);
        const history = tableRows(await kn(['rollout', 'history', what]));
        assert.deepEqual(history.filter((r) => /^\d+$/.test(r[0]!)).map((r) => r[0]), ['1', '2']);
        assert.match(await kn(['rollout', 'history', what, '--revision=2']), /Image:\s+img:2/);
        assert.match(await kn(['rollout', 'undo', what]), /rolled back/);
        await kn(['rollout', 'status', what, '--timeout=120s'], long);
        const live = async () => (await jn(['get', 'pods', '-l', `app=${name}`])).items.filter((p: any) => !p.metadata.deletionTimestamp);
        await waitFor(`${what} back on its first image`, async () => {
          const images = (await live()).map((p: any) => p.spec.containers[0].image);
          return images.length === 2 && images.every((i: string) => i === `${name}:1`);
        }, 120_000);
        assert.match(await kn(['rollout', 'restart', what]), /restarted/);
        await waitFor(`${what} pods restarted`, async () => (await live())
          .filter((p: any) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).length === 2, 120_000);
        const pause = await k.run(['rollout', 'pause', what, '-n', ns]);
        assert.notEqual(pause.code, 0);
        assert.match(pause.stderr, /pausing is not supported/);
      }
    });

    test('set resources / selector / serviceaccount / env --from; scale --current-replicas; autoscale', async () => {
      await kn(['create', 'deployment', 'web', '--image=web:1', '--replicas=2']);
      await kn(['rollout', 'status', 'deployment/web', '--timeout=120s'], long);
      await kn(['set', 'resources', 'deployment/web', '-c=web', '--limits=cpu=200m,memory=512Mi', '--requests=cpu=100m']);
      const web = await jn(['get', 'deployment', 'web']);
      assert.deepEqual(web.spec.template.spec.containers[0].resources, { limits: { cpu: '200m', memory: '512Mi' }, requests: { cpu: '100m' } });
      await kn(['create', 'service', 'clusterip', 'web', '--tcp=80:80']);
      await kn(['set', 'selector', 'service/web', 'app=web']);
      assert.deepEqual((await jn(['get', 'service', 'web'])).spec.selector, { app: 'web' });
      await kn(['create', 'configmap', 'web-env', '--from-literal=MODE=fast']);
      await kn(['set', 'env', 'deployment/web', '--from=configmap/web-env', '--prefix=APP_']);
      assert.match(await kn(['set', 'env', 'deployment/web', '--list']), /^# APP_MODE from configmap web-env, key MODE$/m);
      const wrong = await k.run(['scale', 'deployment/web', '--current-replicas=5', '--replicas=3', '-n', ns]);
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /Expected replicas to be 5, was 2/);
      assert.match(await kn(['scale', 'deployment/web', '--current-replicas=2', '--replicas=3']), /scaled/);
      assert.equal((await jn(['get', 'deployment', 'web'])).spec.replicas, 3);
      if (full) {
        await kn(['create', 'serviceaccount', 'web-sa']);
        await kn(['set', 'serviceaccount', 'deployment/web', 'web-sa']);
        assert.equal((await jn(['get', 'deployment', 'web'])).spec.template.spec.serviceAccountName, 'web-sa');
        await kn(['set', 'subject', 'rolebinding/editor-carol', '--user=dave', '--group=ops']);
        const subjects = (await jn(['get', 'rolebinding', 'editor-carol'])).subjects.map((s: any) => `${s.kind}:${s.name}`);
        assert.deepEqual(subjects.sort(), ['Group:ops', 'ServiceAccount:robot', 'User:carol', 'User:dave']);
        await kn(['autoscale', 'deployment/web', '--min=2', '--max=4', '--cpu-percent=80']);
        const hpa = await jn(['get', 'hpa', 'web']);
        assert.deepEqual(hpa.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
        assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
        await kn(['delete', 'hpa', 'web']);
      }
    });

    test('label and annotate: --overwrite, --resource-version, --all, -l; taint with --overwrite and removal', async () => {
      await kn(['create', 'configmap', 'l1']);
      await kn(['create', 'configmap', 'l2']);
      await kn(['label', 'configmap', 'l1', 'tier=a']);
      const clash = await k.run(['label', 'configmap', 'l1', 'tier=b', '-n', ns]);
      assert.match(clash.stderr, /'tier' already has a value \(a\), and --overwrite is false/);
      await kn(['label', 'configmap', 'l1', 'tier=b', '--overwrite']);
      const stale = await k.run(['label', 'configmap', 'l1', 'x=1', '--resource-version=1', '-n', ns]);
      assert.match(stale.stderr, /Error from server \(Conflict\): Operation cannot be fulfilled on configmaps "l1": the object has been modified/);
      const rv = (await jn(['get', 'configmap', 'l1'])).metadata.resourceVersion;
      await kn(['label', 'configmap', 'l1', 'x=1', `--resource-version=${rv}`]);
      await kn(['label', 'configmap', '--all', 'swept=yes']);
      await kn(['annotate', 'configmap', '-l', 'swept=yes', 'note=hello']);
      const maps = (await jn(['get', 'configmaps', '-l', 'swept=yes'])).items;
      assert.ok(maps.length >= 2 && maps.every((m: any) => m.metadata.annotations?.note === 'hello'));
      const shown = tableRows(await kn(['get', 'configmap', 'l1', 'l2', '-L', 'tier', '--show-labels']));
      // the server's table in the k8s.io domain; kubectl's own NAME AGE table where it cannot ask for one
      assert.deepEqual(shown[0], full ? ['NAME', 'DATA', 'AGE', 'TIER', 'LABELS'] : ['NAME', 'AGE', 'TIER', 'LABELS']);
      assert.deepEqual(shown[1]!.slice(-2), ['b', 'swept=yes,tier=b,x=1']);
      await kn(['label', 'configmap', 'l1', 'tier-']);
      assert.equal((await jn(['get', 'configmap', 'l1'])).metadata.labels.tier, undefined);
      const node = cluster.nodes[0]!;
      await k.ok(['taint', 'node', node, 'sweep=a:NoSchedule']);
      const again = await k.run(['taint', 'node', node, 'sweep=b:NoSchedule']);
      assert.match(again.stderr, /already has sweep taint\(s\) with same effect\(s\) and --overwrite is false/);
      await k.ok(['taint', 'node', node, 'sweep=b:NoSchedule', '--overwrite']);
      assert.deepEqual((await k.json(['get', 'node', node])).spec.taints.filter((t: any) => t.key === 'sweep'), [{ key: 'sweep', value: 'b', effect: 'NoSchedule' }]);
      await k.ok(['taint', 'node', node, 'sweep:NoSchedule-']);
      assert.match((await k.run(['taint', 'node', node, 'sweep-'])).stderr, /taint "sweep" not found/);
    });

    test('wait --for=condition, --for=jsonpath, --for=delete', async () => {
      await kn(['run', 'waiter', '--image=busybox']);
      assert.match(await kn(['wait', '--for=condition=Ready', 'pod/waiter', '--timeout=120s'], long), /pod\/waiter condition met/);
      assert.match(await kn(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/waiter', '--timeout=60s']), /condition met/);
      // the scheduler writes its events through the events API, as the reference's does; kubectl events reads the core view
      const scheduled = await waitFor('the Scheduled event', async () => (await jn(['get', `events.v1.events.${domain}`])).items
        .find((e: any) => e.regarding?.name === 'waiter' && e.reason === 'Scheduled'));
      assert.equal(scheduled.reportingController, 'default-scheduler');
      assert.equal(scheduled.action, 'Binding');
      assert.match(scheduled.eventTime, /\.\d{6}Z$/);
      // a zero time the reference's struct cannot leave out: written as null
      assert.equal(scheduled.deprecatedLastTimestamp, null);
      // the core view: the reporter instead of a source, which is still there, empty, as the reference's struct is
      const core = (await jn(['get', 'events'])).items.find((e: any) => e.involvedObject?.name === 'waiter' && e.reason === 'Scheduled');
      assert.equal(core.reportingComponent, 'default-scheduler');
      assert.deepEqual(core.source, {});
      assert.match(await kn(['events', '--for=pod/waiter', '--types=Normal']), /Normal\s+Scheduled\s+Pod\/waiter\s+Successfully assigned sweep\/waiter to /);
      await kn(['delete', 'pod', 'waiter', '--wait=false']);
      assert.match(await kn(['wait', '--for=delete', 'pod/waiter', '--timeout=120s'], long), /pod\/waiter condition met|^$/);
      assert.notEqual((await k.run(['get', 'pod', 'waiter', '-n', ns])).code, 0);
    });

    test('get: custom-columns, jsonpath, --sort-by, --chunk-size=1, --server-print=false, --show-managed-fields, --watch-only with events', async () => {
      await kn(['create', 'configmap', 'g-b', '--from-literal=k=2']);
      await kn(['create', 'configmap', 'g-a', '--from-literal=k=1']);
      const columns = tableRows(await kn(['get', 'configmaps', 'g-a', 'g-b', '-o', 'custom-columns=N:.metadata.name,K:.data.k', '--sort-by=.data.k']));
      assert.deepEqual(columns, [['N', 'K'], ['g-a', '1'], ['g-b', '2']]);
      assert.equal(await kn(['get', 'configmap', 'g-a', '-o', 'jsonpath={.data.k}']), '1');
      const chunked = tableRows(await kn(['get', 'configmaps', '--chunk-size=1']));
      assert.ok(chunked.filter((r) => r[0] === 'g-a' || r[0] === 'g-b').length === 2);
      assert.deepEqual(tableHeader(await kn(['get', 'configmaps', '--server-print=false'])), ['NAME', 'AGE']);
      const managed = await kn(['get', 'configmap', 'g-a', '-o', 'json', '--show-managed-fields']);
      assert.equal(JSON.parse(managed).metadata.managedFields[0].manager, 'kubectl-create');
      assert.equal(JSON.parse(await kn(['get', 'configmap', 'g-a', '-o', 'json'])).metadata.managedFields, undefined);
      const w = k.watch(['get', 'configmaps', '-n', ns, '--watch-only', '--output-watch-events']);
      await waitFor('the watch started', async () => {
        await kn(['label', 'configmap', 'g-a', `tick=${Date.now()}`, '--overwrite']);
        return w.lines.some((l) => /^MODIFIED\s+g-a\s/.test(l));
      }, 60_000, 500);
      assert.ok(!w.lines.some((l) => /^ADDED/.test(l)), 'no initial list with --watch-only');
      await w.stop();
    });

    test('apply --prune -l, view-last-applied, edit-last-applied, server-side conflicts and --force-conflicts, replace --force', async () => {
      const cm = (name: string, value: string): Manifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { set: 'pruned' } }, data: { k: value } });
      await k.ok(['apply', '-f', k.manifest('both.yaml', [cm('p1', 'v'), cm('p2', 'v')])]);
      // kubectl's default prune list names groups of the k8s.io domain (Ingress, ...): elsewhere the list is given
      const allowlist = full ? [] : ['--prune-allowlist=core/v1/ConfigMap'];
      const pruned = await k.ok(['apply', '-f', k.manifest('one.yaml', [cm('p1', 'v')]), '--prune', '-l', 'set=pruned', ...allowlist, '-n', ns]);
      assert.match(pruned, /configmap\/p2 pruned/);
      assert.deepEqual((await jn(['get', 'configmaps', '-l', 'set=pruned'])).items.map((i: any) => i.metadata.name), ['p1']);
      assert.match(await kn(['apply', 'view-last-applied', 'configmap/p1']), /^ {2}k: v$/m);
      // edit-last-applied changes the annotation only; the next apply compares with it
      await kn(['apply', 'edit-last-applied', 'configmap/p1'], { env: { EDITOR: editor(dir, 'last.sh', 's/^  k: v$/  k: w/') } });
      const edited = await jn(['get', 'configmap', 'p1']);
      assert.equal(edited.data.k, 'v');
      assert.equal(JSON.parse(edited.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data.k, 'w');
      const other = k.manifest('other.yaml', [cm('p1', 'z')]);
      const conflict = await k.run(['apply', '--server-side', '--field-manager=other', '-f', other]);
      assert.notEqual(conflict.code, 0);
      assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl-client-side-apply"( using v1)?: \.data\.k/);
      await k.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
      const after = await jn(['get', 'configmap', 'p1', '--show-managed-fields']);
      assert.equal(after.data.k, 'z');
      assert.ok(after.metadata.managedFields.some((f: any) => f.manager === 'other' && f.operation === 'Apply'));
      const uid = after.metadata.uid;
      assert.match(await k.ok(['replace', '--force', '-f', k.manifest('replaced.yaml', [cm('p1', 'r')])]), /configmap\/p1 replaced/);
      const replaced = await jn(['get', 'configmap', 'p1']);
      assert.notEqual(replaced.metadata.uid, uid);
      assert.equal(replaced.data.k, 'r');
      await kn(['run', 'doomed', '--image=busybox']);
      const forced = await k.run(['delete', 'pod', 'doomed', '--grace-period=0', '--force', '-n', ns]);
      assert.match(forced.stdout, /pod "doomed" force deleted/);
      assert.match(forced.stderr, /Immediate deletion does not wait for confirmation/);
      assert.notEqual((await k.run(['get', 'pod', 'doomed', '-n', ns])).code, 0);
    });

    test('patch --subresource=scale and status with each --type; edit with an EDITOR script', async () => {
      await kn(['create', 'deployment', 'patched', '--image=p:1', '--replicas=1']);
      for (const [type, patch, replicas] of [
        ['merge', '{"spec":{"replicas":2}}', 2], ['json', '[{"op":"replace","path":"/spec/replicas","value":3}]', 3], ['strategic', '{"spec":{"replicas":1}}', 1],
      ] as const) {
        const out = await kn(['patch', 'deployment', 'patched', '--subresource=scale', `--type=${type}`, '-p', patch]);
        assert.match(out, /scale\.autoscaling\/patched patched/);
        assert.equal((await jn(['get', 'deployment', 'patched'])).spec.replicas, replicas);
      }
      const node = cluster.nodes[1]!;
      const conditions = await k.ok(['patch', 'node', node, '--subresource=status', '-p', '{"status":{"conditions":[{"type":"SweepCheck","status":"True"}]}}', '-o', 'jsonpath={.status.conditions[*].type}']);
      assert.ok(conditions.split(' ').includes('SweepCheck') && conditions.split(' ').includes('Ready'), 'a strategic patch merges the conditions by type');
      const test = await k.run(['patch', 'deployment', 'patched', '--type=json', '-p', '[{"op":"test","path":"/spec/replicas","value":7}]', '-n', ns]);
      assert.notEqual(test.code, 0);
      assert.match(test.stderr, /testing value \/spec\/replicas failed/);
      await kn(['create', 'configmap', 'edited', '--from-literal=k=before']);
      assert.match(await kn(['edit', 'configmap', 'edited'], { env: { EDITOR: editor(dir, 'edit.sh', 's/^  k: before$/  k: after/') } }), /configmap\/edited edited/);
      assert.equal((await jn(['get', 'configmap', 'edited'])).data.k, 'after');
      const renamed = await k.run(['edit', 'configmap', 'edited', '-n', ns], { env: { EDITOR: editor(dir, 'rename.sh', 's/^  name: edited$/  name: other/') } });
      assert.notEqual(renamed.code, 0);
      assert.match(renamed.stderr, /At least one of apiVersion, kind and name was changed/);
    });

    test('cordon and drain: what it will not delete without --ignore-daemonsets / --delete-emptydir-data / --force, a budget that blocks an eviction', async () => {
      const node = cluster.nodes[1]!;
      const onNode = (name: string, extra: object = {}): Manifest => ({
        apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: name } },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }], ...extra },
      });
      await k.ok(['apply', '-f', k.manifest('drain.yaml', [
        onNode('bare'),
        onNode('scratch', { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/v' }] }] }),
        onNode('guarded'),
        { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded', namespace: ns }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } },
        {
          apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'drained-ds', namespace: ns },
          spec: { selector: { matchLabels: { app: 'drained-ds' } }, template: { metadata: { labels: { app: 'drained-ds' } }, spec: { containers: [{ name: 'c', image: 'ds:1' }] } } },
        },
      ])]);
      await waitFor('the DaemonSet\'s pod on the node', async () => (await jn(['get', 'pods', '-l', 'app=drained-ds'])).items.some((p: any) => p.spec.nodeName === node), 60_000);
      await waitFor('the budget counting its pod', async () => (await jn(['get', 'pdb', 'guarded'])).status?.currentHealthy === 1, 60_000);
      assert.match(await k.ok(['cordon', node]), new RegExp(`node/${node} cordoned`));
      assert.equal((await k.json(['get', 'node', node])).spec.unschedulable, true);
      const refused = await k.run(['drain', node, '--timeout=60s']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /cannot delete DaemonSet-managed Pods \(use --ignore-daemonsets to ignore\): [^\n]*sweep\/drained-ds-/);
      assert.match(refused.stderr, /cannot delete Pods with local storage \(use --delete-emptydir-data to override\): sweep\/scratch/);
      // other bare pods of earlier tests may share the node: kubectl lists them all on one line
      const bare = /^cannot delete Pods declare no controller \(use --force to override\): (.*)$/m.exec(refused.stderr);
      assert.ok(bare, refused.stderr);
      assert.ok(bare[1]!.split(', ').includes('sweep/bare') && bare[1]!.split(', ').includes('sweep/guarded'), bare[1]);
      // kubectl retries a refused eviction until its own timeout: that timeout is what ends this drain
      const blocked = await k.run(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=8s']);
      assert.notEqual(blocked.code, 0);
      assert.match(blocked.stderr, /error when evicting pods\/"guarded" -n "sweep" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
      assert.match(blocked.stdout, /pod\/bare evicted/);
      await waitFor('bare and scratch gone', async () => (await jn(['get', 'pods'])).items.filter((p: any) => ['bare', 'scratch'].includes(p.metadata.name)).length === 0, 60_000);
      await kn(['delete', 'pdb', 'guarded']);
      assert.match(await k.ok(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=120s'], long), new RegExp(`node/${node} drained`));
      assert.match(await k.ok(['uncordon', node]), new RegExp(`node/${node} uncordoned`));
      assert.equal((await k.json(['get', 'node', node])).spec.unschedulable, undefined);
    });
  });
}

suite('k8s.io');
suite('cluster.io');

describe('auth whoami: kubectl 1.27 falls back to authentication v1alpha1 when only it is served', () => {
  test('--runtime-config=authentication.k8s.io/v1beta1=false,authentication.k8s.io/v1alpha1=true', async () => {
    const server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--runtime-config=authentication.k8s.io/v1beta1=false,authentication.k8s.io/v1alpha1=true'] });
    const k = await startKubectlEnv('1.27', 'k8s.io', server);
    try {
      const versions = (await k.ok(['api-versions'])).split('\n');
      assert.ok(versions.includes('authentication.k8s.io/v1alpha1') && !versions.includes('authentication.k8s.io/v1beta1'));
      const who = JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json']));
      assert.equal(who.apiVersion, 'authentication.k8s.io/v1alpha1');
      assert.equal(who.status.userInfo.username, 'admin');
      assert.match(await k.ok(['auth', 'whoami']), /^Username\s+admin$/m);
    } finally {
      await k.close();
      await server.close();
    }
  });
});
