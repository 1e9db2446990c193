// How long a pod may stay on a node with NoExecute taints, by its tolerations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disruptionOf, noExecuteGate, tolerationWait } from './node-lifecycle.js';
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

test('NoExecute taints of the Ready condition: lifted when no zone has a Ready node, held in a small zone mostly down', () => {
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 0, 1)), ''), 'lift', 'the one node down');
  assert.equal(noExecuteGate(disruptionOf([...nodesOf('a', 0, 2), ...nodesOf('b', 0, 1)]), 'a'), 'lift', 'every zone down');
  assert.equal(noExecuteGate(disruptionOf([...nodesOf('a', 0, 2), ...nodesOf('b', 1, 0)]), 'a'), 'allow', 'a zone down, another up');
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 1, 1)), ''), 'allow');
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 2, 2)), ''), 'allow', 'two down are never a partial disruption');
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 2, 3)), ''), 'hold', '3 of 5 down: 60% >= 55%');
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 3, 3)), ''), 'allow', '3 of 6 down: 50%');
  assert.equal(noExecuteGate(disruptionOf(nodesOf('', 20, 31)), ''), 'allow', 'a zone of more than 50 nodes goes on, as the reference slowly does');
  assert.equal(noExecuteGate(disruptionOf([]), ''), 'allow');
});
