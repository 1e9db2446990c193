import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PriorityClass } from '../../../../api/types/scheduling-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';

test('PriorityClass value may not change', async () => {
  const pcs = strategyOf('scheduling', 'priorityclasses');
  const pc = await create<PriorityClass>(pcs, { value: 100 });
  assert.equal(pc.obj.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(await update<PriorityClass>(pcs, pc.obj, o => { o.value = 5; }), ['value: Forbidden: may not be changed in an update.']);
});
