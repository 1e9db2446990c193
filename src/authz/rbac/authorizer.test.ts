// The RBAC index against a stand-in watch cache: bindings by user, group and service account, role kinds,
// and updates and deletions arriving as events.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/meta.js';
import { rbacAuthorizer } from './authorizer.js';
import type { AuthzAttributes } from '../../api/auth.js';
import type { CacheSubscriber, ResourceCache } from '../../api/cache.js';

function fakeCache(prefix: string, objs: ApiObject[]) {
  const watchers = new Set<CacheSubscriber>();
  let rev = 1;
  const key = (o: ApiObject) => `${prefix}${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
  const items = objs.map(obj => ({ key: key(obj), obj, rev: rev++ }));
  const cache = {
    prefix, ready: Promise.resolve(), get: () => undefined,
    snapshot: () => items, subscribe: (w: CacheSubscriber) => { watchers.add(w); return () => watchers.delete(w); },
  } as unknown as ResourceCache;
  const emit = (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: ApiObject) => {
    const c = { key: key(obj), obj, rev: ++rev };
    for (const w of watchers) w.send({ type, key: c.key, cur: c, rev: c.rev });
  };
  return { cache, emit };
}

const attrs = (username: string, groups: string[], over: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  user: { username, groups }, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1',
  namespace: 'ns', resource: 'pods', subresource: '', name: 'p', ...over,
});

describe('RBAC authorizer', () => {
  test('bindings apply by user, group and service account, in their namespace or cluster-wide', async () => {
    const podsReader = { metadata: { name: 'pods-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    const cr = fakeCache('/cr/', [podsReader]);
    const r = fakeCache('/r/', [{ metadata: { name: 'local', namespace: 'ns' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] }]);
    const crb = fakeCache('/crb/', [{ metadata: { name: 'ops' }, roleRef: { kind: 'ClusterRole', name: 'pods-reader' }, subjects: [{ kind: 'Group', name: 'ops' }] } as ApiObject]);
    const rb = fakeCache('/rb/', [
      { metadata: { name: 'sa', namespace: 'ns' }, roleRef: { kind: 'Role', name: 'local' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] } as ApiObject,
      { metadata: { name: 'ann', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'pods-reader' }, subjects: [{ kind: 'User', name: 'ann' }] } as ApiObject,
    ]);
    const z = rbacAuthorizer({ clusterRoles: cr.cache, roles: r.cache, clusterRoleBindings: crb.cache, roleBindings: rb.cache });
    await z.ready;
    assert.equal(z.authorize(attrs('x', ['ops'], { namespace: 'any' })).decision, 'Allow');
    assert.equal(z.authorize(attrs('ann', [])).decision, 'Allow');
    assert.equal(z.authorize(attrs('ann', [], { namespace: 'other' })).decision, 'NoOpinion');
    assert.equal(z.authorize(attrs('system:serviceaccount:ns:bot', [], { verb: 'list', name: '' })).decision, 'Allow');
    assert.equal(z.authorize(attrs('system:serviceaccount:other:bot', [], { verb: 'list', name: '' })).decision, 'NoOpinion');
    assert.equal(z.authorize(attrs('ann', [])).reason, 'RBAC: allowed by RoleBinding "ann/ns" of ClusterRole "pods-reader" to User "ann"');
    // a service account is named "name/namespace", as the reference describes it
    assert.equal(z.authorize(attrs('system:serviceaccount:ns:bot', [], { verb: 'list', name: '' })).reason,
      'RBAC: allowed by RoleBinding "sa/ns" of Role "local" to ServiceAccount "bot/ns"');

    // a changed role and a deleted binding take effect at once
    cr.emit('MODIFIED', { metadata: { name: 'pods-reader' }, rules: [] } as ApiObject);
    assert.equal(z.authorize(attrs('ann', [])).decision, 'NoOpinion');
    rb.emit('DELETED', { metadata: { name: 'sa', namespace: 'ns' } } as ApiObject);
    assert.equal(z.authorize(attrs('system:serviceaccount:ns:bot', [], { verb: 'list', name: '' })).decision, 'NoOpinion');
    assert.deepEqual(z.rulesFor({ username: 'nobody', groups: [] }, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: false });
    z.stop();
  });

  test('roles a binding names but that do not exist are the reason of a denial and an error of the rules', async () => {
    const none = fakeCache('/none/', []);
    const rb = fakeCache('/rb/', [
      { metadata: { name: 'a', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'User', name: 'ann' }] } as ApiObject,
      { metadata: { name: 'b', namespace: 'ns' }, roleRef: { kind: 'Role', name: 'gone-too' }, subjects: [{ kind: 'Group', name: 'devs' }] } as ApiObject,
    ]);
    const z = rbacAuthorizer({ clusterRoles: none.cache, roles: fakeCache('/r/', []).cache, clusterRoleBindings: fakeCache('/crb/', []).cache, roleBindings: rb.cache, group: 'rbac.example' });
    await z.ready;
    assert.deepEqual(z.authorize(attrs('ann', [])), { decision: 'NoOpinion', reason: 'RBAC: clusterrole.rbac.example "gone" not found' });
    assert.equal(z.authorize(attrs('ann', ['devs'])).reason, 'RBAC: [clusterrole.rbac.example "gone" not found, role.rbac.example "gone-too" not found]');
    assert.equal(z.authorize(attrs('ann', [], { namespace: 'other' })).reason, '');
    assert.deepEqual(z.rulesFor({ username: 'ann', groups: [] }, 'ns'),
      { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: 'clusterrole.rbac.example "gone" not found' });
    z.stop();
  });
});
