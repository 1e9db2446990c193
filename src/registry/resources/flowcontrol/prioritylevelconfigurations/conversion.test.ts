import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../../../api/naming.js';
import { convertPriorityLevels as convert } from './conversion.js';

const group = naming().group('flowcontrol.apiserver');
const level = (version: string, limited?: Record<string, unknown>) =>
  ({ apiVersion: `${group}/${version}`, kind: 'PriorityLevelConfiguration', metadata: { name: 'l' }, spec: limited ? { type: 'Limited', limited } : { type: 'Exempt' } });

test('the shares change their name between v1beta2 and v1beta3; nothing else changes', async () => {
  const rest = { lendablePercent: 10, limitResponse: { type: 'Reject' } };
  const [v3] = await convert([level('v1beta2', { assuredConcurrencyShares: 7, ...rest })], `${group}/v1beta3`);
  assert.deepEqual(v3, level('v1beta3', { nominalConcurrencyShares: 7, ...rest }));
  const [v2] = await convert([v3!], `${group}/v1beta2`);
  assert.deepEqual(v2, level('v1beta2', { assuredConcurrencyShares: 7, ...rest }));
  const [exempt] = await convert([level('v1beta3')], `${group}/v1beta2`);
  assert.deepEqual(exempt, level('v1beta2'));
});
