// Writes through /status of the workload and policy kinds are validated as the reference validates them: no count
// below 0, and for replicated kinds no count above status.replicas and no more available than ready pods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strategyOf, text } from './testing/strategy.js';

const statusCauses = (group: string, resource: string, status: object) => {
  const s = strategyOf(group, resource);
  const obj = { metadata: { name: 'x', namespace: 'default' }, status } as never;
  return text(s.validateStatusUpdate!(obj, obj));
};

test('StatefulSet status: counts not below 0 nor above status.replicas, available not above status.readyReplicas', () => {
  assert.deepEqual(statusCauses('apps', 'statefulsets', { replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 2 }), []);
  assert.deepEqual(statusCauses('apps', 'statefulsets', { replicas: 0, collisionCount: -1 }), ['status.collisionCount: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(statusCauses('apps', 'statefulsets', { replicas: 1, currentReplicas: 2, readyReplicas: 1, availableReplicas: 2 }), [
    'status.currentReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
  ]);
});

test('ReplicationController status: as a ReplicaSet\'s', () => {
  assert.deepEqual(statusCauses('', 'replicationcontrollers', { replicas: 2, fullyLabeledReplicas: 3, readyReplicas: 1, availableReplicas: 2 }), [
    'status.fullyLabeledReplicas: Invalid value: 3: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas',
  ]);
});

test('DaemonSet, Job, HorizontalPodAutoscaler and PodDisruptionBudget status: no count below 0', () => {
  assert.deepEqual(statusCauses('apps', 'daemonsets', { desiredNumberScheduled: 2, numberReady: 1, numberUnavailable: -1 }),
    ['status.numberUnavailable: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(statusCauses('batch', 'jobs', { active: 1, failed: -2 }), ['status.failed: Invalid value: -2: must be greater than or equal to 0']);
  assert.deepEqual(statusCauses('autoscaling', 'horizontalpodautoscalers', { currentReplicas: 1, desiredReplicas: -1 }),
    ['status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(statusCauses('policy', 'poddisruptionbudgets', { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
    ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
});
