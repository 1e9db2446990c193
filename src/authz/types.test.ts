import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { alwaysAllow, alwaysDeny, unionAuthorizer } from './types.js';
import type { Authorizer } from '../api/auth.js';

const a = (groups: string[] = []) => ({ user: { username: 'u', groups }, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: '', resource: 'pods', subresource: '', name: '' });
const none: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'not mine' }) };

describe('authorizer union', () => {
  test('the first decision other than NoOpinion wins, in order', async () => {
    assert.equal((await unionAuthorizer([none, alwaysDeny, alwaysAllow]).authorize(a())).decision, 'Deny');
    assert.equal((await unionAuthorizer([none, alwaysAllow, alwaysDeny]).authorize(a())).decision, 'Allow');
    assert.deepEqual(await unionAuthorizer([none]).authorize(a()), { decision: 'NoOpinion', reason: 'not mine' });
  });
  test('system:masters may do anything', async () => {
    assert.equal((await unionAuthorizer([alwaysDeny]).authorize(a(['system:masters']))).decision, 'Allow');
  });
  test('rules concatenate; an authorizer that cannot list makes the answer incomplete', () => {
    const rules = unionAuthorizer([alwaysDeny, none]).rulesFor!({ username: 'u', groups: [] }, 'ns');
    assert.equal(rules.incomplete, true);
    assert.deepEqual(unionAuthorizer([alwaysAllow]).rulesFor!({ username: 'u', groups: [] }, 'ns').resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  });
});
