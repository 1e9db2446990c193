import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from '../../../../api/types/apps-v1.js';
import type { ReplicationController } from '../../../../api/types/core-v1.js';
import { create, strategyOf, template } from '../../testing/strategy.js';

test('ReplicaSet and ReplicationController', async () => {
  const rs = await create<ReplicaSet>(strategyOf('apps', 'replicasets'), { spec: { selector: { matchLabels: {} }, template: template() } });
  assert.equal(rs.obj.spec?.replicas, 1);
  assert.deepEqual(rs.causes, ['spec.selector: Invalid value: {"matchLabels":{}}: empty selector is invalid for deployment']);
  const rc = await create<ReplicationController>(strategyOf('', 'replicationcontrollers'), { spec: { template: template() } });
  assert.deepEqual(rc.obj.spec?.selector, { app: 'a' });
  assert.deepEqual(rc.obj.metadata.labels, { app: 'a' });
  assert.deepEqual(rc.causes, []);
});
