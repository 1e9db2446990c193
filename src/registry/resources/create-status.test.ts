import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from './testing/strategy.js';

test('kinds whose reference status is a struct start with an empty status, shown as status: {}', async () => {
  for (const [group, resource, body] of [
    ['', 'resourcequotas', { spec: { hard: { pods: '1' } } }],
    ['flowcontrol.apiserver', 'flowschemas', { spec: { priorityLevelConfiguration: { name: 'p' } } }],
    ['flowcontrol.apiserver', 'prioritylevelconfigurations', { spec: { type: 'Exempt' } }],
  ] as const) {
    const { obj } = await create<{ metadata: object; status?: object }>(strategyOf(group, resource), body);
    assert.deepEqual(obj.status, {}, resource);
  }
});
