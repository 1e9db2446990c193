import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDomains, defaultApiDomain, naming } from '../naming.js';
import {
  decodeEnvelope, encodeEnvelope, encodeObject, jsonToProtobuf, listEncoder, MalformedProtobufError, protobufKinds, protobufToJson,
  UnsupportedKindError,
} from './codec.js';
import { protobufKindDefinitions, protobufMessages } from './fields.js';
import { bytesField, readFields, varintField } from './wire.js';
import { builtinResources } from '../../registry/resources/index.js';

/** the reference's names (what kubectl sends) and this project's own */
const ref = naming(apiDomains.find((d) => d !== defaultApiDomain)!);
const own = naming(defaultApiDomain);

/** kubectl 1.32 `create configmap lit-cm --from-literal=a=b`, as captured on the wire */
const capturedConfigMap = 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEiAKFgoGbGl0LWNtEgAaACIAKgAyADgAQgASBgoBYRIBYhoAIgA=';

describe('the envelope', () => {
  test('the captured kubectl body decodes to the reference JSON', () => {
    // The body carries empty generateName, namespace, selfLink, uid, resourceVersion, a zero generation and an
    // empty creationTimestamp. The strings and the generation are omitempty in the reference's JSON; the time is a
    // struct it always writes, null when zero (`kubectl create --dry-run=client -o json` shows it).
    const env = decodeEnvelope(Buffer.from(capturedConfigMap, 'base64'), ref);
    assert.equal(env.apiVersion, 'v1');
    assert.equal(env.kind, 'ConfigMap');
    assert.equal(env.contentEncoding, '');
    assert.equal(env.contentType, '');
    assert.deepEqual(protobufToJson(env.raw, env.apiVersion, env.kind), {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lit-cm', creationTimestamp: null }, data: { a: 'b' },
    });
  });

  test('a bad magic number and truncated messages are refused', () => {
    const good = Buffer.from(capturedConfigMap, 'base64');
    for (const names of [ref, own]) {
      assert.throws(() => decodeEnvelope(Buffer.from('{"kind":"ConfigMap"}'), names), (e: Error) =>
        e instanceof MalformedProtobufError && e.message.includes(`${names.protobufMediaType} body must start with the bytes 6b 38 73 00`));
      assert.throws(() => decodeEnvelope(Buffer.from([0x6b, 0x38]), names), MalformedProtobufError);
    }
    assert.throws(() => decodeEnvelope(good.subarray(0, good.length - 10), ref), MalformedProtobufError);
    const env = decodeEnvelope(good, ref);
    assert.throws(() => protobufToJson(env.raw.subarray(0, 12), 'v1', 'ConfigMap'), MalformedProtobufError);
    // a string field sent as a varint
    assert.throws(() => protobufToJson(varintField(1, 5), 'v1', 'ConfigMap'), /not length-delimited/);
    // wire type 3 (groups) is not used by the reference
    assert.throws(() => protobufToJson(Buffer.from([0x0b]), 'v1', 'ConfigMap'), /unsupported wire type 3/);
  });

  test('encodeEnvelope writes what decodeEnvelope reads', () => {
    const raw = jsonToProtobuf({ metadata: { name: 'x' } }, 'v1', 'Namespace');
    const env = decodeEnvelope(encodeEnvelope('v1', 'Namespace', raw), own);
    assert.deepEqual([env.apiVersion, env.kind, env.raw], ['v1', 'Namespace', raw]);
  });
});

describe('kinds', () => {
  test('groups resolve in both API domains and not across the boundary of a vendor group', () => {
    const raw = jsonToProtobuf({ metadata: { name: 'r' }, rules: [{ verbs: ['get'], resources: ['pods'], apiGroups: [''] }] },
      `${ref.group('rbac.authorization')}/v1`, 'Role');
    for (const apiVersion of [`${ref.group('rbac.authorization')}/v1`, `${own.group('rbac.authorization')}/v1`]) {
      assert.deepEqual(protobufToJson(raw, apiVersion, 'Role').rules, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    }
    assert.throws(() => protobufToJson(raw, 'rbac.authorization/v1', 'Role'), UnsupportedKindError);
    assert.throws(() => protobufToJson(raw, `${ref.group('apps')}/v1`, 'Deployment'), UnsupportedKindError);
  });

  test('an unknown kind names the kind', () => {
    assert.throws(() => protobufToJson(Buffer.alloc(0), 'v1', 'Widget'), (e: Error) =>
      e instanceof UnsupportedKindError && /v1, Kind=Widget/.test(e.message));
  });

  test('protobufKinds follows the API domain', () => {
    assert.ok(protobufKinds(ref).has(`${ref.group('rbac.authorization')}/v1/ClusterRoleBinding`));
    assert.ok(protobufKinds(own).has(`${own.group('rbac.authorization')}/v1/ClusterRoleBinding`));
    assert.ok(protobufKinds(own).has('v1/ConfigMap'));
    assert.ok(protobufKinds(own).has('apps/v1/Deployment'));
    assert.equal(protobufKinds(own).size, protobufKindDefinitions.size);
  });

  test('every built-in kind and its list have a protobuf form, but the alpha admission policies', () => {
    // v1alpha1 ValidatingAdmissionPolicy(Binding) changed shape across releases; they stay JSON only
    const jsonOnly = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    for (const names of [ref, own]) {
      const kinds = protobufKinds(names);
      for (const r of builtinResources) {
        const group = !r.group ? '' : r.domainGroup ? names.group(r.group) : r.group;
        for (const v of r.versions) {
          const apiVersion = group ? `${group}/${v.name}` : v.name;
          assert.equal(kinds.has(`${apiVersion}/${r.kind}`), !jsonOnly.has(r.kind), `${apiVersion} ${r.kind}`);
          if (r.verbs.includes('list')) assert.equal(kinds.has(`${apiVersion}/${r.listKind}`), !jsonOnly.has(r.kind), `${apiVersion} ${r.listKind}`);
        }
      }
    }
  });

  test('every message the table names is defined', () => {
    for (const def of protobufMessages.values()) {
      for (const f of def.fields) {
        if ('message' in f.value) assert.ok(protobufMessages.has(f.value.message), `${def.name}.${f.json} → ${f.value.message}`);
      }
      assert.equal(new Set(def.fields.map((f) => f.number)).size, def.fields.length, `${def.name} repeats a field number`);
    }
  });
});

describe('values', () => {
  test('zero scalars follow the reference JSON: pointers keep them, omitempty fields drop them', () => {
    const spec = Buffer.concat([varintField(1, 0), varintField(5, 0), varintField(7, 0)]); // replicas 0, minReadySeconds 0, paused false
    const raw = bytesField(2, spec);
    assert.deepEqual(protobufToJson(raw, 'apps/v1', 'Deployment').spec, { replicas: 0 });
  });

  test('negative integers, int64, bytes, times and int-or-string', () => {
    const obj = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2024-05-06T07:08:09Z', deletionGracePeriodSeconds: 0 },
      spec: {
        containers: [{ name: 'c', livenessProbe: { httpGet: { port: 'http' } }, readinessProbe: { tcpSocket: { port: 8080 } } }],
        securityContext: { runAsUser: 0, fsGroup: 4294967296 }, priority: -5,
      },
    };
    const back = protobufToJson(jsonToProtobuf(obj, 'v1', 'Pod'), 'v1', 'Pod');
    assert.deepEqual(back, obj);
  });

  test('a NetworkPolicy keeps its status (field 3, the 1.27 alpha conditions) through protobuf', () => {
    const version = `${naming().group('networking')}/v1`;
    const obj = { apiVersion: version, kind: 'NetworkPolicy', metadata: { name: 'np' }, spec: { podSelector: {}, policyTypes: ['Ingress'] },
      status: { conditions: [{ type: 'Enforced', status: 'True', reason: 'Applied', message: 'm', lastTransitionTime: '2024-05-06T07:08:09Z', observedGeneration: 2 }] } };
    assert.deepEqual(protobufToJson(jsonToProtobuf(obj, version, 'NetworkPolicy'), version, 'NetworkPolicy'), obj);
    assert.deepEqual(readFields(jsonToProtobuf(obj, version, 'NetworkPolicy')).map(f => f.number), [1, 2, 3]);
  });

  test('MicroTime keeps microseconds, Time keeps seconds', () => {
    const obj = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2024-05-06T07:08:09.123456Z', firstTimestamp: '2024-05-06T07:08:09.999Z' };
    const back = protobufToJson(jsonToProtobuf(obj, 'v1', 'Event'), 'v1', 'Event');
    assert.equal(back.eventTime, '2024-05-06T07:08:09.123456Z');
    assert.equal(back.firstTimestamp, '2024-05-06T07:08:09Z');
  });

  test('a map entry without a value holds the zero value', () => {
    const entry = (n: number, key: string) => bytesField(n, bytesField(1, Buffer.from(key)));
    const raw = Buffer.concat([entry(2, 'a'), entry(3, 'b')]);
    assert.deepEqual(protobufToJson(raw, 'v1', 'ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '' }, binaryData: { b: '' } });
    const spec = entry(1, 'pods'); // ResourceQuota spec.hard[pods] with no quantity
    assert.deepEqual(protobufToJson(bytesField(2, spec), 'v1', 'ResourceQuota').spec, { hard: { pods: '' } });
  });

  test('string map entries read alike in any layout: short or long, value first, repeated fields, multi-byte', () => {
    const field = (n: number, text: string) => bytesField(n, Buffer.from(text));
    const data = (entries: Buffer[]) => protobufToJson(Buffer.concat(entries.map((e) => bytesField(2, e))), 'v1', 'ConfigMap').data;
    const long = 'v'.repeat(300);
    assert.deepEqual(data([
      Buffer.concat([field(1, 'short'), field(2, 'é')]),
      Buffer.concat([field(1, 'long'), field(2, long)]),
      Buffer.concat([field(2, 'second'), field(1, 'reversed')]),
      Buffer.concat([field(1, 'twice'), field(2, 'old'), field(2, 'new')]),
      Buffer.concat([field(1, 'ключ'), field(2, '')]),
    ]), { short: 'é', long, reversed: 'second', twice: 'new', 'ключ': '' });
    // an entry whose key runs past its end is malformed, as it is for the general reading
    assert.throws(() => data([Buffer.from([0x0a, 0x05, 0x61])]), /runs past the end/);
    // the round trip of a large map is exact
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i % 2 ? `v${i}` : 'x'.repeat(i % 200)]));
    assert.deepEqual(protobufToJson(jsonToProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', data: many }, 'v1', 'ConfigMap'), 'v1', 'ConfigMap').data, many);
  });

  test('a map key named __proto__ is an entry, not the map\'s prototype', () => {
    const labels = bytesField(11, Buffer.concat([bytesField(1, Buffer.from('__proto__')), bytesField(2, Buffer.from('x'))]));
    const meta = protobufToJson(bytesField(1, labels), 'v1', 'ConfigMap').metadata as Record<string, unknown>;
    assert.deepEqual(Object.entries(meta.labels as object), [['__proto__', 'x']]);
    // a map of messages: a CRD schema's properties
    const crd = JSON.parse('{"metadata":{"name":"a"},"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}]}}');
    const decoded = protobufToJson(jsonToProtobuf(crd, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition'), 'apiextensions.k8s.io/v1', 'CustomResourceDefinition') as any;
    const properties = decoded.spec.versions[0].schema.openAPIV3Schema.properties;
    assert.equal(Object.getPrototypeOf(properties), Object.prototype);
    assert.deepEqual(Object.entries(properties), [['__proto__', { type: 'string' }]]);
  });

  test('unknown fields are dropped and reported', () => {
    const raw = Buffer.concat([bytesField(1, bytesField(1, Buffer.from('n'))), bytesField(99, Buffer.from('x'))]);
    const unknown: string[] = [];
    assert.deepEqual(protobufToJson(raw, 'v1', 'ConfigMap', unknown), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' } });
    assert.deepEqual(unknown, ['ConfigMap.#99']);
  });

  test('schema unions and JSON values read as the reference writes them', () => {
    const str = (n: number, v: string) => bytesField(n, Buffer.from(v));
    const props = Buffer.concat([
      bytesField(30, varintField(1, 1)), // additionalProperties: allows only
      bytesField(33, Buffer.concat([varintField(1, 1), bytesField(2, str(5, 'string'))])), // additionalItems: allows and a schema
      bytesField(24, Buffer.concat([bytesField(2, str(5, 'string')), bytesField(2, str(5, 'integer'))])), // items: an array
      bytesField(32, Buffer.concat([str(1, 'a'), bytesField(2, Buffer.concat([str(2, 'b'), str(2, 'c')]))])), // dependencies[a]: strings
      bytesField(8, str(1, '"x"')), bytesField(20, str(1, '1')), bytesField(20, str(1, 'null')), // default, enum
    ]);
    // spec.versions[0].schema.openAPIV3Schema
    const raw = bytesField(2, bytesField(7, bytesField(4, bytesField(1, props))));
    const crd = protobufToJson(raw, `${ref.group('apiextensions')}/v1`, 'CustomResourceDefinition') as any;
    assert.deepEqual(crd.spec.versions[0].schema.openAPIV3Schema, {
      default: 'x', enum: [1, null], items: [{ type: 'string' }, { type: 'integer' }], additionalProperties: true,
      dependencies: { a: ['b', 'c'] }, additionalItems: { type: 'string' },
    });
  });

  test('JSON that does not fit the kind is refused', () => {
    // fieldPath and reason of a validation rule come after 1.27
    const crd = { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.a' }] } } }] } };
    assert.throws(() => jsonToProtobuf(crd, `${ref.group('apiextensions')}/v1`, 'CustomResourceDefinition'), /x-kubernetes-validations\[0\]\.fieldPath: no protobuf field/);
    const items = { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { items: 'x' } } }] } };
    assert.throws(() => jsonToProtobuf(items, `${ref.group('apiextensions')}/v1`, 'CustomResourceDefinition'), /openAPIV3Schema\.items: expected an object/);
    assert.throws(() => jsonToProtobuf({ spec: { replicas: 'three' } }, 'apps/v1', 'Deployment'), /Deployment\.spec\.replicas: expected an integer/);
    assert.throws(() => jsonToProtobuf({ metadata: { creationTimestamp: 'yesterday' } }, 'v1', 'ConfigMap'), /not an RFC 3339 time/);
  });
});

// ── round trips with realistic objects ───────────────────────────────────────────────────────────

const meta = (name: string, namespace?: string) => ({
  name, ...(namespace ? { namespace } : {}), uid: '7d1c3f0e-8a51-4a8e-9c43-0b5d2b7e9f10', resourceVersion: '1042', generation: 3,
  creationTimestamp: '2024-05-06T07:08:09Z', labels: { app: 'web', tier: 'front' }, annotations: { note: 'a b c' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d4f', uid: 'e1c2', controller: true, blockOwnerDeletion: true }],
  finalizers: ['example.com/keep'],
  managedFields: [{
    manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2024-05-06T07:08:09Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
  }],
});

const podSpec = {
  volumes: [
    { name: 'cfg', configMap: { name: 'web-cfg', items: [{ key: 'a', path: 'a.txt', mode: 420 }], defaultMode: 0o644, optional: false } },
    { name: 'tok', projected: { sources: [{ serviceAccountToken: { audience: 'api', expirationSeconds: 3600, path: 'token' } }, { secret: { name: 's', optional: true } }, { downwardAPI: { items: [{ path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] } }] } },
    { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
    { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
    { name: 'eph', ephemeral: { volumeClaimTemplate: { metadata: { labels: { x: 'y' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' } } } },
    { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
  ],
  initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c'], args: ['echo hi'], terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
  containers: [{
    name: 'web', image: 'nginx:1.25', workingDir: '/srv',
    ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }, { containerPort: 9090, hostPort: 19090, hostIP: '127.0.0.1', protocol: 'UDP' }],
    envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'web-cfg', optional: true } }, { secretRef: { name: 'web-secret' } }],
    env: [
      { name: 'MODE', value: 'prod' },
      { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'MEM', valueFrom: { resourceFieldRef: { containerName: 'web', resource: 'limits.memory', divisor: '1Mi' } } },
      { name: 'KEY', valueFrom: { secretKeyRef: { name: 'web-secret', key: 'key', optional: false } } },
      { name: 'CM', valueFrom: { configMapKeyRef: { name: 'web-cfg', key: 'a' } } },
    ],
    resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
    resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
    volumeMounts: [{ name: 'cfg', mountPath: '/etc/web', readOnly: true, subPath: 'a.txt' }, { name: 'data', mountPath: '/data', mountPropagation: 'None' }],
    livenessProbe: { httpGet: { path: '/healthz', port: 80, scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] }, initialDelaySeconds: 3, periodSeconds: 10, failureThreshold: 3, successThreshold: 1, timeoutSeconds: 1 },
    readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 5 },
    startupProbe: { grpc: { port: 9090, service: '' }, failureThreshold: 30, terminationGracePeriodSeconds: 10 },
    lifecycle: { preStop: { exec: { command: ['sleep', '5'] } }, postStart: { tcpSocket: { port: 'http', host: 'localhost' } } },
    terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'FallbackToLogsOnError', imagePullPolicy: 'Always',
    securityContext: {
      capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, privileged: false, runAsUser: 1000, runAsGroup: 3000, runAsNonRoot: true,
      readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, seccompProfile: { type: 'RuntimeDefault' },
      seLinuxOptions: { level: 's0:c123,c456' },
    },
    stdin: true, tty: true,
  }],
  restartPolicy: 'Always', terminationGracePeriodSeconds: 30, activeDeadlineSeconds: 600, dnsPolicy: 'ClusterFirst',
  nodeSelector: { 'example.com/os': 'linux' }, serviceAccountName: 'web', serviceAccount: 'web', automountServiceAccountToken: false,
  nodeName: 'node-1', hostNetwork: true, shareProcessNamespace: true,
  securityContext: { runAsUser: 0, runAsNonRoot: false, supplementalGroups: [1, 2, 70000], fsGroup: 2000, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }], fsGroupChangePolicy: 'OnRootMismatch' },
  imagePullSecrets: [{ name: 'regcred' }], hostname: 'web-0', subdomain: 'web',
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] } }],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'example.com/hostname', namespaces: ['default'], namespaceSelector: {} } }],
    },
  },
  schedulerName: 'default-scheduler',
  tolerations: [{ key: 'node.example.com/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { operator: 'Exists' }],
  hostAliases: [{ ip: '10.0.0.1', hostnames: ['a.local', 'b.local'] }],
  priorityClassName: 'high', priority: 1000000,
  dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.local'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
  readinessGates: [{ conditionType: 'example.com/ready' }], runtimeClassName: 'runc', enableServiceLinks: false, preemptionPolicy: 'Never',
  overhead: { cpu: '10m' },
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, minDomains: 2, matchLabelKeys: ['pod-template-hash'] }],
  setHostnameAsFQDN: false, os: { name: 'linux' }, hostUsers: true, schedulingGates: [{ name: 'example.com/gate' }],
};

function flowcontrolFixtures(version: string, shares: string): Record<string, Record<string, unknown>> {
  const apiVersion = `${ref.group('flowcontrol.apiserver')}/${version}`;
  const conditions = [{ type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'Found', message: 'the level exists' }];
  return {
    [`FlowSchema (${version})`]: {
      apiVersion, kind: 'FlowSchema', metadata: meta('workloads'),
      spec: {
        priorityLevelConfiguration: { name: 'workload-high' }, matchingPrecedence: 800, distinguisherMethod: { type: 'ByNamespace' },
        rules: [{
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }, { kind: 'User', user: { name: 'alice' } }, { kind: 'Group', group: { name: 'system:nodes' } }],
          resourceRules: [{ verbs: ['get', 'list'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz', '/metrics'] }],
        }],
      },
      status: { conditions },
    },
    [`PriorityLevelConfiguration (${version})`]: {
      apiVersion, kind: 'PriorityLevelConfiguration', metadata: meta('workload-high'),
      spec: { type: 'Limited', limited: { [shares]: 40, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } }, lendablePercent: 0, borrowingLimitPercent: 50 } },
      status: { conditions },
    },
  };
}

/** a schema that sets every JSONSchemaProps field somewhere, the unions in each of their forms */
const widgetSchema = {
  id: 'widget', $schema: 'http://json-schema.org/draft-04/schema#', description: 'A widget', type: 'object', title: 'Widget',
  required: ['spec'], minProperties: 1, maxProperties: 3, externalDocs: { description: 'docs', url: 'https://example.com/docs' },
  'x-kubernetes-preserve-unknown-fields': false,
  'x-kubernetes-validations': [{ rule: 'self.spec.size <= 10', message: 'too big', messageExpression: "'size ' + string(self.spec.size)" }],
  properties: {
    spec: {
      type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: false,
      properties: {
        size: { type: 'integer', format: 'int32', default: 3, minimum: 0, maximum: 10.5, exclusiveMinimum: true, exclusiveMaximum: true, multipleOf: 1, example: 5 },
        color: { type: 'string', enum: ['red', 'green', 0, null, { hex: '#fff' }], pattern: '^[a-z]+$', minLength: 0, maxLength: 20, default: 'red' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tags: {
          type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 5, uniqueItems: true,
          'x-kubernetes-list-type': 'set',
        },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: { type: 'boolean' } },
        ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        anything: { 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: true, additionalItems: false },
        either: { allOf: [{ minLength: 1 }], oneOf: [{ required: ['a'] }, { required: ['b'] }], not: { required: ['c'] }, $ref: '#/definitions/base' },
      },
      patternProperties: { '^x-': { type: 'string' } },
      dependencies: { a: ['b', 'c'], d: { required: ['e'] } },
    },
    status: { type: 'object', nullable: true, default: {}, example: { replicas: 1 }, definitions: { base: { type: 'object' } } },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  },
};

const fixtures: Record<string, Record<string, unknown>> = {
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('web-cfg', 'default'), immutable: false, data: { 'a.txt': 'hello\nworld', b: '' }, binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') } },
  Secret: { apiVersion: 'v1', kind: 'Secret', metadata: meta('web-secret', 'default'), immutable: true, data: { key: Buffer.from('s3cr3t').toString('base64') }, type: 'Opaque' },
  Namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: meta('team-a'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2024-05-06T07:08:10Z', reason: 'ContentDeleted', message: 'All content successfully deleted' }] } },
  ServiceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('web', 'default'), secrets: [{ name: 'web-token', namespace: 'default', kind: 'Secret' }], imagePullSecrets: [{ name: 'regcred' }], automountServiceAccountToken: false },
  Pod: {
    apiVersion: 'v1', kind: 'Pod', metadata: meta('web-0', 'default'), spec: podSpec,
    status: {
      phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-06T07:08:12Z' }], hostIP: '10.0.0.5', podIP: '10.1.0.7',
      podIPs: [{ ip: '10.1.0.7' }], startTime: '2024-05-06T07:08:09Z', qosClass: 'Burstable',
      containerStatuses: [{ name: 'web', ready: false, restartCount: 0, image: 'nginx:1.25', imageID: 'docker.io/library/nginx@sha256:abc', containerID: 'containerd://1', started: true,
        state: { running: { startedAt: '2024-05-06T07:08:11Z' } }, lastState: { terminated: { exitCode: 0, reason: 'Completed', startedAt: '2024-05-06T07:00:00Z', finishedAt: '2024-05-06T07:05:00Z' } },
        allocatedResources: { cpu: '250m' }, resources: { requests: { cpu: '250m' } } }],
    },
  },
  Deployment: {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('web', 'default'),
    spec: {
      replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } }, minReadySeconds: 5, revisionHistoryLimit: 10, paused: true, progressDeadlineSeconds: 600,
    },
    status: { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1, collisionCount: 0,
      conditions: [{ type: 'Available', status: 'False', lastUpdateTime: '2024-05-06T07:08:09Z', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' }] },
  },
  Role: { apiVersion: `${ref.group('rbac.authorization')}/v1`, kind: 'Role', metadata: meta('reader', 'default'), rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['web-0'] }] },
  ClusterRole: { apiVersion: `${ref.group('rbac.authorization')}/v1`, kind: 'ClusterRole', metadata: meta('agg'), rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] } },
  RoleBinding: { apiVersion: `${ref.group('rbac.authorization')}/v1`, kind: 'RoleBinding', metadata: meta('read', 'default'), subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'default' }], roleRef: { apiGroup: ref.group('rbac.authorization'), kind: 'Role', name: 'reader' } },
  ClusterRoleBinding: { apiVersion: `${ref.group('rbac.authorization')}/v1`, kind: 'ClusterRoleBinding', metadata: meta('admins'), subjects: [{ kind: 'Group', apiGroup: ref.group('rbac.authorization'), name: 'admins' }, { kind: 'User', apiGroup: ref.group('rbac.authorization'), name: 'alice' }], roleRef: { apiGroup: ref.group('rbac.authorization'), kind: 'ClusterRole', name: 'cluster-admin' } },
  Job: {
    apiVersion: 'batch/v1', kind: 'Job', metadata: meta('pi', 'default'),
    spec: {
      parallelism: 2, completions: 4, activeDeadlineSeconds: 100, backoffLimit: 0, selector: { matchLabels: { 'controller-uid': 'x' } }, manualSelector: false,
      template: { metadata: { labels: { job: 'pi' } }, spec: { containers: [{ name: 'pi', image: 'perl', command: ['perl', '-e', 'print 1'] }], restartPolicy: 'Never' } },
      ttlSecondsAfterFinished: 0, completionMode: 'Indexed', suspend: false,
      podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'pi', operator: 'In', values: [1, 42] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
    },
    status: { conditions: [{ type: 'Complete', status: 'True', lastProbeTime: '2024-05-06T07:09:00Z', lastTransitionTime: '2024-05-06T07:09:00Z' }], startTime: '2024-05-06T07:08:09Z', completionTime: '2024-05-06T07:09:00Z', succeeded: 4, completedIndexes: '0-3', uncountedTerminatedPods: { succeeded: ['u1'] }, ready: 0 },
  },
  CronJob: {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta('tick', 'default'),
    spec: { schedule: '*/5 * * * *', timeZone: 'Etc/UTC', startingDeadlineSeconds: 30, concurrencyPolicy: 'Forbid', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { cron: 'tick' } }, spec: { template: { spec: { containers: [{ name: 'tick', image: 'busybox' }], restartPolicy: 'OnFailure' } } } } },
    status: { active: [{ kind: 'Job', namespace: 'default', name: 'tick-1', uid: 'j1', apiVersion: 'batch/v1', resourceVersion: '9' }], lastScheduleTime: '2024-05-06T07:05:00Z', lastSuccessfulTime: '2024-05-06T07:05:30Z' },
  },
  Service: {
    apiVersion: 'v1', kind: 'Service', metadata: meta('web', 'default'),
    spec: { ports: [{ name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: 'http', nodePort: 30080 }, { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 }],
      selector: { app: 'web' }, clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], type: 'LoadBalancer', externalIPs: ['192.0.2.1'], sessionAffinity: 'ClientIP',
      loadBalancerSourceRanges: ['0.0.0.0/0'], externalTrafficPolicy: 'Local', healthCheckNodePort: 32000, publishNotReadyAddresses: true,
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', allocateLoadBalancerNodePorts: true,
      loadBalancerClass: 'example.com/lb', internalTrafficPolicy: 'Cluster' },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.10', ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }] }] }, conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'Ok', message: '' }] },
  },
  ResourceQuota: {
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('compute', 'default'),
    spec: { hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    status: { hard: { pods: '10' }, used: { pods: '3' } },
  },
  PriorityClass: { apiVersion: `${ref.group('scheduling')}/v1`, kind: 'PriorityClass', metadata: meta('high'), value: 0, globalDefault: true, description: 'important', preemptionPolicy: 'PreemptLowerPriority' },
  PodDisruptionBudget: {
    apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta('web', 'default'),
    spec: { minAvailable: 0, selector: { matchLabels: { app: 'web' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    status: { observedGeneration: 1, disruptedPods: { 'web-0': '2024-05-06T07:08:09Z' }, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2,
      conditions: [{ type: 'DisruptionAllowed', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'InsufficientPods', message: 'none' }] },
  },
  Ingress: {
    apiVersion: `${ref.group('networking')}/v1`, kind: 'Ingress', metadata: meta('web', 'default'),
    spec: { ingressClassName: 'nginx', defaultBackend: { resource: { apiGroup: 'example.com', kind: 'Bucket', name: 'static' } }, tls: [{ hosts: ['foo.com'], secretName: 'foo-tls' }],
      rules: [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'web', port: { number: 80 } } } }, { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }] },
    status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com', ports: [{ port: 443, protocol: 'TCP' }] }] } },
  },
  Eviction: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '5' }, propagationPolicy: 'Background', dryRun: ['All'] } },
  CertificateSigningRequest: {
    apiVersion: `${ref.group('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: meta('node-csr'),
    spec: { request: Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\n...').toString('base64'), signerName: 'example.com/client', expirationSeconds: 86400,
      usages: ['digital signature', 'client auth'], username: 'alice', uid: 'a1', groups: ['system:authenticated'], extra: { scopes: ['a', 'b'], empty: [] } },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok', lastUpdateTime: '2024-05-06T07:08:09Z', lastTransitionTime: '2024-05-06T07:08:09Z' }], certificate: Buffer.from('cert').toString('base64') },
  },
  SelfSubjectAccessReview: {
    apiVersion: `${ref.group('authorization')}/v1`, kind: 'SelfSubjectAccessReview', metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'web' } },
    status: { allowed: false, denied: true, reason: 'no rule', evaluationError: 'partial' },
  },
  SelfSubjectRulesReview: {
    apiVersion: `${ref.group('authorization')}/v1`, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'default' },
    status: { resourceRules: [{ verbs: ['create'], apiGroups: [ref.group('authorization')], resources: ['selfsubjectaccessreviews'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }], incomplete: false },
  },
  SelfSubjectReview: {
    apiVersion: `${ref.group('authentication')}/v1`, kind: 'SelfSubjectReview', metadata: { creationTimestamp: '2024-05-06T07:08:09Z' },
    status: { userInfo: { username: 'admin', uid: 'u-1', groups: ['system:masters', 'system:authenticated'], extra: { 'example.com/team': ['a'] } } },
  },
  TokenRequest: {
    apiVersion: `${ref.group('authentication')}/v1`, kind: 'TokenRequest', metadata: { name: 'default', namespace: 'default' },
    spec: { audiences: ['https://api.example.com'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: 'p1' } },
    status: { token: 'eyJhbGciOi', expirationTimestamp: '2024-05-06T08:08:09Z' },
  },
  Binding: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web-0', namespace: 'default' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } },
  ComponentStatus: {
    apiVersion: 'v1', kind: 'ComponentStatus', metadata: meta('etcd-0'),
    conditions: [{ type: 'Healthy', status: 'False', message: 'ok', error: 'dial tcp 127.0.0.1:2379: connect: connection refused' }],
  },
  'Event (events/v1)': {
    apiVersion: `${ref.group('events')}/v1`, kind: 'Event', metadata: meta('web-0.17a', 'default'), eventTime: '2024-05-06T07:08:09.123456Z',
    series: { count: 0, lastObservedTime: '2024-05-06T07:09:09.000001Z' }, reportingController: 'example.com/kubelet', reportingInstance: 'kubelet-node-1',
    action: 'Pulling', reason: 'Pulling', regarding: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'p1', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'spec.containers{web}' },
    related: { kind: 'Node', name: 'node-1' }, note: 'Pulling image "nginx:1.25"', type: 'Normal', deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-05-06T07:08:09Z', deprecatedLastTimestamp: '2024-05-06T07:09:09Z', deprecatedCount: 2,
  },
  RuntimeClass: {
    apiVersion: `${ref.group('node')}/v1`, kind: 'RuntimeClass', metadata: meta('gvisor'), handler: 'runsc',
    overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
    scheduling: { nodeSelector: { 'example.com/sandbox': 'true' }, tolerations: [{ key: 'sandbox', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }] },
  },
  CSIDriver: {
    apiVersion: `${ref.group('storage')}/v1`, kind: 'CSIDriver', metadata: meta('disk.csi.example.com'),
    spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], storageCapacity: true, fsGroupPolicy: 'File',
      tokenRequests: [{ audience: '', expirationSeconds: 3600 }, { audience: 'vault' }], requiresRepublish: true, seLinuxMount: false },
  },
  CSINode: {
    apiVersion: `${ref.group('storage')}/v1`, kind: 'CSINode', metadata: meta('node-1'),
    spec: { drivers: [{ name: 'disk.csi.example.com', nodeID: 'i-0abc', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 0 } }, { name: 'nfs', nodeID: 'node-1' }] },
  },
  CSIStorageCapacity: {
    apiVersion: `${ref.group('storage')}/v1`, kind: 'CSIStorageCapacity', metadata: meta('csisc-1', 'kube-system'),
    nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } }, storageClassName: 'fast', capacity: '100Gi', maximumVolumeSize: '10Gi',
  },
  VolumeAttachment: {
    apiVersion: `${ref.group('storage')}/v1`, kind: 'VolumeAttachment', metadata: meta('csi-123'),
    spec: { attacher: 'disk.csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
    status: { attached: false, attachmentMetadata: { devicePath: '/dev/xvdb' }, attachError: { time: '2024-05-06T07:08:09Z', message: 'timeout' }, detachError: { message: 'busy' } },
  },
  'VolumeAttachment (inline)': {
    apiVersion: `${ref.group('storage')}/v1`, kind: 'VolumeAttachment', metadata: meta('csi-456'),
    spec: { attacher: 'disk.csi.example.com', nodeName: 'node-2', source: { inlineVolumeSpec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'disk.csi.example.com', volumeHandle: 'vol-1' } } } },
  },
  MutatingWebhookConfiguration: {
    apiVersion: `${ref.group('admissionregistration')}/v1`, kind: 'MutatingWebhookConfiguration', metadata: meta('inject'),
    webhooks: [{
      name: 'inject.example.com', clientConfig: { service: { namespace: 'system', name: 'injector', path: '/mutate', port: 8443 }, caBundle: Buffer.from('ca').toString('base64') },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: 'Namespaced' }],
      failurePolicy: 'Ignore', matchPolicy: 'Equivalent', namespaceSelector: { matchExpressions: [{ key: 'inject', operator: 'NotIn', values: ['off'] }] },
      objectSelector: { matchLabels: { inject: 'on' } }, sideEffects: 'None', timeoutSeconds: 5, admissionReviewVersions: ['v1', 'v1beta1'],
      reinvocationPolicy: 'IfNeeded', matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
    }],
  },
  ValidatingWebhookConfiguration: {
    apiVersion: `${ref.group('admissionregistration')}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: meta('policy'),
    webhooks: [{
      name: 'policy.example.com', clientConfig: { url: 'https://policy.example.com/validate' },
      rules: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['*'], resources: ['deployments'], scope: '*' }],
      failurePolicy: 'Fail', matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: { matchLabels: { team: 'a' } }, sideEffects: 'NoneOnDryRun',
      timeoutSeconds: 30, admissionReviewVersions: ['v1'], matchConditions: [{ name: 'always', expression: 'true' }],
    }],
  },
  ...flowcontrolFixtures('v1beta3', 'nominalConcurrencyShares'),
  ...flowcontrolFixtures('v1beta2', 'assuredConcurrencyShares'),
  APIService: {
    apiVersion: `${ref.group('apiregistration')}/v1`, kind: 'APIService', metadata: meta('v1beta1.metrics.example.com'),
    spec: { service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, group: 'metrics.example.com', version: 'v1beta1',
      insecureSkipTLSVerify: true, caBundle: Buffer.from('ca').toString('base64'), groupPriorityMinimum: 0, versionPriority: 100 },
    status: { conditions: [{ type: 'Available', status: 'False', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'FailedDiscoveryCheck', message: 'no response' }] },
  },
  CustomResourceDefinition: {
    apiVersion: `${ref.group('apiextensions')}/v1`, kind: 'CustomResourceDefinition', metadata: meta('widgets.example.com'),
    spec: {
      group: 'example.com', names: { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
      scope: 'Namespaced',
      versions: [{
        name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: 'use v2',
        schema: { openAPIV3Schema: widgetSchema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', format: 'int32', description: 'the size', priority: 1, jsonPath: '.spec.size' }],
      }, { name: 'v2', served: false, storage: false }],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'system', name: 'convert', path: '/convert', port: 9443 }, caBundle: Buffer.from('ca').toString('base64'), url: 'https://convert.example.com' }, conversionReviewVersions: ['v1'] } },
      preserveUnknownFields: true,
    },
    status: {
      conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
      acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1'],
    },
  },
  Status: { apiVersion: 'v1', kind: 'Status', metadata: { resourceVersion: '7' }, status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec' }], retryAfterSeconds: 1 }, code: 404 },
};

describe('round trips JSON → protobuf → JSON', () => {
  for (const [name, obj] of Object.entries(fixtures)) {
    test(name, () => {
      const apiVersion = obj.apiVersion as string;
      const kind = obj.kind as string;
      const body = encodeObject(obj);
      const unknown: string[] = [];
      const env = decodeEnvelope(body, ref);
      assert.deepEqual(protobufToJson(env.raw, env.apiVersion, env.kind, unknown), obj);
      assert.deepEqual(unknown, []);
      // the same bytes read in the other API domain, with the group renamed
      const renamed = apiVersion.replace(`.${ref.domain}/`, `.${own.domain}/`);
      assert.deepEqual(protobufToJson(env.raw, renamed, kind), { ...obj, apiVersion: renamed });
    });
  }

  test('the fixtures cover every kind kubectl sends', () => {
    for (const kind of ['ConfigMap', 'Secret', 'Namespace', 'ServiceAccount', 'Deployment', 'Role', 'ClusterRole', 'RoleBinding',
      'ClusterRoleBinding', 'Job', 'CronJob', 'Service', 'ResourceQuota', 'PriorityClass', 'PodDisruptionBudget', 'Ingress', 'Pod',
      'Eviction', 'CertificateSigningRequest', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SelfSubjectReview', 'TokenRequest']) {
      assert.ok(fixtures[kind], kind);
    }
  });

  test('packed repeated integers are read as well as unpacked ones', () => {
    const packed = Buffer.from([1, 2, 0xf0, 0xa2, 0x04]); // 1, 2, 70000
    const psc = bytesField(4, packed);
    const raw = bytesField(2, bytesField(14, psc));
    assert.deepEqual((protobufToJson(raw, 'v1', 'Pod').spec as { securityContext: unknown }).securityContext, { supplementalGroups: [1, 2, 70000] });
  });
});

test('a list encoded item by item is byte for byte the list encoded whole', () => {
  const items = [0, 1, 2].map(i => ({ metadata: { name: `cm${i}`, namespace: 'ns', resourceVersion: String(10 + i), creationTimestamp: '2026-11-26T08:00:00Z', labels: { a: 'b' } }, data: { k: 'v'.repeat(i * 100) } }));
  const metadata = { resourceVersion: '99', continue: 'abc' };
  for (const [kind, members] of [['ConfigMapList', items], ['ConfigMapList', []], ['PodList', [{ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }]]] as const) {
    const encoder = listEncoder('v1', kind)!;
    const { parts, length } = encoder.finish(metadata, members.map(m => encoder.item(m)));
    const joined = Buffer.concat(parts);
    assert.ok(joined.equals(encodeObject({ apiVersion: 'v1', kind, metadata, items: [...members] })), `${kind} of ${members.length}`);
    assert.equal(length, joined.length);
  }
});

describe('times the reference always writes', () => {
  test('a null Event time is an empty message on the wire and null again when read back', () => {
    const obj = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, eventTime: null, firstTimestamp: null, lastTimestamp: '2024-05-06T07:08:09Z', reportingComponent: '', reportingInstance: '' };
    const bytes = jsonToProtobuf(obj, 'v1', 'Event');
    // firstTimestamp (6) and eventTime (10) as the reference's generated code writes a zero time: tag and length 0
    assert.ok(bytes.includes(Buffer.from([0x32, 0x00])), 'field 6, empty');
    assert.ok(bytes.includes(Buffer.from([0x52, 0x00])), 'field 10, empty');
    assert.deepEqual(protobufToJson(bytes, 'v1', 'Event'), obj);
  });

  test('a template\'s null creationTimestamp survives the protobuf form; one never written stays out', () => {
    const obj = {
      apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't', creationTimestamp: '2024-05-06T07:08:09Z' },
      template: { metadata: { creationTimestamp: null, labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    };
    assert.deepEqual(protobufToJson(jsonToProtobuf(obj, 'v1', 'PodTemplate'), 'v1', 'PodTemplate'), obj);
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.deepEqual(protobufToJson(jsonToProtobuf(bare, 'v1', 'ConfigMap'), 'v1', 'ConfigMap'), bare);
  });
});
