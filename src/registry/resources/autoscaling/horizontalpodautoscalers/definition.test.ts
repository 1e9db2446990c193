import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler } from '../../../../api/types/autoscaling-v2.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('HPA behavior defaults fill the rules that are given', async () => {
  const { obj } = await create<HorizontalPodAutoscaler>(strategyOf('autoscaling', 'horizontalpodautoscalers'), {
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } },
  });
  assert.deepEqual(obj.spec?.behavior, {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
});
