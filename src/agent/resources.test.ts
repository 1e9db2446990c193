import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amount, containerResources, milliCpuToShares, oomScoreAdj, podLimit, podRequests, qosClass } from './resources.js';
import type { AgentPod, Container } from './objects.js';

const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>): Container => ({ name, image: 'x', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });
const pod = (containers: Container[], init: Container[] = []): AgentPod => ({ metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers, initContainers: init } });

test('quantities: CPU in millicores rounded up, the rest in units', () => {
  assert.equal(amount('cpu', '250m'), 250);
  assert.equal(amount('cpu', '1.5'), 1500);
  assert.equal(amount('cpu', '100u'), 1);
  assert.equal(amount('memory', '64Mi'), 64 * 2 ** 20);
  assert.equal(amount('memory', '1G'), 1e9);
  assert.equal(amount('memory', undefined), 0);
});

test('QoS classes as the reference decides them', () => {
  assert.equal(qosClass(pod([c('a')])), 'BestEffort');
  assert.equal(qosClass(pod([c('a', undefined, { cpu: '1', memory: '1Gi' })])), 'Guaranteed', 'limits alone: requests default to them');
  assert.equal(qosClass(pod([c('a', { cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })])), 'Burstable');
  assert.equal(qosClass(pod([c('a', undefined, { cpu: '1', memory: '1Gi' }), c('b')])), 'Burstable', 'every container needs both limits');
  assert.equal(qosClass(pod([c('a', undefined, { cpu: '1', memory: '1Gi' })], [c('i', { cpu: '1m' })])), 'Burstable', 'init containers count');
});

test('what a pod asks of the node: the larger of the sum of its containers and its largest init container', () => {
  assert.deepEqual(podRequests(pod([c('a', { cpu: '100m' }), c('b', { cpu: '200m', memory: '1Mi' })], [c('i', { cpu: '500m' })])), { cpu: 500, memory: 2 ** 20, pods: 1 });
  assert.equal(podLimit(pod([c('a', undefined, { memory: '1Mi' }), c('b', undefined, { memory: '2Mi' })]), 'memory'), 3 * 2 ** 20);
  assert.equal(podLimit(pod([c('a', undefined, { memory: '1Mi' }), c('b')]), 'memory'), undefined, 'no pod limit unless every container has one');
});

test('container resources: shares, CFS quota over the period, memory limit and the OOM score by QoS', () => {
  const burstable = pod([c('a', { cpu: '250m', memory: '1Gi' }, { cpu: '500m', memory: '2Gi' })]);
  const r = containerResources(burstable, burstable.spec.containers[0]!, { cfsQuota: true, cfsPeriodUs: 100_000, memoryCapacity: 4 * 2 ** 30 });
  assert.deepEqual(r, { cpuShares: 256, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitBytes: 2 * 2 ** 30, oomScoreAdj: 750, cpusetCpus: '', cpusetMems: '' });
  const noQuota = containerResources(burstable, burstable.spec.containers[0]!, { cfsQuota: false, cfsPeriodUs: 100_000, memoryCapacity: 4 * 2 ** 30 });
  assert.equal(noQuota.cpuQuota, 0);
  assert.equal(milliCpuToShares(0), 2);
  assert.equal(milliCpuToShares(1), 2);
  const g = pod([c('a', undefined, { cpu: '1', memory: '1Gi' })]);
  assert.equal(oomScoreAdj(g, g.spec.containers[0]!, 2 ** 30), -997);
  const be = pod([c('a')]);
  assert.equal(oomScoreAdj(be, be.spec.containers[0]!, 2 ** 30), 1000);
  const tiny = pod([c('a', { memory: '1' })]);
  assert.equal(oomScoreAdj(tiny, tiny.spec.containers[0]!, 2 ** 30), 999, 'a burstable container never scores as best effort');
  const huge = pod([c('a', { memory: '2Gi' })]);
  assert.equal(oomScoreAdj(huge, huge.spec.containers[0]!, 2 ** 30), 3);
});
