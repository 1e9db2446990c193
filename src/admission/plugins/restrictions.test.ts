// Unit tests of the plugins that restrict or complete pods and other writes from their configuration:
// NodeRestriction, EventRateLimit, PodTolerationRestriction, PodNodeSelector, ExtendedResourceToleration,
// NamespaceAutoProvision, OwnerReferencesPermissionEnforcement, PersistentVolumeLabel, PodSecurity's configuration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attrs, fakeDeps, pod } from '../testing/fakes.js';
import { mergeTolerations, specOf, toleratesSuperset } from '../util.js';
import type { Pod, PersistentVolume, Toleration } from '../../api/types/core-v1.js';
import type { Authorizer } from '../../api/auth.js';
import type { ApiObject } from '../../api/meta.js';
import type { OwnerReference } from '../../api/types/meta-v1.js';
import { defaultApiDomain, naming } from '../../api/naming.js';
import nodeRestriction, { forbiddenNodeLabels } from './node-restriction.js';
import eventRateLimit from './event-rate-limit.js';
import podTolerationRestriction from './pod-toleration-restriction.js';
import podNodeSelector from './pod-node-selector.js';
import extendedResourceToleration, { isExtendedResource } from './extended-resource-toleration.js';
import namespaceAutoProvision from './namespace-auto-provision.js';
import ownerReferences from './owner-references-permission-enforcement.js';
import persistentVolumeLabel from './persistent-volume-label.js';
import podSecurity from './pod-security.js';

const rejects = async (f: () => unknown, re: RegExp) => assert.rejects(async () => f(), (e: Error) => { assert.match(e.message, re); return true; });
const node = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, labels: {} }, spec: {}, ...extra });
const agent = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const namespaceObj = (annotations: Record<string, string> = {}, labels: Record<string, string> = {}) =>
  ({ group: '', resource: 'namespaces', obj: { metadata: { name: 'ns', annotations, labels } } });

describe('NodeRestriction', () => {
  const k8s = naming('k8s.io'), cluster = naming(defaultApiDomain);
  test('agent labels, node-restriction labels and the vendor domains', () => {
    assert.deepEqual(forbiddenNodeLabels(['kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
      'node.kubernetes.io/instance-type', 'beta.kubernetes.io/arch', 'kubelet.kubernetes.io/x', 'sub.node.kubernetes.io/y', 'example.com/mine', 'plain'], k8s), []);
    assert.deepEqual(forbiddenNodeLabels(['node-restriction.kubernetes.io/pool', 'kubernetes.io/role', 'k8s.io/x', 'sub.k8s.io/y', 'example.node-restriction.kubernetes.io/z'], k8s),
      ['example.node-restriction.kubernetes.io/z', 'k8s.io/x', 'kubernetes.io/role', 'node-restriction.kubernetes.io/pool', 'sub.k8s.io/y']);
    assert.deepEqual(forbiddenNodeLabels(['node-restriction.cluster.io/pool', 'cluster.io/hostname'], cluster), ['node-restriction.cluster.io/pool']);
  });
  test('other users are not concerned; an agent may not delete its Node or touch another one', async () => {
    const p = nodeRestriction.create(fakeDeps());
    await p.validate!(attrs({ resource: 'nodes', namespace: '', name: 'n2', operation: 'DELETE', object: undefined }));
    await rejects(() => p.validate!(attrs({ resource: 'nodes', namespace: '', name: 'n1', operation: 'DELETE', object: undefined, user: agent })), /node "n1" is not allowed to delete its Node object/);
    await rejects(() => p.validate!(attrs({ resource: 'nodes', namespace: '', name: 'n2', object: node('n2'), user: agent })), /is not allowed to modify node "n2"/);
    await rejects(() => p.validate!(attrs({ resource: 'nodes', namespace: '', name: 'n1', object: node('n1', { metadata: { name: 'n1', labels: { 'cluster.io/role': 'x' } } }), user: agent })),
      /is not allowed to set the following labels: cluster.io\/role/);
    await rejects(() => p.validate!(attrs({ resource: 'pods', subresource: 'exec', operation: 'CREATE', object: pod({}), user: agent })), /unexpected pod subresource "exec"/);
  });
  test('its own lease and CSINode, claim status only in its allowed fields', async () => {
    const p = nodeRestriction.create(fakeDeps());
    const lease = (ns: string, name: string) => attrs({ group: 'coordination.cluster.io', resource: 'leases', namespace: ns, name, object: { metadata: { name } }, user: agent });
    await p.validate!(lease('cluster-node-lease', 'n1'));
    await rejects(() => p.validate!(lease('cluster-node-lease', 'n2')), /can only access node lease with the same name as the requesting node/);
    await rejects(() => p.validate!(lease('default', 'n1')), /can only access leases in the cluster-node-lease namespace/);
    await rejects(() => p.validate!(attrs({ group: 'storage.cluster.io', resource: 'csinodes', namespace: '', name: 'n2', object: { metadata: { name: 'n2' } }, user: agent })),
      /can only access CSINode with the same name as the requesting node/);
    const claim = (labels: Record<string, string>, capacity: string): ApiObject => ({ metadata: { name: 'c', labels }, spec: {}, status: { capacity: { storage: capacity } } });
    const status = (obj: ApiObject) => attrs({ resource: 'persistentvolumeclaims', subresource: 'status', operation: 'UPDATE', object: obj, oldObject: claim({}, '1Gi'), user: agent });
    await p.validate!(status(claim({}, '2Gi')));
    await rejects(() => p.validate!(status(claim({ stolen: 'yes' }, '2Gi'))), /is not allowed to update fields other than status.capacity and status.conditions/);
    await rejects(() => p.validate!(attrs({ resource: 'persistentvolumeclaims', operation: 'UPDATE', object: claim({}, '1Gi'), user: agent })), /may only update PVC status/);
  });
  test('mirror pods refer to no secret, config map, claim or account, and are owned only by their node', async () => {
    const nodeObj = { group: '', resource: 'nodes', obj: { metadata: { name: 'n1', uid: 'u-n1' } } };
    const p = nodeRestriction.create(fakeDeps([nodeObj]));
    const mirror = (spec: object, meta: object = {}) => attrs({ object: pod({ nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...spec },
      { annotations: { 'cluster.io/config.mirror': 'h' }, ...meta }), user: agent });
    await p.validate!(mirror({}));
    await p.validate!(mirror({}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u-n1', controller: true }] }));
    await rejects(() => p.validate!(mirror({}, { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'other', controller: true }] })), /UID mismatch/);
    await rejects(() => p.validate!(mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] })), /can not create pods that reference secrets/);
    await rejects(() => p.validate!(mirror({ containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] })), /can not create pods that reference configmaps/);
    await rejects(() => p.validate!(mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] })), /can not create pods that reference persistentvolumeclaims/);
    await rejects(() => p.validate!(mirror({ serviceAccountName: 'sa' })), /can not create pods that reference a service account/);
  });
});

describe('EventRateLimit', () => {
  const config = (limits: object[]) => ({ apiVersion: 'eventratelimit.admission.cluster.io/v1alpha1', kind: 'Configuration', limits });
  const event = (user: string, ns = 'ns', source = 'kubelet') => attrs({ resource: 'events', kind: { group: '', version: 'v1', kind: 'Event' }, namespace: ns, user: { username: user, groups: [] },
    object: { metadata: { name: 'e' }, source: { component: source }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns } } });
  // every limit takes a token, even from a request another limit refuses, as the reference counts them
  test('buckets by user and by source and object, each with its burst', async () => {
    const p = eventRateLimit.create({ ...fakeDeps(), config: config([{ type: 'User', qps: 0.0001, burst: 1 }, { type: 'SourceAndObject', qps: 0.0001, burst: 3 }]) });
    await p.validate!(event('ann'));
    await rejects(() => p.validate!(event('ann')), /Too many requests: limit reached on type User for key ann/);
    await p.validate!(event('bob'));
    await rejects(() => p.validate!(event('cid')), /limit reached on type SourceAndObject for key kubeletPodnsp/);
    await p.validate!(event('dan', 'ns', 'scheduler'));
  });
  test('dry runs and other kinds take no token; a wrong configuration is refused', async () => {
    const p = eventRateLimit.create({ ...fakeDeps(), config: config([{ type: 'Server', qps: 0.0001, burst: 1 }]) });
    await p.validate!({ ...event('a'), dryRun: true });
    await p.validate!(attrs({ resource: 'configmaps', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, object: { metadata: { name: 'x' } } }));
    await p.validate!(event('a'));
    await rejects(() => p.validate!(event('b')), /limit reached on type Server/);
    assert.throws(() => eventRateLimit.create({ ...fakeDeps(), config: config([{ type: 'User', qps: 0, burst: 1 }]) }), /limits\[0\].qps: Invalid value: 0: must be positive/);
    assert.throws(() => eventRateLimit.create({ ...fakeDeps(), config: { kind: 'Configuration', apiVersion: 'v1', limits: [] } }), /expected a Configuration of eventratelimit.admission.cluster.io\/v1alpha1/);
    assert.throws(() => eventRateLimit.create(fakeDeps()), /limits: Required value/);
  });
});

describe('tolerations', () => {
  const t = (x: Partial<Toleration>): Toleration => x as Toleration;
  test('a toleration covers those it tolerates at least as widely', () => {
    assert.ok(toleratesSuperset(t({ operator: 'Exists' }), t({ key: 'a', operator: 'Equal', value: 'b', effect: 'NoSchedule' })));
    assert.ok(toleratesSuperset(t({ key: 'a', operator: 'Exists' }), t({ key: 'a', value: 'b', effect: 'NoExecute' })));
    assert.ok(!toleratesSuperset(t({ key: 'a', operator: 'Exists', effect: 'NoSchedule' }), t({ key: 'a', operator: 'Exists' })));
    assert.ok(!toleratesSuperset(t({ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }), t({ key: 'a', operator: 'Exists', effect: 'NoExecute' })));
    assert.ok(toleratesSuperset(t({ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }), t({ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 })));
  });
  test('merging keeps the widest of overlapping tolerations', () => {
    const wide = t({ key: 'a', operator: 'Exists' }), narrow = t({ key: 'a', operator: 'Equal', value: 'x', effect: 'NoSchedule' }), other = t({ key: 'b', operator: 'Exists' });
    assert.deepEqual(mergeTolerations([narrow, other], [wide]), [other, wide]);
    assert.deepEqual(mergeTolerations([wide], [wide, narrow]), [wide]);
  });
  test('PodTolerationRestriction takes the namespace defaults on create only, and checks the cluster allow-list when the namespace has none', async () => {
    const defaults = JSON.stringify([{ key: 'team', operator: 'Equal', value: 'x', effect: 'NoSchedule' }]);
    const p = podTolerationRestriction.create({ ...fakeDeps([namespaceObj({ 'scheduler.alpha.cluster.io/defaultTolerations': defaults })]),
      config: { apiVersion: 'podtolerationrestriction.admission.cluster.io/v1alpha1', kind: 'Configuration', whitelist: [{ key: 'team', operator: 'Exists' }] } });
    const created = attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] }) });
    await p.admit!(created);
    assert.deepEqual(specOf<Pod>(created.object).tolerations, [
      { key: 'team', operator: 'Equal', value: 'x', effect: 'NoSchedule' }, { key: 'node.cluster.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }]);
    await rejects(() => p.validate!(created), /conflict with its cluster whitelist/);
    const updated = attrs({ operation: 'UPDATE', object: pod({ containers: [{ name: 'c' }] }), oldObject: pod({}) });
    await p.admit!(updated);
    assert.equal(specOf<Pod>(updated.object).tolerations, undefined);
  });
  test('ExtendedResourceToleration: qualified names outside the vendor domain are extended resources', async () => {
    const names = naming(defaultApiDomain);
    assert.deepEqual(['cpu', 'example.com/gpu', 'cluster.io/thing', 'requests.example.com/x', 'hugepages-2Mi'].map(r => isExtendedResource(r, names)), [false, true, false, false, false]);
    const a = attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { 'b.com/y': '1', 'a.com/x': '1' } } }], tolerations: [{ key: 'a.com/x', operator: 'Exists', effect: 'NoSchedule' }] }) });
    await extendedResourceToleration.create(fakeDeps()).admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).tolerations!.map(x => x.key), ['a.com/x', 'b.com/y']);
  });
});

describe('PodNodeSelector', () => {
  test('the cluster default applies to namespaces without their own selector; a bad configuration is refused', async () => {
    const p = podNodeSelector.create({ ...fakeDeps([namespaceObj()]), config: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'zone=a' } } });
    const a = attrs({ object: pod({ nodeSelector: { disk: 'ssd' } }) });
    await p.admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).nodeSelector, { zone: 'a', disk: 'ssd' });
    await rejects(() => p.admit!(attrs({ object: pod({ nodeSelector: { zone: 'b' } }) })), /conflicts with its namespace node label selector/);
    assert.throws(() => podNodeSelector.create({ ...fakeDeps(), config: { podNodeSelectorPluginConfig: { ns: 'a in (b)' } } }), /only key=value pairs are allowed/);
    await rejects(() => podNodeSelector.create(fakeDeps()).admit!(attrs({ object: pod({}) })), /namespaces "ns" not found/);
  });
});

describe('NamespaceAutoProvision', () => {
  test('creates the missing namespace, but not for a dry run', async () => {
    const made: string[] = [];
    const deps = fakeDeps();
    deps.writers.create = async (_g, _r, _ns, obj) => { made.push(obj.metadata.name!); return obj; };
    const p = namespaceAutoProvision.create(deps);
    await p.admit!(attrs({ resource: 'configmaps', namespace: 'new', object: { metadata: { name: 'x' } }, dryRun: true }));
    await p.admit!(attrs({ resource: 'configmaps', namespace: 'new', object: { metadata: { name: 'x' } } }));
    assert.deepEqual(made, ['new']);
  });
});

describe('OwnerReferencesPermissionEnforcement', () => {
  const ref = (block?: boolean) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
  const asked: string[] = [];
  const authorizer = (allow: (verb: string, resource: string, sub: string) => boolean): Authorizer => ({
    authorize(a) { asked.push(`${a.verb} ${a.apiGroup}/${a.resource}/${a.subresource}`); return { decision: allow(a.verb, a.resource, a.subresource) ? 'Allow' : 'Deny', reason: 'rbac says so' }; },
  });
  const catalog = { byKind: (g: string, v: string, k: string) => (k === 'ReplicaSet' ? [{ group: g, version: v, resource: 'replicasets', kind: k, namespaced: true }] : []), get: () => undefined };
  const update = (refs: OwnerReference[], old: OwnerReference[] = []) => attrs({ operation: 'UPDATE', object: pod({}, { ownerReferences: refs }), oldObject: pod({}, { ownerReferences: old }) });
  test('changing references needs delete on the object; unchanged ones need nothing', async () => {
    const p = ownerReferences.create({ ...fakeDeps([], authorizer(verb => verb !== 'delete')), catalog });
    await rejects(() => p.validate!(update([ref()])), /cannot set an ownerRef on a resource you can't delete: rbac says so/);
    asked.length = 0;
    await p.validate!(update([ref()], [ref()]));
    assert.deepEqual(asked, []);
  });
  test('a new blocking reference needs update on the owner\'s finalizers, asked at the owner\'s resource', async () => {
    const p = ownerReferences.create({ ...fakeDeps([], authorizer((verb, _r, sub) => !(verb === 'update' && sub === 'finalizers'))), catalog });
    asked.length = 0;
    await rejects(() => p.validate!(attrs({ object: pod({}, { ownerReferences: [ref(true)] }) })), /cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on/);
    assert.deepEqual(asked, ['update */*/finalizers', 'update apps/replicasets/finalizers']);
    // a reference that does not block needs no permission on its owner
    await p.validate!(attrs({ object: pod({}, { ownerReferences: [ref(false)] }) }));
    const unknownKind = { apiVersion: 'x.io/v1', kind: 'Thing', name: 't', uid: 'u2', blockOwnerDeletion: true };
    await rejects(() => p.validate!(attrs({ object: pod({}, { ownerReferences: [unknownKind] }) })), /cannot find RESTMapping for APIVersion x.io\/v1 Kind Thing/);
  });
});

describe('PersistentVolumeLabel', () => {
  test('without a configured region and zone a cloud disk is refused, a volume being provisioned is left alone', async () => {
    const p = persistentVolumeLabel.create(fakeDeps());
    const pv = (source: object) => attrs({ resource: 'persistentvolumes', namespace: '', object: { metadata: { name: 'v' }, spec: source } });
    await rejects(() => p.admit!(pv({ awsElasticBlockStore: { volumeID: 'vol-1' } })), /error querying awsElasticBlockStore volume vol-1: no cloud provider is configured/);
    await p.admit!(pv({ awsElasticBlockStore: { volumeID: 'provisioned' } }));
    const kept = pv({ gcePersistentDisk: { pdName: 'd' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.cluster.io/zone', operator: 'In', values: ['z'] }] }] } } });
    await persistentVolumeLabel.create({ ...fakeDeps(), config: { persistentVolumeLabel: { zone: 'a' } } }).admit!(kept);
    const spec = specOf<PersistentVolume>(kept.object);
    assert.deepEqual(spec.nodeAffinity!.required!.nodeSelectorTerms[0]!.matchExpressions, [{ key: 'topology.cluster.io/zone', operator: 'In', values: ['z'] }]);
    assert.equal(kept.object!.metadata.labels!['topology.cluster.io/zone'], 'a');
  });
});

describe('PodSecurity configuration', () => {
  const config = (c: object) => ({ apiVersion: 'pod-security.admission.config.cluster.io/v1', kind: 'PodSecurityConfiguration', ...c });
  const privileged = (extra: object = {}) => pod({ containers: [{ name: 'c', securityContext: { privileged: true } }], ...extra });
  test('defaults apply where the namespace sets no level; exempt users and runtime classes are annotated and not checked', async () => {
    const annotations: Record<string, string> = {};
    const annotate = (k: string, v: string) => { annotations[k] = v; };
    const p = podSecurity.create({ ...fakeDeps([namespaceObj()]), config: config({ defaults: { enforce: 'baseline', 'enforce-version': 'v1.27' },
      exemptions: { usernames: ['admin'], runtimeClasses: ['kata'] } }) });
    await rejects(() => p.validate!(attrs({ object: privileged(), annotate })), /violates PodSecurity "baseline:v1.27"/);
    assert.equal(annotations['pod-security.cluster.io/enforce-policy'], 'baseline:v1.27');
    await p.validate!(attrs({ object: privileged(), user: { username: 'admin', groups: [] }, annotate }));
    assert.equal(annotations['pod-security.cluster.io/exempt'], 'user');
    await p.validate!(attrs({ object: privileged({ runtimeClassName: 'kata' }), annotate }));
    assert.equal(annotations['pod-security.cluster.io/exempt'], 'runtimeClass');
  });
  test('an unreadable enforce label enforces restricted; a wrong configuration is refused', async () => {
    const p = podSecurity.create(fakeDeps([namespaceObj({}, { 'pod-security.cluster.io/enforce': 'strictest' })]));
    await rejects(() => p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) })), /violates PodSecurity "restricted:latest"/);
    assert.throws(() => podSecurity.create({ ...fakeDeps(), config: config({ defaults: { warn: 'paranoid' } }) }), /defaults.warn: Unsupported value: "paranoid"/);
  });
});
