import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evictionManager, formatBytes, localStorageViolation, type Signals } from './eviction.js';
import { parseThresholds } from './quantity.js';
import type { AgentPod } from './objects.js';

test('a threshold once met holds until the signal recovers past the minimum reclaim', () => {
  let available = 50;
  const evicted: string[] = [];
  const m = evictionManager({
    hard: parseThresholds(['memory.available<100']), soft: [], softGraceMs: {}, transitionMs: 0, maxPodGraceSeconds: 0,
    minReclaim: parseThresholds(['memory.available<50']),
    observe: (): Signals => ({ 'memory.available': { available, capacity: 1000 } }),
    activePods: () => [{ metadata: { name: 'p', namespace: 'default', uid: 'p' }, spec: { containers: [] } }],
    isCritical: () => false,
    evict: (p) => evicted.push(p.metadata.name),
  });
  assert.equal(m.check().length, 1);
  available = 120;
  assert.equal(m.check().length, 1, '120 is above the threshold but not above threshold + reclaim');
  available = 160;
  assert.equal(m.check().length, 0);
  available = 120;
  assert.equal(m.check().length, 0, 'a threshold not met before needs only its own value');
});

test('local storage: emptyDir size limits, the pod\'s total and each container\'s limit, in the reference words', () => {
  const pod = (volumes: object[], limits: (string | undefined)[]): AgentPod => ({
    metadata: { name: 'p', namespace: 'default', uid: 'p' },
    spec: { volumes: volumes as AgentPod['spec']['volumes'], containers: limits.map((l, i) => ({ name: `c${i}`, image: 'x', ...(l ? { resources: { limits: { 'ephemeral-storage': l } } } : {}) })) },
  });
  const use = (volumes: [string, number][], containers: [string, number][]) => ({ volumes: new Map(volumes), containers: new Map(containers) });
  const Mi = 2 ** 20;
  assert.equal(localStorageViolation(pod([{ name: 'd', emptyDir: { sizeLimit: '4Mi' } }], [undefined]), use([['d', 5 * Mi]], [])), 'Usage of EmptyDir volume "d" exceeds the limit "4Mi". ');
  assert.equal(localStorageViolation(pod([{ name: 'd', emptyDir: { medium: 'Memory', sizeLimit: '4Mi' } }], [undefined]), use([['d', 5 * Mi]], [])), undefined, 'memory-backed volumes are sized by their tmpfs');
  assert.equal(localStorageViolation(pod([], ['10Mi', '10Mi']), use([], [['c0', 8 * Mi], ['c1', 13 * Mi]])), 'Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. ');
  assert.equal(localStorageViolation(pod([], ['10Mi', undefined]), use([], [['c0', 11 * Mi]])), 'Container c0 exceeded its local ephemeral storage limit "10Mi". ');
  assert.equal(localStorageViolation(pod([], ['10Mi']), use([], [['c0', 9 * Mi]])), undefined);
  assert.equal(formatBytes(3 * 2 ** 30), '3Gi');
  assert.equal(formatBytes(1000), '1000');
});
