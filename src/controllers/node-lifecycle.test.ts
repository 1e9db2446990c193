// How long a pod may stay on a node with NoExecute taints, by its tolerations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tolerationWait } from './node-lifecycle.js';
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
