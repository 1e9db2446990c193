import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from '../../api/types/core-v1.js';
import { validatePodSpec } from './pod-spec.js';

const spec = (extra: object): PodSpec => ({ containers: [{ name: 'a', image: 'i', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', ...extra } as PodSpec);
const causes = (extra: object) => validatePodSpec('spec', spec(extra)).map(c => `${c.field}: ${c.message}`);

test('node affinity: operators, values, keys, node fields and weights as the reference checks them', () => {
  const req = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  assert.deepEqual(causes({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } }),
    [`${req}.nodeSelectorTerms: Required value: must have at least one node selector term`]);
  assert.deepEqual(causes({ affinity: { nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{
      matchExpressions: [{ key: 'zone', operator: 'In' }, { key: 'a', operator: 'Exists', values: ['x'] }, { key: 'n', operator: 'Gt', values: ['1', '2'] }, { key: 'bad key', operator: 'in', values: ['x'] }],
      matchFields: [{ key: 'metadata.labels', operator: 'In', values: ['a', 'b'] }],
    }] },
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }],
  } } }), [
    `${req}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
    `${req}.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    `${req}.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`,
    `${req}.nodeSelectorTerms[0].matchExpressions[3].operator: Invalid value: "in": not a valid selector operator`,
    `${req}.nodeSelectorTerms[0].matchExpressions[3].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    `${req}.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`,
    `${req}.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.labels": not a valid field selector key`,
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
  ]);
});

test('pod (anti-)affinity terms need a topology key; spread constraints their skew, key and action', () => {
  assert.deepEqual(causes({ affinity: {
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'a' } } }] },
    podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, podAffinityTerm: { topologyKey: 'zone', namespaces: ['Bad'] } }] },
  } }), [
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty',
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100',
    'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespace: Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
  ]);
  assert.deepEqual(causes({ topologySpreadConstraints: [
    { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
    { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 },
    { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Maybe', minDomains: 0, nodeTaintsPolicy: 'Always' },
  ] }), [
    'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
    'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
    'spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty',
    'spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
    'spec.topologySpreadConstraints[2].minDomains: Invalid value: 0: must be greater than zero',
    'spec.topologySpreadConstraints[2].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not Maybe',
    'spec.topologySpreadConstraints[2].nodeTaintsPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"',
  ]);
  assert.deepEqual(causes({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'a' } } }] } } }), []);
});

test('DNS settings and readiness gates are checked as the reference does', () => {
  assert.deepEqual(causes({ dnsPolicy: 'None' }), ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']);
  assert.deepEqual(causes({ dnsPolicy: 'None', dnsConfig: {} }), ['spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None']);
  assert.deepEqual(causes({ dnsConfig: { nameservers: ['1.1.1.1', 'dns.example.com'], searches: ['svc.cluster.local.', 'Bad_Search'], options: [{ name: 'ndots', value: '2' }, { value: '1' }] }, readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'not ready' }] }), [
    'spec.dnsConfig.nameservers[1]: Invalid value: "dns.example.com": must be valid IP address',
    'spec.dnsConfig.searches[1]: Invalid value: "Bad_Search": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.dnsConfig.options[1]: Required value: Option.Name must not be empty',
    'spec.readinessGates[1].conditionType: Invalid value: "not ready": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  ]);
});
