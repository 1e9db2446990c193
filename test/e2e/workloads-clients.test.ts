// Client libraries other than kubectl drive Deployments and Jobs end to end, as their users write it:
// @kubernetes/client-node (typed APIs, an informer) and Debian's python3-kubernetes (typed APIs, a watch),
// against a server in the reference's domain with its controllers, its scheduler and simulated nodes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig, makeInformer, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { fakeAnnotation } from '../../src/agent/options.js';

/** Debian's interpreter, which has the packaged client library (another python on PATH may not) */
const python = '/usr/bin/python3';

let cluster: TestCluster;
before(async () => { cluster = await startTestCluster({ apiDomain: 'k8s.io', nodes: 2 }); });
after(async () => { await cluster?.close(); });

describe('client-node drives a Deployment and a Job', () => {
  const ns = 'client-node';
  let kc: KubeConfig;
  before(async () => {
    kc = new KubeConfig();
    kc.loadFromFile(cluster.server.kubeconfig);
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    await waitFor('the default service account', () => kc.makeApiClient(CoreV1Api).readNamespacedServiceAccount({ name: 'default', namespace: ns }).then(() => true, () => false));
  });

  test('a Deployment: created, available, scaled, its pods seen by an informer', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    const running = new Set<string>();
    const informer = makeInformer(kc, `/api/v1/namespaces/${ns}/pods`, () => core.listNamespacedPod({ namespace: ns, labelSelector: 'app=hello' }), 'app=hello');
    const track = (p: V1Pod) => { if (p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp) running.add(p.metadata!.name!); else running.delete(p.metadata!.name!); };
    informer.on('add', track);
    informer.on('update', track);
    informer.on('delete', (p) => running.delete(p.metadata!.name!));
    await informer.start();
    try {
      await apps.createNamespacedDeployment({ namespace: ns, body: {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'hello' },
        spec: { replicas: 3, selector: { matchLabels: { app: 'hello' } }, template: { metadata: { labels: { app: 'hello' } }, spec: { containers: [{ name: 'hello', image: 'hello:1' }] } } },
      } });
      const available = await waitFor('3 available', async () => {
        const d = await apps.readNamespacedDeploymentStatus({ name: 'hello', namespace: ns });
        return d.status?.availableReplicas === 3 && d;
      });
      assert.equal(available.status!.conditions!.find((c) => c.type === 'Available')!.status, 'True');
      await waitFor('the informer sees 3 running pods', () => running.size === 3);
      await apps.patchNamespacedDeploymentScale({ name: 'hello', namespace: ns, body: [{ op: 'replace', path: '/spec/replicas', value: 1 }] });
      await waitFor('1 running pod', async () => running.size === 1 && (await apps.readNamespacedDeployment({ name: 'hello', namespace: ns })).status?.replicas === 1);
    } finally {
      await informer.stop();
    }
  });

  test('a Job runs to completion', async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    const job: V1Job = {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'count' },
      spec: { completions: 3, parallelism: 3, template: {
        metadata: { annotations: { [fakeAnnotation(cluster.server.names, 'run-for')]: '200ms' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'count', image: 'count:1' }] },
      } },
    };
    await batch.createNamespacedJob({ namespace: ns, body: job });
    const done = await waitFor('complete', async () => {
      const j = await batch.readNamespacedJobStatus({ name: 'count', namespace: ns });
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') && j;
    });
    assert.equal(done.status!.succeeded, 3);
    await batch.deleteNamespacedJob({ name: 'count', namespace: ns, propagationPolicy: 'Background' });
    const core = kc.makeApiClient(CoreV1Api);
    await waitFor('its pods collected', async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: 'job-name=count' })).items.length === 0);
  });
});

const pythonProgram = `
import sys, time
from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
ns = "python"
core = client.CoreV1Api()
apps = client.AppsV1Api()
batch = client.BatchV1Api()
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))

def eventually(what, check, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            value = check()
            if value:
                return value
        except client.exceptions.ApiException:
            pass
        time.sleep(0.2)
    raise SystemExit("timed out waiting for " + what)

eventually("the default service account", lambda: core.read_namespaced_service_account("default", ns))

labels = {"app": "py"}
deployment = client.V1Deployment(
    metadata=client.V1ObjectMeta(name="py"),
    spec=client.V1DeploymentSpec(
        replicas=2,
        selector=client.V1LabelSelector(match_labels=labels),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels=labels),
            spec=client.V1PodSpec(containers=[client.V1Container(name="py", image="py:1")]))))
apps.create_namespaced_deployment(ns, deployment)
eventually("2 available", lambda: (apps.read_namespaced_deployment_status("py", ns).status.available_replicas or 0) == 2)
apps.patch_namespaced_deployment("py", ns, {"spec": {"template": {"spec": {"containers": [{"name": "py", "image": "py:2"}]}}}})
def rolled():
    d = apps.read_namespaced_deployment_status("py", ns)
    return d.status.observed_generation == d.metadata.generation and d.status.updated_replicas == 2 and d.status.available_replicas == 2 and d.status.replicas == 2
eventually("the rollout", rolled)
rs = apps.list_namespaced_replica_set(ns, label_selector="app=py").items
print("replicasets", len(rs))

job = client.V1Job(
    metadata=client.V1ObjectMeta(name="pyjob"),
    spec=client.V1JobSpec(
        completions=2, parallelism=1, backoff_limit=2,
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(annotations={sys.argv[2]: "200ms"}),
            spec=client.V1PodSpec(restart_policy="Never", containers=[client.V1Container(name="j", image="j:1")]))))
batch.create_namespaced_job(ns, job)
w = watch.Watch()
succeeded = 0
for event in w.stream(batch.list_namespaced_job, ns, field_selector="metadata.name=pyjob", timeout_seconds=120):
    status = event["object"].status
    if any(c.type == "Complete" and c.status == "True" for c in (status.conditions or [])):
        succeeded = status.succeeded
        w.stop()
print("job succeeded", succeeded)
`;

describe('python3-kubernetes drives a Deployment and a Job', { skip: existsSync(python) ? false : 'Debian python3 is not installed' }, () => {
  test('create, roll out, run a Job to completion', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(python, ['-c', pythonProgram, cluster.server.kubeconfig, fakeAnnotation(cluster.server.names, 'run-for')],
        { timeout: 240_000, env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}\n${stdout}`)) : resolve(stdout)));
    });
    assert.match(out, /^replicasets 2$/m);
    assert.match(out, /^job succeeded 2$/m);
  });
});
