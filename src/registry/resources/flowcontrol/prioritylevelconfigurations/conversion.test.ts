import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertPriorityLevels as convert } from './conversion.js';

const level = (apiVersion: string, limited?: Record<string, unknown>) =>
  ({ apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name: 'l' }, spec: limited ? { type: 'Limited', limited } : { type: 'Exempt' } });

test('the shares change their name between v1beta2 and v1beta3; nothing else changes', async () => {
  const rest = { lendablePercent: 10, limitResponse: { type: 'Reject' } };
  const [v3] = await convert([level('flowcontrol.apiserver.k8s.io/v1beta2', { assuredConcurrencyShares: 7, ...rest })], 'flowcontrol.apiserver.k8s.io/v1beta3');
  assert.deepEqual(v3, level('flowcontrol.apiserver.k8s.io/v1beta3', { nominalConcurrencyShares: 7, ...rest }));
  const [v2] = await convert([v3!], 'flowcontrol.apiserver.k8s.io/v1beta2');
  assert.deepEqual(v2, level('flowcontrol.apiserver.k8s.io/v1beta2', { assuredConcurrencyShares: 7, ...rest }));
  const [exempt] = await convert([level('flowcontrol.apiserver.k8s.io/v1beta3')], 'flowcontrol.apiserver.k8s.io/v1beta2');
  assert.deepEqual(exempt, level('flowcontrol.apiserver.k8s.io/v1beta2'));
});
