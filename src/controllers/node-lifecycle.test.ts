// How long a pod may stay on a node with NoExecute taints, by its tolerations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disruptionOf, taintRate, tolerationWait, zoneLimiter } from './node-lifecycle.js';
import type { Pod, Taint } from './types.js';

const now = Date.parse('2026-01-01T00:00:10Z');
const taint = (key: string, at = '2026-01-01T00:00:00Z'): Taint => ({ key, effect: 'NoExecute', timeAdded: at });
const pod = (tolerations: NonNullable<Pod['spec']['tolerations']>): Pod => ({ metadata: { name: 'p' }, spec: { containers: [], tolerations } });

test('an untolerated NoExecute taint evicts at once', () => {
  assert.equal(tolerationWait(pod([]), [taint('a')], now), 0);
  assert.equal(tolerationWait(pod([{ key: 'a', operator: 'Exists', effect: 'NoExecute' }]), [taint('a'), taint('b')], now), 0);
});

test('tolerationSeconds count from when the taint was added; the shortest wins; none is for ever', () => {
  assert.equal(tolerationWait(pod([{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }]), [taint('a')], now), 20_000);
  assert.equal(tolerationWait(pod([{ key: 'a', operator: 'Exists', tolerationSeconds: 5 }]), [taint('a')], now), 0, 'the time is up');
  assert.equal(tolerationWait(pod([{ key: 'a', operator: 'Exists', effect: 'NoExecute' }]), [taint('a')], now), Infinity);
  assert.equal(tolerationWait(pod([{ operator: 'Exists' }]), [taint('a'), taint('b')], now), Infinity, 'an empty key with Exists tolerates all');
  assert.equal(tolerationWait(pod([
    { key: 'a', operator: 'Exists', tolerationSeconds: 60 }, { key: 'b', operator: 'Equal', value: '', tolerationSeconds: 15 },
  ]), [taint('a'), taint('b', '2026-01-01T00:00:05Z')], now), 10_000);
});

test('a taint without timeAdded counts from when the wait began, not from each look', () => {
  const untimed: Taint = { key: 'a', effect: 'NoExecute' };
  const tolerating = pod([{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]);
  assert.equal(tolerationWait(tolerating, [untimed], now, now), 10_000);
  assert.equal(tolerationWait(tolerating, [untimed], now + 4_000, now), 6_000);
  assert.equal(tolerationWait(tolerating, [untimed], now + 11_000, now), 0, 'the time is up');
});

const nodesOf = (zone: string, ready: number, notReady: number) =>
  [...Array(ready).fill({ zone, ready: true }), ...Array(notReady).fill({ zone, ready: false })] as { zone: string; ready: boolean }[];
const rates = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 50 };
const rate = (nodes: { zone: string; ready: boolean }[], zone = '') => taintRate(disruptionOf(nodes, 0.55), zone, rates);

test('NoExecute taints of the Ready condition: lifted when no zone has a Ready node, slowed or held in a zone mostly down', () => {
  assert.equal(rate(nodesOf('', 0, 1)), 'lift', 'the one node down');
  assert.equal(rate([...nodesOf('a', 0, 2), ...nodesOf('b', 0, 1)], 'a'), 'lift', 'every zone down');
  assert.equal(rate([...nodesOf('a', 0, 2), ...nodesOf('b', 1, 0)], 'a'), 0.1, 'a zone down, another up');
  assert.equal(rate(nodesOf('', 1, 1)), 0.1);
  assert.equal(rate(nodesOf('', 2, 2)), 0.1, 'two down are never a partial disruption');
  assert.equal(rate(nodesOf('', 2, 3)), 0, '3 of 5 down: 60% >= 55%');
  assert.equal(rate(nodesOf('', 3, 3)), 0.1, '3 of 6 down: 50%');
  assert.equal(rate(nodesOf('', 20, 31)), 0.01, 'a zone of more than 50 nodes goes on slowly');
  assert.equal(rate([]), 0.1);
});

test('one node a zone at a time: the token comes back after 1/rate seconds; zones do not share', () => {
  const l = zoneLimiter();
  assert.equal(l.take('a', 0.5, 1_000), 0);
  assert.equal(l.take('a', 0.5, 2_000), 1_000);
  assert.equal(l.take('b', 0.5, 2_000), 0);
  assert.equal(l.take('a', 0.5, 3_000), 0);
  assert.equal(l.take('a', 0, 9_000), Infinity, 'rate 0: never');
  l.reset();
  assert.equal(l.take('a', 0.5, 3_100), 0, 'a new limiter is full');
});
