import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from '../../testing/strategy.js';

test('Role rules need verbs and groups; cluster bindings need service account namespaces', async () => {
  assert.deepEqual((await create(strategyOf('rbac.authorization', 'roles'), { rules: [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }] })).causes, [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
  ]);
  assert.deepEqual((await create(strategyOf('rbac.authorization', 'clusterrolebindings'),
    { roleRef: { kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] })).causes,
  ['subjects[0].namespace: Required value']);
});
