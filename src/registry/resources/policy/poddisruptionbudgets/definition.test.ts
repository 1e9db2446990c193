import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from '../../testing/strategy.js';

test('PodDisruptionBudget bounds: minAvailable or maxUnavailable', async () => {
  const pdb = await create(strategyOf('policy', 'poddisruptionbudgets'), { spec: { minAvailable: 1, maxUnavailable: 1 } });
  assert.equal(pdb.causes.length, 1);
  assert.match(pdb.causes[0], /minAvailable and maxUnavailable cannot be both set$/);
});
