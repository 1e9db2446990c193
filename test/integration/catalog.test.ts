// The catalog over HTTP: protobuf responses (objects, lists, watch events, errors) for every kind with a
// protobuf form, JSON for the rest, and `--runtime-config` switching versions and resources.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest, Agent } from 'node:https';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { naming } from '../../src/api/naming.js';
import { decodeEnvelope, encodeObject, protobufToJson } from '../../src/api/protobuf/codec.js';
import { readFields } from '../../src/api/protobuf/wire.js';
import { createClient, type Client, type Reply } from './client.js';

const names = naming();
const pb = names.protobufMediaType;
const g = (base: string, version: string) => `/apis/${names.group(base)}/${version}`;

/** a protobuf body decoded to the reference's JSON */
const fromProtobuf = (bytes: Buffer): any => {
  const env = decodeEnvelope(bytes, names);
  return protobufToJson(env.raw, env.apiVersion, env.kind);
};

const podSpec = { restartPolicy: 'Never', containers: [{ name: 'a', image: 'img:1', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] };
const labels = { app: 'web' };
const template = { metadata: { labels }, spec: { ...podSpec, restartPolicy: 'Always' } };

/** one object of each kind with a protobuf form: collection path (namespaced under NS) and body */
const kinds = (ns: string): Array<{ path: string; body: Record<string, unknown>; status?: Record<string, unknown> }> => {
  const n = (base: string) => `${base}/namespaces/${ns}`;
  return [
    { path: '/api/v1/namespaces', body: {} },
    { path: `${n('/api/v1')}/pods`, body: { spec: podSpec }, status: { phase: 'Running', podIP: '10.0.0.5', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null }] } },
    { path: `${n('/api/v1')}/services`, body: { spec: { ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }] } } },
    { path: `${n('/api/v1')}/configmaps`, body: { data: { a: '1' }, binaryData: { b: 'AAE=' } } },
    { path: `${n('/api/v1')}/secrets`, body: { data: { a: 'eA==' }, type: 'Opaque' } },
    { path: `${n('/api/v1')}/serviceaccounts`, body: { automountServiceAccountToken: false } },
    { path: `${n('/api/v1')}/endpoints`, body: { subsets: [{ addresses: [{ ip: '10.1.0.1', nodeName: 'n1' }], ports: [{ port: 80, name: 'http' }] }] } },
    { path: `${n('/api/v1')}/limitranges`, body: { spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, max: { memory: '1Gi' } }] } } },
    { path: `${n('/api/v1')}/resourcequotas`, body: { spec: { hard: { pods: '10' } } }, status: { hard: { pods: '10' }, used: { pods: '1' } } },
    { path: `${n('/api/v1')}/persistentvolumeclaims`, body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, status: { phase: 'Bound', capacity: { storage: '1Gi' } } },
    { path: '/api/v1/persistentvolumes', body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } } }, status: { phase: 'Available' } },
    { path: '/api/v1/nodes', body: { spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] } }, status: {
      // not Ready: the node keeps the not-ready taint it was registered with, so no controller write races the reads below
      capacity: { cpu: '4', pods: '110' }, allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6', osImage: 'x', containerRuntimeVersion: 'c', kubeletVersion: 'v1.27.0', kubeProxyVersion: 'v1.27.0', operatingSystem: 'linux', architecture: 'amd64' },
      images: [{ names: ['nginx:1.25'], sizeBytes: 1000 }],
    } },
    { path: `${n('/api/v1')}/replicationcontrollers`, body: { spec: { template } } },
    { path: `${n('/api/v1')}/podtemplates`, body: { template: { spec: podSpec } } },
    { path: `${n('/api/v1')}/events`, body: { involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Started', message: 'm', count: 2, firstTimestamp: '2024-01-01T00:00:00Z' } },
    { path: `${n('/apis/apps/v1')}/deployments`, body: { spec: { selector: { matchLabels: labels }, template } }, status: { replicas: 1, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2024-01-01T00:00:00Z' }] } },
    { path: `${n('/apis/apps/v1')}/replicasets`, body: { spec: { selector: { matchLabels: labels }, template } }, status: { replicas: 1, readyReplicas: 1 } },
    { path: `${n('/apis/apps/v1')}/statefulsets`, body: { spec: { serviceName: 's', selector: { matchLabels: labels }, template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } }, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } },
    { path: `${n('/apis/apps/v1')}/daemonsets`, body: { spec: { selector: { matchLabels: labels }, template } }, status: { currentNumberScheduled: 1, desiredNumberScheduled: 1, numberMisscheduled: 0, numberReady: 1 } },
    { path: `${n('/apis/apps/v1')}/controllerrevisions`, body: { data: { spec: { a: 1 } }, revision: 3 } },
    { path: `${n('/apis/batch/v1')}/jobs`, body: { spec: { template: { spec: podSpec } } }, status: { active: 1 } },
    { path: `${n('/apis/batch/v1')}/cronjobs`, body: { spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: podSpec } } } } } },
    { path: `${n('/apis/autoscaling/v1')}/horizontalpodautoscalers`, body: { spec: { scaleTargetRef: { kind: 'Deployment', name: 'd', apiVersion: 'apps/v1' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } } },
    { path: `${n('/apis/autoscaling/v2')}/horizontalpodautoscalers`, body: { spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] } }, status: { currentReplicas: 1, desiredReplicas: 1 } },
    { path: `${n('/apis/policy/v1')}/poddisruptionbudgets`, body: { spec: { maxUnavailable: '10%', selector: { matchLabels: labels } } } },
    { path: `${n(g('networking', 'v1'))}/ingresses`, body: { spec: { rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } } },
    { path: `${n(g('networking', 'v1'))}/networkpolicies`, body: { spec: { podSelector: { matchLabels: labels }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 80 }] }] } } },
    { path: `${g('networking', 'v1')}/ingressclasses`, body: { spec: { controller: 'example.com/ingress' } } },
    { path: `${n(g('discovery', 'v1'))}/endpointslices`, body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true } }], ports: [{ port: 80, name: 'http' }] } },
    { path: `${n(g('coordination', 'v1'))}/leases`, body: { spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.123456Z' } } },
    { path: `${g('storage', 'v1')}/storageclasses`, body: { provisioner: 'example.com/disk', parameters: { type: 'ssd' }, allowVolumeExpansion: true } },
    { path: `${g('scheduling', 'v1')}/priorityclasses`, body: { value: 1000, description: 'd' } },
    { path: `${n(g('rbac.authorization', 'v1'))}/roles`, body: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
    { path: `${n(g('rbac.authorization', 'v1'))}/rolebindings`, body: { roleRef: { apiGroup: names.group('rbac.authorization'), kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] } },
    { path: `${g('rbac.authorization', 'v1')}/clusterroles`, body: { rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] } },
    { path: `${g('rbac.authorization', 'v1')}/clusterrolebindings`, body: { roleRef: { apiGroup: names.group('rbac.authorization'), kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'Group', name: 'g', apiGroup: names.group('rbac.authorization') }] } },
  ];
};

const without = (o: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

describe('protobuf responses', { concurrency: 1 }, () => {
  let server: TestServer;
  let c: Client;
  // no controllers: the objects are compared across reads, and a controller would change them in between
  before(async () => { server = await startTestServer({ flags: ['--controller-manager=false'] }); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });

  test('every kind: created from protobuf, read, updated, status-updated, listed and deleted in protobuf, the same JSON as asked in JSON', async () => {
    const ns = 'default';
    // pods need the namespace's service account, which a controller may not have made yet
    const sa = await c.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'default' } } });
    assert.ok(sa.status === 201 || sa.status === 409, sa.body);
    // a named client: the server records an empty manager as "manager": "", where the reference leaves it out
    const accept = { accept: `${pb}, application/json`, 'user-agent': 'catalog-test/1.0' };
    for (const k of kinds(ns)) {
      const name = `k-${k.path.split('/').pop()}`;
      const [apiVersion, kind] = await (async () => {
        const list = await c.get(k.path);
        assert.equal(list.status, 200, `${k.path}: ${list.body}`);
        return [list.json.apiVersion as string, (list.json.kind as string).replace(/List$/, '')];
      })();
      const body = encodeObject({ apiVersion, kind, metadata: { name }, ...k.body });
      const created = await c.request('POST', k.path, { body, contentType: pb, headers: accept });
      assert.equal(created.status, 201, `${k.path}: ${created.body}`);
      assert.equal(created.headers['content-type'], pb, k.path);
      const path = `${k.path}/${name}`;
      const asJson = await c.get(path);
      const got = await c.get(path, accept);
      assert.equal(got.headers['content-type'], pb, path);
      assert.deepEqual(fromProtobuf(got.raw), asJson.json, `${path}: the protobuf form reads back as the JSON form`);
      assert.deepEqual(fromProtobuf(created.raw), asJson.json, `${path}: the create response`);

      const updated = await c.request('PUT', path, { body: encodeObject({ ...asJson.json, metadata: { ...asJson.json.metadata, labels: { touched: 'yes' } } }), contentType: pb, headers: accept });
      assert.equal(updated.status, 200, `${path}: ${updated.body}`);
      assert.equal(fromProtobuf(updated.raw).metadata.labels.touched, 'yes');
      if (k.status) {
        const current = fromProtobuf(updated.raw);
        const st = await c.request('PUT', `${path}/status`, { body: encodeObject({ ...current, status: k.status }), contentType: pb, headers: accept });
        assert.equal(st.status, 200, `${path}/status: ${st.body}`);
        const after = fromProtobuf(st.raw);
        for (const [f, v] of Object.entries(k.status)) assert.deepEqual(after.status[f], v, `${path} status.${f}`);
        assert.deepEqual(after, (await c.get(path)).json, `${path}: status in protobuf`);
      }

      const list = await c.get(`${k.path}?fieldSelector=metadata.name=${name}`, accept);
      assert.equal(list.status, 200, `${k.path}: ${list.body}`);
      const decoded = fromProtobuf(list.raw);
      const jsonList = (await c.get(`${k.path}?fieldSelector=metadata.name=${name}`)).json;
      assert.equal(decoded.kind, `${kind}List`);
      // list items carry no apiVersion and kind in protobuf
      assert.deepEqual(decoded.items, jsonList.items.map((i: any) => without(i, 'apiVersion', 'kind')), `${k.path} list`);
      assert.equal(decoded.metadata.resourceVersion, jsonList.metadata.resourceVersion);

      if (k.path === '/api/v1/namespaces') continue;
      const del = await c.request('DELETE', path, { headers: accept });
      assert.equal(del.status, 200, `${path}: ${del.body}`);
      // a delete answers with the object or a success Status, both in protobuf as the reference negotiates them
      const deleted = fromProtobuf(del.raw);
      assert.equal(deleted.kind === 'Status' ? deleted.details.name : deleted.metadata.name, name, path);
      const gone = await c.get(path);
      // a finalizer (claims and volumes in use) leaves the object terminating
      assert.ok(gone.status === 404 || gone.json.metadata.deletionTimestamp, path);
    }
  });

  test('watch events are length-prefixed WatchEvent messages holding the object in its envelope', async () => {
    const agent = new Agent({ ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem });
    const url = new URL(server.url);
    const chunks: Buffer[] = [];
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      httpsRequest({ agent, host: url.hostname, port: url.port, path: '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=5', headers: { accept: pb } }, resolve).on('error', reject).end();
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], `${pb};stream=watch`);
    res.on('data', (b: Buffer) => chunks.push(b));
    await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'watched' }, data: { a: '1' } } });
    await c.request('DELETE', '/api/v1/namespaces/default/configmaps/watched');
    const events: Array<{ type: string; object: any }> = [];
    for (let tries = 0; events.length < 2 && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      const all = Buffer.concat(chunks);
      events.length = 0;
      for (let pos = 0; pos + 4 <= all.length;) {
        const len = all.readUInt32BE(pos);
        if (pos + 4 + len > all.length) break;
        const fields = readFields(all.subarray(pos + 4, pos + 4 + len));
        const type = (fields.find((f) => f.number === 1)!.value as Buffer).toString();
        const raw = readFields(fields.find((f) => f.number === 2)!.value as Buffer).find((f) => f.number === 1)!.value as Buffer;
        events.push({ type, object: fromProtobuf(raw) });
        pos += 4 + len;
      }
    }
    res.destroy();
    agent.destroy();
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata.name, e.object.data]), [
      ['ADDED', 'ConfigMap', 'watched', { a: '1' }], ['DELETED', 'ConfigMap', 'watched', { a: '1' }],
    ]);
  });

  test('errors: a protobuf Status when the client takes protobuf first, as the reference negotiates it; malformed bodies are 400', async () => {
    const only = await c.get('/api/v1/namespaces/default/configmaps/missing', { accept: pb });
    assert.equal(only.status, 404);
    assert.equal(only.headers['content-type'], pb);
    const status = fromProtobuf(only.raw);
    assert.deepEqual([status.kind, status.reason, status.code, status.details.name], ['Status', 'NotFound', 404, 'missing']);
    const either = await c.get('/api/v1/namespaces/default/configmaps/missing', { accept: `${pb}, application/json` });
    assert.equal(either.headers['content-type'], pb);
    assert.equal(fromProtobuf(either.raw).reason, 'NotFound');
    const jsonFirst = await c.get('/api/v1/namespaces/default/configmaps/missing', { accept: `application/json, ${pb}` });
    assert.equal(jsonFirst.headers['content-type'], 'application/json');
    assert.equal(jsonFirst.json.reason, 'NotFound');

    const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cut' }, data: { a: 'b' } });
    for (const bad of [good.subarray(0, good.length - 3), good.subarray(0, 6), Buffer.concat([good.subarray(0, 4), Buffer.from([0xff, 0xff, 0xff])]), Buffer.from('not protobuf')]) {
      const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: bad, contentType: pb });
      assert.equal(r.status, 400, r.body);
      assert.equal(r.json.reason, 'BadRequest');
    }
    assert.equal((await c.get('/healthz')).status, 200, 'the server is still up');
  });

  test('custom resources have no protobuf form: JSON as the next choice, 406 without one, 415 for a protobuf body', async () => {
    const group = 'pb.example.com';
    const crds = `${g('apiextensions', 'v1')}/customresourcedefinitions`;
    const crd = await c.request('POST', crds, { body: {
      metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    } });
    assert.equal(crd.status, 201, crd.body);
    const path = `/apis/${group}/v1alpha1/namespaces/default/gadgets`;
    let r: Reply | undefined;
    for (let i = 0; i < 200 && (r = await c.get(path)).status !== 200; i++) await new Promise((res) => setTimeout(res, 25));
    assert.equal(r!.status, 200, 'a v1alpha1 custom resource is served whatever --runtime-config says of built-in alphas');
    const made = await c.request('POST', path, { body: { apiVersion: `${group}/v1alpha1`, kind: 'Gadget', metadata: { name: 'x' } }, headers: { accept: `${pb}, application/json` } });
    assert.equal(made.status, 201, made.body);
    assert.equal(made.headers['content-type'], 'application/json');
    assert.equal((await c.get(`${path}/x`, { accept: pb })).status, 406);
    assert.equal((await c.get(path, { accept: pb })).status, 406);
    const body = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } });
    const refused = await c.request('POST', path, { body: Buffer.concat([body.subarray(0, 6), Buffer.from(`${group}/v1alpha1`), body.subarray(8)]), contentType: pb });
    assert.ok(refused.status === 415 || refused.status === 400, refused.body);
    const typed = await c.request('POST', path, { body: encodeEnvelopeFor(`${group}/v1alpha1`, 'Gadget'), contentType: pb });
    assert.equal(typed.status, 415, typed.body);
  });
});

/** an envelope naming a kind the codec has no form for */
function encodeEnvelopeFor(apiVersion: string, kind: string): Buffer {
  const typeMeta = Buffer.concat([field(1, Buffer.from(apiVersion)), field(2, Buffer.from(kind))]);
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), field(1, typeMeta), field(2, Buffer.alloc(0))]);
}
const field = (n: number, b: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);

describe('--runtime-config', { concurrency: 1 }, () => {
  const admission = names.group('admissionregistration');
  const policies = `/apis/${admission}/v1alpha1/validatingadmissionpolicies`;

  test('alpha is off by default, stable on; removed versions are not served', async () => {
    const server = await startTestServer();
    const c = createClient(server);
    try {
      assert.equal((await c.get(policies)).status, 404);
      assert.equal((await c.get(`/apis/${admission}/v1/validatingwebhookconfigurations`)).status, 200);
      for (const removed of [`/apis/${names.group('rbac.authorization')}/v1beta1/roles`, '/apis/apps/v1beta1/deployments', '/apis/extensions/v1beta1/ingresses',
        `/apis/${names.group('networking')}/v1beta1/ingresses`, `/apis/${names.group('storage')}/v1beta1/storageclasses`, `/apis/${names.group('coordination')}/v1beta1/leases`,
        `/apis/${names.group('apiextensions')}/v1beta1/customresourcedefinitions`, `/apis/${names.group('certificates')}/v1beta1/certificatesigningrequests`]) {
        assert.equal((await c.get(removed)).status, 404, removed);
      }
    } finally { c.close(); await server.close(); }
  });

  test('group versions and single resources switch on and off', async () => {
    const server = await startTestServer({ flags: ['--feature-gates=ValidatingAdmissionPolicy=true', `--runtime-config=${admission}/v1alpha1=true,apps/v1/daemonsets=false,batch/v1=false,batch/v1/jobs=true,v1/podtemplates=false`] });
    const c = createClient(server);
    try {
      const made = await c.request('POST', policies, { body: { metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations: [{ expression: 'true' }] } } });
      assert.equal(made.status, 201, made.body);
      assert.deepEqual((await c.get(`${policies}/p`)).json.spec.validations, [{ expression: 'true' }]);
      assert.equal((await c.get(`/apis/${admission}/v1alpha1/validatingadmissionpolicybindings`)).status, 200);
      assert.equal((await c.get('/apis/apps/v1/daemonsets')).status, 404);
      assert.equal((await c.get('/apis/apps/v1/deployments')).status, 200);
      assert.equal((await c.get('/apis/batch/v1/cronjobs')).status, 404);
      assert.equal((await c.get('/apis/batch/v1/jobs')).status, 200, 'a resource key beats its group version');
      assert.equal((await c.get('/api/v1/podtemplates')).status, 404);
      assert.equal((await c.get('/api/v1/pods')).status, 200);
      const discovery = (await c.get('/apis/apps/v1')).json.resources.map((r: any) => r.name);
      assert.ok(!discovery.includes('daemonsets') && discovery.includes('deployments'), discovery.join());
    } finally { c.close(); await server.close(); }
  });

  test('api/all, api/ga, api/beta, api/alpha and api/legacy switch whole tracks; the server starts with any of them', async () => {
    const served = async (flag: string, paths: Record<string, number>) => {
      const server = await startTestServer({ flags: [`--runtime-config=${flag}`, '--feature-gates=ValidatingAdmissionPolicy=true'] });
      const c = createClient(server);
      try {
        for (const [path, status] of Object.entries(paths)) assert.equal((await c.get(path)).status, status, `${flag}: ${path}`);
        assert.equal((await c.get('/readyz')).status, 200, `${flag}: ready`);
      } finally { c.close(); await server.close(); }
    };
    await served('api/all=false', { '/api/v1/pods': 404, '/apis/apps/v1/deployments': 404, '/apis': 200, '/version': 200 });
    await served('api/all=false,api/v1=true', { '/api/v1/pods': 200, '/apis/apps/v1/deployments': 404 });
    await served('api/all=false,apps/v1=true', { '/api/v1/pods': 404, '/apis/apps/v1/deployments': 200 });
    await served('api/alpha=true', { [policies]: 200, '/apis/apps/v1/deployments': 200 });
    await served('api/ga=false,api/v1=true', { '/api/v1/pods': 200, '/apis/apps/v1/deployments': 404, [`/apis/${names.group('flowcontrol.apiserver')}/v1beta3/flowschemas`]: 200 });
    await served('api/beta=false', { [`/apis/${names.group('flowcontrol.apiserver')}/v1beta3/flowschemas`]: 404, '/apis/apps/v1/deployments': 200 });
    await served('api/legacy=false', { '/api/v1/pods': 404, '/apis/apps/v1/deployments': 200 });
  });

  test('a key naming nothing the server has refuses to start', async () => {
    await assert.rejects(startTestServer({ flags: ['--runtime-config=apps/v1beta1=true'] }), /unknown API group versions or resources in runtime-config: apps\/v1beta1/);
  });
});
