// The built-in kinds through HTTP: defaults read back, validation causes, immutable fields, Service IPs and ports,
// and a new user's manifest set applied and read back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { naming } from '../../src/api/naming.js';
import { createClient, type Client } from './client.js';
import { createCertificateAuthority, knownUsages } from '../../src/pki/certificates.js';
import { adminGroup, adminUser } from '../../src/pki/pki.js';
import { certificateRequest } from '../support/certificate-request.js';
import { waitFor } from '../support/wait.js';

const names = naming();
const g = (base: string, version: string) => `/apis/${names.group(base)}/${version}`;

let server: TestServer;
let c: Client;
let nsCount = 0;

before(async () => {
  server = await startTestServer({ flags: ['--service-cluster-ip-range=10.96.0.0/28', '--service-node-port-range=30000-30009'] });
  c = createClient(server);
});
after(async () => { c.close(); await server.close(); });

async function namespace(): Promise<string> {
  const name = `bi-${process.pid}-${++nsCount}`;
  const r = await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
  assert.equal(r.status, 201, r.body);
  return name;
}

const post = (path: string, body: any) => c.request('POST', path, { body });
const b64 = (s: string) => Buffer.from(s).toString('base64');

const causes = (r: { json: any }) => (r.json?.details?.causes ?? []).map((x: any) => `${x.field}: ${x.message}`);

/** a collection, a body to create in it, a status to write through /status, and a check of what reads back */
interface Kind { path: string; name?: string; body: any; status?: any; check: (o: any) => void }

/** create, read, update (a label), status update where the kind has one, and delete, one kind after another */
async function createReadUpdateDelete(kinds: Kind[]) {
  for (const k of kinds) {
    const name = k.name ?? `k-${nsCount}-${k.path.split('/').pop()}`.slice(0, 60);
    const created = await c.request('POST', k.path, { body: { metadata: { name }, ...k.body } });
    assert.equal(created.status, 201, `${k.path}: ${created.body}`);
    const got = await c.get(`${k.path}/${name}`);
    assert.equal(got.status, 200, `${k.path}: ${got.body}`);
    k.check(got.json);
    // controllers write some of these kinds too (a PDB's status, a CSR's approval): a conflict is read again and retried
    const updated = await retryOnConflict(`${k.path}/${name}`, (o) => ({ ...o, metadata: { ...o.metadata, labels: { touched: 'yes' } } }));
    assert.equal(updated.status, 200, `${k.path}: ${updated.body}`);
    assert.deepEqual(updated.json.metadata.labels, { touched: 'yes' });
    k.check(updated.json);
    if (k.status) {
      const st = await retryOnConflict(`${k.path}/${name}/status`, (o) => ({ ...o, status: k.status }));
      assert.equal(st.status, 200, `${k.path}: ${st.body}`);
      for (const [f, v] of Object.entries(k.status)) assert.deepEqual(st.json.status[f], v, `${k.path} status.${f}`);
    }
    const del = await c.request('DELETE', `${k.path}/${name}`, { body: { gracePeriodSeconds: 0 } });
    assert.equal(del.status, 200, `${k.path}: ${del.body}`);
    // claims and volumes keep a protection finalizer until their controllers see them free, a moment later (or
    // longer on a busy machine)
    await waitFor(`${k.path}/${name} gone`, async () => (await c.get(`${k.path}/${name}`)).status === 404);
  }
}

/** read, change and write back, again on 409 as clients do when another writer was first */
async function retryOnConflict(path: string, change: (o: any) => any) {
  for (let attempt = 1; ; attempt++) {
    const current = await c.get(path);
    assert.equal(current.status, 200, `${path}: ${current.body}`);
    const written = await c.request('PUT', path, { body: change(current.json) });
    if (written.status !== 409 || attempt === 20) return written;
  }
}

const knownUsagesText = knownUsages.map((u) => JSON.stringify(u)).sort().join(', ');

const labels = { app: 'web' };
const template = (extra: any = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', ...extra }] } });

describe('built-in kinds through HTTP', () => {
  test('a Deployment reads back with the reference defaults; selector is immutable; status only through /status', async () => {
    const ns = await namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await c.request('POST', base, { body: { metadata: { name: 'web' }, spec: { selector: { matchLabels: labels }, template: template() } } });
    assert.equal(created.status, 201, created.body);
    const got = (await c.get(`${base}/web`)).json;
    assert.equal(got.spec.replicas, 1);
    assert.deepEqual(got.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(got.spec.revisionHistoryLimit, 10);
    assert.equal(got.spec.progressDeadlineSeconds, 600);
    const pod = got.spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.dnsPolicy, 'ClusterFirst');
    assert.equal(pod.schedulerName, 'default-scheduler');
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.deepEqual(pod.securityContext, {});
    assert.equal(pod.enableServiceLinks, undefined, 'templates do not get service links');
    assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(pod.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.equal(pod.containers[0].terminationMessagePolicy, 'File');
    assert.equal(got.metadata.generation, 1);

    // an update that leaves replicas out gets the default again, not a missing field; the deployment controller
    // writes the Deployment's status meanwhile, so each write below reads the latest version again on 409
    const upd = await retryOnConflict(`${base}/web`, (o) => {
      const { replicas: _r, ...specWithout } = o.spec;
      return { ...o, spec: { ...specWithout, template: template({ image: 'nginx:1.26' }) } };
    });
    assert.equal(upd.status, 200, upd.body);
    assert.equal(upd.json.spec.replicas, 1);
    assert.equal(upd.json.metadata.generation, 2);

    const moved = await retryOnConflict(`${base}/web`, (o) => ({ ...o, spec: { ...o.spec, selector: { matchLabels: { app: 'other' } }, template: { ...o.spec.template, metadata: { labels: { app: 'other' } } } } }));
    assert.equal(moved.status, 422, moved.body);
    assert.deepEqual(causes(moved), ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable']);

    const st = await retryOnConflict(`${base}/web/status`, (o) => ({ ...o, status: { replicas: 3, observedGeneration: 2 } }));
    assert.equal(st.status, 200, st.body);
    assert.equal(st.json.status.replicas, 3);
    assert.equal(st.json.metadata.generation, 2);
    const del = await c.request('DELETE', `${base}/web`);
    assert.equal(del.status, 200, del.body);
    assert.equal((await c.get(`${base}/web`)).status, 404);
  });

  test('a Deployment with many problems lists every one as its own cause', async () => {
    const ns = await namespace();
    const r = await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: {
        metadata: { name: 'bad' },
        spec: {
          replicas: -1, selector: { matchLabels: { app: 'x' } },
          template: { metadata: { labels }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'Web', ports: [{ containerPort: 70000 }] }, { name: 'Web', image: 'a' }] } },
        },
      },
    });
    assert.equal(r.status, 422, r.body);
    assert.equal(r.json.reason, 'Invalid');
    assert.deepEqual(causes(r), [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      'spec.template.spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.template.spec.containers[0].image: Required value',
      'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.template.spec.containers[1].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.template.spec.containers[1].name: Duplicate value: "Web"',
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
    assert.match(r.json.message, /^Deployment\.apps "bad" is invalid: \[spec\.replicas: Invalid value: -1/);
  });

  test('a Pod gets its defaults; only images and a few fields change after create', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    const created = await c.request('POST', base, {
      body: {
        metadata: { name: 'p' },
        spec: {
          containers: [{
            name: 'a', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } },
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            livenessProbe: { httpGet: { port: 80 } }, volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }],
          }],
          volumes: [{ name: 'cfg', configMap: { name: 'c' } }, { name: 'scratch' }],
        },
      },
    });
    assert.equal(created.status, 201, created.body);
    const p = created.json;
    const ctr = p.spec.containers[0];
    assert.equal(ctr.imagePullPolicy, 'Always');
    assert.equal(ctr.ports[0].protocol, 'TCP');
    assert.deepEqual(ctr.resources.requests, { cpu: '1' });
    assert.equal(ctr.env[0].valueFrom.fieldRef.apiVersion, 'v1');
    assert.deepEqual(ctr.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.equal(p.spec.volumes[0].configMap.defaultMode, 420);
    assert.deepEqual(p.spec.volumes[1].emptyDir, {});
    assert.equal(p.spec.enableServiceLinks, true);
    assert.equal(p.status.phase, 'Pending');

    const image = await c.request('PUT', `${base}/p`, { body: { ...p, spec: { ...p.spec, containers: [{ ...ctr, image: 'busybox:1.36' }] } } });
    assert.equal(image.status, 200, image.body);
    assert.equal(image.json.spec.containers[0].image, 'busybox:1.36');
    const env = await c.request('PUT', `${base}/p`, { body: { ...image.json, spec: { ...image.json.spec, restartPolicy: 'Never' } } });
    assert.equal(env.status, 422, env.body);
    assert.equal(causes(env).length, 1);
    assert.match(causes(env)[0], /^spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);

    const st = await c.request('PUT', `${base}/p/status`, { body: { ...image.json, status: { phase: 'Running' } } });
    assert.equal(st.status, 200, st.body);
    assert.equal(st.json.status.phase, 'Running');
    assert.equal((await c.request('DELETE', `${base}/p`)).status, 200);
  });

  test('Services get cluster IPs from the range, node ports from theirs, and keep them', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/services`;
    const svc = (name: string, spec: any) => c.request('POST', base, { body: { metadata: { name }, spec } });
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => svc(`s${i}`, { selector: labels, ports: [{ port: 80 }] })));
    for (const r of created) assert.equal(r.status, 201, r.body);
    const ips = created.map(r => r.json.spec.clusterIP);
    assert.equal(new Set(ips).size, ips.length, `concurrent creates got distinct IPs: ${ips}`);
    for (const ip of ips) assert.match(ip, /^10\.96\.0\.([1-9]|1[0-4])$/);
    const one = created[0].json;
    assert.deepEqual(one.spec.clusterIPs, [one.spec.clusterIP]);
    assert.equal(one.spec.type, 'ClusterIP');
    assert.equal(one.spec.sessionAffinity, 'None');
    assert.deepEqual(one.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.deepEqual(one.spec.ipFamilies, ['IPv4']);
    assert.equal(one.spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(one.spec.internalTrafficPolicy, 'Cluster');

    const taken = await svc('dup', { clusterIP: one.spec.clusterIP, ports: [{ port: 80 }] });
    assert.equal(taken.status, 422, taken.body);
    assert.deepEqual(causes(taken), [`spec.clusterIPs: Invalid value: ${JSON.stringify([one.spec.clusterIP])}: failed to allocate IP ${one.spec.clusterIP}: provided IP is already allocated`]);
    const outside = await svc('out', { clusterIP: '10.1.2.3', ports: [{ port: 80 }] });
    assert.deepEqual(causes(outside), ['spec.clusterIPs: Invalid value: ["10.1.2.3"]: failed to allocate IP 10.1.2.3: provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/28']);

    // an update without clusterIP keeps it; a changed one is refused
    const { clusterIP: _a, clusterIPs: _b, ...bare } = one.spec;
    const kept = await c.request('PUT', `${base}/s0`, { body: { ...one, spec: bare } });
    assert.equal(kept.status, 200, kept.body);
    assert.equal(kept.json.spec.clusterIP, one.spec.clusterIP);
    const free = Array.from({ length: 14 }, (_, i) => `10.96.0.${i + 1}`).find(ip => !ips.includes(ip))!;
    const moved = await c.request('PUT', `${base}/s0`, { body: { ...kept.json, spec: { ...kept.json.spec, clusterIP: free, clusterIPs: [free] } } });
    assert.equal(moved.status, 422, moved.body);
    assert.deepEqual(causes(moved), [`spec.clusterIPs[0]: Invalid value: ${JSON.stringify([free])}: may not change once set`]);

    // a deleted Service's IP is free again
    assert.equal((await c.request('DELETE', `${base}/s1`)).status, 200);
    const again = await svc('again', { clusterIP: ips[1], ports: [{ port: 80 }] });
    assert.equal(again.status, 201, again.body);

    const headless = await svc('headless', { clusterIP: 'None', selector: labels, ports: [{ port: 80 }] });
    assert.equal(headless.json.spec.clusterIP, 'None');
    assert.deepEqual(headless.json.spec.clusterIPs, ['None']);

    const np = await svc('np', { type: 'NodePort', selector: labels, ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https', nodePort: 30005 }] });
    assert.equal(np.status, 201, np.body);
    const [p0, p1] = np.json.spec.ports;
    assert.ok(p0.nodePort >= 30000 && p0.nodePort <= 30009 && p0.nodePort !== 30005, String(p0.nodePort));
    assert.equal(p1.nodePort, 30005);
    assert.equal(np.json.spec.externalTrafficPolicy, 'Cluster');
    const clash = await svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] });
    assert.deepEqual(causes(clash), ['spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated']);
    const range = await svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] });
    assert.deepEqual(causes(range), ['spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-30009']);

    const external = await svc('ext', { type: 'ExternalName', externalName: 'db.example.com' });
    assert.equal(external.status, 201, external.body);
    assert.equal(external.json.spec.clusterIP, undefined);

    const bad = await svc('bad', { type: 'Weird', ports: [{ port: 0, protocol: 'HTTP' }, { port: 81 }] });
    assert.deepEqual(causes(bad), [
      'spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      'spec.ports[0].name: Required value',
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[1].name: Required value',
    ]);
  });

  test('a Job gets its selector, labels and defaults; its template must not restart Always', async () => {
    const ns = await namespace();
    const base = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const job = await c.request('POST', base, { body: { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'busybox' }] } } } } });
    assert.equal(job.status, 201, job.body);
    const s = job.json.spec;
    const uid = job.json.metadata.uid;
    const prefix = `batch.${names.labelDomain}/`;
    assert.deepEqual(s.selector, { matchLabels: { [`${prefix}controller-uid`]: uid } });
    assert.deepEqual(s.template.metadata.labels, { [`${prefix}controller-uid`]: uid, [`${prefix}job-name`]: 'j', 'controller-uid': uid, 'job-name': 'j' });
    assert.equal(s.completions, 1);
    assert.equal(s.parallelism, 1);
    assert.equal(s.backoffLimit, 6);
    assert.equal(s.completionMode, 'NonIndexed');
    assert.equal(s.suspend, false);

    // the job controller writes the Job's status meanwhile: a 409 is read again, so the answer is the validation's
    const tpl = await retryOnConflict(`${base}/j`, (o) => ({ ...o, spec: { ...o.spec, template: { ...o.spec.template, spec: { ...o.spec.template.spec, containers: [{ ...o.spec.template.spec.containers[0], image: 'other' }] } } } }));
    assert.equal(tpl.status, 422);
    assert.equal(causes(tpl).length, 1);
    assert.match(causes(tpl)[0], /^spec\.template: Invalid value: .*: field is immutable$/);

    const always = await c.request('POST', base, { body: { metadata: { name: 'k' }, spec: { template: { spec: { containers: [{ name: 'a', image: 'busybox' }] } } } } });
    assert.deepEqual(causes(always), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);

    // a delete left to the Job's default (its pods orphaned) is warned about, as the reference does; one that says is not
    const warning = '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';
    const defaulted = await c.request('DELETE', `${base}/j`);
    assert.equal(defaulted.status, 200, defaulted.body);
    assert.equal(defaulted.headers.warning, warning);
    assert.equal((await c.request('DELETE', `${base}?labelSelector=none`)).headers.warning, warning);
    assert.equal((await c.request('DELETE', `${base}?labelSelector=none&propagationPolicy=Background`)).headers.warning, undefined);
  });

  test('CronJob, StatefulSet and DaemonSet defaults', async () => {
    const ns = await namespace();
    const cj = await c.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      body: { metadata: { name: 'cj' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'a', image: 'x:1' }] } } } } } },
    });
    assert.equal(cj.status, 201, cj.body);
    const { concurrencyPolicy, suspend, successfulJobsHistoryLimit, failedJobsHistoryLimit } = cj.json.spec;
    assert.deepEqual({ concurrencyPolicy, suspend, successfulJobsHistoryLimit, failedJobsHistoryLimit }, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const badCron = await c.request('POST', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      body: { metadata: { name: 'bad' }, spec: { schedule: 'often', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'a', image: 'x:1' }] } } } } } },
    });
    assert.deepEqual(causes(badCron), ['spec.schedule: Invalid value: "often": expected exactly 5 fields, found 1: often']);

    const ss = await c.request('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
      body: { metadata: { name: 'db' }, spec: { serviceName: 'db', selector: { matchLabels: labels }, template: template(), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } },
    });
    assert.equal(ss.status, 201, ss.body);
    assert.equal(ss.json.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(ss.json.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(ss.json.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(ss.json.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
    // the statefulset controller writes the set's status meanwhile: a 409 is read again, so the answer is the validation's
    const ssUpd = await retryOnConflict(`/apis/apps/v1/namespaces/${ns}/statefulsets/db`, (o) => ({ ...o, spec: { ...o.spec, serviceName: 'other' } }));
    assert.equal(ssUpd.status, 422);
    assert.match(causes(ssUpd)[0], /^spec: Forbidden: updates to statefulset spec for fields other than 'replicas'/);

    const ds = await c.request('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, { body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: labels }, template: template() } } });
    assert.equal(ds.status, 201, ds.body);
    assert.deepEqual(ds.json.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(ds.json.spec.revisionHistoryLimit, 10);
  });

  test('immutable Secrets and ConfigMaps; secret types and stringData', async () => {
    const ns = await namespace();
    const sec = await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 's' }, stringData: { password: 'hunter2' }, immutable: true } });
    assert.equal(sec.status, 201, sec.body);
    assert.equal(sec.json.type, 'Opaque');
    assert.deepEqual(sec.json.data, { password: Buffer.from('hunter2').toString('base64') });
    assert.equal(sec.json.stringData, undefined);
    const changed = await c.request('PUT', `/api/v1/namespaces/${ns}/secrets/s`, { body: { ...sec.json, data: { password: 'eA==' } } });
    assert.deepEqual(causes(changed), ['data: Forbidden: field is immutable when `immutable` is set']);
    const tls = await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 't' }, type: `${names.labelDomain}/tls`, data: { 'bad key': 'eA==' } } });
    assert.deepEqual(causes(tls), [
      'data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\' (e.g. \'key.name\',  or \'KEY_NAME\',  or \'key-name\', regex used for validation is \'[-._a-zA-Z0-9]+\')',
      'data[tls.crt]: Required value', 'data[tls.key]: Required value',
    ]);
    const cm = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' }, data: { a: '1' }, immutable: true } });
    assert.equal(cm.status, 201, cm.body);
    const cmChanged = await c.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, { body: { ...cm.json, data: { a: '2' }, immutable: false } });
    assert.deepEqual(causes(cmChanged), ['immutable: Forbidden: field is immutable when `immutable` is set', 'data: Forbidden: field is immutable when `immutable` is set']);
  });

  test('a new user: a realistic manifest set is accepted and reads back with defaults', async () => {
    const ns = `shop-${process.pid}`;
    const manifests: Array<[string, any]> = [
      ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }],
      [`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-config' }, data: { LOG_LEVEL: 'info' } }],
      [`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shop-secret' }, type: 'Opaque', stringData: { DB_PASSWORD: 'pw' } }],
      [`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shop' } }],
      [`${g('rbac.authorization', 'v1')}/namespaces/${ns}/roles`, { apiVersion: `${names.group('rbac.authorization')}/v1`, kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] }],
      [`${g('rbac.authorization', 'v1')}/namespaces/${ns}/rolebindings`, { apiVersion: `${names.group('rbac.authorization')}/v1`, kind: 'RoleBinding', metadata: { name: 'shop-reader' }, roleRef: { apiGroup: names.group('rbac.authorization'), kind: 'Role', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'shop', namespace: ns }] }],
      [`/apis/apps/v1/namespaces/${ns}/deployments`, {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop', labels: { app: 'shop' } },
        spec: {
          replicas: 2, selector: { matchLabels: { app: 'shop' } },
          template: {
            metadata: { labels: { app: 'shop' } },
            spec: {
              serviceAccountName: 'shop',
              containers: [{
                name: 'shop', image: 'registry.local:5000/shop:2.1.0', ports: [{ name: 'http', containerPort: 8080 }],
                envFrom: [{ configMapRef: { name: 'shop-config' } }, { secretRef: { name: 'shop-secret' } }],
                readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
              }],
            },
          },
        },
      }],
      [`/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'shop' }, spec: { selector: { app: 'shop' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } }],
      [`${g('networking', 'v1')}/namespaces/${ns}/ingresses`, { apiVersion: `${names.group('networking')}/v1`, kind: 'Ingress', metadata: { name: 'shop' }, spec: { rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { name: 'http' } } } }] } }] } }],
      [`${g('networking', 'v1')}/namespaces/${ns}/networkpolicies`, { apiVersion: `${names.group('networking')}/v1`, kind: 'NetworkPolicy', metadata: { name: 'shop' }, spec: { podSelector: { matchLabels: { app: 'shop' } }, ingress: [{ ports: [{ port: 8080 }] }] } }],
      [`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'shop' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' }, maxReplicas: 5 } }],
      [`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'shop' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'shop' } } } }],
    ];
    for (const [path, body] of manifests) {
      const r = await c.request('POST', path, { body });
      assert.equal(r.status, 201, `${body.kind}: ${r.body}`);
    }
    const read = async (path: string) => { const r = await c.get(path); assert.equal(r.status, 200, r.body); return r.json; };
    const dep = await read(`/apis/apps/v1/namespaces/${ns}/deployments/shop`);
    assert.equal(dep.spec.replicas, 2);
    assert.equal(dep.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(dep.spec.template.spec.serviceAccount, 'shop');
    assert.deepEqual(dep.spec.template.spec.containers[0].readinessProbe.httpGet, { path: '/healthz', port: 'http', scheme: 'HTTP' });
    const svc = await read(`/api/v1/namespaces/${ns}/services/shop`);
    assert.match(svc.spec.clusterIP, /^10\.96\.0\./);
    assert.equal(svc.spec.ports[0].targetPort, 'http');
    const np = await read(`${g('networking', 'v1')}/namespaces/${ns}/networkpolicies/shop`);
    assert.deepEqual(np.spec.policyTypes, ['Ingress']);
    assert.equal(np.spec.ingress[0].ports[0].protocol, 'TCP');
    const hpa = await read(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/shop`);
    assert.equal(hpa.spec.minReplicas, 1);
    assert.deepEqual(hpa.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    const sec = await read(`/api/v1/namespaces/${ns}/secrets/shop-secret`);
    assert.deepEqual(sec.data, { DB_PASSWORD: Buffer.from('pw').toString('base64') });
    const pdb = await read(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/shop`);
    assert.equal(pdb.spec.minAvailable, 1);
    const ing = await read(`${g('networking', 'v1')}/namespaces/${ns}/ingresses/shop`);
    assert.equal(ing.spec.rules[0].http.paths[0].pathType, 'Prefix');
  });

  test('every kind: create, read, update, status update (where it has one) and delete', async () => {
    const ns = await namespace();
    const n = (base: string) => `${base}/namespaces/${ns}`;
    const podSpec = { restartPolicy: 'Never', containers: [{ name: 'a', image: 'img:1' }] };
    const kinds: Kind[] = [
      { path: `${n('/api/v1')}/pods`, body: { spec: podSpec }, status: { phase: 'Running' }, check: o => assert.equal(o.spec.dnsPolicy, 'ClusterFirst') },
      { path: `${n('/api/v1')}/services`, body: { spec: { ports: [{ port: 53, protocol: 'UDP' }] } }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }, check: o => assert.equal(o.spec.ports[0].targetPort, 53) },
      { path: `${n('/api/v1')}/configmaps`, body: { data: { a: '1' } }, check: o => assert.deepEqual(o.data, { a: '1' }) },
      { path: `${n('/api/v1')}/secrets`, body: { data: { a: 'eA==' } }, check: o => assert.equal(o.type, 'Opaque') },
      { path: `${n('/api/v1')}/serviceaccounts`, body: {}, check: () => {} },
      { path: `${n('/api/v1')}/endpoints`, body: { subsets: [{ addresses: [{ ip: '10.1.0.1' }], ports: [{ port: 80 }] }] }, check: o => assert.equal(o.subsets[0].ports[0].protocol, 'TCP') },
      { path: `${n('/api/v1')}/persistentvolumeclaims`, body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, status: { phase: 'Bound' }, check: o => assert.equal(o.spec.volumeMode, 'Filesystem') },
      { path: '/api/v1/persistentvolumes', body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } } }, status: { phase: 'Available' }, check: o => assert.equal(o.spec.persistentVolumeReclaimPolicy, 'Retain') },
      { path: `${n('/api/v1')}/replicationcontrollers`, body: { spec: { template: { metadata: { labels }, spec: { containers: [{ name: 'a', image: 'img:1' }] } } } }, status: { replicas: 1 }, check: o => assert.deepEqual(o.spec.selector, labels) },
      { path: `${n('/api/v1')}/podtemplates`, body: { template: { spec: podSpec } }, check: o => assert.equal(o.template.spec.schedulerName, 'default-scheduler') },
      { path: `${n('/apis/apps/v1')}/deployments`, body: { spec: { selector: { matchLabels: labels }, template: template() } }, status: { replicas: 1 }, check: o => assert.equal(o.spec.replicas, 1) },
      { path: `${n('/apis/apps/v1')}/replicasets`, body: { spec: { selector: { matchLabels: labels }, template: template() } }, status: { replicas: 1 }, check: o => assert.equal(o.spec.replicas, 1) },
      { path: `${n('/apis/apps/v1')}/statefulsets`, body: { spec: { selector: { matchLabels: labels }, template: template() } }, status: { replicas: 1 }, check: o => assert.equal(o.spec.revisionHistoryLimit, 10) },
      { path: `${n('/apis/apps/v1')}/daemonsets`, body: { spec: { selector: { matchLabels: labels }, template: template() } }, status: { currentNumberScheduled: 1, desiredNumberScheduled: 1, numberMisscheduled: 0, numberReady: 1 }, check: o => assert.equal(o.spec.updateStrategy.type, 'RollingUpdate') },
      { path: `${n('/apis/batch/v1')}/jobs`, body: { spec: { template: { spec: podSpec } } }, status: { active: 1 }, check: o => assert.equal(o.spec.backoffLimit, 6) },
      { path: `${n('/apis/batch/v1')}/cronjobs`, body: { spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: podSpec } } } } }, status: { lastScheduleTime: '2024-01-01T00:00:00Z' }, check: o => assert.equal(o.spec.concurrencyPolicy, 'Allow') },
      { path: `${n('/apis/autoscaling/v2')}/horizontalpodautoscalers`, body: { spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2 } }, status: { currentReplicas: 1, desiredReplicas: 1 }, check: o => assert.equal(o.spec.minReplicas, 1) },
      { path: `${n('/apis/policy/v1')}/poddisruptionbudgets`, body: { spec: { maxUnavailable: '10%' } }, status: { disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 }, check: o => assert.equal(o.status.disruptionsAllowed, 0) },
      { path: `${n(g('networking', 'v1'))}/ingresses`, body: { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } }, status: { loadBalancer: { ingress: [{ hostname: 'lb' }] } }, check: o => assert.deepEqual(o.status, { loadBalancer: {} }) },
      { path: `${n(g('networking', 'v1'))}/networkpolicies`, body: { spec: { podSelector: {} } }, check: o => assert.deepEqual(o.spec.policyTypes, ['Ingress']) },
      { path: `${g('networking', 'v1')}/ingressclasses`, body: { spec: { controller: 'example.com/ingress' } }, check: () => {} },
      { path: `${n(g('discovery', 'v1'))}/endpointslices`, body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'] }], ports: [{ port: 80 }] }, check: o => assert.equal(o.ports[0].protocol, 'TCP') },
      { path: `${g('scheduling', 'v1')}/priorityclasses`, body: { value: 1000 }, check: o => assert.equal(o.preemptionPolicy, 'PreemptLowerPriority') },
      { path: `${n(g('coordination', 'v1'))}/leases`, body: { spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } }, check: o => assert.equal(o.spec.holderIdentity, 'me') },
      { path: `${n(g('rbac.authorization', 'v1'))}/roles`, body: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, check: () => {} },
      { path: `${n(g('rbac.authorization', 'v1'))}/rolebindings`, body: { roleRef: { apiGroup: names.group('rbac.authorization'), kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] }, check: () => {} },
      { path: `${n('/api/v1')}/events`, body: { involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', message: 'm' }, check: o => assert.equal(o.reason, 'Started') },
    ];
    await createReadUpdateDelete(kinds);
  });

  test('every remaining kind: create, read, update, status update (where it has one) and delete', async () => {
    const ns = await namespace();
    const webhook = { name: 'w.example.com', clientConfig: { service: { namespace: ns, name: 'hook' } }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothings'] }] };
    const webhookDefaults = (o: any) => {
      const w = o.webhooks[0];
      assert.deepEqual([w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.rules[0].scope, w.clientConfig.service.port], ['Fail', 'Equivalent', 10, '*', 443]);
      assert.deepEqual([w.namespaceSelector, w.objectSelector], [{}, {}]);
    };
    const decidedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const kinds: Kind[] = [
      {
        path: `${g('certificates', 'v1')}/certificatesigningrequests`,
        body: { spec: { request: b64(await certificateRequest('alice')), signerName: 'example.com/signer', usages: ['client auth'] } },
        // decided now: the CSR cleaner removes one decided more than an hour ago at once
        status: { conditions: [{ type: 'Failed', status: 'True', reason: 'SignerFailed', message: 'no signer', lastUpdateTime: decidedAt, lastTransitionTime: decidedAt }] },
        check: o => assert.equal(o.spec.signerName, 'example.com/signer'),
      },
      {
        path: `${g('admissionregistration', 'v1')}/mutatingwebhookconfigurations`, body: { webhooks: [webhook] },
        check: o => { webhookDefaults(o); assert.equal(o.webhooks[0].reinvocationPolicy, 'Never'); },
      },
      {
        path: `${g('admissionregistration', 'v1')}/validatingwebhookconfigurations`, body: { webhooks: [webhook] },
        check: o => { webhookDefaults(o); assert.equal(o.webhooks[0].reinvocationPolicy, undefined); },
      },
      {
        path: `${g('storage', 'v1')}/csidrivers`, body: { spec: { attachRequired: false } }, check: o => assert.equal(o.spec.attachRequired, false),
      },
      { path: `${g('storage', 'v1')}/csinodes`, body: { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'] }] } }, check: o => assert.equal(o.spec.drivers[0].nodeID, 'n1') },
      {
        path: `${g('storage', 'v1')}/volumeattachments`, body: { spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } },
        status: { attached: true, attachmentMetadata: { device: '/dev/sdb' } }, check: o => assert.equal(o.spec.source.persistentVolumeName, 'pv1'),
      },
      { path: `${g('node', 'v1')}/runtimeclasses`, body: { handler: 'runc' }, check: o => assert.equal(o.handler, 'runc') },
      {
        path: `${g('events', 'v1')}/namespaces/${ns}/events`,
        body: { eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Start', reason: 'Started', type: 'Normal', note: 'n', regarding: { kind: 'Pod', name: 'p', namespace: ns } },
        check: o => assert.equal(o.reportingController, 'example.com/ctl'),
      },
      {
        path: `${g('apiregistration', 'v1')}/apiservices`, name: 'v1alpha1.crud.example.com',
        body: { spec: { group: 'crud.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: ns, name: 'api' } } },
        status: { conditions: [{ type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
        check: o => { assert.equal(o.spec.service.name, 'api'); assert.equal(o.spec.service.port, 443); },
      },
      {
        path: `${g('apiextensions', 'v1')}/customresourcedefinitions`, name: 'gadgets.crud.example.com',
        body: { spec: { group: 'crud.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } },
        status: { storedVersions: ['v1'] },
        check: o => { assert.deepEqual(o.spec.conversion, { strategy: 'None' }); assert.equal(o.spec.names.singular, 'gadget'); assert.equal(o.spec.names.listKind, 'GadgetList'); },
      },
    ];
    await createReadUpdateDelete(kinds);
  });

  test('a CertificateSigningRequest is approved through /approval, then gets its certificate through /status', async () => {
    const base = `${g('certificates', 'v1')}/certificatesigningrequests`;
    const created = await c.request('POST', base, { body: { metadata: { name: 'approve-me' }, spec: { request: b64(await certificateRequest('bob')), signerName: 'example.com/signer', usages: ['client auth', 'digital signature'] } } });
    assert.equal(created.status, 201, created.body);
    // the requester is recorded from the request, whatever the body says
    assert.equal(created.json.spec.username, adminUser, created.body);
    assert.ok(created.json.spec.groups.includes(adminGroup), created.body);
    const approved = await c.request('PUT', `${base}/approve-me/approval`, {
      body: { ...created.json, spec: { ...created.json.spec, usages: ['server auth'] }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } },
    });
    assert.equal(approved.status, 200, approved.body);
    assert.deepEqual(approved.json.status.conditions.map((x: any) => [x.type, x.status, x.reason]), [['Approved', 'True', 'Test']]);
    assert.deepEqual(approved.json.spec.usages, ['client auth', 'digital signature'], 'the spec does not change through /approval');
    const { certPem } = createCertificateAuthority('bob', 600);
    const signed = await c.request('PUT', `${base}/approve-me/status`, { body: { ...approved.json, status: { ...approved.json.status, certificate: b64(certPem) } } });
    assert.equal(signed.status, 200, signed.body);
    assert.equal(signed.json.status.certificate, b64(certPem));
    assert.equal(signed.json.status.conditions.length, 1);
    // the main resource does not write status
    const ignored = await c.request('PUT', `${base}/approve-me`, { body: { ...signed.json, status: { conditions: [] } } });
    assert.equal(ignored.status, 200, ignored.body);
    assert.equal(ignored.json.status.conditions.length, 1);
    assert.equal((await c.request('DELETE', `${base}/approve-me`)).status, 200);
  });

  test('CSIDriver: the reference defaults', async () => {
    const r = await post(`${g('storage', 'v1')}/csidrivers`, { metadata: { name: 'defaults.csi.example.com' }, spec: {} });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.spec, { attachRequired: true, podInfoOnMount: false, requiresRepublish: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'] });
  });

  test('CertificateSigningRequest: signer and usages are checked, the request must be a PEM certificate request', async () => {
    const csr = await post(`${g('certificates', 'v1')}/certificatesigningrequests`, { metadata: { name: 'bad-csr' }, spec: { request: b64(await certificateRequest('carol')), usages: ['client auth', 'client auth', 'teleport'] } });
    assert.equal(csr.status, 422, csr.body);
    // the reference lists unknown usages before duplicates, then the signer
    assert.deepEqual(causes(csr), [
      'spec.usages[2]: Unsupported value: "teleport": supported values: ' + knownUsagesText,
      'spec.usages[1]: Duplicate value: "client auth"',
      'spec.signerName: Required value: signerName must be provided',
    ]);
    const garbage = await post(`${g('certificates', 'v1')}/certificatesigningrequests`, { metadata: { name: 'garbage' }, spec: { request: b64('not a request'), signerName: 'example.com/signer', usages: ['client auth'] } });
    // the request is bytes to the reference, printed as Go prints a byte slice
    const goBytes = `[]byte{${[...Buffer.from('not a request')].map(x => `0x${x.toString(16)}`).join(', ')}}`;
    assert.deepEqual(causes(garbage), [`spec.request: Invalid value: ${goBytes}: PEM block type must be CERTIFICATE REQUEST`]);
  });

  test('webhook configurations: every problem of a webhook is its own cause', async () => {
    const hook = await post(`${g('admissionregistration', 'v1')}/validatingwebhookconfigurations`, {
      metadata: { name: 'bad-hook' },
      webhooks: [{ name: 'short', clientConfig: {}, sideEffects: 'Some', admissionReviewVersions: ['v9'], rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }],
    });
    assert.equal(hook.status, 422, hook.body);
    assert.ok(causes(hook).length >= 4, causes(hook).join('\n'));
    assert.ok(causes(hook).includes('webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots'), causes(hook).join('\n'));
  });

  test('RuntimeClass: the handler is a DNS label and immutable', async () => {
    const rc = await post(`${g('node', 'v1')}/runtimeclasses`, { metadata: { name: 'bad-rc' }, handler: 'Not_A_Label' });
    assert.equal(rc.status, 422, rc.body);
    assert.equal(causes(rc).length, 1);
    assert.match(causes(rc)[0], /^handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of/);
    const rcOk = await post(`${g('node', 'v1')}/runtimeclasses`, { metadata: { name: 'rc' }, handler: 'runc' });
    const rcMoved = await c.request('PUT', `${g('node', 'v1')}/runtimeclasses/rc`, { body: { ...rcOk.json, handler: 'kata' } });
    assert.deepEqual(causes(rcMoved), ['handler: Invalid value: "kata": field is immutable']);
  });

  test('VolumeAttachment: attacher, source and node are required', async () => {
    const va = await post(`${g('storage', 'v1')}/volumeattachments`, { metadata: { name: 'bad-va' }, spec: { source: {} } });
    assert.deepEqual(causes(va), ['spec.attacher: Required value', 'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName', 'spec.nodeName: Required value']);
  });

  test('events Event: eventTime is required, type is Normal or Warning', async () => {
    const ns = await namespace();
    const ev = await post(`${g('events', 'v1')}/namespaces/${ns}/events`, { metadata: { name: 'bad-ev' }, type: 'Odd' });
    assert.equal(ev.status, 422, ev.body);
    assert.ok(causes(ev).includes('eventTime: Required value'), causes(ev).join('\n'));
    assert.ok(causes(ev).includes('type: Invalid value: "": has invalid value: Odd'), causes(ev).join('\n'));
  });

  test('core Event: the namespace is the object\'s, and one with an eventTime names its reporter (under its core/v1 name) and action', async () => {
    const ns = await namespace();
    const core = `/api/v1/namespaces/${ns}/events`;
    const elsewhere = await post(core, { metadata: { name: 'elsewhere' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' }, reason: 'R' });
    assert.deepEqual(causes(elsewhere), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
    // a cluster-scoped object's events live in `default`
    const nodeEvent = await post(core, { metadata: { name: 'node-event' }, involvedObject: { kind: 'Node', name: 'n' }, reason: 'R' });
    assert.deepEqual(causes(nodeEvent), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
    const newer = await post(core, { metadata: { name: 'newer' }, eventTime: '2026-01-02T03:04:05.000000Z', involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R' });
    assert.deepEqual(causes(newer).filter((x: string) => x.includes('Required')), ['reportingComponent: Required value', 'reportingInstance: Required value', 'action: Required value']);
    const ok = await post(core, { metadata: { name: 'ok' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R', message: 'm' });
    assert.equal(ok.status, 201, ok.body);
    // an update is checked too (though its message may change through core/v1)
    const moved = await c.request('PATCH', `${core}/ok`, { body: { message: 'm2', involvedObject: { namespace: 'other' } }, contentType: 'application/merge-patch+json' });
    assert.deepEqual(causes(moved), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
    const changed = await c.request('PATCH', `${core}/ok`, { body: { message: 'm2' }, contentType: 'application/merge-patch+json' });
    assert.equal(changed.status, 200, changed.body);
  });

  test('events Event: events/v1 and core/v1 are two forms of the same events, written and read through either', async () => {
    const ns = await namespace();
    const newer = `${g('events', 'v1')}/namespaces/${ns}/events`;
    const core = `/api/v1/namespaces/${ns}/events`;
    const w = await c.watch(`${newer}?watch=true`);
    const made = await post(newer, {
      metadata: { name: 'reconciled' }, eventTime: '2026-01-02T03:04:05.000000Z', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1',
      action: 'Reconcile', reason: 'Synced', note: 'synced it', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: ns },
    });
    assert.equal(made.status, 201, made.body);
    const asCore = (await c.get(`${core}/reconciled`)).json;
    assert.deepEqual([asCore.apiVersion, asCore.involvedObject.name, asCore.message, asCore.reportingComponent, asCore.reportingInstance, asCore.eventTime],
      ['v1', 'p', 'synced it', 'example.com/ctl', 'ctl-1', '2026-01-02T03:04:05.000000Z']);
    // what a core client records (kubectl describe's source) is read in the newer form
    assert.equal((await post(core, { metadata: { name: 'started' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', message: 'm', count: 3, source: { component: 'agent' } })).status, 201);
    const list = (await c.get(newer)).json;
    // (the list names its version; its items, as the reference's, name none)
    assert.equal(list.apiVersion, `${names.group('events')}/v1`);
    assert.deepEqual(list.items.map((e: any) => [e.metadata.name, e.apiVersion, e.regarding.name, e.note, e.deprecatedCount ?? null, e.deprecatedSource?.component ?? null]).sort(),
      [['reconciled', undefined, 'p', 'synced it', null, null], ['started', undefined, 'p', 'm', 3, 'agent']]);
    // field selectors name the events/v1 fields
    const selected = (await c.get(`${newer}?fieldSelector=${encodeURIComponent('regarding.name=p,reportingController=example.com/ctl')}`)).json;
    assert.deepEqual(selected.items.map((e: any) => e.metadata.name), ['reconciled']);
    const bySource = await c.get(`${newer}?fieldSelector=${encodeURIComponent('source=agent')}`);
    assert.equal(bySource.status, 200, bySource.body);
    assert.deepEqual(bySource.json.items.map((e: any) => e.metadata.name), ['started']);
    // an event with no source is selected by its reporter, through either API (kubectl get events --field-selector source=...)
    for (const path of [newer, core]) {
      const byReporter = await c.get(`${path}?fieldSelector=${encodeURIComponent('source=example.com/ctl')}`);
      assert.equal(byReporter.status, 200, byReporter.body);
      assert.deepEqual(byReporter.json.items.map((e: any) => e.metadata.name), ['reconciled'], path);
    }
    const patched = await c.request('PATCH', `${newer}/reconciled`, { body: { series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' } }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.body);
    assert.equal((await c.get(`${core}/reconciled`)).json.series.count, 2);
    assert.deepEqual([(await w.next(30_000))?.object.note, (await w.next(30_000))?.object.note, (await w.next(30_000))?.object.series?.count], ['synced it', 'm', 2]);
    w.close();
    assert.equal((await c.request('DELETE', `${core}/reconciled`)).status, 200);
    assert.equal((await c.get(`${newer}/reconciled`)).status, 404);
  });

  test('APIService: the name is <version>.<group>, priorities are in range', async () => {
    const apis = await post(`${g('apiregistration', 'v1')}/apiservices`, { metadata: { name: 'wrong.example.com' }, spec: { group: 'bad.example.com', version: 'v1', versionPriority: 10 } });
    assert.equal(apis.status, 422, apis.body);
    assert.ok(causes(apis).some((x: string) => x.startsWith('metadata.name: Invalid value: "wrong.example.com"')), causes(apis).join('\n'));
    assert.ok(causes(apis).includes('spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000'), causes(apis).join('\n'));
  });

  test('CustomResourceDefinition: the name is <plural>.<group>, scope is Namespaced or Cluster', async () => {
    const crd = await post(`${g('apiextensions', 'v1')}/customresourcedefinitions`, { metadata: { name: 'things.example.com' }, spec: { group: 'other.example.com', scope: 'Sideways', names: { plural: 'things', kind: 'Thing' }, versions: [] } });
    assert.equal(crd.status, 422, crd.body);
    assert.ok(causes(crd).includes('metadata.name: Invalid value: "things.example.com": must be spec.names.plural+"."+spec.group'), causes(crd).join('\n'));
    assert.ok(causes(crd).some((x: string) => x.startsWith('spec.scope: Unsupported value: "Sideways"')), causes(crd).join('\n'));
  });

  test('Ingress, NetworkPolicy, HPA, PDB, PVC and RBAC refuse what the reference refuses', async () => {
    const ns = await namespace();
    const ing = await post(`${g('networking', 'v1')}/namespaces/${ns}/ingresses`, { metadata: { name: 'i' }, spec: { rules: [{ http: { paths: [{ path: 'x', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } });
    assert.deepEqual(causes(ing), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
    const hpa = await post(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, { metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment' }, minReplicas: 3, maxReplicas: 2 } });
    assert.deepEqual(causes(hpa), ['spec.scaleTargetRef.name: Required value', 'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`']);
    const pdb = await post(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { metadata: { name: 'p' }, spec: { minAvailable: '150%' } });
    assert.deepEqual(causes(pdb), ['spec.minAvailable: Invalid value: "150%": must not be greater than 100%']);
    const pvc = await post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, { metadata: { name: 'c' }, spec: {} });
    assert.deepEqual(causes(pvc), ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
    const ok = await post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, { metadata: { name: 'd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.equal(ok.status, 201, ok.body);
    assert.equal(ok.json.spec.volumeMode, 'Filesystem');
    assert.equal(ok.json.status.phase, 'Pending');
    const rb = await post(`${g('rbac.authorization', 'v1')}/namespaces/${ns}/rolebindings`, { metadata: { name: 'rb' }, roleRef: { kind: 'Thing', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r' }] });
    assert.deepEqual(causes(rb), ['roleRef.kind: Unsupported value: "Thing": supported values: "ClusterRole", "Role"', 'subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"']);
  });
});
