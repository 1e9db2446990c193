import { test } from 'node:test';
import assert from 'node:assert/strict';
import { triggerTimes } from './trigger-time.js';
import type { Pod, Service } from './types.js';

const service = { metadata: { name: 's', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' } } as Service;
const pod = (name: string, readySince: string) =>
  ({ metadata: { name, namespace: 'ns' }, spec: { containers: [] }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] } }) as unknown as Pod;

test('the trigger time is the earliest change since the last sync: the Service creation first, then pod readiness changes', () => {
  const t = triggerTimes();
  assert.equal(t.compute('ns/s', service, [pod('a', '2024-01-01T00:00:05Z')]), '2024-01-01T00:00:00Z');
  // nothing moved
  assert.equal(t.compute('ns/s', service, [pod('a', '2024-01-01T00:00:05Z')]), undefined);
  // two pods changed: the earlier counts
  assert.equal(t.compute('ns/s', service, [pod('a', '2024-01-01T00:01:00Z'), pod('b', '2024-01-01T00:00:30.5Z')]), '2024-01-01T00:00:30.5Z');
  t.forget('ns/s');
  assert.equal(t.compute('ns/s', service, []), '2024-01-01T00:00:00Z');
});
