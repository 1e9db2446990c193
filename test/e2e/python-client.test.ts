// Debian's python3-kubernetes, unmodified, as operators and controllers use it, against a server in the reference's
// domain with its controllers, scheduler and a simulated node: every built-in list deserialises into the client's
// models; paging over 1,000+ objects; list-then-watch with bookmarks, timeouts and the relist after 410; every patch
// type with apply conflicts; scale and status; CustomObjectsApi and the dynamic client; Leases, Events v1, tokens
// and access reviews; CSR approval and an external signer; deletes with preconditions and propagation; the service-account issuer's
// discovery; a watch loop that rides through a restart of the server on the same data; a client inside a pod
// configured as load_incluster_config() does. The flows are Python programs in test/e2e/python/, each printing one JSON answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { startTestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { kubectlPath } from './support.js';
import { certificateRequest } from '../support/certificate-request.js';

/** Debian's interpreter, which has the packaged client library (another python on PATH may not) */
const python = '/usr/bin/python3';
const programs = new URL('../../../test/e2e/python/', import.meta.url).pathname;
const skip = existsSync(python) ? false : 'Debian python3 is not installed';

/** runs a flow of flows.py (or another program) and returns the JSON it printed last */
function py<T = any>(kubeconfig: string, args: string[], program = 'flows.py'): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(python, [join(programs, program), kubeconfig, ...args], { timeout: 300_000, maxBuffer: 64 << 20, env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`${program} ${args.join(' ')}: ${err.message}\n${stderr}\n${stdout}`));
        resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      });
  });
}

describe('python3-kubernetes as operators use it', { skip }, () => {
  let cluster: TestCluster;
  let kubeconfig: string;
  before(async () => {
    cluster = await startTestCluster({ apiDomain: 'k8s.io', nodes: 1, bookmarkIntervalMs: 500 });
    kubeconfig = cluster.server.kubeconfig;
    // one object of every common built-in kind, the CRDs the custom-object flows use, an approved CSR
    await new Promise<void>((resolve, reject) => execFile(kubectlPath('1.32'), ['--kubeconfig', kubeconfig, 'apply', '-f', join(programs, 'builtins.yaml')],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cluster.server.dataDir } }, (err, _out, stderr) => (err ? reject(new Error(stderr)) : resolve())));
    await waitFor('the CRDs served', async () => {
      const r: any = await cluster.client.request({ method: 'GET', path: '/apis/example.com/v1' }).catch(() => undefined);
      return ['widgets', 'gizmos'].every((n) => r?.resources?.some((x: { name: string }) => x.name === n));
    });
  }, { timeout: 120_000 });
  after(async () => { await cluster?.close(); });

  test('every built-in list deserialises into the client\'s models', async () => {
    await waitFor('the workloads\' pods', async () => (await cluster.client.resource({ group: '', version: 'v1', resource: 'pods' }, 'sweep').list()).items.length >= 4);
    await cluster.client.request({ method: 'POST', path: '/apis/certificates.k8s.io/v1/certificatesigningrequests', body: {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'sweep-user' },
      spec: { request: Buffer.from(await certificateRequest('sweep-user')).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    } });
    const r = await py<{ read: Record<string, string[]>; failed: string[][]; notServed: string[][] }>(kubeconfig, [], 'sweep.py');
    // the reference answers the same: Events made through the core API have no eventTime, which events.k8s.io/v1
    // shows as null, and this client's EventsV1Event refuses a null event_time (the client's known bug)
    const failed = r.failed.filter(([what, error]) => !(what === 'EventsV1Api.list_event_for_all_namespaces' && /event_time/.test(error!)));
    assert.deepEqual(failed, []);
    for (const list of ['AppsV1Api.list_stateful_set_for_all_namespaces', 'BatchV1Api.list_cron_job_for_all_namespaces', 'NetworkingV1Api.list_ingress_for_all_namespaces',
      'PolicyV1Api.list_pod_disruption_budget_for_all_namespaces', 'AutoscalingV1Api.list_horizontal_pod_autoscaler_for_all_namespaces',
      'CertificatesV1Api.list_certificate_signing_request', 'StorageV1Api.list_volume_attachment', 'NodeV1Api.list_runtime_class', 'CoreV1Api.list_component_status'])
      assert.ok(r.read[list]?.length, `${list} read nothing`);
    // the classes the reference's server makes at start, besides the one applied
    assert.deepEqual(r.read['SchedulingV1Api.list_priority_class']!.sort(), ['pc', 'system-cluster-critical', 'system-node-critical']);
    // only versions 1.27 no longer serves are missing
    assert.ok(r.notServed.every(([what]) => /V1(alpha|beta)\d|V2beta/.test(what!)), JSON.stringify(r.notServed));
  });

  test('paging over 1,100 ConfigMaps: limit and continue, remainingItemCount, resourceVersionMatch', async () => {
    const r = await py(kubeconfig, ['paging', 'paged', '1100']);
    // the namespace may also hold the root CA's ConfigMap by now
    assert.ok(r.count === 1100 || r.count === 1101, String(r.count));
    assert.equal(r.distinct, r.count);
    assert.ok(r.sorted);
    assert.deepEqual(r.remaining, [...[1, 2, 3, 4].map((page) => r.count - 250 * page), null]);
    // with a label selector the server cannot count what is left, so the reference leaves it out
    assert.equal(r.selectedRemaining, null);
    assert.ok(r.selectedContinues);
    assert.ok(r.exactRv);
    assert.deepEqual(r.exactNext, ['cm-00010']);
    assert.deepEqual(r.matchWithoutRv.slice(0, 2), [422, 'Invalid'], 'a 422 on ListOptions, as the reference answers');
    assert.deepEqual(r.badContinue.slice(0, 2), [400, 'BadRequest']);
  });

  test('list then watch: events after the list, bookmarks, the timeout ends the stream', async () => {
    const cms = cluster.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'watched');
    await cluster.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } });
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
    const { rv } = await py(kubeconfig, ['list_rv', 'watched']);
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    const { events } = await py(kubeconfig, ['watch_from', 'watched', rv]);
    assert.deepEqual(events[0].slice(0, 2), ['ADDED', 'after']);
    assert.ok(!events.some((e: string[]) => e[1] === 'before'), JSON.stringify(events));
    const bookmarks = events.filter((e: string[]) => e[0] === 'BOOKMARK');
    assert.ok(bookmarks.length >= 1, JSON.stringify(events));
    assert.ok(bookmarks.every((b: string[]) => Number(b[2]) >= Number(events[0][2])));
  });

  test('a watch from a compacted resourceVersion: 410, then relist and watch again', async () => {
    const cms = cluster.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'watched');
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before-compaction' } });
    await cluster.server.faults.compactNow();
    // a resourceVersion from before the watch cache's history, which storage no longer has either
    const r = await py(kubeconfig, ['relist_after_gone', 'watched', '2']);
    assert.equal(r.gone?.[0], 410, JSON.stringify(r));
    assert.ok(r.listed >= 3);
    assert.deepEqual(r.afterRelist, [['ADDED', 'after-relist']]);
  });

  test('patches of every type, apply conflicts and force, scale and status subresources', async () => {
    const r = await py(kubeconfig, ['patches', 'patched']);
    assert.deepEqual(r.strategicDict, ['B', 'A']);
    assert.deepEqual(r.jsonList, { k: 'v', j: 'x' });
    assert.deepEqual(r.merge, { m: '2' });
    assert.deepEqual(r.jsonTestFails.slice(0, 2), [422, 'Invalid']);
    assert.deepEqual(r.applyManagers, [['py-one', 'Apply']]);
    assert.deepEqual(r.applyConflict, [409, 'Conflict', 'Apply failed with 1 conflict: conflict with "py-one": .spec.replicas']);
    assert.deepEqual(r.forced, [3, ['py-one', 'py-two']]);
    assert.equal(r.yamlMerge, 'from-yaml');
    assert.equal(r.scalePatch, 3);
    assert.equal(r.scaleReplace, 2);
    assert.ok(r.statusReplace.includes('Checked'));
    assert.equal(r.specUnchangedByStatus, 2);
    assert.deepEqual(r.badStatus.slice(0, 2), [422, 'Invalid']);
    assert.match(r.badStatus[2], /status\.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0/);
  });

  test('CustomObjectsApi (namespaced and cluster-scoped, status, scale, watch) and the dynamic client', async () => {
    const r = await py(kubeconfig, ['custom_objects', 'custom']);
    assert.deepEqual(r.get, { replicas: 1, size: 's' });
    assert.deepEqual(r.listed[0], 1);
    assert.deepEqual(r.merge, { replicas: 1, size: 'm' });
    assert.deepEqual(r.status, { phase: 'Ready', replicas: 1 });
    assert.deepEqual(r.statusReplace, [{ phase: 'Replaced' }, 'm']);
    assert.deepEqual(r.scale, { replicas: 4 });
    assert.ok(r.watched.length >= 3 && r.watched.every((t: string) => t === 'MODIFIED'), JSON.stringify(r.watched));
    assert.equal(r.delete, 'Success');
    assert.deepEqual(r.cluster[0], { x: 1, y: 2 });
    assert.deepEqual(r.cluster[1], { ok: true });
    assert.ok(r.cluster[2].includes('MODIFIED'));
    assert.deepEqual(r.dynamic.slice(0, 5), ['widgets', true, ['scale', 'status'],
      ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'status'], { a: '1', b: '2' }]);
  });

  test('Lease leader election (409 for the stale writer), Events v1, TokenRequest and reviews', async () => {
    const r = await py(kubeconfig, ['coordination', 'coordinated']);
    assert.deepEqual(r.leaseConflict.slice(0, 2), [409, 'Conflict']);
    assert.equal(r.holder, 'a');
    assert.deepEqual(r.event, [2, 1, 'Reconciled', 'example.com/operator']);
    assert.deepEqual(r.token.slice(0, 3), [true, 'system:serviceaccount:coordinated:bot', ['operator']]);
    assert.deepEqual(r.token[3].slice(0, 2), [404, 'NotFound']);
    assert.equal(r.token[4], 422);
    // the test server allows every request (AlwaysAllow): the reviews say so; a review without attributes is invalid
    assert.deepEqual(r.access, [true, true, 422]);
  });

  test('CSR approval: approved and issued; a decision is never reversed or removed through approval', async () => {
    const r = await py(kubeconfig, ['csr_approval', 'alice']);
    assert.deepEqual(r.approved, ['Approved']);
    assert.equal(r.deniedAfter?.[0], 422, JSON.stringify(r));
    assert.match(r.deniedAfter[2], /Approved and Denied conditions are mutually exclusive/);
    assert.equal(r.removed?.[0], 422, JSON.stringify(r));
    assert.match(r.removed[2], /updates may not remove a condition of type "Approved"/);
    assert.deepEqual(r.final, ['Approved']);
  });

  test('an external signer writes the certificate through status, sending back the decision as the client spells it', async () => {
    const r = await py(kubeconfig, ['csr_signing', 'external-signer-user']);
    assert.equal(r.failure, null, JSON.stringify(r));
    assert.ok(r.issued);
    assert.deepEqual(r.conditions, [['Approved', 'PythonApproved']]);
    assert.ok(r.kept, 'the decision as it was held');
  });

  test('deletes: preconditions, grace period 0, foreground cascading, delete_collection by selectors', async () => {
    const r = await py(kubeconfig, ['deletes', 'deleting']);
    assert.deepEqual(r.uidMismatch.slice(0, 2), [409, 'Conflict']);
    assert.match(r.uidMismatch[2], /the UID in the precondition \(not-its-uid\) does not match the UID in record/);
    assert.match(r.rvMismatch[2], /the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record/);
    assert.equal(r.guardedGone, 404);
    assert.deepEqual(r.afterLabel, ['c2', 'c3']);
    assert.deepEqual(r.afterField, ['c3']);
    assert.deepEqual(r.foreground, [true, ['foregroundDeletion']]);
    assert.equal(r.replicaSetsLeft, 0);
  });

  test('the service-account issuer\'s discovery document and key set (WellKnownApi, OpenidApi)', async () => {
    const r = await py(kubeconfig, ['issuer_discovery']);
    assert.equal(r.config.issuer, 'https://kubernetes.default.svc.cluster.local');
    assert.match(r.config.jwks_uri, /^https:\/\/[^/]+\/openid\/v1\/jwks$/);
    assert.deepEqual(r.config.response_types_supported, ['id_token']);
    assert.deepEqual(r.config.subject_types_supported, ['public']);
    assert.deepEqual(r.config.id_token_signing_alg_values_supported, ['ES256']);
    assert.deepEqual(r.types, ['application/json', 'application/jwk-set+json']);
    assert.equal(r.cache, 'public, max-age=3600');
    assert.equal(r.keys.keys.length, 1);
    assert.deepEqual([r.keys.keys[0].use, r.keys.keys[0].kty, r.keys.keys[0].alg], ['sig', 'EC', 'ES256']);
    // the key that verifies the tokens the server issues: their header names it
    const token: any = await cluster.client.request({ method: 'POST', path: '/api/v1/namespaces/default/serviceaccounts/default/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['x'] } } });
    const header = JSON.parse(Buffer.from(token.status.token.split('.')[0], 'base64url').toString());
    assert.equal(r.keys.keys[0].kid, header.kid);
  });
});

describe('python3-kubernetes: a list-then-watch loop across a restart of the server on the same data', { skip }, () => {
  test('the loop reconnects and sees what was written while and after the server was away', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'py-restart-'));
    const port = await freePort();
    const flags = [`--secure-port=${port}`];
    let server = await startTestServer({ apiDomain: 'k8s.io', storage: 'sqlite', dataDir, flags });
    const marker = join(dataDir, 'marker');
    // the data folder keeps the certificates, and the port is the same: the client's configuration stays good
    const kubeconfig = server.kubeconfig;
    try {
      await server.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'looped' } });
      const cms = () => server.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'looped');
      await cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } });
      let stdout = '', stderr = '';
      const child = spawn(python, [join(programs, 'flows.py'), kubeconfig, 'watch_across_restart', 'looped', marker], { env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } });
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await waitFor('the loop watching', () => existsSync(marker) && readFileSync(marker, 'utf8').includes('watching'));
      await cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'second' } });
      await server.close();
      server = await startTestServer({ apiDomain: 'k8s.io', storage: 'sqlite', dataDir, flags });
      await cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'while-reconnecting' } });
      await cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'last' } });
      const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('timeout'), 120_000))]);
      if (code !== 0) child.kill('SIGKILL');
      assert.equal(code, 0, stderr);
      const { seen } = JSON.parse(stdout.trim().split('\n').pop()!);
      // the root CA's ConfigMap, which the controller manager writes into every namespace, comes and goes with it
      assert.deepEqual(seen.filter((n: string) => n !== 'kube-root-ca.crt'), ['first', 'second', 'while-reconnecting', 'last']);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('python3-kubernetes inside a pod: the in-cluster configuration from a simulated container', { skip }, () => {
  let cluster: TestCluster;
  const dir = mkdtempSync(join(tmpdir(), 'incluster-'));
  before(async () => {
    cluster = await startTestCluster({ apiDomain: 'k8s.io', nodes: 1, flags: ['--authorization-mode=Node,RBAC'] });
  }, { timeout: 120_000 });
  after(async () => { await cluster?.close(); rmSync(dir, { recursive: true, force: true }); });

  test('the variables and mounted files configure the client: 403 in the reference\'s words, then the pods once a RoleBinding allows', async () => {
    const core = (resource: string, namespace?: string) => cluster.client.resource({ group: '', version: 'v1', resource }, namespace);
    await core('serviceaccounts', 'default').create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
    await core('pods', 'default').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'incluster' }, spec: { serviceAccountName: 'reader', containers: [{ name: 'app', image: 'app:1' }] } });
    const pod = await waitFor('the pod Running', async () => { const p = await core('pods', 'default').get('incluster'); return p.status?.phase === 'Running' && p; });
    const status = pod.status.containerStatuses[0];
    const node = cluster.agent.nodes.find((n) => n.nodeName === pod.spec.nodeName)!;
    const run = async (command: string[]) => {
      const r = await node.runtime.execSync(status.containerID.replace(/^fake:\/\//, ''), command, 10);
      assert.equal(r.exitCode, 0, `${command.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const env = new Map((await run(['env'])).split('\n').filter(Boolean).map((l): [string, string] => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const service = await core('services', 'default').get('kubernetes');
    assert.equal(env.get('KUBERNETES_SERVICE_HOST'), service.spec.clusterIP);
    assert.equal(env.get('KUBERNETES_SERVICE_PORT'), String(service.spec.ports[0].port));
    const mount = '/var/run/secrets/kubernetes.io/serviceaccount';
    for (const file of ['token', 'ca.crt', 'namespace']) writeFileSync(join(dir, file), await run(['cat', `${mount}/${file}`]));
    // no proxy routes the cluster IP here: the client is given the address behind the Service, as a proxy would route it
    const endpoints = await core('endpoints', 'default').get('kubernetes');
    writeFileSync(join(dir, 'env.json'), JSON.stringify({ KUBERNETES_SERVICE_HOST: endpoints.subsets[0].addresses[0].ip, KUBERNETES_SERVICE_PORT: String(endpoints.subsets[0].ports[0].port) }));
    const denied = await py(dir, [], 'incluster.py');
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'pods is forbidden: User "system:serviceaccount:default:reader" cannot list resource "pods" in API group "" in the namespace "default"');
    await cluster.client.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' }, 'default').create({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'reader-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    });
    const allowed = await waitFor('the pods listed', async () => { const r = await py(dir, [], 'incluster.py'); return r.pods && r; });
    assert.deepEqual(allowed.pods, ['incluster']);
  });
});
