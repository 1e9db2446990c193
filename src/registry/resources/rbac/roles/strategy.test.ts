import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, ctx, strategyOf } from '../../testing/strategy.js';

test('Role rules need verbs and groups; cluster bindings need service account namespaces', async () => {
  assert.deepEqual((await create(strategyOf('rbac.authorization', 'roles'), { rules: [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }] })).causes, [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
  ]);
  assert.deepEqual((await create(strategyOf('rbac.authorization', 'clusterrolebindings'),
    { roleRef: { kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] })).causes,
  ['subjects[0].namespace: Required value']);
  // an aggregationRule needs selectors, each valid
  const clusterRoles = strategyOf('rbac.authorization', 'clusterroles');
  assert.deepEqual((await create(clusterRoles, { aggregationRule: {} })).causes,
    ['aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil']);
  assert.deepEqual((await create(clusterRoles, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { ok: 'yes' } }, { matchExpressions: [{ key: 'x', operator: 'In' }] }] } })).causes,
    ['aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Required value: must be specified when `operator` is \'In\' or \'NotIn\'']);
  // the URL list shown as the reference shows it (Go's %#v)
  assert.deepEqual((await create(strategyOf('rbac.authorization', 'clusterroles'), { rules: [{ verbs: ['get'], apiGroups: [''], nonResourceURLs: ['/a', '/b'] }] })).causes,
    ['rules[0].nonResourceURLs: Invalid value: []string{"/a", "/b"}: rules cannot apply to both regular resources and non-resource URLs']);
});

test('bindings default the role group and the group of users and groups, and accept no other group', async () => {
  const rbac = ctx.names.group('rbac.authorization');
  const bindings = strategyOf('rbac.authorization', 'rolebindings');
  const { obj, causes } = await create<{ metadata?: object; roleRef: object; subjects: object[] }>(bindings, {
    roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 'sa' }] });
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.roleRef, { kind: 'Role', name: 'r', apiGroup: rbac });
  assert.deepEqual(obj.subjects, [{ kind: 'User', name: 'u', apiGroup: rbac },
    { kind: 'Group', name: 'g', apiGroup: rbac }, { kind: 'ServiceAccount', name: 'sa' }]);
  assert.deepEqual((await create(bindings, { roleRef: { apiGroup: 'example.com', kind: 'Role', name: 'r' },
    subjects: [{ kind: 'User', name: 'u', apiGroup: 'example.com' }, { kind: 'ServiceAccount', name: 'sa', apiGroup: rbac }] })).causes, [
    `roleRef.apiGroup: Unsupported value: "example.com": supported values: "${rbac}"`,
    `subjects[0].apiGroup: Unsupported value: "example.com": supported values: "${rbac}"`,
    `subjects[1].apiGroup: Unsupported value: "${rbac}": supported values: ""`,
  ]);
  // role names are path segments, as role names themselves
  assert.deepEqual((await create(bindings, { roleRef: { kind: 'Role', name: 'a/b' } })).causes, ['roleRef.name: Invalid value: "a/b": may not contain \'/\'']);
});
