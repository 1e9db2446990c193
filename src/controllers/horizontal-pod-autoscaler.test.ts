import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { metricReplicas, withBehavior, withoutBehavior, type Memory, type Step } from './horizontal-pod-autoscaler.js';
import type { Pod } from './types.js';
import type { HorizontalPodAutoscalerBehavior } from '../api/types/autoscaling-v2.js';

const now = 1_000_000_000;
const memory = (m: Partial<Memory> = {}): Memory => ({ recommendations: new Map(), targetSelectors: new Map(), scaleUps: new Map(), scaleDowns: new Map(), ...m });
const brief = (s: Step) => [s.desired, s.able.reason, s.limited.status, s.limited.reason];

describe('horizontal pod autoscaler without behavior', () => {
  test('a step up is at most double the replicas, or 4: from 1 to 4, from 3 to 6, and the max where it is lower', () => {
    assert.deepEqual(brief(withoutBehavior('k', 1, 6, 1, 10, memory(), now)), [4, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
    assert.deepEqual(brief(withoutBehavior('k', 3, 20, 1, 10, memory(), now)), [6, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
    assert.deepEqual(brief(withoutBehavior('k', 6, 20, 1, 10, memory(), now)), [10, 'ReadyForNewScale', 'True', 'TooManyReplicas']);
    assert.deepEqual(brief(withoutBehavior('k', 2, 3, 1, 10, memory(), now)), [3, 'ReadyForNewScale', 'False', 'DesiredWithinRange']);
  });
  test('down only to the highest recommendation of the last 5 minutes, and not below min', () => {
    const m = memory({ recommendations: new Map([['k', [{ at: now - 60_000, replicas: 5 }]]]) });
    assert.deepEqual(brief(withoutBehavior('k', 5, 2, 1, 10, m, now)), [5, 'ScaleDownStabilized', 'False', 'DesiredWithinRange']);
    const old = memory({ recommendations: new Map([['k', [{ at: now - 301_000, replicas: 5 }]]]) });
    assert.deepEqual(brief(withoutBehavior('k', 5, 2, 3, 10, old, now)), [3, 'ReadyForNewScale', 'True', 'TooFewReplicas']);
  });
});

describe('horizontal pod autoscaler with behavior', () => {
  const b = (scaleUp: HorizontalPodAutoscalerBehavior['scaleUp'], scaleDown: HorizontalPodAutoscalerBehavior['scaleDown'] = { stabilizationWindowSeconds: 0 }) => ({ scaleUp, scaleDown });

  test('a Pods policy limits the change within its period, counting the rescales made in it', () => {
    const onePerMinute = b({ policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] });
    assert.deepEqual(brief(withBehavior(onePerMinute, 'k', 2, 6, 1, 10, memory(), now)), [3, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
    // one pod added 10 s ago: none more in this minute
    const m = memory({ scaleUps: new Map([['k', [{ at: now - 10_000, change: 1 }]]]) });
    assert.deepEqual(brief(withBehavior(onePerMinute, 'k', 3, 6, 1, 10, m, now)), [3, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
    // a minute later the period starts afresh
    const later = memory({ scaleUps: new Map([['k', [{ at: now - 61_000, change: 1 }]]]) });
    assert.deepEqual(brief(withBehavior(onePerMinute, 'k', 3, 6, 1, 10, later, now)), [4, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
  });

  test('selectPolicy: Max takes the policy allowing most change, Min the least, Disabled none', () => {
    const policies = [{ type: 'Pods' as const, value: 4, periodSeconds: 15 }, { type: 'Percent' as const, value: 100, periodSeconds: 15 }];
    assert.equal(withBehavior(b({ policies, selectPolicy: 'Max' }), 'k', 2, 20, 1, 50, memory(), now).desired, 6);
    assert.equal(withBehavior(b({ policies, selectPolicy: 'Min' }), 'k', 2, 20, 1, 50, memory(), now).desired, 4);
    assert.deepEqual(brief(withBehavior(b({ policies, selectPolicy: 'Disabled' }), 'k', 2, 20, 1, 50, memory(), now)), [2, 'ReadyForNewScale', 'True', 'ScaleUpLimit']);
    assert.deepEqual(brief(withBehavior(b(undefined, { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled' }), 'k', 5, 2, 1, 10, memory(), now)),
      [5, 'ReadyForNewScale', 'True', 'ScaleDownLimit']);
  });

  test('a Percent policy going down rounds down; the max and min hold where the policies allow more', () => {
    const half = b(undefined, { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] });
    assert.deepEqual(brief(withBehavior(half, 'k', 5, 1, 1, 10, memory(), now)), [2, 'ReadyForNewScale', 'True', 'ScaleDownLimit']);
    assert.deepEqual(brief(withBehavior(half, 'k', 5, 1, 4, 10, memory(), now)), [4, 'ReadyForNewScale', 'True', 'TooFewReplicas']);
    assert.deepEqual(brief(withBehavior(b({}), 'k', 4, 20, 1, 6, memory(), now)), [6, 'ReadyForNewScale', 'True', 'TooManyReplicas']);
  });

  test('stabilization windows: up to the lowest recent recommendation, down to the highest', () => {
    const m = memory({ recommendations: new Map([['k', [{ at: now - 30_000, replicas: 3 }]]]) });
    assert.deepEqual(brief(withBehavior(b({ stabilizationWindowSeconds: 60 }), 'k', 3, 6, 1, 10, m, now)), [3, 'ScaleUpStabilized', 'False', 'DesiredWithinRange']);
    const high = memory({ recommendations: new Map([['k', [{ at: now - 30_000, replicas: 4 }]]]) });
    assert.deepEqual(brief(withBehavior(b({}, { stabilizationWindowSeconds: 60 }), 'k', 5, 2, 1, 10, high, now)), [4, 'ScaleDownStabilized', 'False', 'DesiredWithinRange']);
  });
});

describe('current metric values', () => {
  const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '200m', memory: '1M' } } }] }, status: { phase: 'Running' } }) as Pod;
  const podUsage = (name: string, usage: Record<string, string>) => [name, { name, containers: [{ name: 'c', usage }] }] as [string, { name: string; containers: Array<{ name: string; usage: Record<string, string> }> }];
  const usage = new Map([podUsage('a', { cpu: '100m', memory: '1000001' }), podUsage('b', { cpu: '101m', memory: '1000002' })]);
  const current = (resource: string, target: Record<string, unknown>) => {
    const r = metricReplicas({ type: 'Resource', resource: { name: resource, target } } as any, [pod('a'), pod('b')], usage, 2);
    assert.ok('status' in r, JSON.stringify(r));
    return r.status.resource!.current;
  };
  test('averageValue keeps thousandths of a unit for every resource, cut as the reference cuts its average', () => {
    assert.deepEqual(current('memory', { type: 'AverageValue', averageValue: '1M' }), { averageValue: '1000001500m' });
    assert.deepEqual(current('cpu', { type: 'Utilization', averageUtilization: 50 }), { averageUtilization: 50, averageValue: '100m' });
    assert.deepEqual(current('cpu', { type: 'AverageValue', averageValue: '1' }), { averageValue: '100m' });
  });
});
