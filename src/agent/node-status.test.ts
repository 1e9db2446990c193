import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { capacityAndAllocatable, initialNode, type NodeSettings } from './node-status.js';
import { parseThresholds } from './quantity.js';

const names = naming();
const settings = (over: Partial<NodeSettings> = {}): NodeSettings => ({
  names, nodeName: 'n', labels: {}, taints: [], schedulable: true, nodeIps: [], maxPods: 110, podsPerCore: 0,
  systemReserved: { memory: 2 ** 30 }, clusterReserved: {}, evictionHard: parseThresholds(['memory.available<100Mi']), maxImages: 50, rootDir: '/tmp', serverPort: 10250,
  simulated: true, simulatedCapacity: { memory: 8 * 2 ** 30 }, ...over,
});

test('allocatable is capacity less the reservations and the hard eviction thresholds, unless told to ignore them', () => {
  assert.equal(capacityAndAllocatable(settings()).allocatable.memory, `${(7 * 2 ** 30 - 100 * 2 ** 20) / 1024}Ki`);
  assert.equal(capacityAndAllocatable(settings({ allocatableIgnoresEviction: true })).allocatable.memory, `${(7 * 2 ** 30) / 1024}Ki`);
});

test('without local storage isolation the node has no ephemeral-storage resource', () => {
  assert.ok('ephemeral-storage' in capacityAndAllocatable(settings()).capacity);
  const { capacity, allocatable } = capacityAndAllocatable(settings({ localStorage: false }));
  assert.ok(!('ephemeral-storage' in capacity) && !('ephemeral-storage' in allocatable));
});

test('an external cloud provider taints the node until initialized; attach/detach by the controller is announced', () => {
  const external = initialNode(settings({ externalCloudProvider: true }));
  assert.deepEqual(external.spec!.taints, [{ key: `node.cloudprovider.${names.labelDomain}/uninitialized`, value: 'true', effect: 'NoSchedule' }]);
  const attach = `volumes.${names.labelDomain}/controller-managed-attach-detach`;
  assert.equal(initialNode(settings()).metadata!.annotations![attach], 'true');
  assert.equal(initialNode(settings({ controllerAttachDetach: false })).metadata!.annotations![attach], undefined);
});
