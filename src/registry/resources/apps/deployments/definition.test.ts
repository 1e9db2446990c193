import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from '../../../../api/types/apps-v1.js';
import { create, podSpec, selector, strategyOf, template } from '../../testing/strategy.js';

test('Deployment: Recreate keeps no rolling update; zero surge and unavailability is refused', async () => {
  const d = strategyOf('apps', 'deployments');
  const recreate = await create<Deployment>(d, { spec: { selector, template: template(), strategy: { type: 'Recreate' } } });
  assert.deepEqual(recreate.obj.spec?.strategy, { type: 'Recreate' });
  assert.deepEqual(recreate.causes, []);
  const zero = await create(d, { spec: { selector, template: template(), strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }, minReadySeconds: 700 } });
  assert.deepEqual(zero.causes, [
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
    'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
  ]);
  const none = await create(d, { spec: { template: template() } });
  assert.deepEqual(none.causes, ['spec.selector: Required value']);
  const deadline = await create(d, { spec: { selector, template: template(podSpec({ activeDeadlineSeconds: 5 })) } });
  assert.deepEqual(deadline.causes, ['spec.template.spec.activeDeadlineSeconds: Invalid value: 5: activeDeadlineSeconds in ReplicaSet is not Supported']);
});
