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

test('the system- prefix is reserved to the system classes, with their values', async () => {
  const pcs = strategyOf('scheduling', 'priorityclasses');
  assert.deepEqual((await create<PriorityClass>(pcs, { metadata: { name: 'system-node-critical' }, value: 2000001000 })).causes, []);
  assert.deepEqual((await create<PriorityClass>(pcs, { metadata: { name: 'system-node-critical' }, value: 5 })).causes,
    ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"]);
  assert.deepEqual((await create<PriorityClass>(pcs, { metadata: { name: 'system-mine' }, value: 5 })).causes,
    ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"]);
});
