// With --use-service-account-credentials each controller acts as a service account of its own: every one the
// controller manager runs must be a subject of the default policy's bindings, or its writes are refused (403).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllers } from '../../src/controllers/registry.js';
import { bootstrapPolicy } from '../../src/registry/bootstrap/rbac.js';
import { naming } from '../../src/api/naming.js';

test('every controller acts as an account the default policy binds a role to', () => {
  const names = naming('k8s.io');
  const policy = bootstrapPolicy(names);
  const bound = new Set([...policy.clusterRoleBindings, ...policy.roleBindings].flatMap((b: any) =>
    (b.subjects ?? []).filter((s: any) => s.kind === 'ServiceAccount' && s.namespace === names.systemNamespace).map((s: any) => s.name)));
  const unbound = controllers.filter((c) => c.serviceAccount !== null)
    .map((c) => ({ controller: c.name, account: c.serviceAccount ?? c.component ?? `${c.name}-controller` }))
    .filter(({ account }) => !bound.has(account));
  assert.deepEqual(unbound, []);
});
