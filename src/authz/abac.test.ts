import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes } from '../api/auth.js';
import { naming } from '../api/naming.js';
import { abacAuthorizer, parseAbacPolicies } from './abac.js';

const names = naming('k8s.io');

const policies = parseAbacPolicies([
  '# comments and blank lines are skipped',
  '',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "projectCaribou", "resource": "pods", "apiGroup": "", "readonly": true}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "ops", "nonResourcePath": "/metrics*", "readonly": true}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "nonResourcePath": "/version", "readonly": true}}',
  '{"user": "legacy"}',
].join('\n'), names);
const z = abacAuthorizer(policies);
const user = (username: string, groups: string[] = ['system:authenticated']) => ({ username, groups });
const on = (u: ReturnType<typeof user>, verb: string, resource: string, namespace = '', apiGroup = ''): AuthzAttributes =>
  ({ user: u, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', namespace, resource, subresource: '', name: '' });
const at = (u: ReturnType<typeof user>, verb: string, path: string): AuthzAttributes =>
  ({ user: u, verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });
const decide = (a: AuthzAttributes) => (z.authorize(a) as { decision: string }).decision;

test('a policy allows its subject the resources it names; reads only when readonly', () => {
  assert.equal(decide(on(user('alice'), 'delete', 'deployments', 'x', 'apps')), 'Allow');
  assert.equal(decide(on(user('bob'), 'list', 'pods', 'projectCaribou')), 'Allow');
  assert.equal(decide(on(user('bob'), 'create', 'pods', 'projectCaribou')), 'NoOpinion');
  assert.equal(decide(on(user('bob'), 'get', 'pods', 'elsewhere')), 'NoOpinion');
  assert.equal(decide(on(user('bob'), 'get', 'deployments', 'projectCaribou', 'apps')), 'NoOpinion');
  assert.equal(decide(on(user('carol'), 'get', 'pods', 'projectCaribou')), 'NoOpinion');
});

test('non-resource paths: exact, prefix with a trailing *, and * for every authenticated user', () => {
  assert.equal(decide(at(user('dave', ['ops']), 'get', '/metrics/slis')), 'Allow');
  assert.equal(decide(at(user('dave', ['ops']), 'post', '/metrics')), 'NoOpinion');
  assert.equal(decide(at(user('anyone'), 'get', '/version')), 'Allow');
  assert.equal(decide(at(user('system:anonymous', ['system:unauthenticated']), 'get', '/version')), 'NoOpinion', '* is the authenticated users');
  assert.equal(decide(on(user('dave', ['ops']), 'get', 'pods', 'x')), 'NoOpinion', 'a path policy never allows a resource');
});

test('the unversioned form: a user with nothing else named may do everything, resources and paths', () => {
  assert.equal(decide(on(user('legacy'), 'delete', 'secrets', 'kube-system')), 'Allow');
  assert.equal(decide(at(user('legacy'), 'get', '/healthz')), 'Allow');
});

test('rules for a user in a namespace, as a self rules review lists them', () => {
  const bob = z.rulesFor!(user('bob'), 'projectCaribou');
  assert.deepEqual(bob.resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
  assert.deepEqual(z.rulesFor!(user('bob'), 'other').resourceRules, []);
});

test('a line that is not a policy is refused with its number', () => {
  assert.throws(() => parseAbacPolicies('{"user": "a"}\n{"apiVersion": "v2", "kind": "Policy"}', names, 'policy.jsonl'), /policy\.jsonl, line 2: apiVersion "v2"/);
  assert.throws(() => parseAbacPolicies('not json', names), /line 1:/);
  assert.throws(() => parseAbacPolicies('{"user": 5}', names), /user must be a string/);
});
