import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy } from '../../../../api/types/networking-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('NetworkPolicy gets Egress among its types when it has egress rules', async () => {
  const { obj, causes } = await create<NetworkPolicy>(strategyOf('networking', 'networkpolicies'),
    { spec: { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP', endPort: 52 }] }] } });
  assert.deepEqual(obj.spec?.policyTypes, ['Ingress', 'Egress']);
  assert.deepEqual(causes, ['spec.egress[0].ports[0].endPort: Invalid value: 52: must be greater than or equal to `port`']);
});
