// Every admission plugin through a real server, enabled by the flags (with its configuration through
// --admission-control-config-file where it has one), its effect shown by requests over HTTPS. The plugins
// admission.test.ts covers (ServiceAccount, TaintNodesByCondition, ResourceQuota, AlwaysPullImages,
// DenyServiceExternalIPs) and the webhook and policy plugins (admission-policy.test.ts) are shown there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { call, fakeHttpsService, issueClientCert, serverCa, writeWebhookConfig, type FakeService, type Identity } from './auth-support.js';
import { certificateRequest } from '../support/certificate-request.js';
import { createCertificateAuthority } from '../../src/pki/certificates.js';
import { until } from '../support/wait.js';

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) =>
  ({ metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx:1' }], ...spec } });
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** a server with these flags and, when given, an AdmissionConfiguration holding these plugins' configurations (inline,
 *  or the name of one of the files);
 *  files are written to a folder of their own first, whose path `DIR` in a flag stands for */
async function serverWith(flags: string[], configurations: Record<string, unknown> = {}, files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'admission-plugins-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const extra: string[] = [];
  if (Object.keys(configurations).length) {
    const file = join(dir, 'admission.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'apiserver.config.cluster.io/v1', kind: 'AdmissionConfiguration',
      // a string names a file of its own, beside the configuration file; anything else is given inline
      plugins: Object.entries(configurations).map(([name, c]) => (typeof c === 'string' ? { name, path: c } : { name, configuration: c })),
    }));
    extra.push(`--admission-control-config-file=${file}`);
  }
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  const server = await startTestServer({ flags: [...flags.map(f => f.replaceAll('DIR', dir)), ...extra] }).catch(e => { cleanUp(); throw e; });
  return { server, dir, close: async () => { await server.close(); cleanUp(); } };
}

describe('admission plugins enabled by flags, through the HTTP API', () => {
  let s: Awaited<ReturnType<typeof serverWith>>, server: TestServer, c: Client;
  const olga: Identity = { token: 'olga-token' }, carl: Identity = { token: 'carl-token' };
  let node1: Identity;
  const create = (path: string, body: unknown) => c.request('POST', path, { body });
  const ns = async (name: string, annotations: Record<string, string> = {}, labels: Record<string, string> = {}) =>
    assert.equal((await create('/api/v1/namespaces', { metadata: { name, annotations, labels } })).status, 201);

  before(async () => {
    s = await serverWith([
      '--authorization-mode=Node,RBAC', '--token-auth-file=DIR/tokens.csv',
      '--enable-admission-plugins=AlwaysAdmit,ExtendedResourceToleration,LimitPodHardAntiAffinityTopology,SecurityContextDeny,'
        + 'NamespaceAutoProvision,PodNodeSelector,PodTolerationRestriction,PersistentVolumeLabel,EventRateLimit,'
        + 'OwnerReferencesPermissionEnforcement,NodeRestriction',
      '--default-not-ready-toleration-seconds=60', '--default-unreachable-toleration-seconds=90',
    ], {
      EventRateLimit: { apiVersion: 'eventratelimit.admission.cluster.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Namespace', qps: 0.001, burst: 2, cacheSize: 10 }] },
      PodNodeSelector: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'region=eu', limited: 'env=prod' } },
      PodTolerationRestriction: { apiVersion: 'podtolerationrestriction.admission.cluster.io/v1alpha1', kind: 'Configuration',
        default: [{ key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' }] },
      PersistentVolumeLabel: 'persistent-volume-label.yaml',
      PodSecurity: { apiVersion: 'pod-security.admission.config.cluster.io/v1', kind: 'PodSecurityConfiguration',
        defaults: { enforce: 'baseline' }, exemptions: { namespaces: ['exempt-ns'] } },
      ResourceQuota: { apiVersion: 'apiserver.config.cluster.io/v1', kind: 'ResourceQuotaConfiguration',
        limitedResources: [{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['limited'] }] },
          { resource: 'persistentvolumeclaims', matchContains: ['gold.storageclass.storage.cluster.io/requests.storage'] }] },
    }, { 'tokens.csv': 'olga-token,olga,u1\ncarl-token,carl,u2\n',
      'persistent-volume-label.yaml': 'persistentVolumeLabel:\n  region: eu-west\n  zone: eu-west-1a__eu-west-1b\n' });
    server = s.server;
    c = createClient(server);
    node1 = await issueClientCert(serverCa(server), 'system:node:n1', ['system:nodes']);
  });
  after(async () => { c?.close(); await s?.close(); });

  test('AlwaysAdmit admits what no other plugin refuses', async () => {
    assert.equal((await create('/api/v1/namespaces/default/configmaps', { metadata: { name: 'admitted' } })).status, 201);
  });

  test('ExtendedResourceToleration: a pod requesting an extended resource tolerates its taint', async () => {
    const r = await create('/api/v1/namespaces/default/pods', pod('gpu', { containers: [{ name: 'c', image: 'cuda', resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } } }] }));
    assert.equal(r.status, 201, r.body);
    assert.ok(r.json.spec.tolerations.some((t: any) => t.key === 'example.com/gpu' && t.operator === 'Exists' && t.effect === 'NoSchedule'));
  });

  test('LimitPodHardAntiAffinityTopology refuses required anti-affinity over zones', async () => {
    const r = await create('/api/v1/namespaces/default/pods', pod('spread', { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'topology.cluster.io/zone' }] } } }));
    assert.equal(r.status, 403);
    assert.match(r.json.message, /only key cluster.io\/hostname is allowed/);
  });

  test('SecurityContextDeny refuses a pod that picks its user', async () => {
    const r = await create('/api/v1/namespaces/default/pods', pod('root', { securityContext: { runAsUser: 0 } }));
    assert.equal(r.status, 403);
    assert.match(r.json.message, /pod.Spec.SecurityContext.RunAsUser is forbidden/);
  });

  test('NamespaceAutoProvision creates the namespace a new object names', async () => {
    assert.equal((await c.get('/api/v1/namespaces/made-on-demand')).status, 404);
    assert.equal((await create('/api/v1/namespaces/made-on-demand/configmaps', { metadata: { name: 'x' } })).status, 201);
    assert.equal((await c.get('/api/v1/namespaces/made-on-demand')).status, 200);
  });

  test('PodNodeSelector: the namespace selector (or the cluster default) is merged; conflicts and selectors outside the allowed ones are refused', async () => {
    await ns('ssd-only', { 'scheduler.alpha.cluster.io/node-selector': 'disk=ssd' });
    const merged = await create('/api/v1/namespaces/ssd-only/pods', pod('p', { nodeSelector: { team: 'a' } }));
    assert.equal(merged.status, 201, merged.body);
    assert.deepEqual(merged.json.spec.nodeSelector, { disk: 'ssd', team: 'a' });
    const conflict = await create('/api/v1/namespaces/ssd-only/pods', pod('q', { nodeSelector: { disk: 'hdd' } }));
    assert.equal(conflict.status, 403);
    assert.match(conflict.json.message, /pod node label selector conflicts with its namespace node label selector/);
    const plain = await create('/api/v1/namespaces/default/pods', pod('defaulted'));
    assert.equal(plain.json.spec.nodeSelector.region, 'eu');
    await ns('limited');
    const outside = await create('/api/v1/namespaces/limited/pods', pod('r', { nodeSelector: { env: 'dev' } }));
    assert.equal(outside.status, 403);
    assert.match(outside.json.message, /pod node label selector labels conflict with its namespace whitelist/);
  });

  test('PodTolerationRestriction: namespace or cluster default tolerations are merged; the allow-list refuses others', async () => {
    await ns('ml', { 'scheduler.alpha.cluster.io/defaultTolerations': JSON.stringify([{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }]) });
    const merged = await create('/api/v1/namespaces/ml/pods', pod('p'));
    assert.equal(merged.status, 201, merged.body);
    assert.ok(merged.json.spec.tolerations.some((t: any) => t.key === 'dedicated' && t.value === 'ml'));
    const clusterDefault = await create('/api/v1/namespaces/default/pods', pod('tolerant'));
    assert.ok(clusterDefault.json.spec.tolerations.some((t: any) => t.key === 'cluster-default'));
    await ns('strict-tolerations', { 'scheduler.alpha.cluster.io/tolerationsWhitelist': JSON.stringify([{ operator: 'Exists', effect: 'NoExecute' }, { key: 'cluster-default', operator: 'Exists' }]) });
    const refused = await create('/api/v1/namespaces/strict-tolerations/pods', pod('p', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] }));
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /conflict with its namespace whitelist/);
    assert.equal((await create('/api/v1/namespaces/strict-tolerations/pods', pod('ok'))).status, 201);
  });

  test('PersistentVolumeLabel labels a cloud disk with the configured region and zones and requires them', async () => {
    const r = await create('/api/v1/persistentvolumes', { metadata: { name: 'disk' }, spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], gcePersistentDisk: { pdName: 'disk-1' } } });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json.metadata.labels['topology.cluster.io/region'], 'eu-west');
    assert.deepEqual(r.json.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions, [
      { key: 'topology.cluster.io/region', operator: 'In', values: ['eu-west'] },
      { key: 'topology.cluster.io/zone', operator: 'In', values: ['eu-west-1a', 'eu-west-1b'] }]);
    const local = await create('/api/v1/persistentvolumes', { metadata: { name: 'local' }, spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } });
    assert.equal(local.json.metadata.labels, undefined);
  });

  test('EventRateLimit refuses events past the namespace burst with 429', async () => {
    await ns('chatty');
    const event = (i: number, namespace = 'chatty') => ({ metadata: { name: `e${i}` }, involvedObject: { kind: 'Pod', name: 'p', namespace }, reason: 'Tested', message: 'm', type: 'Normal' });
    assert.equal((await create('/api/v1/namespaces/chatty/events', event(1))).status, 201);
    assert.equal((await create('/api/v1/namespaces/chatty/events', event(2))).status, 201);
    const limited = await create('/api/v1/namespaces/chatty/events', event(3));
    assert.equal(limited.status, 429);
    assert.match(limited.json.message, /Too many requests: limit reached on type Namespace for key chatty/);
    // another namespace has a bucket of its own
    assert.equal((await create('/api/v1/namespaces/default/events', event(4, 'default'))).status, 201);
  });

  test('OwnerReferencesPermissionEnforcement: owner references need delete on the object, blocking ones need finalizers on the owner', async () => {
    await ns('owned');
    const rbac = '/apis/rbac.authorization.cluster.io/v1/namespaces/owned';
    const role = (name: string, verbs: string[], resources: string[]) => create(`${rbac}/roles`, { metadata: { name }, rules: [{ apiGroups: [''], resources, verbs }] });
    const bind = (name: string, role: string) => create(`${rbac}/rolebindings`, { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.cluster.io', kind: 'Role', name: role }, subjects: [{ kind: 'User', name: 'olga' }] });
    assert.equal((await role('writer', ['create', 'get', 'update', 'patch'], ['configmaps'])).status, 201);
    assert.equal((await bind('writer', 'writer')).status, 201);
    const owner = await create('/api/v1/namespaces/owned/configmaps', { metadata: { name: 'owner' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata.uid };
    const asOlga = (method: string, path: string, body?: unknown) => call(server, olga, method, `/api/v1/namespaces/owned/configmaps${path}`, { body });
    await waitFor(async () => (await asOlga('GET', '/owner')).status === 200);
    // creating with a reference needs no delete permission
    assert.equal((await asOlga('POST', '', { metadata: { name: 'child', ownerReferences: [ref] } })).status, 201);
    assert.equal((await asOlga('POST', '', { metadata: { name: 'orphan' } })).status, 201);
    const changed = await asOlga('PUT', '/orphan', { metadata: { name: 'orphan', ownerReferences: [ref] } });
    assert.equal(changed.status, 403);
    assert.match(changed.json.message, /cannot set an ownerRef on a resource you can't delete/);
    assert.equal((await role('deleter', ['delete'], ['configmaps'])).status, 201);
    assert.equal((await bind('deleter', 'deleter')).status, 201);
    await waitFor(async () => (await asOlga('PUT', '/orphan', { metadata: { name: 'orphan', ownerReferences: [ref] } })).status === 200);
    const blocking = await asOlga('PUT', '/orphan', { metadata: { name: 'orphan', ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } });
    assert.equal(blocking.status, 403);
    assert.match(blocking.json.message, /cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on/);
  });

  test('CertificateApproval and CertificateSigning need approve and sign on the signer; CertificateSubjectRestriction keeps system:masters out', async () => {
    const csrs = '/apis/certificates.cluster.io/v1/certificatesigningrequests';
    const masters = await create(csrs, { metadata: { name: 'masters' }, spec: {
      request: b64(await certificateRequest('root', ['system:masters'])), signerName: 'cluster.io/kube-apiserver-client', usages: ['client auth'] } });
    assert.equal(masters.status, 403);
    assert.match(masters.json.message, /use of cluster.io\/kube-apiserver-client signer with system:masters group is not allowed/);
    const made = await create(csrs, { metadata: { name: 'app' }, spec: { request: b64(await certificateRequest('app')), signerName: 'example.com/signer', usages: ['client auth'] } });
    assert.equal(made.status, 201, made.body);
    const rbac = '/apis/rbac.authorization.cluster.io/v1';
    assert.equal((await create(`${rbac}/clusterroles`, { metadata: { name: 'csr-writer' }, rules: [
      { apiGroups: ['certificates.cluster.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update'] }] })).status, 201);
    assert.equal((await create(`${rbac}/clusterrolebindings`, { metadata: { name: 'carl' }, roleRef: { apiGroup: 'rbac.authorization.cluster.io', kind: 'ClusterRole', name: 'csr-writer' },
      subjects: [{ kind: 'User', name: 'carl' }] })).status, 201);
    const approved = { ...made.json, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Tested', message: 'ok' }] } };
    let r = await call(server, carl, 'PUT', `${csrs}/app/approval`, { body: approved });
    // until the binding reaches the authorizer, RBAC refuses before admission is asked
    await waitFor(async () => !/cannot update resource/.test((r = await call(server, carl, 'PUT', `${csrs}/app/approval`, { body: approved })).body));
    assert.equal(r.status, 403);
    assert.match(r.json.message, /user not permitted to approve requests with signerName "example.com\/signer"/);
    const signed = { ...made.json, status: { certificate: b64(createCertificateAuthority('issued', 3600).certPem) } };
    r = await call(server, carl, 'PUT', `${csrs}/app/status`, { body: signed });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /user not permitted to sign requests with signerName "example.com\/signer"/);
  });

  test('DefaultStorageClass and DefaultIngressClass fill in the default class, the newest when several are marked default', async () => {
    const sc = (name: string) => create('/apis/storage.cluster.io/v1/storageclasses', { metadata: { name, annotations: { 'storageclass.cluster.io/is-default-class': 'true' } }, provisioner: 'example.com/p' });
    const ic = (name: string) => create('/apis/networking.cluster.io/v1/ingressclasses', { metadata: { name, annotations: { 'ingressclass.cluster.io/is-default-class': 'true' } }, spec: { controller: 'example.com/c' } });
    const claim = (name: string) => create('/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const ingress = (name: string) => create('/apis/networking.cluster.io/v1/namespaces/default/ingresses', { metadata: { name }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } });
    assert.equal((await sc('standard')).status, 201);
    assert.equal((await ic('nginx')).status, 201);
    await waitFor(async () => (await claim(`c${Date.now()}`)).json?.spec?.storageClassName === 'standard');
    await waitFor(async () => (await ingress(`i${Date.now()}`)).json?.spec?.ingressClassName === 'nginx');
    assert.equal((await sc('fast')).status, 201);
    assert.equal((await ic('contour')).status, 201);
    // several default storage classes: the newest is taken, as the reference (1.26 and later) does
    await waitFor(async () => (await claim(`d${Date.now()}`)).json?.spec?.storageClassName === 'fast');
    await waitFor(async () => (await ingress(`j${Date.now()}`)).json?.spec?.ingressClassName === 'contour');
  });

  test('DefaultTolerationSeconds takes its durations from the flags', async () => {
    const r = await create('/api/v1/namespaces/default/pods', pod('tolerates'));
    const seconds = Object.fromEntries(r.json.spec.tolerations.filter((t: any) => t.tolerationSeconds).map((t: any) => [t.key, t.tolerationSeconds]));
    assert.deepEqual(seconds, { 'node.cluster.io/not-ready': 60, 'node.cluster.io/unreachable': 90 });
  });

  test('LimitRanger gives containers the namespace default requests and limits', async () => {
    await ns('limits');
    assert.equal((await create('/api/v1/namespaces/limits/limitranges', { metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '100m' } }] } })).status, 201);
    await waitFor(async () => (await create('/api/v1/namespaces/limits/pods', pod(`p${Date.now()}`))).json?.spec?.containers?.[0]?.resources?.limits?.cpu === '500m');
  });

  test('NamespaceLifecycle keeps the system namespaces', async () => {
    const r = await c.request('DELETE', '/api/v1/namespaces/default');
    assert.equal(r.status, 403);
    assert.match(r.json.message, /this namespace may not be deleted/);
  });

  test('PersistentVolumeClaimResize refuses growing a claim whose class does not allow expansion', async () => {
    assert.equal((await create('/apis/storage.cluster.io/v1/storageclasses', { metadata: { name: 'fixed' }, provisioner: 'example.com/p' })).status, 201);
    const made = await create('/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name: 'fixed-size' }, spec: { storageClassName: 'fixed', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.equal(made.status, 201, made.body);
    const bound = await c.request('PUT', '/api/v1/namespaces/default/persistentvolumeclaims/fixed-size/status', { body: { ...made.json, status: { phase: 'Bound' } } });
    assert.equal(bound.status, 200, bound.body);
    const grown = await c.request('PUT', '/api/v1/namespaces/default/persistentvolumeclaims/fixed-size', { body: { ...bound.json, spec: { ...bound.json.spec, resources: { requests: { storage: '2Gi' } } } } });
    assert.equal(grown.status, 403);
    assert.match(grown.json.message, /storageclass that provisions the pvc must support resize/);
    assert.ok(bound.json.metadata.finalizers.includes('cluster.io/pvc-protection'), 'StorageObjectInUseProtection added its finalizer');
  });

  test('PodSecurity: the configured default level is enforced, and an exempt namespace is not checked', async () => {
    const privileged = (name: string) => pod(name, { containers: [{ name: 'c', image: 'nginx:1', securityContext: { privileged: true } }] });
    const refused = await create('/api/v1/namespaces/default/pods', privileged('priv'));
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /violates PodSecurity "baseline:latest": privileged/);
    await ns('exempt-ns');
    assert.equal((await create('/api/v1/namespaces/exempt-ns/pods', privileged('priv'))).status, 201);
  });

  test('ResourceQuota limitedResources: a limited pod scope or storage class is consumed only where a quota covers it', async () => {
    await ns('limited-ns');
    assert.equal((await create('/apis/scheduling.cluster.io/v1/priorityclasses', { metadata: { name: 'limited' }, value: 5000 })).status, 201);
    const limitedPod = (name: string) => pod(name, { priorityClassName: 'limited' });
    await waitFor(async () => (await create('/api/v1/namespaces/limited-ns/pods', limitedPod('probe'))).status === 403);
    const refused = await create('/api/v1/namespaces/limited-ns/pods', limitedPod('first'));
    assert.equal(refused.json.message, 'pods "first" is forbidden: insufficient quota to match these scopes: [{PriorityClass In [limited]}]');
    assert.equal((await create('/api/v1/namespaces/limited-ns/pods', pod('ordinary'))).status, 201, 'pods outside the limited scope need no quota');
    const claim = (name: string) => create('/api/v1/namespaces/limited-ns/persistentvolumeclaims', { metadata: { name },
      spec: { storageClassName: 'gold', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.match((await claim('c1')).json.message, /insufficient quota to consume: gold.storageclass.storage.cluster.io\/requests.storage$/);
    assert.equal((await create('/api/v1/namespaces/limited-ns/resourcequotas', { metadata: { name: 'covering' }, spec: {
      hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['limited'] }] } } })).status, 201);
    assert.equal((await create('/api/v1/namespaces/limited-ns/resourcequotas', { metadata: { name: 'gold' }, spec: {
      hard: { 'gold.storageclass.storage.cluster.io/requests.storage': '5Gi' } } })).status, 201);
    await waitFor(async () => (await create('/api/v1/namespaces/limited-ns/pods', limitedPod(`covered-${Date.now()}`))).status === 201);
    await waitFor(async () => (await claim(`c-${Date.now()}`)).status === 201);
  });

  test('Priority resolves the class to its value and refuses an unknown class', async () => {
    assert.equal((await create('/apis/scheduling.cluster.io/v1/priorityclasses', { metadata: { name: 'high' }, value: 1000 })).status, 201);
    const r = await create('/api/v1/namespaces/default/pods', pod('important', { priorityClassName: 'high' }));
    assert.equal(r.json.spec.priority, 1000);
    const missing = await create('/api/v1/namespaces/default/pods', pod('lost', { priorityClassName: 'ghost' }));
    assert.equal(missing.status, 403);
    assert.match(missing.json.message, /no PriorityClass with name ghost was found/);
  });

  test('RuntimeClass adds the class overhead', async () => {
    assert.equal((await create('/apis/node.cluster.io/v1/runtimeclasses', { metadata: { name: 'sandboxed' }, handler: 'runsc', overhead: { podFixed: { cpu: '250m' } } })).status, 201);
    await waitFor(async () => (await create('/api/v1/namespaces/default/pods', pod(`sandboxed-${Date.now()}`, { runtimeClassName: 'sandboxed' }))).json?.spec?.overhead?.cpu === '250m');
  });

  describe('NodeRestriction: an agent changes only its own Node and the pods bound to it', () => {
    const asNode = (method: string, path: string, body?: unknown) => call(server, node1, method, path, { body });
    test('its own Node, with agent labels only', async () => {
      const own = await asNode('POST', '/api/v1/nodes', { metadata: { name: 'n1', labels: { 'cluster.io/hostname': 'n1', 'node.cluster.io/instance-type': 'big' } } });
      assert.equal(own.status, 201, own.body);
      const other = await asNode('POST', '/api/v1/nodes', { metadata: { name: 'n2' } });
      assert.equal(other.status, 403);
      assert.match(other.json.message, /node "n1" is not allowed to modify node "n2"/);
      const restricted = await asNode('PUT', '/api/v1/nodes/n1', { ...own.json, metadata: { ...own.json.metadata, labels: { ...own.json.metadata.labels, 'node-restriction.cluster.io/pool': 'secure' } } });
      assert.equal(restricted.status, 403);
      assert.match(restricted.json.message, /is not allowed to modify labels: node-restriction.cluster.io\/pool/);
      const vendor = await asNode('PUT', '/api/v1/nodes/n1', { ...own.json, metadata: { ...own.json.metadata, labels: { ...own.json.metadata.labels, 'cluster.io/role': 'master' } } });
      assert.equal(vendor.status, 403);
      const untainted = await asNode('PUT', '/api/v1/nodes/n1', { ...own.json, spec: { ...own.json.spec, taints: [] } });
      assert.equal(untainted.status, 403);
      assert.match(untainted.json.message, /is not allowed to modify taints/);
      const configSource = { configMap: { name: 'agent-config', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } };
      const reconfigured = await asNode('PUT', '/api/v1/nodes/n1', { ...own.json, spec: { ...own.json.spec, configSource } });
      assert.equal(reconfigured.status, 403, reconfigured.body);
      assert.match(reconfigured.json.message, /node "n1" is not allowed to update configSource to a new non-nil configSource/);
      const relabelled = await asNode('PUT', '/api/v1/nodes/n1', { ...own.json, metadata: { ...own.json.metadata, labels: { ...own.json.metadata.labels, 'kubelet.cluster.io/ok': 'yes' } } });
      assert.equal(relabelled.status, 200, relabelled.body);
    });
    test('pods bound to it, never those of another node', async () => {
      assert.equal((await create('/api/v1/nodes', { metadata: { name: 'n2' } })).status, 201);
      const theirs = await create('/api/v1/namespaces/default/pods', pod('on-n2', { nodeName: 'n2' }));
      const ours = await create('/api/v1/namespaces/default/pods', pod('on-n1', { nodeName: 'n1' }));
      assert.equal(theirs.status, 201);
      assert.equal(ours.status, 201);
      await waitFor(async () => (await asNode('GET', '/api/v1/namespaces/default/pods/on-n1')).status === 200);
      const status = (p: any) => asNode('PUT', `/api/v1/namespaces/default/pods/${p.metadata.name}/status`, { ...p, status: { phase: 'Running' } });
      assert.equal((await status(ours.json)).status, 200);
      const other = await status(theirs.json);
      assert.equal(other.status, 403);
      assert.match(other.json.message, /node "n1" can only update pod status for pods with spec.nodeName set to itself/);
      const deleted = await asNode('DELETE', '/api/v1/namespaces/default/pods/on-n2');
      assert.equal(deleted.status, 403);
      assert.match(deleted.json.message, /can only delete pods with spec.nodeName set to itself/);
      const plain = await asNode('POST', '/api/v1/namespaces/default/pods', pod('not-mirror', { nodeName: 'n1' }));
      assert.equal(plain.status, 403);
      assert.match(plain.json.message, /can only create mirror pods/);
      const mirror = (name: string, nodeName: string) => pod(name, { nodeName }, { annotations: { 'cluster.io/config.mirror': 'hash' } });
      assert.equal((await asNode('POST', '/api/v1/namespaces/default/pods', mirror('static-n1', 'n1'))).status, 201);
      const elsewhere = await asNode('POST', '/api/v1/namespaces/default/pods', mirror('static-n2', 'n2'));
      assert.equal(elsewhere.status, 403);
      assert.match(elsewhere.json.message, /can only create pods with spec.nodeName set to itself/);
    });
    test('service-account tokens only bound to a pod of its own, named with its uid', async () => {
      await waitFor(async () => (await c.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
      const pods = Object.fromEntries(await Promise.all(['on-n1', 'on-n2'].map(async n => [n, (await c.get(`/api/v1/namespaces/default/pods/${n}`)).json])));
      const token = (boundObjectRef?: Record<string, string>) => asNode('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { ...(boundObjectRef ? { boundObjectRef } : {}) } });
      const ref = (p: any, uid = p.metadata.uid) => ({ apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, uid });
      const unbound = await token();
      assert.equal(unbound.status, 403, unbound.body);
      assert.equal(unbound.json.message, 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
      const noUid = await token({ apiVersion: 'v1', kind: 'Pod', name: 'on-n1' });
      assert.equal(noUid.status, 403);
      assert.match(noUid.json.message, /node requested token with a pod binding without a uid/);
      const theirs = await token(ref(pods['on-n2']));
      assert.equal(theirs.status, 403);
      assert.match(theirs.json.message, /node requested token bound to a pod scheduled on a different node/);
      const ours = await token(ref(pods['on-n1']));
      assert.equal(ours.status, 201, ours.body);
      assert.ok(ours.json.status.token);
    });
    // the Eviction is admitted as a create of pods/eviction: the pod it names is looked up to find its node
    test('evictions of its own pods only', async () => {
      const evict = (name: string) => asNode('POST', `/api/v1/namespaces/default/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });
      const theirs = await evict('on-n2');
      assert.equal(theirs.status, 403, theirs.body);
      assert.match(theirs.json.message, /node "n1" can only evict pods with spec.nodeName set to itself/);
      const ours = await evict('on-n1');
      assert.equal(ours.status, 201, ours.body);
    });
  });
});

// AlwaysDeny refuses the writes of the server's own clients too (admission applies to them, as in the reference): a
// server that runs its controller manager, scheduler or metrics server in its process is refused at start-up, at once,
// with what to do; one that runs alone (as the reference's kube-apiserver) starts, serves reads and refuses every write.
describe('AlwaysDeny', () => {
  test('with in-process clients the server refuses to start, saying why', async () => {
    await assert.rejects(serverWith(['--enable-admission-plugins=AlwaysDeny', '--metrics-server=true']),
      /AlwaysDeny refuses every write, including those of the controller manager, metrics server this server runs as its own clients.*--controller-manager=false --metrics-server=false/);
  });

  describe('a server that runs alone', () => {
    let s: Awaited<ReturnType<typeof serverWith>>, c: Client;
    before(async () => {
      s = await serverWith(['--enable-admission-plugins=AlwaysDeny', '--controller-manager=false', '--scheduler=false', '--metrics-server=false']);
      c = createClient(s.server);
    });
    after(async () => { c?.close(); await s?.close(); });

    test('refuses every write with the reference\'s message, and serves reads', async () => {
      const created = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'x' } } });
      assert.equal(created.status, 403);
      assert.equal(created.json.reason, 'Forbidden');
      assert.equal(created.json.message, 'configmaps "x" is forbidden: admission control is denying all modifications');
      assert.deepEqual(created.json.details, { name: 'x', kind: 'configmaps' });
      const updated = await c.request('PUT', '/api/v1/namespaces/default', { body: { metadata: { name: 'default', labels: { a: 'b' } } } });
      assert.equal(updated.status, 403);
      assert.equal(updated.json.message, 'namespaces "default" is forbidden: admission control is denying all modifications');
      const deleted = await c.request('DELETE', '/api/v1/namespaces/default');
      assert.equal(deleted.status, 403);
      assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
      assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps/x')).status, 404);
    });
  });
});

describe('NamespaceExists (with NamespaceLifecycle off)', () => {
  let s: Awaited<ReturnType<typeof serverWith>>;
  before(async () => { s = await serverWith(['--enable-admission-plugins=NamespaceExists', '--disable-admission-plugins=NamespaceLifecycle']); });
  after(() => s?.close());
  test('refuses objects in a namespace that does not exist', async () => {
    const c = createClient(s.server);
    const r = await c.request('POST', '/api/v1/namespaces/nowhere/configmaps', { body: { metadata: { name: 'x' } } });
    c.close();
    assert.equal(r.status, 404);
    assert.match(r.json.message, /namespaces "nowhere" not found/);
  });
});

describe('ImagePolicyWebhook', () => {
  let s: Awaited<ReturnType<typeof serverWith>>, backend: FakeService, c: Client;
  const dir = mkdtempSync(join(tmpdir(), 'image-policy-'));
  before(async () => {
    backend = await fakeHttpsService(dir, 'image-policy', (_req, review) => {
      const images: string[] = review.spec.containers.map((x: { image: string }) => x.image);
      const bad = images.filter(i => i.startsWith('evil/'));
      return { apiVersion: review.apiVersion, kind: 'ImageReview', status: bad.length ? { allowed: false, reason: `${bad.join(',')} is not trusted` } : { allowed: true } };
    });
    writeWebhookConfig(join(dir, 'backend.kubeconfig'), backend, '/review');
    writeWebhookConfig(join(dir, 'down.kubeconfig'), { ...backend, url: 'https://127.0.0.1:1' }, '/review');
    s = await serverWith(['--enable-admission-plugins=ImagePolicyWebhook'], {
      ImagePolicyWebhook: { imagePolicy: { kubeConfigFile: join(dir, 'backend.kubeconfig'), allowTTL: 50, denyTTL: 50, retryBackoff: 5, defaultAllow: false } },
    });
    c = createClient(s.server);
  });
  after(async () => { c?.close(); await s?.close(); await backend?.close(); rmSync(dir, { recursive: true, force: true }); });

  test('the backend decides on the images, and sees only the image-policy annotations', async () => {
    const ok = await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod('trusted', {}, { annotations: { 'mycluster.image-policy.cluster.io/ticket': '1234', other: 'x' } }) });
    assert.equal(ok.status, 201, ok.body);
    const review = backend.requests.at(-1)!.body;
    assert.equal(review.kind, 'ImageReview');
    assert.equal(review.apiVersion, 'imagepolicy.cluster.io/v1alpha1');
    assert.deepEqual(review.spec, { containers: [{ image: 'nginx:1' }], annotations: { 'mycluster.image-policy.cluster.io/ticket': '1234' }, namespace: 'default' });
    const denied = await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod('untrusted', { containers: [{ name: 'c', image: 'evil/miner' }] }) });
    assert.equal(denied.status, 403);
    assert.match(denied.json.message, /image policy webhook backend denied one or more images: evil\/miner is not trusted/);
  });

  test('answers are cached for their TTL', async () => {
    const before = backend.requests.length;
    // the same images, annotations and namespace are the same review
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod('trusted-again', {}, { annotations: { 'mycluster.image-policy.cluster.io/ticket': '1234' } }) })).status, 201);
    assert.equal(backend.requests.length, before);
  });

  test('a backend that cannot be reached refuses pods unless defaultAllow, which records that it failed open', async () => {
    const down = await serverWith(['--enable-admission-plugins=ImagePolicyWebhook'], {
      ImagePolicyWebhook: { imagePolicy: { kubeConfigFile: join(dir, 'down.kubeconfig'), retryBackoff: 1, defaultAllow: false } } });
    const open = await serverWith(['--enable-admission-plugins=ImagePolicyWebhook'], {
      ImagePolicyWebhook: { imagePolicy: { kubeConfigFile: join(dir, 'down.kubeconfig'), retryBackoff: 1, defaultAllow: true } } });
    try {
      const cd = createClient(down.server), co = createClient(open.server);
      const refused = await cd.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p') });
      assert.equal(refused.status, 403);
      assert.match(refused.json.message, /image policy webhook backend could not be reached/);
      const admitted = await co.request('POST', '/api/v1/namespaces/default/pods', { body: pod('p') });
      assert.equal(admitted.status, 201, admitted.body);
      assert.equal(admitted.json.metadata.annotations['alpha.image-policy.cluster.io/failed-open'], 'true');
      cd.close(); co.close();
    } finally {
      await down.close();
      await open.close();
    }
  });

  test('a configuration without a backend is refused at start-up', async () => {
    await assert.rejects(serverWith(['--enable-admission-plugins=ImagePolicyWebhook'], { ImagePolicyWebhook: { imagePolicy: { allowTTL: 5 } } }),
      /admission plugin ImagePolicyWebhook: imagePolicy.kubeConfigFile is required/);
  });
});

describe('start-up checks of the admission flags', () => {
  test('turning off a webhook plugin while its configurations are served is refused, saying what to add', async () => {
    await assert.rejects(serverWith(['--disable-admission-plugins=ValidatingAdmissionWebhook']),
      /ValidatingAdmissionWebhook is disabled but admissionregistration.cluster.io\/v1 validatingwebhookconfigurations are still served.*--runtime-config=admissionregistration.cluster.io\/v1\/validatingwebhookconfigurations=false/);
    const off = await serverWith(['--disable-admission-plugins=ValidatingAdmissionWebhook', '--runtime-config=admissionregistration.cluster.io/v1/validatingwebhookconfigurations=false']);
    await off.close();
  });
  test('a wrong plugin configuration stops the server with the plugin and field named', async () => {
    await assert.rejects(serverWith(['--enable-admission-plugins=EventRateLimit'], {
      EventRateLimit: { apiVersion: 'eventratelimit.admission.cluster.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Galaxy', qps: 1, burst: 1 }] } }),
    /admission plugin EventRateLimit: limits\[0\].type: Unsupported value: "Galaxy"/);
  });
});

/** retries a check until it holds: caches (authorization, listers, configurations) take a moment to see new objects */
const waitFor = (check: () => Promise<boolean>) => until(check, 'the server to act on the new objects');
