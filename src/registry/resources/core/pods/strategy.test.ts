// Pod defaults and validation, one rule per assertion, with the exact causes the reference gives.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../api/types/core-v1.js';
import { pullPolicyFor } from '../../../defaults/pod-spec.js';
import type { ApiObject } from '../../../../api/meta.js';
import { container, create, ctx, podSpec, strategyOf, update } from '../../testing/strategy.js';

const pods = strategyOf('', 'pods');

describe('pod defaults', () => {
  test('status.podIP and status.podIPs are kept in step, the single field winning where they differ', () => {
    const ips = (status: Pod['status']) => {
      const pod: Pod = { metadata: { name: 'x', namespace: 'ns' }, spec: podSpec(), status };
      pods.defaults?.(pod as ApiObject, ctx);
      return { podIP: pod.status?.podIP, podIPs: pod.status?.podIPs };
    };
    assert.deepEqual(ips({ podIP: '10.1.2.3' }), { podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }] });
    assert.deepEqual(ips({ podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }] }),
      { podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }] });
    assert.deepEqual(ips({ podIP: '10.9.9.9', podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }] }),
      { podIP: '10.9.9.9', podIPs: [{ ip: '10.9.9.9' }] });
    assert.deepEqual(ips({ podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }] }),
      { podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }] });
    assert.deepEqual(ips({ phase: 'Pending' }), { podIP: undefined, podIPs: undefined });
  });

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
    const { obj, causes } = await create<Pod>(pods, {
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
    const sp = obj.spec!;
    assert.deepEqual([sp.restartPolicy, sp.dnsPolicy, sp.schedulerName, sp.terminationGracePeriodSeconds, sp.enableServiceLinks],
      ['Always', 'ClusterFirst', 'default-scheduler', 30, true]);
    const c = sp.containers[0];
    assert.deepEqual(c.ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
    assert.deepEqual(c.resources?.requests, { cpu: '1', memory: '1Gi' });
    assert.deepEqual(c.readinessProbe, { tcpSocket: { port: 8080 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.lifecycle?.preStop?.httpGet, { port: 80, path: '/', scheme: 'HTTP' });
    assert.equal(sp.initContainers?.[0].terminationMessagePolicy, 'File');
    const [secret, hostPath, projected] = sp.volumes ?? [];
    assert.equal(secret.secret?.defaultMode, 420);
    assert.equal(hostPath.hostPath?.type, '');
    assert.equal(projected.projected?.defaultMode, 420);
    assert.equal(projected.projected?.sources?.[0].serviceAccountToken?.expirationSeconds, 3600);
    assert.deepEqual(obj.status, { phase: 'Pending', qosClass: 'Burstable' });
  });
});

describe('pod validation', () => {
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
    const { obj } = await create<Pod>(pods, { spec: podSpec({ tolerations: [{ key: 'k', operator: 'Exists' }] }) });
    assert.deepEqual(await update<Pod>(pods, obj, o => {
      o.spec!.containers[0].image = 'img:2'; o.spec!.activeDeadlineSeconds = 10; o.spec!.tolerations!.push({ operator: 'Exists' });
    }), []);
    const forbidden = await update<Pod>(pods, obj, o => { o.spec!.containers[0].env = [{ name: 'A', value: '1' }]; });
    assert.equal(forbidden.length, 1);
    assert.match(forbidden[0], /^spec: Forbidden: pod updates may not change fields other than/);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.tolerations = []; }), ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
    const withDeadline = structuredClone(obj);
    withDeadline.spec!.activeDeadlineSeconds = 10;
    assert.deepEqual(await update<Pod>(pods, withDeadline, o => { o.spec!.activeDeadlineSeconds = 20; }),
      ['spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value']);
  });
});

describe('pod scheduling gates', () => {
  test('a gated pod is created with PodScheduled=False SchedulingGated', async () => {
    const { obj } = await create<Pod>(pods, { spec: podSpec({ schedulingGates: [{ name: 'a' }] }) });
    assert.deepEqual(obj.status?.conditions, [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null,
      reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }]);
    const { obj: plain } = await create<Pod>(pods, { spec: podSpec() });
    assert.equal(plain.status?.conditions, undefined);
  });

  test('gates may be removed, one or all, but not added', async () => {
    const { obj } = await create<Pod>(pods, { spec: podSpec({ schedulingGates: [{ name: 'a' }, { name: 'b' }] }) });
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.schedulingGates = [{ name: 'b' }]; }), []);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.schedulingGates = []; }), []);
    assert.deepEqual(await update<Pod>(pods, obj, o => { delete o.spec!.schedulingGates; }), []);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.schedulingGates = [{ name: 'a' }, { name: 'c' }]; }),
      ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'c'"]);
    const { obj: ungated } = await create<Pod>(pods, { spec: podSpec() });
    assert.deepEqual(await update<Pod>(pods, ungated, o => { o.spec!.schedulingGates = [{ name: 'x' }]; }),
      ["spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'"]);
  });

  test('a gated pod\'s scheduling directives may be narrowed: nodeSelector entries added, required node affinity terms extended', async () => {
    const expr = (key: string) => ({ key, operator: 'Exists' as const });
    const required = (...terms: { matchExpressions: { key: string; operator: 'Exists' }[] }[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
    const { obj } = await create<Pod>(pods, { spec: podSpec({ schedulingGates: [{ name: 'a' }], nodeSelector: { pool: 'a' }, affinity: required({ matchExpressions: [expr('x')] }) }) });
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.nodeSelector = { pool: 'a', disk: 'ssd' }; }), []);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.affinity = required({ matchExpressions: [expr('x'), expr('y')] }); }), []);
    // preferred terms may change as they will
    assert.deepEqual(await update<Pod>(pods, obj, o => {
      o.spec!.affinity!.nodeAffinity!.preferredDuringSchedulingIgnoredDuringExecution = [{ weight: 1, preference: { matchExpressions: [expr('z')] } }];
    }), []);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.nodeSelector = { pool: 'b' }; }),
      ['spec.nodeSelector: Invalid value: map[string]string{"pool":"b"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)']);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.affinity = required({ matchExpressions: [expr('y')] }); }),
      ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: {"matchExpressions":[{"key":"y","operator":"Exists"}]}: only additions are allowed (no mutations or deletions)']);
    assert.deepEqual(await update<Pod>(pods, obj, o => { o.spec!.affinity = required({ matchExpressions: [expr('x')] }, { matchExpressions: [expr('y')] }); }),
      ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: [{"matchExpressions":[{"key":"x","operator":"Exists"}]},{"matchExpressions":[{"key":"y","operator":"Exists"}]}]: no additions/deletions to non-empty NodeSelectorTerms list are allowed']);
    // once the gates are gone, the directives are fixed again
    const { obj: ungated } = await create<Pod>(pods, { spec: podSpec({ nodeSelector: { pool: 'a' } }) });
    const refused = await update<Pod>(pods, ungated, o => { o.spec!.nodeSelector = { pool: 'a', disk: 'ssd' }; });
    assert.equal(refused.length, 1);
    assert.match(refused[0], /^spec: Forbidden: pod updates may not change fields other than/);
  });
});
