import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { admit, matchesNodeSelector, tolerates, type AdmissionInput } from './admission.js';
import type { AgentPod, Node } from './objects.js';

const names = naming();
const node: Node = { metadata: { name: 'n1', labels: { zone: 'a', size: '8' } }, spec: { taints: [{ key: 'gpu', effect: 'NoExecute' }, { key: 'soft', effect: 'NoSchedule' }] } };
const pod = (name: string, spec: Partial<AgentPod['spec']> = {}, labels?: Record<string, string>): AgentPod => ({
  metadata: { name, namespace: 'default', uid: name, ...(labels ? { labels } : {}) },
  spec: { containers: [{ name: 'main', image: 'x' }], tolerations: [{ key: 'gpu', operator: 'Exists' }], ...spec },
});
const input = (p: AgentPod, over: Partial<AdmissionInput> = {}): AdmissionInput => ({
  pod: p, others: [], node, allocatable: { cpu: 2000, memory: 2 ** 30, pods: 3 }, pressure: { memory: false, disk: false, pid: false },
  allowedUnsafeSysctls: [], names, ...over,
});

test('resources: the first one short, with the reference message', () => {
  const big = pod('big', { containers: [{ name: 'm', image: 'x', resources: { requests: { cpu: '1500m' } } }] });
  assert.equal(admit(input(big)), undefined);
  assert.deepEqual(admit(input(big, { others: [big] })), { reason: 'OutOfcpu', message: 'Node didn\'t have enough resource: cpu, requested: 1500, used: 1500, capacity: 2000' });
  assert.equal(admit(input(pod('p'), { others: [pod('a'), pod('b'), pod('c')] }))?.reason, 'OutOfpods');
});

test('node selector and required affinity; host ports; NoExecute taints only', () => {
  assert.equal(admit(input(pod('s', { nodeSelector: { zone: 'b' } })))?.reason, 'NodeAffinity');
  const term = (key: string, operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt', values?: string[]) => pod('t', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] }] } } } });
  const labels = node.metadata!.labels!;
  assert.ok(matchesNodeSelector(term('zone', 'In', ['a', 'b']), node, labels));
  assert.ok(!matchesNodeSelector(term('zone', 'NotIn', ['a']), node, labels));
  assert.ok(matchesNodeSelector(term('size', 'Gt', ['4']), node, labels));
  assert.ok(!matchesNodeSelector(term('size', 'Lt', ['4']), node, labels));
  assert.ok(matchesNodeSelector(term('disk', 'DoesNotExist'), node, labels));
  const fields = pod('f', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] } } } });
  assert.equal(admit(input(fields))?.reason, 'NodeAffinity');

  const web = (name: string, hostPort: number, hostIP?: string) => pod(name, { containers: [{ name: 'm', image: 'x', ports: [{ containerPort: 80, hostPort, ...(hostIP ? { hostIP } : {}) }] }] });
  assert.deepEqual(admit(input(web('b', 8080), { others: [web('a', 8080)] })), { reason: 'NodePorts', message: 'Predicate NodePorts failed' });
  assert.equal(admit(input(web('b', 8080, '10.0.0.2'), { others: [web('a', 8080, '10.0.0.1')] })), undefined, 'other addresses do not conflict');
  assert.equal(admit(input(web('b', 8081), { others: [web('a', 8080)] })), undefined);

  assert.equal(admit(input(pod('u', { tolerations: [] })))?.reason, 'TaintToleration', 'the NoExecute taint');
  assert.equal(admit(input(pod('v', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoExecute' }] }))), undefined, 'NoSchedule taints are the scheduler\'s');
  assert.ok(tolerates({ operator: 'Exists' }, { key: 'whatever', effect: 'NoExecute' }));
  assert.ok(!tolerates({ key: 'k', value: 'a' }, { key: 'k', value: 'b', effect: 'NoExecute' }));
});

test('OS, sysctls and node pressure', () => {
  assert.equal(admit(input(pod('w', { os: { name: 'windows' } })))?.reason, 'PodOSNotSupported');
  assert.equal(admit(input(pod('l', {}, { [names.label('os')]: 'windows' })))?.reason, 'PodOSSelectorNodeLabelDoesNotMatch');
  assert.equal(admit(input(pod('s', { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1' }] } })))?.reason, 'SysctlForbidden');
  assert.deepEqual(admit(input(pod('be'), { pressure: { memory: true, disk: false, pid: false } })), { reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
  const burstable = pod('bu', { containers: [{ name: 'm', image: 'x', resources: { requests: { memory: '1Mi' } } }] });
  assert.equal(admit(input(burstable, { pressure: { memory: true, disk: false, pid: false } })), undefined, 'only best-effort pods wait out memory pressure');
});
