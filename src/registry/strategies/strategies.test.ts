// Each kind's defaulting and validation rules, one rule per assertion, with the exact causes the reference gives.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../api/naming.js';
import type { ApiObject } from '../../api/meta.js';
import type { Strategy, StrategyContext } from '../strategy.js';
import { strategyFor } from './index.js';
import { pullPolicyFor } from '../defaults/pod.js';
import { showValue } from '../validation/fields.js';

const ctx: StrategyContext = { names: naming(), now: '2024-01-01T00:00:00Z' };
const s = (group: string, resource: string): Strategy => strategyFor(group, resource);

/** a create as the store runs it: defaults, then validation; returns the object and its causes as text */
async function create(strategy: Strategy, body: any) {
  const obj = structuredClone({ metadata: { name: 'x', namespace: 'ns', uid: 'u-1' }, ...body }) as ApiObject;
  await strategy.prepareForCreate?.(obj, ctx);
  return { obj: obj as any, causes: (strategy.validate?.(obj) ?? []).map(c => `${c.field}: ${c.message}`) };
}

async function update(strategy: Strategy, old: any, change: (o: any) => void) {
  const next = structuredClone(old);
  change(next);
  await strategy.prepareForUpdate?.(next, old, ctx);
  return (strategy.validateUpdate?.(next, old) ?? []).map(c => `${c.field}: ${c.message}`);
}

const container = (extra: any = {}) => ({ name: 'a', image: 'img:1', ...extra });
const podSpec = (extra: any = {}) => ({ containers: [container()], ...extra });
const tpl = (spec: any = podSpec(), labels: any = { app: 'a' }) => ({ metadata: { labels }, spec });
const sel = { matchLabels: { app: 'a' } };

describe('pod defaults', () => {
  test('image pull policy follows the tag', () => {
    assert.equal(pullPolicyFor('nginx'), 'Always');
    assert.equal(pullPolicyFor('nginx:latest'), 'Always');
    assert.equal(pullPolicyFor('nginx:1.25'), 'IfNotPresent');
    assert.equal(pullPolicyFor('registry:5000/nginx'), 'Always');
    assert.equal(pullPolicyFor('registry:5000/nginx:1'), 'IfNotPresent');
    assert.equal(pullPolicyFor('nginx@sha256:abc'), 'IfNotPresent');
    assert.equal(pullPolicyFor('nginx:latest@sha256:abc'), 'Always');
  });

  test('a pod spec is completed as the reference completes it', async () => {
    const { obj, causes } = await create(s('', 'pods'), {
      spec: {
        hostNetwork: true,
        initContainers: [container({ name: 'init' })],
        containers: [container({
          ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '1' } },
          readinessProbe: { tcpSocket: { port: 8080 } }, lifecycle: { preStop: { httpGet: { port: 80 } } },
        })],
        volumes: [{ name: 's', secret: { secretName: 's' } }, { name: 'h', hostPath: { path: '/x' } },
          { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }],
      },
    });
    assert.deepEqual(causes, []);
    const sp = obj.spec;
    assert.deepEqual([sp.restartPolicy, sp.dnsPolicy, sp.schedulerName, sp.terminationGracePeriodSeconds, sp.enableServiceLinks],
      ['Always', 'ClusterFirst', 'default-scheduler', 30, true]);
    const c = sp.containers[0];
    assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
    assert.deepEqual(c.resources.requests, { cpu: '1', memory: '1Gi' });
    assert.deepEqual(c.readinessProbe, { tcpSocket: { port: 8080 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.lifecycle.preStop.httpGet, { port: 80, path: '/', scheme: 'HTTP' });
    assert.equal(sp.initContainers[0].terminationMessagePolicy, 'File');
    assert.equal(sp.volumes[0].secret.defaultMode, 420);
    assert.equal(sp.volumes[1].hostPath.type, '');
    assert.equal(sp.volumes[2].projected.defaultMode, 420);
    assert.equal(sp.volumes[2].projected.sources[0].serviceAccountToken.expirationSeconds, 3600);
    assert.deepEqual(obj.status, { phase: 'Pending', qosClass: 'Burstable' });
  });
});

describe('pod validation', () => {
  const pods = s('', 'pods');

  test('missing containers, bad names, ports, env, mounts and enums each give a cause', async () => {
    const { causes } = await create(pods, { spec: { restartPolicy: 'Sometimes', containers: [] } });
    assert.deepEqual(causes, [
      'spec.containers: Required value',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ]);
    const r = await create(pods, {
      spec: {
        volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }],
        containers: [container({
          ports: [{ name: 'http', containerPort: 80 }, { name: 'http', containerPort: 81, protocol: 'ICMP' }, { name: 'Bad--', containerPort: 82 }],
          env: [{ name: '1X', value: 'a' }, { value: 'b' }],
          volumeMounts: [{ name: 'nope', mountPath: '/a' }, { name: 'v', mountPath: '/a' }],
          livenessProbe: { successThreshold: 2, exec: { command: ['true'] } },
          resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
          imagePullPolicy: 'Sometimes',
        })],
        activeDeadlineSeconds: 0,
      },
    });
    assert.deepEqual(r.causes, [
      'spec.volumes[1].name: Duplicate value: "v"',
      'spec.containers[0].ports[1].name: Duplicate value: "http"',
      'spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].ports[2].name: Invalid value: "Bad--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[2].name: Invalid value: "Bad--": must not contain consecutive hyphens',
      'spec.containers[0].ports[2].name: Invalid value: "Bad--": must not begin or end with a hyphen',
      'spec.containers[0].env[0].name: Invalid value: "1X": a valid environment variable name must consist of alphabetic characters, digits, \'_\', \'-\', or \'.\', and must not start with a digit (e.g. \'my.env-name\',  or \'MY_ENV.NAME\',  or \'MyEnvName1\', regex used for validation is \'[-._a-zA-Z][-._a-zA-Z0-9]*\')',
      'spec.containers[0].env[1].name: Required value',
      'spec.containers[0].volumeMounts[0].name: Not found: "nope"',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
    ]);
  });

  test('after create only images, the deadline and added tolerations may change', async () => {
    const { obj } = await create(pods, { spec: podSpec({ tolerations: [{ key: 'k', operator: 'Exists' }] }) });
    assert.deepEqual(await update(pods, obj, o => { o.spec.containers[0].image = 'img:2'; o.spec.activeDeadlineSeconds = 10; o.spec.tolerations.push({ operator: 'Exists' }); }), []);
    const forbidden = await update(pods, obj, o => { o.spec.containers[0].env = [{ name: 'A', value: '1' }]; });
    assert.equal(forbidden.length, 1);
    assert.match(forbidden[0], /^spec: Forbidden: pod updates may not change fields other than/);
    assert.deepEqual(await update(pods, obj, o => { o.spec.tolerations = []; }), ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
    const withDeadline = structuredClone(obj);
    withDeadline.spec.activeDeadlineSeconds = 10;
    assert.deepEqual(await update(pods, withDeadline, o => { o.spec.activeDeadlineSeconds = 20; }),
      ['spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value']);
  });
});

describe('workloads', () => {
  test('Deployment: Recreate keeps no rolling update; zero surge and unavailability is refused', async () => {
    const d = s('apps', 'deployments');
    const recreate = await create(d, { spec: { selector: sel, template: tpl(), strategy: { type: 'Recreate' } } });
    assert.deepEqual(recreate.obj.spec.strategy, { type: 'Recreate' });
    assert.deepEqual(recreate.causes, []);
    const zero = await create(d, { spec: { selector: sel, template: tpl(), strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }, minReadySeconds: 700 } });
    assert.deepEqual(zero.causes, [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
      'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
    ]);
    const none = await create(d, { spec: { template: tpl() } });
    assert.deepEqual(none.causes, ['spec.selector: Required value']);
    const deadline = await create(d, { spec: { selector: sel, template: tpl(podSpec({ activeDeadlineSeconds: 5 })) } });
    assert.deepEqual(deadline.causes, ['spec.template.spec.activeDeadlineSeconds: Invalid value: 5: activeDeadlineSeconds in ReplicaSet is not Supported']);
  });

  test('ReplicaSet and ReplicationController', async () => {
    const rs = await create(s('apps', 'replicasets'), { spec: { selector: { matchLabels: {} }, template: tpl() } });
    assert.equal(rs.obj.spec.replicas, 1);
    assert.deepEqual(rs.causes, ['spec.selector: Invalid value: {"matchLabels":{}}: empty selector is invalid for deployment']);
    const rc = await create(s('', 'replicationcontrollers'), { spec: { template: tpl() } });
    assert.deepEqual(rc.obj.spec.selector, { app: 'a' });
    assert.deepEqual(rc.obj.metadata.labels, { app: 'a' });
    assert.deepEqual(rc.causes, []);
  });

  test('Job: restart policy, indexed completions, immutable selector', async () => {
    const jobs = s('batch', 'jobs');
    const bad = await create(jobs, { spec: { completionMode: 'Indexed', parallelism: 2, backoffLimit: -1, template: tpl(podSpec({ restartPolicy: 'Never' })) } });
    assert.equal(bad.obj.spec.completions, undefined);
    assert.deepEqual(bad.causes, ['spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0', 'spec.completions: Required value: when completion mode is Indexed']);
    const ok = await create(jobs, { spec: { template: tpl(podSpec({ restartPolicy: 'OnFailure' })) } });
    assert.deepEqual(ok.causes, []);
    assert.deepEqual(ok.obj.metadata.labels, { app: 'a' });
    const moved = await update(jobs, ok.obj, o => { o.spec.selector = { matchLabels: { app: 'a' } }; });
    assert.deepEqual(moved, ['spec.selector: Invalid value: {"matchLabels":{"app":"a"}}: field is immutable']);
    const manual = await create(jobs, { spec: { manualSelector: true, selector: sel, template: tpl(podSpec({ restartPolicy: 'Never' })) } });
    assert.deepEqual(manual.obj.spec.selector, sel);
    assert.deepEqual(manual.obj.spec.template.metadata.labels, { app: 'a' });
  });

  test('CronJob schedules', async () => {
    const cj = s('batch', 'cronjobs');
    const job = { spec: { template: tpl(podSpec({ restartPolicy: 'Never' })) } };
    for (const schedule of ['@hourly', '0 0 * * MON-FRI', '*/15 1,2 ? * *', '@every 1h'])
      assert.deepEqual((await create(cj, { spec: { schedule, jobTemplate: job } })).causes, [], schedule);
    assert.deepEqual((await create(cj, { spec: { schedule: 'TZ=UTC 0 0 * * *', jobTemplate: job, concurrencyPolicy: 'Sometimes' } })).causes, [
      'spec.schedule: Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
  });
});

describe('other kinds', () => {
  test('Service defaults without storage: types, session affinity, traffic policies', async () => {
    const svc = s('', 'services');
    const lb = await create(svc, { spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'web' }] } });
    assert.equal(lb.obj.spec.externalTrafficPolicy, 'Cluster');
    assert.equal(lb.obj.spec.allocateLoadBalancerNodePorts, true);
    assert.deepEqual(lb.obj.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    assert.equal(lb.obj.spec.ports[0].targetPort, 'web');
    const local = await create(svc, { spec: { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] } });
    assert.deepEqual(local.causes, ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set when `type` is \'NodePort\' or \'LoadBalancer\'']);
    const ext = await create(svc, { spec: { type: 'ExternalName' } });
    assert.deepEqual(ext.causes, ['spec.externalName: Required value']);
    assert.equal(ext.obj.spec.internalTrafficPolicy, undefined);
  });

  test('ConfigMap keys and binary data overlap', async () => {
    const { causes } = await create(s('', 'configmaps'), { data: { 'a b': '1', k: 'x' }, binaryData: { k: 'eA==' } });
    assert.deepEqual(causes, [
      'data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\' (e.g. \'key.name\',  or \'KEY_NAME\',  or \'key-name\', regex used for validation is \'[-._a-zA-Z0-9]+\')',
      'binaryData[k]: Invalid value: "k": duplicate of key present in data',
    ]);
  });

  test('Secret of the service-account-token type needs its account annotation; its type is immutable', async () => {
    const secrets = s('', 'secrets');
    const type = `${ctx.names.labelDomain}/service-account-token`;
    const r = await create(secrets, { type });
    assert.deepEqual(r.causes, [`metadata.annotations[${ctx.names.labelDomain}/service-account.name]: Required value`]);
    const ok = await create(secrets, { data: { a: 'eA==' } });
    assert.deepEqual(await update(secrets, ok.obj, o => { o.type = 'other'; }), ['type: Invalid value: "other": field is immutable']);
  });

  test('PersistentVolume defaults and source rules', async () => {
    const pv = await create(s('', 'persistentvolumes'), { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' }, nfs: { server: 'n', path: '/' } } });
    assert.equal(pv.obj.spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(pv.obj.spec.volumeMode, 'Filesystem');
    assert.deepEqual(pv.causes, ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
  });

  test('PVC spec is immutable except the requested size', async () => {
    const pvcs = s('', 'persistentvolumeclaims');
    const { obj } = await create(pvcs, { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.deepEqual(await update(pvcs, obj, o => { o.spec.resources.requests.storage = '2Gi'; }), []);
    assert.deepEqual(await update(pvcs, obj, o => { o.spec.accessModes = ['ReadWriteMany']; }),
      ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
  });

  test('HPA behavior defaults fill the rules that are given', async () => {
    const { obj } = await create(s('autoscaling', 'horizontalpodautoscalers'), {
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } },
    });
    assert.deepEqual(obj.spec.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
  });

  test('NetworkPolicy gets Egress among its types when it has egress rules', async () => {
    const { obj, causes } = await create(s('networking', 'networkpolicies'), { spec: { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP', endPort: 52 }] }] } });
    assert.deepEqual(obj.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(causes, ['spec.egress[0].ports[0].endPort: Invalid value: 52: must be greater than or equal to `port`']);
  });

  test('PriorityClass value may not change; PDB bounds; Lease durations; EndpointSlice address type', async () => {
    const pcs = s('scheduling', 'priorityclasses');
    const pc = await create(pcs, { value: 100 });
    assert.equal(pc.obj.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(await update(pcs, pc.obj, o => { o.value = 5; }), ['value: Forbidden: may not be changed in an update.']);
    const pdb = await create(s('policy', 'poddisruptionbudgets'), { spec: { minAvailable: 1, maxUnavailable: 1 } });
    assert.equal(pdb.causes.length, 1);
    assert.match(pdb.causes[0], /minAvailable and maxUnavailable cannot be both set$/);
    assert.deepEqual((await create(s('coordination', 'leases'), { spec: { leaseDurationSeconds: 0 } })).causes,
      ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);
    const es = await create(s('discovery', 'endpointslices'), { addressType: 'IPv4', endpoints: [{ addresses: [] }], ports: [{ port: 80 }] });
    assert.deepEqual(es.obj.ports, [{ port: 80, protocol: 'TCP', name: '' }]);
    assert.deepEqual(es.causes, ['endpoints[0].addresses: Required value: must contain at least 1 address']);
  });

  test('Role rules need verbs and groups; cluster bindings need service account namespaces', async () => {
    assert.deepEqual((await create(s('rbac.authorization', 'roles'), { rules: [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }] })).causes, [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    assert.deepEqual((await create(s('rbac.authorization', 'clusterrolebindings'), { roleRef: { kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] })).causes,
      ['subjects[0].namespace: Required value']);
  });

  test('values print as the reference prints them', () => {
    assert.equal(showValue('a'), '"a"');
    assert.equal(showValue(3), '3');
    assert.equal(showValue({ b: '2', a: '1' }), 'map[string]string{"a":"1", "b":"2"}');
    assert.equal(showValue(null), 'null');
  });
});
