// The eviction subresource against a store that changes under it: what it deletes, and with which preconditions.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/meta.js';
import type { RestRequest } from '../../../types.js';
import { evict } from './eviction.js';

const pod = (resourceVersion: string, phase: string, ready: boolean) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion, labels: { app: 'a' } },
  spec: { containers: [{ name: 'c', image: 'x' }] },
  status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
}) as unknown as ApiObject;

const budget = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b', namespace: 'ns', generation: 1 },
  spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } },
  status: { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } } as unknown as ApiObject;

/** a request whose pod is `versions[0]` when first read and the next version from then on (it changed meanwhile) */
function changingPod(versions: ApiObject[]) {
  let current = 0;
  const deletes: unknown[] = [];
  const update = (obj: () => ApiObject) => ({ guaranteedUpdate: async (_ns: string, _name: string, _sub: string, transform: (cur: ApiObject) => unknown) =>
    ({ obj: await transform(structuredClone(obj())), created: false }) });
  const req = {
    namespace: 'ns', name: 'p', dryRun: false,
    admission: () => ({ mutate: async () => undefined, validate: async () => undefined }),
    store: {
      get: async () => { const v = structuredClone(versions[current]!); current = Math.min(current + 1, versions.length - 1); return v; },
      delete: async (_ns: string, _name: string, opts: unknown) => { deletes.push(opts); return {}; },
    },
    resource: (group: string, resource: string, subresource?: string) => {
      if (resource === 'pods' && subresource === 'status') return { store: update(() => versions[current]!) };
      if (resource === 'poddisruptionbudgets' && subresource === 'status') return { store: update(() => budget) };
      if (resource === 'poddisruptionbudgets') return { list: async () => [structuredClone(budget)] };
      return undefined;
    },
  } as unknown as RestRequest;
  return { req, deletes };
}

describe('eviction', () => {
  test('a pending pod goes only as it was read: one that started and became ready meanwhile is read again and its budget decides', async () => {
    const { req, deletes } = changingPod([pod('1', 'Pending', false), pod('2', 'Running', true)]);
    await assert.rejects(evict(req, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } }), (e: { code?: number }) => e.code === 429);
    assert.deepEqual(deletes, []);
  });
  test('a pending pod that changed but is still pending is evicted on the second try, with the version then read', async () => {
    const { req, deletes } = changingPod([pod('1', 'Pending', false), pod('2', 'Pending', false)]);
    const done = await evict(req, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } });
    assert.equal((done as { code?: number }).code, 201);
    assert.equal(deletes.length, 1);
  });
  test('an unready pod that changed between the read and the delete: 429, the budget still being processed, as the reference answers', async () => {
    const { req, deletes } = changingPod([pod('1', 'Running', false), pod('2', 'Running', false)]);
    await assert.rejects(evict(req, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } }), (e: { code?: number; status?: { details?: { causes?: Array<{ message?: string }> } } }) =>
      e.code === 429 && e.status?.details?.causes?.[0]?.message === 'The disruption budget b is still being processed by the server.');
    assert.deepEqual(deletes, []);
  });
});
