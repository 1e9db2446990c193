import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compactRules, nonResourceURLMatches, resourceMatches, ruleAllows, uncovered, describeRule } from './rules.js';
import type { AuthzAttributes } from '../../api/auth.js';

const req = (over: Partial<AuthzAttributes>): AuthzAttributes => ({
  user: { username: 'u', groups: [] }, verb: 'get', isResourceRequest: true, path: '/', apiGroup: '', apiVersion: 'v1',
  namespace: 'ns', resource: 'pods', subresource: '', name: '', ...over,
});

describe('RBAC rule matching', () => {
  test('resources: exact, subresources, wildcards', () => {
    assert.equal(resourceMatches(['pods'], 'pods', ''), true);
    assert.equal(resourceMatches(['pods'], 'pods', 'log'), false);
    assert.equal(resourceMatches(['pods/log'], 'pods', 'log'), true);
    assert.equal(resourceMatches(['*'], 'pods', 'log'), true);
    assert.equal(resourceMatches(['*/log'], 'pods', 'log'), true);
    assert.equal(resourceMatches(['*/log'], 'pods', ''), false);
    assert.equal(resourceMatches(['pods/*'], 'pods', 'log'), false, 'the reference gives pods/* no special meaning');
  });
  test('non-resource URLs: exact and trailing star', () => {
    assert.equal(nonResourceURLMatches(['/healthz'], '/healthz'), true);
    assert.equal(nonResourceURLMatches(['/healthz'], '/healthz/ping'), false);
    assert.equal(nonResourceURLMatches(['/healthz/*'], '/healthz/ping'), true);
    assert.equal(nonResourceURLMatches(['/apis*'], '/apis/apps'), true);
    assert.equal(nonResourceURLMatches(['*'], '/anything'), true);
  });
  test('verbs, groups, resourceNames', () => {
    const rule = { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] };
    assert.equal(ruleAllows(rule, req({ resource: 'configmaps', name: 'a' })), true);
    assert.equal(ruleAllows(rule, req({ resource: 'configmaps', name: 'b' })), false);
    assert.equal(ruleAllows(rule, req({ resource: 'configmaps', name: '' , verb: 'get' })), false, 'a list has no name');
    assert.equal(ruleAllows(rule, req({ resource: 'configmaps', name: 'a', verb: 'delete' })), false);
    assert.equal(ruleAllows(rule, req({ resource: 'configmaps', name: 'a', apiGroup: 'apps' })), false);
    assert.equal(ruleAllows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, req({ isResourceRequest: false, path: '/metrics' })), false,
      'resource rules never allow paths');
    assert.equal(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/metrics'] }, req({ isResourceRequest: false, path: '/metrics' })), true);
  });
});

describe('escalation coverage', () => {
  test('owner rules cover requested rules atom by atom', () => {
    const owner = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'configmaps'] },
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    assert.deepEqual(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'configmaps'] }]), []);
    assert.deepEqual(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }]), []);
    assert.deepEqual(uncovered(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
      [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    assert.deepEqual(uncovered(owner, [{ verbs: ['get'], nonResourceURLs: ['/logs/a'] }]), []);
    assert.deepEqual(uncovered(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]),
      [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]);
    assert.deepEqual(uncovered([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], apiGroups: ['x'], resources: ['y/z'] }]), []);
    assert.deepEqual(uncovered([{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }]), []);
  });
  test('rules render as the reference prints them', () => {
    assert.equal(describeRule({ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }),
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}');
  });
});

describe('compacting missing rules', () => {
  test('rules on one group, resource and name gather their verbs; others stay as they are', () => {
    assert.deepEqual(compactRules([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
    ]), [
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
    ]);
  });
});
