import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../../../api/naming.js';
import { convertHorizontalPodAutoscalers as convert } from './conversion.js';

const names = naming();
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

test('a v1 autoscaler is stored as v2: its CPU target is a Resource metric; without one it gets the 80% default', async () => {
  const [v2] = await convert([{ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' },
    spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } }], 'autoscaling/v2', names);
  assert.equal(v2!.apiVersion, 'autoscaling/v2');
  assert.deepEqual(v2!.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] });
  const [plain] = await convert([{ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'b' },
    spec: { scaleTargetRef: ref, maxReplicas: 3 } }], 'autoscaling/v2', names);
  assert.deepEqual((plain!.spec as any).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
});

test('v2 to v1 and back: what v1 has no field for travels in annotations and comes back whole', async () => {
  const stored: any = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'c', annotations: { keep: 'me' } },
    spec: {
      scaleTargetRef: ref, minReplicas: 1, maxReplicas: 9,
      metrics: [
        { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '30' } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
    },
    status: {
      currentReplicas: 2, desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 75, averageValue: '150m' } } }],
      conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', lastTransitionTime: '2024-01-01T00:00:00Z' }],
    },
  };
  const [v1] = await convert([stored], 'autoscaling/v1', names);
  assert.deepEqual(v1!.spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 9, targetCPUUtilizationPercentage: 60 });
  assert.deepEqual(v1!.status, { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75 });
  const annotations = v1!.metadata.annotations!;
  assert.equal(annotations.keep, 'me');
  assert.deepEqual(JSON.parse(annotations[`autoscaling.alpha.${names.labelDomain}/metrics`]!), [
    { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } },
    { type: 'External', external: { metricName: 'queue', targetValue: '30' } },
  ]);
  const [back] = await convert([v1!], 'autoscaling/v2', names);
  assert.deepEqual(back!.metadata.annotations, { keep: 'me' });
  // the CPU target comes after the others, as in the reference
  assert.deepEqual((back!.spec as any).metrics, [stored.spec.metrics[0], stored.spec.metrics[2], stored.spec.metrics[1]]);
  assert.deepEqual((back!.spec as any).behavior, stored.spec.behavior);
  assert.deepEqual(back!.status, stored.status);
});
