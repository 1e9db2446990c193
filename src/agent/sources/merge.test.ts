// The merged pod sources: a copy of a pod that changes nothing to run is neither passed on nor kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPodConfig } from './merge.js';
import type { AgentPod } from '../objects.js';

const pod = (over: { rv: string; image?: string; phase?: 'Pending' | 'Running'; labels?: Record<string, string> }): AgentPod => ({
  metadata: { name: 'a', namespace: 'default', uid: 'u1', resourceVersion: over.rv, ...(over.labels ? { labels: over.labels } : {}) },
  spec: { containers: [{ name: 'c', image: over.image ?? 'busybox' }] },
  status: { phase: over.phase ?? 'Pending' },
});

test('status and resourceVersion changes are not updates and leave the first copy in place; spec and label changes are', () => {
  const updates: AgentPod[] = [];
  const removed: string[] = [];
  const config = createPodConfig({ update: (p) => updates.push(p), remove: (uid) => removed.push(uid) });
  const first = pod({ rv: '1' });
  config.set('api', [first]);
  config.upsert('api', pod({ rv: '2', phase: 'Running' }));
  assert.equal(updates.length, 1);
  assert.equal(config.pods().get('u1'), first, 'the copy handed over stays the one kept');

  const relabelled = pod({ rv: '3', labels: { tier: 'front' } });
  config.upsert('api', relabelled);
  const newImage = pod({ rv: '4', labels: { tier: 'front' }, image: 'nginx' });
  config.upsert('api', newImage);
  assert.deepEqual(updates, [first, relabelled, newImage]);
  assert.equal(config.pods().get('u1'), newImage);

  config.set('api', []);
  assert.deepEqual(removed, ['u1']);
  assert.equal(config.pods().size, 0);
});

test('a change of the condition a readiness gate names is an update, so the pod\'s Ready condition can follow it', () => {
  const updates: AgentPod[] = [];
  const config = createPodConfig({ update: (p) => updates.push(p), remove() {} });
  const gated = (rv: string, conditions: { type: string; status: 'True' | 'False' }[]): AgentPod => ({
    metadata: { name: 'g', namespace: 'default', uid: 'u2', resourceVersion: rv },
    spec: { containers: [{ name: 'c', image: 'busybox' }], readinessGates: [{ conditionType: 'example.com/lb' }] },
    status: { phase: 'Running', conditions },
  });
  config.set('api', [gated('1', [])]);
  // the agent's own conditions changing is no update
  config.upsert('api', gated('2', [{ type: 'Ready', status: 'False' }]));
  assert.equal(updates.length, 1);
  const met = gated('3', [{ type: 'Ready', status: 'False' }, { type: 'example.com/lb', status: 'True' }]);
  config.upsert('api', met);
  assert.equal(updates.length, 2);
  assert.equal(updates[1], met);
  const unmet = gated('4', [{ type: 'Ready', status: 'True' }, { type: 'example.com/lb', status: 'False' }]);
  config.upsert('api', unmet);
  assert.equal(updates.length, 3);
});
