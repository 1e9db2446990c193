import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from '../../testing/strategy.js';

test('Lease durations are positive', async () => {
  assert.deepEqual((await create(strategyOf('coordination', 'leases'), { spec: { leaseDurationSeconds: 0 } })).causes,
    ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);
});
