import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attrs, fakeDeps, pod } from '../testing/fakes.js';
import { specOf } from '../util.js';
import type { ApiObject } from '../../api/meta.js';
import type { Ingress } from '../../api/types/networking-v1.js';
import type { Node, PersistentVolumeClaim, Pod, PodSpec, ResourceQuota, ServiceAccount } from '../../api/types/core-v1.js';
import limitRanger from './limit-ranger.js';
import serviceAccount from './service-account.js';
import taintNodes from './taint-nodes-by-condition.js';
import priority from './priority.js';
import tolerationSeconds from './default-toleration-seconds.js';
import defaultStorageClass from './default-storage-class.js';
import inUseProtection from './storage-object-in-use-protection.js';
import pvcResize from './persistent-volume-claim-resize.js';
import runtimeClass from './runtime-class.js';
import defaultIngressClass from './default-ingress-class.js';
import resourceQuota from './resource-quota.js';
import podSecurity, { violations } from './pod-security.js';
import certificateApproval from './certificate-approval.js';
import alwaysPullImages from './always-pull-images.js';
import denyExternalIPs from './deny-service-external-ips.js';
import namespaceLifecycle from './namespace-lifecycle.js';
import { alwaysDeny } from '../../authz/types.js';

const sa = (name: string, extra: Partial<ServiceAccount> = {}) => ({ group: '', resource: 'serviceaccounts', obj: { metadata: { name, namespace: 'ns' }, ...extra } });
const rejects = async (p: Promise<unknown> | unknown, re: RegExp) => assert.rejects(async () => p, (e: Error) => { assert.match(e.message, re); return true; });

describe('LimitRanger', () => {
  const lr = { group: '', resource: 'limitranges', obj: { metadata: { name: 'l', namespace: 'ns' }, spec: { limits: [
    { type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' }, min: { cpu: '50m' } }] } } };
  test('fills in defaults and annotates', async () => {
    const p = limitRanger.create(fakeDeps([lr]));
    const a = attrs({ object: pod({ containers: [{ name: 'c' }] }) });
    await p.admit!(a);
    const c = specOf<Pod>(a.object).containers![0]!;
    assert.deepEqual(c.resources, { limits: { cpu: '500m' }, requests: { cpu: '100m' } });
    assert.match(a.object!.metadata.annotations!['cluster.io/limit-ranger']!, /LimitRanger plugin set: cpu request for container c; cpu limit for container c/);
    await p.validate!(a);
  });
  test('init containers are filled in after the containers and named "init container" in the annotation', async () => {
    const p = limitRanger.create(fakeDeps([lr]));
    const a = attrs({ object: pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'c', resources: { limits: { cpu: '200m' }, requests: { cpu: '200m' } } }] }) });
    await p.admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).initContainers![0]!.resources, { limits: { cpu: '500m' }, requests: { cpu: '100m' } });
    assert.equal(a.object!.metadata.annotations!['cluster.io/limit-ranger'],
      'LimitRanger plugin set: cpu request for init container i; cpu limit for init container i');
  });
  test('with several Container items in one LimitRange, the last one\'s default wins; a pod\'s overhead is not part of its Pod-type sum', async () => {
    const p = limitRanger.create(fakeDeps([{ group: '', resource: 'limitranges', obj: { metadata: { name: 'l', namespace: 'ns' }, spec: { limits: [
      { type: 'Container', default: { cpu: '300m', memory: '64Mi' }, defaultRequest: { cpu: '100m' } },
      { type: 'Container', default: { cpu: '400m' }, defaultRequest: { cpu: '200m' } },
      { type: 'Pod', max: { cpu: '500m' } }] } } }]));
    const a = attrs({ object: pod({ containers: [{ name: 'c' }], overhead: { cpu: '250m' } }) });
    await p.admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).containers![0]!.resources, { limits: { cpu: '400m', memory: '64Mi' }, requests: { cpu: '200m', memory: '64Mi' } });
    await p.validate!(a);
  });
  test('LimitRanges apply one at a time: the first fills in defaults, the first broken one refuses alone', async () => {
    const range = (name: string, item: Record<string, unknown>) => ({ group: '', resource: 'limitranges', obj: { metadata: { name, namespace: 'ns' }, spec: { limits: [{ type: 'Container', ...item }] } } });
    const p = limitRanger.create(fakeDeps([range('a', { default: { cpu: '300m' }, defaultRequest: { cpu: '300m' }, max: { cpu: '1' } }), range('b', { default: { cpu: '2' }, defaultRequest: { cpu: '2' }, max: { cpu: '2' } })]));
    const a = attrs({ object: pod({ containers: [{ name: 'c' }] }) });
    await p.admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).containers![0]!.resources, { limits: { cpu: '300m' }, requests: { cpu: '300m' } });
    await rejects(p.validate!(attrs({ object: pod({ containers: [{ name: 'c', resources: { limits: { cpu: '3' }, requests: { cpu: '3' } } }] }) })),
      /^pods "p" is forbidden: maximum cpu usage per Container is [12], but limit is 3$/);
  });
  test('refuses above max and below min', async () => {
    const p = limitRanger.create(fakeDeps([lr]));
    await rejects(p.validate!(attrs({ object: pod({ containers: [{ name: 'c', resources: { limits: { cpu: '2' }, requests: { cpu: '10m' } } }] }) })),
      /pods "p" is forbidden: \[minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2\]/);
  });
  test('one refusal per bound, a pod sum in the form of its parts, and the ratio without a limit in the reference\'s words', async () => {
    const p = limitRanger.create(fakeDeps([{ group: '', resource: 'limitranges', obj: { metadata: { name: 'l', namespace: 'ns' }, spec: { limits: [
      { type: 'Container', max: { cpu: '1' }, maxLimitRequestRatio: { memory: '2' } }, { type: 'Pod', max: { memory: '1Gi' } }] } } }]));
    const container = (name: string, limits: Record<string, string>, requests: Record<string, string>) => ({ name, resources: { limits, requests } });
    // the limit over the max is the refusal; the request over it too is not said again
    await rejects(p.validate!(attrs({ object: pod({ containers: [container('c', { cpu: '2', memory: '1Mi' }, { cpu: '2', memory: '1Mi' })] }) })),
      /^pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2$/);
    await rejects(p.validate!(attrs({ object: pod({ containers: [container('a', { cpu: '1', memory: '800Mi' }, { cpu: '1', memory: '800Mi' }), container('b', { cpu: '1', memory: '800Mi' }, { cpu: '1', memory: '800Mi' })] }) })),
      /^pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1600Mi$/);
    await rejects(p.validate!(attrs({ object: pod({ containers: [container('c', { cpu: '1' }, { cpu: '1', memory: '1Mi' })] }) })),
      /memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0/);
  });
  test('a claim grown past the max is refused, as one made too big', async () => {
    const p = limitRanger.create(fakeDeps([{ group: '', resource: 'limitranges', obj: { metadata: { name: 'l', namespace: 'ns' }, spec: { limits: [
      { type: 'PersistentVolumeClaim', max: { storage: '3Gi' } }] } } }]));
    const claim = (storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns' }, spec: { resources: { requests: { storage } } } });
    await rejects(p.validate!(attrs({ resource: 'persistentvolumeclaims', operation: 'UPDATE', name: 'c', object: claim('5Gi'), oldObject: claim('2Gi') })),
      /persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 3Gi, but request is 5Gi/);
  });
});

describe('ServiceAccount', () => {
  test('defaults the account and mounts the token volume', async () => {
    const p = serviceAccount.create(fakeDeps([sa('default', { imagePullSecrets: [{ name: 'pull' }] })]));
    const a = attrs({ object: pod({ containers: [{ name: 'c' }], initContainers: [{ name: 'i' }] }) });
    await p.admit!(a);
    const spec = specOf<Pod>(a.object);
    assert.equal(spec.serviceAccountName, 'default');
    assert.deepEqual(spec.imagePullSecrets, [{ name: 'pull' }]);
    const v = spec.volumes![0]!;
    assert.match(v.name, /^cluster-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(v.projected!.sources![0]!.serviceAccountToken!.expirationSeconds, 3607);
    assert.equal(v.projected!.sources![1]!.configMap!.name, 'cluster-root-ca.crt');
    for (const c of [...spec.containers!, ...spec.initContainers!])
      assert.deepEqual(c.volumeMounts, [{ name: v.name, readOnly: true, mountPath: '/var/run/secrets/cluster.io/serviceaccount' }]);
    await p.validate!(a);
  });
  test('no automount when the pod or account says so', async () => {
    const p = serviceAccount.create(fakeDeps([sa('quiet', { automountServiceAccountToken: false })]));
    const a = attrs({ object: pod({ serviceAccountName: 'quiet', containers: [{ name: 'c' }] }) });
    await p.admit!(a);
    assert.equal(specOf<Pod>(a.object).volumes, undefined);
  });
  test('an account enforcing mountable secrets limits its pods to the secrets and pull secrets it lists', async () => {
    const p = serviceAccount.create(fakeDeps([sa('strict', { metadata: { name: 'strict', namespace: 'ns', annotations: { 'cluster.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'mine' }], imagePullSecrets: [{ name: 'pull' }] }), sa('loose', { secrets: [] })]));
    const check = async (spec: Partial<PodSpec>) => {
      const a = attrs({ object: pod({ containers: [{ name: 'c' }], ...spec }) });
      await p.admit!(a);
      await p.validate!(a);
    };
    await check({ serviceAccountName: 'strict', volumes: [{ name: 'v', secret: { secretName: 'mine' } }] });
    await rejects(check({ serviceAccountName: 'strict', volumes: [{ name: 'v', secret: { secretName: 'other' } }] }),
      /^pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret$/);
    await rejects(check({ serviceAccountName: 'strict', containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] }),
      /container c with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret/);
    await rejects(check({ serviceAccountName: 'strict', initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'other' } }] }] }),
      /init container i with envFrom referencing secret.secretName="other" is not allowed/);
    await rejects(check({ serviceAccountName: 'strict', imagePullSecrets: [{ name: 'pull' }, { name: 'theirs' }] }),
      /imagePullSecrets\[1\].name="theirs" is not allowed because service account strict does not reference that imagePullSecret/);
    await check({ serviceAccountName: 'loose', volumes: [{ name: 'v', secret: { secretName: 'other' } }] });
  });
  test('refuses a missing account; the default account counts as present before the server has made it', async () => {
    const p = serviceAccount.create(fakeDeps([]));
    await rejects(p.admit!(attrs({ object: pod({ serviceAccountName: 'ghost', containers: [{ name: 'c' }] }) })),
      /error looking up service account ns\/ghost: serviceaccount "ghost" not found/);
    const a = attrs({ object: pod({ containers: [{ name: 'c' }] }) });
    await p.admit!(a);
    assert.equal(specOf<Pod>(a.object).serviceAccountName, 'default');
  });
});

describe('small mutating plugins', () => {
  test('TaintNodesByCondition adds the not-ready taint once', async () => {
    const p = taintNodes.create(fakeDeps());
    const a = attrs({ resource: 'nodes', namespace: '', object: { metadata: { name: 'n' }, spec: {} } });
    await p.admit!(a); await p.admit!(a);
    assert.deepEqual(specOf<Node>(a.object).taints, [{ key: 'node.cluster.io/not-ready', effect: 'NoSchedule' }]);
  });
  test('DefaultTolerationSeconds adds both tolerations unless present', async () => {
    const p = tolerationSeconds.create(fakeDeps());
    const a = attrs({ object: pod({ tolerations: [{ key: 'node.cluster.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] }) });
    await p.admit!(a);
    const t = specOf<Pod>(a.object).tolerations!;
    assert.equal(t.length, 2);
    assert.deepEqual(t[1], { key: 'node.cluster.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  });
  test('StorageObjectInUseProtection adds finalizers', async () => {
    const p = inUseProtection.create(fakeDeps());
    const a = attrs({ resource: 'persistentvolumeclaims', object: { metadata: { name: 'c' }, spec: {} } });
    await p.admit!(a);
    assert.deepEqual(a.object!.metadata.finalizers, ['cluster.io/pvc-protection']);
  });
  test('AlwaysPullImages sets Always and refuses otherwise', async () => {
    const p = alwaysPullImages.create(fakeDeps());
    const a = attrs({ object: pod({ containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'IfNotPresent' }] }) });
    await rejects((async () => p.validate!(a))(), /Unsupported value: "IfNotPresent"/);
    await p.admit!(a);
    assert.equal(specOf<Pod>(a.object).containers![0]!.imagePullPolicy, 'Always');
  });
  test('DenyServiceExternalIPs allows removal only', async () => {
    const p = denyExternalIPs.create(fakeDeps());
    const svc = (ips: string[]) => ({ metadata: { name: 's' }, spec: { externalIPs: ips } });
    await rejects((async () => p.validate!(attrs({ resource: 'services', object: svc(['1.2.3.4']) })))(), /use of external IPs is denied/);
    await p.validate!(attrs({ operation: 'UPDATE', resource: 'services', object: svc(['1.2.3.4']), oldObject: svc(['1.2.3.4', '5.6.7.8']) }));
  });
});

describe('Priority', () => {
  const pc = (name: string, value: number, globalDefault = false) => ({ group: 'scheduling.cluster.io', resource: 'priorityclasses', obj: { metadata: { name }, value, globalDefault } });
  test('resolves the named class, the system classes and the default', async () => {
    const p = priority.create(fakeDeps([pc('high', 1000), pc('d1', 5, true), pc('d2', 3, true)]));
    const named = attrs({ object: pod({ priorityClassName: 'high' }) });
    await p.admit!(named);
    assert.equal(specOf<Pod>(named.object).priority, 1000);
    const system = attrs({ object: pod({ priorityClassName: 'system-node-critical' }) });
    await p.admit!(system);
    assert.equal(specOf<Pod>(system.object).priority, 2000001000);
    const plain = attrs({ object: pod({}) });
    await p.admit!(plain);
    assert.equal(specOf<Pod>(plain.object).priorityClassName, 'd2');
    assert.equal(specOf<Pod>(plain.object).priority, 3);
  });
  test('refuses a missing class and a mismatching priority', async () => {
    const p = priority.create(fakeDeps([pc('high', 1000)]));
    await rejects(p.admit!(attrs({ object: pod({ priorityClassName: 'nope' }) })), /no PriorityClass with name nope was found/);
    await rejects(p.admit!(attrs({ object: pod({ priorityClassName: 'high', priority: 1 }) })), /the integer value of priority \(1\) must not be provided/);
  });
});

describe('class defaults', () => {
  test('DefaultStorageClass fills in the default, respects an explicit class, takes the newest of several defaults', async () => {
    const sc = (name: string, creationTimestamp = '2026-01-01T00:00:00Z') => ({ group: 'storage.cluster.io', resource: 'storageclasses',
      obj: { metadata: { name, creationTimestamp, annotations: { 'storageclass.cluster.io/is-default-class': 'true' } } } });
    const claim = (spec = {}) => attrs({ resource: 'persistentvolumeclaims', object: { metadata: { name: 'c' }, spec } });
    const p = defaultStorageClass.create(fakeDeps([sc('standard')]));
    const a = claim();
    await p.admit!(a);
    assert.equal(specOf<PersistentVolumeClaim>(a.object).storageClassName, 'standard');
    const explicit = claim({ storageClassName: '' });
    await p.admit!(explicit);
    assert.equal(specOf<PersistentVolumeClaim>(explicit.object).storageClassName, '');
    const several = claim();
    await defaultStorageClass.create(fakeDeps([sc('a'), sc('c', '2026-01-02T00:00:00Z'), sc('b', '2026-01-02T00:00:00Z')])).admit!(several);
    assert.equal(specOf<PersistentVolumeClaim>(several.object).storageClassName, 'b', 'the newest; of those made together, the first by name');
  });
  test('DefaultIngressClass fills in the default, and takes the newest of several defaults', async () => {
    const ic = (name: string, creationTimestamp = '2026-01-01T00:00:00Z') => ({ group: 'networking.cluster.io', resource: 'ingressclasses',
      obj: { metadata: { name, creationTimestamp, annotations: { 'ingressclass.cluster.io/is-default-class': 'true' } } } });
    const ing = () => attrs({ group: 'networking.cluster.io', resource: 'ingresses', object: { metadata: { name: 'i' }, spec: {} } });
    const one = ing();
    await defaultIngressClass.create(fakeDeps([ic('a')])).admit!(one);
    assert.equal(specOf<Ingress>(one.object).ingressClassName, 'a');
    const several = ing();
    await defaultIngressClass.create(fakeDeps([ic('a'), ic('c', '2026-01-02T00:00:00Z'), ic('b', '2026-01-02T00:00:00Z')])).admit!(several);
    assert.equal(specOf<Ingress>(several.object).ingressClassName, 'b', 'the newest; of those made together, the first by name');
  });
  test('PersistentVolumeClaimResize needs a bound claim and an expandable class', async () => {
    const claim = (size: string, phase = 'Bound') => ({ metadata: { name: 'c' }, spec: { storageClassName: 'fast', resources: { requests: { storage: size } } }, status: { phase } });
    const grow = (old: ApiObject) => attrs({ operation: 'UPDATE', resource: 'persistentvolumeclaims', object: claim('2Gi'), oldObject: old });
    const sc = (allow: boolean) => ({ group: 'storage.cluster.io', resource: 'storageclasses', obj: { metadata: { name: 'fast' }, allowVolumeExpansion: allow } });
    await rejects(pvcResize.create(fakeDeps([sc(false)])).validate!(grow(claim('1Gi'))), /only dynamically provisioned pvc can be resized/);
    await rejects(pvcResize.create(fakeDeps([sc(true)])).validate!(grow(claim('1Gi', 'Pending'))), /Only bound persistent volume claims can be expanded/);
    await pvcResize.create(fakeDeps([sc(true)])).validate!(grow(claim('1Gi')));
  });
  test('RuntimeClass sets overhead and scheduling, refuses a missing class', async () => {
    const rc = { group: 'node.cluster.io', resource: 'runtimeclasses', obj: { metadata: { name: 'gvisor' }, handler: 'runsc',
      overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { sandbox: 'yes' }, tolerations: [{ key: 'sandbox', operator: 'Exists' }] } } };
    const p = runtimeClass.create(fakeDeps([rc]));
    const a = attrs({ object: pod({ runtimeClassName: 'gvisor' }) });
    await p.admit!(a);
    assert.deepEqual(specOf<Pod>(a.object).overhead, { cpu: '250m' });
    assert.deepEqual(specOf<Pod>(a.object).nodeSelector, { sandbox: 'yes' });
    await p.validate!(a);
    await rejects(p.validate!(attrs({ object: pod({ runtimeClassName: 'nope' }) })), /RuntimeClass "nope" not found/);
  });
});

describe('ResourceQuota', () => {
  // as the quota controller leaves it: status.hard copied from the spec, nothing used yet
  const quota = (hard: Record<string, string>) => ({ group: '', resource: 'resourcequotas', obj: { metadata: { name: 'q', namespace: 'ns' }, spec: { hard },
    status: { hard, used: Object.fromEntries(Object.keys(hard).map(r => [r, '0'])) } } });
  test('counts usage into the status and refuses past the limit', async () => {
    const deps = fakeDeps([quota({ pods: '1' })]);
    const p = resourceQuota.create(deps);
    await p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) }));
    assert.deepEqual((deps.statusWrites[0] as ResourceQuota).status, { hard: { pods: '1' }, used: { pods: '1' } });
    await rejects(p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }, { name: 'p2' }) })),
      /pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1/);
  });
  test('compute quotas need requests and sum them', async () => {
    const deps = fakeDeps([quota({ 'requests.memory': '1Gi' })]);
    const p = resourceQuota.create(deps);
    await rejects(p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) })), /failed quota: q: must specify requests.memory/);
    await p.validate!(attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { memory: '512Mi' } } }] }) }));
    assert.equal((deps.statusWrites[0] as ResourceQuota).status!.used!['requests.memory'], '512Mi');
    await rejects(p.validate!(attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { memory: '768Mi' } } }] }) })),
      /exceeded quota: q, requested: requests.memory=768Mi, used: requests.memory=512Mi, limited: requests.memory=1Gi/);
  });
  test('an update is charged for what it grows: a Service turned LoadBalancer or NodePort, a larger claim; other updates pass', async () => {
    const deps = fakeDeps([quota({ services: '1', 'services.loadbalancers': '0', 'services.nodeports': '1', 'requests.storage': '1Gi' })]);
    const p = resourceQuota.create(deps);
    const service = (type: string, ports = 1) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'ns', resourceVersion: '5' },
      spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i })) } });
    const update = (resource: string, object: ApiObject, oldObject: ApiObject) => attrs({ resource, operation: 'UPDATE', name: object.metadata.name!, object, oldObject });
    await p.validate!(update('services', { ...service('ClusterIP'), metadata: { ...service('ClusterIP').metadata, labels: { a: 'b' } } }, service('ClusterIP')));
    await rejects(p.validate!(update('services', service('LoadBalancer'), service('ClusterIP'))),
      /^services "s" is forbidden: exceeded quota: q, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0$/);
    await rejects(p.validate!(update('services', service('NodePort', 2), service('ClusterIP'))), /requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1/);
    assert.equal(deps.statusWrites.length, 0, 'nothing recorded for what was refused or did not grow');
    const claim = (storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns', resourceVersion: '5' }, spec: { resources: { requests: { storage } } } });
    await rejects(p.validate!(update('persistentvolumeclaims', claim('2Gi'), claim('512Mi'))), /requested: requests.storage=1536Mi, used: requests.storage=0, limited: requests.storage=1Gi/);
  });
  test('hugepages requests count under both quota names, as cpu and memory do', async () => {
    const deps = fakeDeps([quota({ 'hugepages-2Mi': '1Gi', 'requests.hugepages-2Mi': '2Gi' })]);
    const hungry = (name: string) => attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { 'hugepages-2Mi': '768Mi' }, limits: { 'hugepages-2Mi': '768Mi' } } }] }, { name }) });
    const p = resourceQuota.create(deps);
    await p.validate!(hungry('a'));
    assert.deepEqual((deps.statusWrites[0] as ResourceQuota).status!.used, { 'hugepages-2Mi': '768Mi', 'requests.hugepages-2Mi': '768Mi' });
    await rejects(p.validate!(hungry('b')), /exceeded quota: q, requested: hugepages-2Mi=768Mi, used: hugepages-2Mi=768Mi, limited: hugepages-2Mi=1Gi/);
  });
  test('only the status counts: a quota the controller has not filled in limits nothing; one missing the usage of a resource it limits for the kind refuses', async () => {
    const unfilled = fakeDeps([{ group: '', resource: 'resourcequotas', obj: { metadata: { name: 'q', namespace: 'ns' }, spec: { hard: { pods: '0' } } } }]);
    await resourceQuota.create(unfilled).validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) }));
    assert.equal(unfilled.statusWrites.length, 0);
    const hard = { pods: '5', 'requests.cpu': '1', configmaps: '3' };
    const partly = fakeDeps([{ group: '', resource: 'resourcequotas', obj: { metadata: { name: 'q', namespace: 'ns' }, spec: { hard }, status: { hard, used: { pods: '0', configmaps: '0' } } } }]);
    const p = resourceQuota.create(partly);
    const refused = await Promise.resolve(p.validate!(attrs({ object: pod({ containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] }) }))).then(() => undefined, (e: unknown) => e);
    assert.equal((refused as { status?: { code?: number } })?.status?.code, 403, String(refused));
    assert.match(String((refused as Error).message), /^pods "p" is forbidden: status unknown for quota: q, resources: pods,requests.cpu$/);
    // a kind whose resources the quota has counted is admitted and charged
    await p.validate!(attrs({ resource: 'configmaps', name: 'cm', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' } } }));
    assert.deepEqual((partly.statusWrites[0] as ResourceQuota).status!.used, { pods: '0', configmaps: '1' });
    // an extended resource's requests are the pod's too
    const gpus = { 'requests.example.com/gpu': '2', services: '1' };
    const uncounted = fakeDeps([{ group: '', resource: 'resourcequotas', obj: { metadata: { name: 'q', namespace: 'ns' }, spec: { hard: gpus }, status: { hard: gpus, used: { services: '0' } } } }]);
    await rejects(resourceQuota.create(uncounted).validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) })), /status unknown for quota: q, resources: requests.example.com\/gpu$/);
    // an update that grows nothing is refused the same while the quota's usage of its kind is unknown
    const services = { services: '2', 'services.nodeports': '2' };
    const unknownServices = fakeDeps([{ group: '', resource: 'resourcequotas', obj: { metadata: { name: 'q', namespace: 'ns' }, spec: { hard: services }, status: { hard: services, used: { services: '1' } } } }]);
    const service = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'ns', resourceVersion: '5', labels }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } });
    await rejects(resourceQuota.create(unknownServices).validate!(attrs({ resource: 'services', operation: 'UPDATE', name: 's', object: service({ a: 'b' }), oldObject: service({}) })),
      /^services "s" is forbidden: status unknown for quota: q, resources: services,services.nodeports$/);
  });
  test('dry run checks without recording', async () => {
    const deps = fakeDeps([quota({ pods: '1' })]);
    await resourceQuota.create(deps).validate!(attrs({ dryRun: true, object: pod({}) }));
    assert.equal(deps.statusWrites.length, 0);
  });
});

describe('PodSecurity', () => {
  const ns = (labels: Record<string, string>) => ({ group: '', resource: 'namespaces', obj: { metadata: { name: 'ns', labels } } });
  test('baseline refuses privileged and host namespaces', async () => {
    const p = podSecurity.create(fakeDeps([ns({ 'pod-security.cluster.io/enforce': 'baseline' })]));
    await rejects(p.validate!(attrs({ object: pod({ hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] }) })),
      /violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\), privileged \(container "c" must not set securityContext.privileged=true\)/);
    await p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }) }));
  });
  test('restricted warns in warn mode', async () => {
    const warnings: string[] = [];
    const p = podSecurity.create(fakeDeps([ns({ 'pod-security.cluster.io/warn': 'restricted' })]));
    await p.validate!(attrs({ object: pod({ containers: [{ name: 'c' }] }), warn: m => warnings.push(m) }));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });
  test('a restricted-compliant pod passes', () => {
    const ok: PodSpec = { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }] };
    assert.deepEqual(violations(ok, 'restricted'), []);
    assert.ok(violations({ ...ok, volumes: [{ name: 'h', hostPath: { path: '/' } }] }, 'restricted').length >= 2);
  });
  test('an update is checked only when it changes an image or adds an ephemeral container', async () => {
    const p = podSecurity.create(fakeDeps([ns({ 'pod-security.cluster.io/enforce': 'baseline' })]));
    const old = pod({ hostNetwork: true, containers: [{ name: 'c', image: 'nginx:1' }] });
    const update = (spec: Partial<PodSpec>) => attrs({ operation: 'UPDATE', object: pod({ ...specOf<Pod>(old), ...spec }), oldObject: old });
    await p.validate!(update({ tolerations: [{ key: 'k', operator: 'Exists' }] }));
    await rejects(p.validate!(update({ containers: [{ name: 'c', image: 'nginx:2' }] })), /violates PodSecurity "baseline:latest": host namespaces/);
    await rejects(p.validate!(update({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] })), /host namespaces/);
  });
  test('a pinned policy version leaves out the checks added after it, and latest is this server\'s version', async () => {
    const plain: PodSpec = { securityContext: { runAsNonRoot: true }, containers: [{ name: 'c', securityContext: { runAsUser: 0 } }] };
    const reasons = (version: string) => violations(plain, 'restricted', version).map(w => w.replace(/ \(.*$/, ''));
    assert.deepEqual(reasons('latest'), ['allowPrivilegeEscalation != false', 'unrestricted capabilities', 'runAsUser=0', 'seccompProfile']);
    assert.deepEqual(reasons('v1.22'), ['allowPrivilegeEscalation != false', 'unrestricted capabilities', 'seccompProfile']);
    assert.deepEqual(reasons('v1.21'), ['allowPrivilegeEscalation != false', 'seccompProfile']);
    assert.deepEqual(reasons('v1.18'), ['allowPrivilegeEscalation != false']);
    assert.deepEqual(reasons('v1.7'), []);
    // sysctls: ip_local_reserved_ports is safe from v1.27; the keepalive ones only from v1.29, newer than this server
    const sysctl = (name: string, version: string) => violations({ securityContext: { sysctls: [{ name, value: '1' }] }, containers: [{ name: 'c' }] }, 'baseline', version);
    assert.deepEqual(sysctl('net.ipv4.ip_local_reserved_ports', 'latest'), []);
    assert.deepEqual(sysctl('net.ipv4.ip_local_reserved_ports', 'v1.26'), ['forbidden sysctls (net.ipv4.ip_local_reserved_ports)']);
    assert.deepEqual(sysctl('net.ipv4.tcp_keepalive_time', 'v1.30'), ['forbidden sysctls (net.ipv4.tcp_keepalive_time)']);
    // the namespace's version label picks the checks
    const p = podSecurity.create(fakeDeps([ns({ 'pod-security.cluster.io/enforce': 'restricted', 'pod-security.cluster.io/enforce-version': 'v1.22' })]));
    await rejects(p.validate!(attrs({ object: pod(plain) })), /^pods "p" is forbidden: violates PodSecurity "restricted:v1.22": allowPrivilegeEscalation != false .*, unrestricted capabilities .*, seccompProfile .*$/);
  });
});

describe('CertificateApproval', () => {
  test('needs approve on the signer', async () => {
    const csr = attrs({ operation: 'UPDATE', group: 'certificates.cluster.io', resource: 'certificatesigningrequests', subresource: 'approval', namespace: '',
      object: { metadata: { name: 'r' }, spec: { signerName: 'example.com/x' } } });
    await certificateApproval.create(fakeDeps()).validate!(csr);
    await rejects(certificateApproval.create(fakeDeps([], alwaysDeny)).validate!(csr), /user not permitted to approve requests with signerName "example.com\/x"/);
  });
});

describe('NamespaceLifecycle', () => {
  test('reads the namespace from the cache, and from storage for a while after this server admitted its delete', async () => {
    const deps = fakeDeps([{ group: '', resource: 'namespaces', obj: { metadata: { name: 'ns' } } }]);
    const fresh: boolean[] = [];
    const get = deps.listers.get;
    deps.listers.get = (g, r, ns, name, readFresh) => { fresh.push(!!readFresh); return get(g, r, ns, name); };
    const p = namespaceLifecycle.create(deps);
    await p.validate!(attrs({ object: pod({}) }));
    await p.validate!(attrs({ operation: 'DELETE', resource: 'namespaces', namespace: '', name: 'ns' }));
    await p.validate!(attrs({ object: pod({}) }));
    assert.deepEqual(fresh, [false, true]);
    await rejects(p.validate!(attrs({ namespace: 'gone', object: pod({}, { namespace: 'gone' }) })), /namespaces "gone" not found/);
  });
});
