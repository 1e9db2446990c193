// Authentication and authorization against a real server (cluster.io mode, RBAC and Node): each local
// authenticator with valid, invalid, expired and missing credentials; an authorization matrix; escalation
// prevention; impersonation; TokenRequest and TokenReview; aggregated roles; the Node authorizer; bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createCertificateAuthority } from '../../src/pki/certificates.js';
import { call, issueClientCert, serverCa, type Identity } from './auth-support.js';
import { waitFor } from '../support/wait.js';
import { certificateRequest } from '../support/certificate-request.js';

const rbac = 'rbac.authorization.cluster.io';
const rbacApi = `/apis/${rbac}/v1`;

describe('authentication and authorization (cluster.io mode, Node,RBAC)', { concurrency: 1 }, () => {
  let server: TestServer;
  let dir: string;
  const admin: Identity = {};
  const alice: Identity = { token: 'alice-token' };
  const bob: Identity = { token: 'bob-token' };
  let carol: Identity;
  const as = (who: Identity, method: string, path: string, opts?: Parameters<typeof call>[4]) => call(server, who, method, path, opts);
  const create = async (path: string, body: unknown) => {
    const r = await as(admin, 'POST', path, { body });
    assert.equal(r.status, 201, `${path}: ${r.body}`);
    return r.json;
  };
  const role = (kind: 'Role' | 'ClusterRole', name: string, rules: unknown[], namespace?: string) =>
    create(kind === 'Role' ? `${rbacApi}/namespaces/${namespace}/roles` : `${rbacApi}/clusterroles`,
      { apiVersion: `${rbac}/v1`, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, rules });
  const bind = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: { kind: string; name: string }, subjects: unknown[], namespace?: string) =>
    create(kind === 'RoleBinding' ? `${rbacApi}/namespaces/${namespace}/rolebindings` : `${rbacApi}/clusterrolebindings`,
      { apiVersion: `${rbac}/v1`, kind, metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: rbac, ...roleRef }, subjects });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auth-it-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,u-1,"dev"\nbob-token,bob,u-2\nnode-token,system:node:n1,u-3,system:nodes\ndäna-tøken,dana,u-4\n');
    server = await startTestServer({ flags: ['--authorization-mode=Node,RBAC', `--token-auth-file=${tokens}`, '--enable-bootstrap-token-auth'] });
    admin.certPem = server.adminCertPem; admin.keyPem = server.adminKeyPem;
    carol = await issueClientCert(serverCa(server), 'carol', ['auditors']);
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    await role('Role', 'worker', [
      { apiGroups: [''], resources: ['pods', 'pods/status'], verbs: ['get', 'list', 'create'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['public'], verbs: ['get', 'update'] },
      { apiGroups: ['apps'], resources: ['*'], verbs: ['list'] },
    ], 'team');
    await bind('RoleBinding', 'alice-worker', { kind: 'Role', name: 'worker' }, [{ kind: 'User', name: 'alice' }], 'team');
    await role('ClusterRole', 'metrics-reader', [{ nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] }]);
    await bind('ClusterRoleBinding', 'auditors-metrics', { kind: 'ClusterRole', name: 'metrics-reader' }, [{ kind: 'Group', name: 'auditors' }]);
    await bind('RoleBinding', 'auditors-view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', name: 'auditors' }], 'team');
    for (const name of ['public', 'private'])
      await create('/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('authorization matrix: verbs, resources, subresources, resourceNames, non-resource URLs', async () => {
    const matrix: Array<[string, Identity, string, string, number]> = [
      ['alice', alice, 'GET', '/api/v1/namespaces/team/pods', 200],
      ['alice', alice, 'GET', '/api/v1/namespaces/other/pods', 403],
      ['alice', alice, 'DELETE', '/api/v1/namespaces/team/pods/x', 403],
      ['alice', alice, 'GET', '/api/v1/namespaces/team/pods/x/status', 404], // allowed, then not found
      ['alice', alice, 'GET', '/api/v1/namespaces/team/pods/x/log', 403],
      ['alice', alice, 'GET', '/api/v1/namespaces/team/configmaps/public', 200],
      ['alice', alice, 'GET', '/api/v1/namespaces/team/configmaps/private', 403],
      ['alice', alice, 'GET', '/api/v1/namespaces/team/configmaps', 403], // resourceNames never allow a list
      ['alice', alice, 'GET', '/apis/apps/v1/namespaces/team/deployments', 200],
      ['alice', alice, 'GET', '/apis/apps/v1/namespaces/team/deployments/d', 403],
      ['alice', alice, 'GET', '/metrics', 403],
      ['alice', alice, 'GET', '/version', 200], // system:discovery and system:public-info-viewer
      ['alice', alice, 'GET', '/api', 200],
      ['carol', carol, 'GET', '/metrics', 200],
      ['carol', carol, 'GET', '/logs/any/thing', 404], // allowed by the /logs/* rule, not served
      ['carol', carol, 'GET', '/api/v1/namespaces/team/configmaps', 200], // view, aggregated from system:aggregate-to-view
      ['carol', carol, 'GET', '/api/v1/namespaces/team/secrets', 403],
      ['carol', carol, 'GET', '/api/v1/namespaces/other/configmaps', 403],
      ['bob', bob, 'GET', '/api/v1/namespaces/team/pods', 403],
      ['bob', bob, 'GET', '/healthz', 200],
      ['anonymous', {}, 'GET', '/healthz', 200],
      ['anonymous', {}, 'GET', '/api', 403],
      ['anonymous', {}, 'GET', '/api/v1/namespaces', 403],
      ['admin', admin, 'GET', '/api/v1/namespaces/team/secrets', 200],
    ];
    const failures: string[] = [];
    for (const [name, who, method, path, want] of matrix) {
      const r = await as(who, method, path);
      if (r.status !== want) failures.push(`${name} ${method} ${path}: ${r.status}, want ${want}: ${r.body.slice(0, 200)}`);
      if (r.status === 403) {
        assert.equal(r.json.kind, 'Status');
        assert.equal(r.json.reason, 'Forbidden');
      }
    }
    assert.deepEqual(failures, []);
    const denied = await as(alice, 'GET', '/api/v1/namespaces/team/pods/x/log');
    assert.equal(denied.json.message, 'pods "x" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "team"');
    const nonResource = await as(alice, 'GET', '/metrics');
    assert.equal(nonResource.json.message, 'forbidden: User "alice" cannot get path "/metrics"');
  });

  test('access reviews answer from RBAC, with the allowing binding as reason', async () => {
    const review = await as(admin, 'POST', '/apis/authorization.cluster.io/v1/subjectaccessreviews', { body: {
      apiVersion: 'authorization.cluster.io/v1', kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'public' } } } });
    assert.equal(review.json.status.allowed, true);
    assert.equal(review.json.status.reason, 'RBAC: allowed by RoleBinding "alice-worker/team" of Role "worker" to User "alice"');
    const self = await as(alice, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectaccessreviews', { body: {
      spec: { resourceAttributes: { namespace: 'team', verb: 'delete', resource: 'pods' } } } });
    assert.equal(self.status, 201);
    assert.equal(self.json.status.allowed, false);
    const rules = await as(alice, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace: 'team' } } });
    assert.equal(rules.json.status.incomplete, false);
    assert.ok(rules.json.status.resourceRules.some((r: any) => r.resources.includes('pods') && r.verbs.includes('create')));
    assert.ok(rules.json.status.resourceRules.some((r: any) => r.resourceNames?.includes('public')));
    const elsewhere = await as(alice, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace: 'other' } } });
    assert.ok(!elsewhere.json.status.resourceRules.some((r: any) => r.resources.includes('pods')));
    // bob may not ask about others
    const bobAsks = await as(bob, 'POST', '/apis/authorization.cluster.io/v1/subjectaccessreviews', { body: {
      spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } } } });
    assert.equal(bobAsks.status, 403);
  });

  test('access reviews are validated as the reference: a local review stays in its namespace and on resources', async () => {
    const authz = '/apis/authorization.cluster.io/v1';
    const local = (body: unknown) => as(admin, 'POST', `${authz}/namespaces/team/localsubjectaccessreviews`, { body });
    const elsewhere = await local({ spec: { user: 'alice', resourceAttributes: { namespace: 'other', verb: 'get', resource: 'pods' } } });
    assert.equal(elsewhere.status, 422, elsewhere.body);
    assert.equal(elsewhere.json.message, 'LocalSubjectAccessReview.authorization.cluster.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace');
    assert.deepEqual(elsewhere.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "other": must match metadata.namespace', field: 'spec.resourceAttributes.namespace' }]);
    // every problem at once
    const noNamespaceNoUser = await local({ spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
    assert.equal(noNamespaceNoUser.status, 422);
    assert.equal(noNamespaceNoUser.json.message, 'LocalSubjectAccessReview.authorization.cluster.io "" is invalid: [spec.user: Invalid value: "": at least one of user or group must be specified, spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace]');
    const paths = await local({ spec: { user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } } });
    assert.equal(paths.status, 422);
    assert.equal(paths.json.message, 'LocalSubjectAccessReview.authorization.cluster.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/metrics", Verb:"get"}: disallowed on this kind of request');
    const otherMetadata = await local({ metadata: { namespace: 'other' }, spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods' } } });
    assert.equal(otherMetadata.status, 400);
    assert.equal(otherMetadata.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
    const ok = await local({ spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods' } } });
    assert.equal(ok.status, 201, ok.body);
    assert.equal(ok.json.status.allowed, true);
    const both = await as(admin, 'POST', `${authz}/subjectaccessreviews`, { body: {
      spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' }, nonResourceAttributes: { path: '/metrics', verb: 'get' } } } });
    assert.equal(both.status, 422);
    assert.deepEqual(both.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes',
      message: 'Invalid value: authorization.NonResourceAttributes{Path:"/metrics", Verb:"get"}: cannot be specified in combination with resourceAttributes' }]);
    // a review is answered, never stored: its metadata must be empty (a local one's namespace aside)
    const meta = 'v1.ObjectMeta{Name:"a", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, '
      + 'CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), '
      + 'Labels:map[string]string{"k":"v"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), '
      + 'ManagedFields:[]v1.ManagedFieldsEntry(nil)}';
    const spec = { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods' } };
    for (const [path, suffix] of [['subjectaccessreviews', ''], ['selfsubjectaccessreviews', '']] as const) {
      const named = await as(admin, 'POST', `${authz}/${path}`, { body: { metadata: { name: 'a', labels: { k: 'v' }, creationTimestamp: null }, spec } });
      assert.equal(named.status, 422, named.body);
      assert.deepEqual(named.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'metadata', message: `Invalid value: ${meta}: must be empty${suffix}` }]);
    }
    const namedLocal = await local({ metadata: { name: 'a', labels: { k: 'v' } }, spec });
    assert.equal(namedLocal.status, 422, namedLocal.body);
    assert.deepEqual(namedLocal.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'metadata',
      message: `Invalid value: ${meta.replace('Namespace:""', 'Namespace:"team"')}: must be empty except for namespace` }]);
    // what clients send (an empty creationTimestamp, a namespace where it belongs) is fine
    assert.equal((await local({ metadata: { namespace: 'team', creationTimestamp: null }, spec })).status, 201);
    assert.equal((await as(admin, 'POST', `${authz}/selfsubjectaccessreviews`, { body: { metadata: { creationTimestamp: null, labels: {} }, spec } })).status, 201);
  });

  test('escalation prevention: roles and bindings grant only what the writer holds, unless escalate or bind', async () => {
    // bob may manage roles and bindings in team, but holds nothing else there
    await role('Role', 'rbac-manager', [{ apiGroups: [rbac], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'get'] }], 'team');
    await bind('RoleBinding', 'bob-rbac', { kind: 'Role', name: 'rbac-manager' }, [{ kind: 'User', name: 'bob' }], 'team');
    const secretsRole = { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
    const refused = await as(bob, 'POST', `${rbacApi}/namespaces/team/roles`, { body: secretsRole });
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.json.message, /^roles\.rbac\.authorization\.cluster\.io "secret-reader" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/);
    const dryRun = await as(bob, 'POST', `${rbacApi}/namespaces/team/roles?dryRun=All`, { body: secretsRole });
    assert.equal(dryRun.status, 403);
    // a role within what bob holds is fine
    const within = await as(bob, 'POST', `${rbacApi}/namespaces/team/roles`, { body: { ...secretsRole, metadata: { name: 'role-reader' },
      rules: [{ apiGroups: [rbac], resources: ['roles'], verbs: ['get'] }] } });
    assert.equal(within.status, 201, within.body);
    // binding a role bob does not cover is refused; with `bind` on that role name it is allowed
    const bindingBody = { apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'bob-gives-worker' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'worker' }, subjects: [{ kind: 'User', name: 'eve' }] };
    assert.equal((await as(bob, 'POST', `${rbacApi}/namespaces/team/rolebindings`, { body: bindingBody })).status, 403);
    await role('Role', 'worker-binder', [{ apiGroups: [rbac], resources: ['roles'], resourceNames: ['worker'], verbs: ['bind'] }], 'team');
    await bind('RoleBinding', 'bob-binds-worker', { kind: 'Role', name: 'worker-binder' }, [{ kind: 'User', name: 'bob' }], 'team');
    assert.equal((await as(bob, 'POST', `${rbacApi}/namespaces/team/rolebindings`, { body: bindingBody })).status, 201);
    // escalate lets bob write a role beyond his permissions
    await role('Role', 'escalator', [{ apiGroups: [rbac], resources: ['roles'], verbs: ['escalate'] }], 'team');
    await bind('RoleBinding', 'bob-escalates', { kind: 'Role', name: 'escalator' }, [{ kind: 'User', name: 'bob' }], 'team');
    assert.equal((await as(bob, 'POST', `${rbacApi}/namespaces/team/roles`, { body: secretsRole })).status, 201);
  });

  test('escalation refusals read as the reference: compact sorted rules, missing roles, aggregationRule, every update', async () => {
    const dana = await issueClientCert(serverCa(server), 'dana', ['dev', 'qa']);
    await role('Role', 'rbac-writer', [{ apiGroups: [rbac], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch', 'get'] }], 'other');
    await bind('RoleBinding', 'dana-rbac', { kind: 'Role', name: 'rbac-writer' }, [{ kind: 'User', name: 'dana' }], 'other');
    await role('ClusterRole', 'clusterrole-writer', [{ apiGroups: [rbac], resources: ['clusterroles'], verbs: ['create', 'update'] }]);
    await bind('ClusterRoleBinding', 'dana-clusterroles', { kind: 'ClusterRole', name: 'clusterrole-writer' }, [{ kind: 'User', name: 'dana' }]);
    const asDana = (method: string, path: string, body: unknown, headers?: Record<string, string>) => as(dana, method, path, { body, headers });
    const readers = { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'readers' },
      rules: [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list'] }, { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['watch'] }] };
    const refused = await asDana('POST', `${rbacApi}/namespaces/other/roles`, readers);
    assert.equal(refused.status, 403, refused.body);
    // one line per group, resource and name with all its verbs, sorted; the groups as Go prints a string list
    assert.equal(refused.json.message, `roles.${rbac} "readers" is forbidden: user "dana" (groups=["dev" "qa" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list"]}
{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["watch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`);
    // a binding to a role that does not exist: the lookup's own 404
    const ghostRef = await asDana('POST', `${rbacApi}/namespaces/other/rolebindings`, { apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'b' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'nope' }, subjects: [{ kind: 'User', name: 'eve' }] });
    assert.equal(ghostRef.status, 404, ghostRef.body);
    assert.equal(ghostRef.json.message, `roles.${rbac} "nope" not found`);
    // an aggregationRule gathers anything: only for those who hold everything
    const aggregating = await asDana('POST', `${rbacApi}/clusterroles`, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'gatherer' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'yes' } }] } });
    assert.equal(aggregating.status, 403, aggregating.body);
    assert.equal(aggregating.json.message, `clusterroles.${rbac} "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule`);
    // updates are checked whatever they change, except what the garbage collector writes
    await create(`${rbacApi}/namespaces/other/roles`, readers);
    const merge = { 'content-type': 'application/merge-patch+json' };
    const relabel = await asDana('PATCH', `${rbacApi}/namespaces/other/roles/readers`, { metadata: { labels: { team: 'x' } } }, merge);
    assert.equal(relabel.status, 403, relabel.body);
    const finalizer = await asDana('PATCH', `${rbacApi}/namespaces/other/roles/readers`, { metadata: { finalizers: ['example.com/keep'] } }, merge);
    assert.equal(finalizer.status, 200, finalizer.body);
    assert.equal((await asDana('PATCH', `${rbacApi}/namespaces/other/roles/readers`, { metadata: { finalizers: null } }, merge)).status, 200);
    // bindings to roles that are gone: named in the refusal, in denials and in the rules review
    await bind('RoleBinding', 'dana-ghost', { kind: 'ClusterRole', name: 'ghost' }, [{ kind: 'Group', name: 'qa' }], 'other');
    const withGhost = await asDana('POST', `${rbacApi}/namespaces/other/roles`, { ...readers, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
    assert.equal(withGhost.status, 403, withGhost.body);
    assert.ok(withGhost.json.message.endsWith(`{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [clusterroles.${rbac} "ghost" not found]`), withGhost.json.message);
    const denied = await as(dana, 'GET', '/api/v1/namespaces/other/pods');
    assert.equal(denied.json.message, `pods is forbidden: User "dana" cannot list resource "pods" in API group "" in the namespace "other": RBAC: clusterrole.${rbac} "ghost" not found`);
    const rules = await as(dana, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace: 'other' } } });
    assert.equal(rules.json.status.incomplete, false);
    assert.equal(rules.json.status.evaluationError, `clusterrole.${rbac} "ghost" not found`);
    const review = await as(dana, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectaccessreviews', { body: {
      spec: { resourceAttributes: { namespace: 'other', verb: 'list', resource: 'pods' } } } });
    assert.deepEqual(review.json.status, { allowed: false, reason: `RBAC: clusterrole.${rbac} "ghost" not found` });
  });

  test('aggregated cluster roles pick up the rules of labelled roles', async () => {
    await create(`${rbacApi}/clusterroles`, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { [`${rbac}/aggregate-to-view`]: 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }] });
    // the aggregation controller does it as soon as a busy machine lets it: waited for with the shared deadline
    const aggregated = (role: string) => waitFor(`${role} to aggregate the widgets rule`, async () => {
      const rules: any[] = (await as(admin, 'GET', `${rbacApi}/clusterroles/${role}`)).json.rules;
      return rules.some(r => r.resources?.includes('widgets')) && rules;
    });
    const rules = await aggregated('view');
    assert.ok(rules.some(r => r.resources?.includes('pods')), 'view keeps its own rules');
    // edit and admin aggregate view, so they follow
    await aggregated('admin');
    assert.equal((await as(carol, 'GET', '/apis/example.com/v1/namespaces/team/widgets')).status, 404); // allowed, not served
  });

  test('an aggregated cluster role whose selectors stop matching has no rules field (not an empty list)', async () => {
    await create(`${rbacApi}/clusterroles`, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'gadgets-source', labels: { gadgets: 'yes' } },
      rules: [{ apiGroups: ['example.com'], resources: ['gadgets'], verbs: ['get'] }] });
    await create(`${rbacApi}/clusterroles`, { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'gadgets' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gadgets: 'yes' } }] } });
    const rulesOf = async () => (await as(admin, 'GET', `${rbacApi}/clusterroles/gadgets`)).json;
    await waitFor('gadgets to aggregate the source rule', async () => (await rulesOf()).rules?.length === 1);
    assert.equal((await as(admin, 'DELETE', `${rbacApi}/clusterroles/gadgets-source`)).status, 200);
    const role = await waitFor('gadgets to lose its rules', async () => { const r = await rulesOf(); return r.rules?.length !== 1 && r; });
    assert.equal('rules' in role, false, JSON.stringify(role));
  });

  test('impersonation: each header needs its own impersonate permission', async () => {
    await role('ClusterRole', 'impersonate-some', [
      { apiGroups: [''], resources: ['users'], resourceNames: ['alice'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], resourceNames: ['dev'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.cluster.io'], resources: ['userextras/scopes'], resourceNames: ['read'], verbs: ['impersonate'] },
      { apiGroups: ['authentication.cluster.io'], resources: ['uids'], resourceNames: ['u-1'], verbs: ['impersonate'] },
    ]);
    await bind('ClusterRoleBinding', 'bob-impersonates', { kind: 'ClusterRole', name: 'impersonate-some' }, [{ kind: 'User', name: 'bob' }]);
    const whoami = (headers: Record<string, string | string[]>) =>
      as(bob, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {}, headers });
    const ok = await whoami({ 'Impersonate-User': 'alice', 'Impersonate-Group': 'dev', 'Impersonate-Uid': 'u-1', 'Impersonate-Extra-Scopes': 'read' });
    assert.equal(ok.status, 201, ok.body);
    assert.deepEqual(ok.json.status.userInfo, { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['read'] } });
    const cases: Array<[Record<string, string | string[]>, RegExp]> = [
      [{ 'Impersonate-User': 'carol' }, /users "carol" is forbidden: User "bob" cannot impersonate resource "users"/],
      [{ 'Impersonate-User': 'alice', 'Impersonate-Group': ['dev', 'system:masters'] }, /groups "system:masters" is forbidden/],
      [{ 'Impersonate-User': 'alice', 'Impersonate-Uid': 'u-9' }, /uids.authentication.cluster.io "u-9" is forbidden/],
      [{ 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'write' }, /cannot impersonate resource "userextras\/scopes"/],
      [{ 'Impersonate-User': 'system:serviceaccount:team:robot' }, /serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"/],
    ];
    for (const [headers, message] of cases) {
      const r = await whoami(headers);
      assert.equal(r.status, 403, JSON.stringify(headers));
      assert.match(r.json.message, message);
    }
    // groups, uid or extra without a user is a bad request, never a 500
    for (const headers of [{ 'Impersonate-Group': 'dev' }, { 'Impersonate-Uid': 'u-1' }, { 'Impersonate-Extra-A': 'b' }] as Record<string, string>[]) {
      const r = await whoami(headers);
      assert.equal(r.status, 400, JSON.stringify(headers));
    }
    // acting as alice, bob gets exactly alice's permissions
    assert.equal((await as(bob, 'GET', '/api/v1/namespaces/team/pods', { headers: { 'Impersonate-User': 'alice' } })).status, 200);
    assert.equal((await as(bob, 'GET', '/api/v1/namespaces/team/secrets', { headers: { 'Impersonate-User': 'alice' } })).status, 403);
    // extra keys named like Object members are plain keys: bob may not use them (403), the administrator may (never a 500)
    for (const key of ['__proto__', 'constructor', 'toString']) {
      const denied = await whoami({ 'Impersonate-User': 'alice', [`Impersonate-Extra-${key}`]: 'x' });
      assert.equal(denied.status, 403, denied.body);
      assert.match(denied.json.message, new RegExp(`cannot impersonate resource "userextras/${key.toLowerCase()}"`));
      const allowed = await as(admin, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {}, headers: { 'Impersonate-User': 'alice', [`Impersonate-Extra-${key}`]: 'x' } });
      assert.equal(allowed.status, 201, allowed.body);
      assert.match(allowed.body, new RegExp(`"extra":\\{"${key.toLowerCase()}":\\["x"\\]\\}`));
    }
    // an empty Impersonate-User asks for no one: bob stays bob, as in the reference
    const nobody = await whoami({ 'Impersonate-User': '' });
    assert.equal(nobody.status, 201, nobody.body);
    assert.equal(nobody.json.status.userInfo.username, 'bob');
    // impersonating a service account gives the account's groups
    const sa = await as(admin, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {}, headers: { 'Impersonate-User': 'system:serviceaccount:team:robot' } });
    assert.deepEqual(sa.json.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated']);
    // the kind has no spec: the answer has none
    assert.deepEqual(Object.keys(sa.json), ['kind', 'apiVersion', 'metadata', 'status']);
    // a user impersonated in the unauthenticated group is not made authenticated as well
    await bind('ClusterRoleBinding', 'pat-basic', { kind: 'ClusterRole', name: 'system:basic-user' }, [{ kind: 'User', name: 'pat' }]);
    const unauthenticated = await as(admin, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {}, headers: { 'Impersonate-User': 'pat', 'Impersonate-Group': 'system:unauthenticated' } });
    assert.deepEqual(unauthenticated.json.status.userInfo, { username: 'pat', groups: ['system:unauthenticated'] });
  });

  test('service-account tokens: TokenRequest, audiences, binding, expiry, lookup, TokenReview', async () => {
    const sa = await create('/api/v1/namespaces/team/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    await bind('RoleBinding', 'robot-worker', { kind: 'Role', name: 'worker' }, [{ kind: 'ServiceAccount', name: 'robot', namespace: 'team' }], 'team');
    const tokenFor = async (spec: unknown, name = 'robot') => as(admin, 'POST', `/api/v1/namespaces/team/serviceaccounts/${name}/token`, {
      body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenRequest', spec } });
    const tr = await tokenFor({ expirationSeconds: 600 });
    assert.equal(tr.status, 201, tr.body);
    assert.equal(tr.json.kind, 'TokenRequest');
    assert.deepEqual(tr.json.spec.audiences, ['https://cluster.default.svc.cluster.local']);
    const left = Date.parse(tr.json.status.expirationTimestamp) - Date.now();
    assert.ok(left > 590_000 && left <= 600_000, String(left));
    const robot: Identity = { token: tr.json.status.token };
    assert.equal((await as(robot, 'GET', '/api/v1/namespaces/team/pods')).status, 200);
    assert.equal((await as(robot, 'GET', '/api/v1/namespaces/team/secrets')).status, 403);

    // validation
    assert.equal((await tokenFor({ expirationSeconds: 60 })).status, 422);
    assert.equal((await tokenFor({}, 'nobody')).status, 404);
    // as the reference names the type it will not bind to, and the object whose UID differs (by its kind)
    const toNode = await tokenFor({ boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } });
    assert.deepEqual([toNode.status, toNode.json.message], [400, 'cannot bind token to object of type /v1, Kind=Node']);
    const toDeployment = await tokenFor({ boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } });
    assert.deepEqual([toDeployment.status, toDeployment.json.message], [400, 'cannot bind token to object of type apps/v1, Kind=Deployment']);
    // a name or namespace in the body must be the account's
    const misnamed = await as(admin, 'POST', '/api/v1/namespaces/team/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenRequest', metadata: { name: 'default' }, spec: {} } });
    assert.equal(misnamed.status, 422, misnamed.body);
    assert.equal(misnamed.json.message, 'TokenRequest.authentication.cluster.io "robot" is invalid: metadata.name: Invalid value: "default": must match the service account name if specified');
    const elsewhere = await as(admin, 'POST', '/api/v1/namespaces/team/serviceaccounts/robot/token', {
      body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenRequest', metadata: { name: 'robot', namespace: 'default' }, spec: {} } });
    assert.equal(elsewhere.status, 422, elsewhere.body);
    assert.match(elsewhere.json.message, /metadata.namespace: Invalid value: "default": must match the service account namespace if specified$/);

    // a token for another audience is not good for the API, but TokenReview with that audience accepts it
    const other = await tokenFor({ audiences: ['vault'] });
    const refused = await as({ token: other.json.status.token }, 'GET', '/api/v1/namespaces/team/pods');
    assert.equal(refused.status, 401);
    // the client is told no reason, as by the reference (the review below gives it)
    assert.deepEqual({ message: refused.json.message, reason: refused.json.reason }, { message: 'Unauthorized', reason: 'Unauthorized' });
    const review = async (token: string, audiences?: string[]) => (await as(admin, 'POST', '/apis/authentication.cluster.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } } })).json.status;
    const good = await review(other.json.status.token, ['vault']);
    assert.equal(good.authenticated, true);
    assert.deepEqual(good.audiences, ['vault']);
    assert.equal(good.user.username, 'system:serviceaccount:team:robot');
    assert.equal(good.user.uid, sa.metadata.uid);
    assert.equal((await review(other.json.status.token)).authenticated, false);
    assert.equal((await review('alice-token')).user.username, 'alice');
    assert.equal((await review('nonsense')).authenticated, false);

    // bound to a pod: dies with the pod
    const pod = await create('/api/v1/namespaces/team/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' },
      spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'busybox' }] } });
    const bad = await tokenFor({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner', uid: 'not-the-uid' } });
    assert.equal(bad.status, 409);
    assert.equal(bad.json.message, 'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated');
    const bound = await tokenFor({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } });
    assert.equal(bound.json.spec.boundObjectRef.uid, pod.metadata.uid);
    const boundReview = await review(bound.json.status.token);
    assert.deepEqual(boundReview.user.extra, { 'authentication.cluster.io/pod-name': ['runner'], 'authentication.cluster.io/pod-uid': [pod.metadata.uid] });
    assert.equal((await as({ token: bound.json.status.token }, 'GET', '/api/v1/namespaces/team/pods')).status, 200);
    // the agent's projected tokens (3607 s, bound to a pod) live a year, the asked end noted as warnafter
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    const projected = await tokenFor({ expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } });
    const extended = claimsOf(projected.json.status.token);
    assert.equal(extended.exp - extended.iat, 365 * 24 * 3600);
    assert.equal(extended['cluster.io'].warnafter, extended.iat + 3607);
    assert.ok(Math.abs(Date.parse(projected.json.status.expirationTimestamp) - Date.now() - 3607_000) < 5000, 'the answer states the asked end');
    const plain = claimsOf((await tokenFor({ expirationSeconds: 3608, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'runner' } })).json.status.token);
    assert.equal(plain.exp - plain.iat, 3608);
    assert.equal(plain['cluster.io'].warnafter, undefined);
    assert.equal((await as(admin, 'DELETE', '/api/v1/namespaces/team/pods/runner?gracePeriodSeconds=0')).status, 200);
    const dead = await as({ token: bound.json.status.token }, 'GET', '/api/v1/namespaces/team/pods');
    assert.equal(dead.status, 401);
    assert.equal(dead.json.reason, 'Unauthorized');

    // expired: signed with the server's own key, a minute in the past
    const key = createPrivateKey(readFileSync(join(server.dataDir, 'pki', 'sa.key'), 'utf8'));
    const past = Math.floor(Date.now() / 1000) - 3600;
    const expired = await new SignJWT({ 'cluster.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: sa.metadata.uid } } })
      .setProtectedHeader({ alg: 'ES256' }).setIssuer('https://cluster.default.svc.cluster.local').setAudience('https://cluster.default.svc.cluster.local')
      .setSubject('system:serviceaccount:team:robot').setIssuedAt(past).setExpirationTime(past + 60).sign(key);
    assert.equal((await as({ token: expired }, 'GET', '/api/v1/namespaces/team/pods')).status, 401);
    // signed by a key the server does not know
    const foreign = createPrivateKey(createCertificateAuthority('x', 60).keyPem);
    const forged = await new SignJWT({ 'cluster.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: sa.metadata.uid } } })
      .setProtectedHeader({ alg: 'ES256' }).setIssuer('https://cluster.default.svc.cluster.local').setAudience('https://cluster.default.svc.cluster.local')
      .setSubject('system:serviceaccount:team:robot').setIssuedAt().setExpirationTime('1h').sign(foreign);
    assert.equal((await as({ token: forged }, 'GET', '/api/v1/namespaces/team/pods')).status, 401);

    // lookup: deleting the account revokes its tokens
    assert.equal((await as(admin, 'DELETE', '/api/v1/namespaces/team/serviceaccounts/robot')).status, 200);
    assert.equal((await as(robot, 'GET', '/api/v1/namespaces/team/pods')).status, 401);
  });

  test('bootstrap tokens: valid, wrong secret, expired, unusable, missing', async () => {
    const secret = (id: string, data: Record<string, string>) => create('/api/v1/namespaces/cluster-system/secrets', {
      apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.cluster.io/token', metadata: { name: `bootstrap-token-${id}` },
      stringData: { 'token-id': id, 'usage-bootstrap-authentication': 'true', ...data } });
    await secret('abcdef', { 'token-secret': '0123456789abcdef', 'auth-extra-groups': 'system:bootstrappers:worker' });
    await secret('expird', { 'token-secret': '0123456789abcdef', expiration: '2020-01-01T00:00:00Z' });
    await secret('nouse0', { 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'false' });
    // not an RFC 3339 time: expired, as the reference reads it
    await secret('dateon', { 'token-secret': '0123456789abcdef', expiration: '2099-01-01' });
    const whoami = (token?: string) => as(token ? { token } : {}, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {} });
    const ok = await whoami('abcdef.0123456789abcdef');
    assert.equal(ok.status, 201, ok.body);
    assert.deepEqual(ok.json.status.userInfo, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'] });
    for (const t of ['abcdef.0123456789abcdex', 'expird.0123456789abcdef', 'nouse0.0123456789abcdef', 'dateon.0123456789abcdef', 'zzzzzz.0123456789abcdef'])
      assert.equal((await whoami(t)).status, 401, t);
    // missing credentials: anonymous, which RBAC lets ask who it is? no: only authenticated users hold system:basic-user
    assert.equal((await whoami()).status, 403);
  });

  test('a node client request made with a bootstrap token before its group may get one approved is approved once it may', async () => {
    // the token of the test before, in group system:bootstrappers:worker, may ask for certificates but not have them approved
    await bind('ClusterRoleBinding', 'worker-bootstrap', { kind: 'ClusterRole', name: 'system:node-bootstrapper' }, [{ kind: 'Group', name: 'system:bootstrappers:worker' }]);
    const csrs = '/apis/certificates.cluster.io/v1/certificatesigningrequests';
    const made = await waitFor('the token to make its request', async () => {
      const r = await as({ token: 'abcdef.0123456789abcdef' }, 'POST', csrs, { body: {
        apiVersion: 'certificates.cluster.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'joiner' },
        spec: { request: Buffer.from(await certificateRequest('system:node:joiner', ['system:nodes'])).toString('base64'),
          signerName: 'cluster.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
      } });
      return r.status === 201 && r.json;
    });
    assert.equal(made.spec.username, 'system:bootstrap:abcdef');
    const conditions = async (name: string) => (await as(admin, 'GET', `${csrs}/${name}`)).json.status?.conditions;
    // a later request the approver does approve (an administrator's, who may have any approved): by then it has
    // looked at the token's, and been refused
    await create(csrs, { apiVersion: 'certificates.cluster.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'by-admin' },
      spec: { request: Buffer.from(await certificateRequest('system:node:other', ['system:nodes'])).toString('base64'),
        signerName: 'cluster.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] } });
    await waitFor('the administrator\'s request approved', async () => (await conditions('by-admin'))?.some((c: any) => c.type === 'Approved'));
    assert.equal(await conditions('joiner'), undefined, 'not approved while the group may not have it approved');
    await bind('ClusterRoleBinding', 'worker-autoapprove', { kind: 'ClusterRole', name: 'system:certificates.cluster.io:certificatesigningrequests:nodeclient' },
      [{ kind: 'Group', name: 'system:bootstrappers:worker' }]);
    const approved = await waitFor('the request approved', async () => (await conditions('joiner'))?.find((c: any) => c.type === 'Approved'));
    assert.deepEqual([approved.reason, approved.message], ['AutoApproved', 'Auto approving kubelet client certificate after SubjectAccessReview.']);
  });

  test('Node authorizer: a node reads only what pods on it use', async () => {
    const node: Identity = { token: 'node-token' };
    await create('/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { p: 'x' } });
    await create('/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated' }, stringData: { p: 'x' } });
    await create('/api/v1/namespaces/team/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-n1' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'p' } } }] }] } });
    // the pod reaches the node authorizer's cache shortly (longer on a busy machine)
    await waitFor('the node allowed the secret of its pod', async () => (await as(node, 'GET', '/api/v1/namespaces/team/secrets/db')).status === 200);
    const unrelated = await as(node, 'GET', '/api/v1/namespaces/team/secrets/unrelated');
    assert.equal(unrelated.status, 403);
    assert.match(unrelated.json.message, /no relationship found between node 'n1' and this object/);
    assert.equal((await as(node, 'GET', '/api/v1/namespaces/team/secrets')).status, 403);
    assert.equal((await as(node, 'GET', '/api/v1/nodes')).status, 200);
    assert.equal((await as(node, 'GET', '/apis/coordination.cluster.io/v1/namespaces/cluster-node-lease/leases/n2')).status, 403);
    assert.equal((await as(node, 'GET', '/apis/coordination.cluster.io/v1/namespaces/cluster-node-lease/leases/n1')).status, 404);
  });

  test('the Authorization header is read as the reference reads it: another scheme or no token is anonymous, a token after two spaces is ignored with a warning', async () => {
    const whoami = async (authorization: string) => {
      const r = await as({}, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews',
        { headers: { authorization }, body: { apiVersion: 'authentication.cluster.io/v1beta1', kind: 'SelfSubjectReview' } });
      return { status: r.status, user: r.json?.status?.userInfo?.username ?? r.json?.message, warning: String(r.headers.warning ?? '') };
    };
    // the scheme in any case, what follows the token after a space ignored, the token's bytes read as UTF-8
    for (const h of ['Bearer alice-token', 'bearer alice-token', 'BEARER alice-token', '  Bearer alice-token  ', 'Bearer alice-token trailing words'])
      assert.deepEqual({ ...(await whoami(h)), warning: '' }, { status: 201, user: 'alice', warning: '' }, h);
    assert.equal((await whoami(`Bearer ${Buffer.from('däna-tøken').toString('latin1')}`)).user, 'dana');
    // a TokenReview's token is text already: the same token is dana's there too
    const review = await as(admin, 'POST', '/apis/authentication.cluster.io/v1/tokenreviews', { body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenReview', spec: { token: 'däna-tøken' } } });
    assert.equal(review.json.status.user?.username, 'dana', review.body);
    // and is the whole token: what follows a space is no part to ignore, as it is in a header
    const spacedReview = await as(admin, 'POST', '/apis/authentication.cluster.io/v1/tokenreviews', { body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenReview', spec: { token: 'alice-token trailing' } } });
    assert.equal(spacedReview.json.status.authenticated, false, spacedReview.body);
    // no bearer credential at all: anonymous (whom RBAC forbids most things: 403, not 401)
    for (const h of ['Basic dXNlcjpwYXNz', 'Bearer', 'bearer ', 'Bearer\talice-token', 'Token alice-token']) {
      const r = await as({}, 'GET', '/api/v1/namespaces', { headers: { authorization: h } });
      assert.equal(r.status, 403, `${h}: ${r.body}`);
      assert.match(r.json.message, /User "system:anonymous" cannot list/, h);
    }
    const spaced = await as({}, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer  alice-token' } });
    assert.equal(spaced.status, 403, spaced.body);
    assert.match(String(spaced.headers.warning), /extra space before the bearer token, and is ignored/);
    // a bearer token nobody knows stays a 401
    assert.equal((await whoami('Bearer alice-token2')).status, 401);
  });

  test('bad input: malformed tokens, foreign certificates, oversized headers give 401/403, never 500', async () => {
    const malformed = ['a b', 'eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.', 'eyJ.eyJ.sig', `${'x'.repeat(2000)}`,
      'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2NsdXN0ZXIuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.AAAA', 'abcdef.00000000000000zz'];
    for (const token of malformed) {
      const r = await as({}, 'GET', '/api/v1/namespaces', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 401, `token ${JSON.stringify(token.slice(0, 40))}: ${r.body}`);
      assert.deepEqual({ kind: r.json.kind, reason: r.json.reason, code: r.json.code }, { kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
    const foreignCa = createCertificateAuthority('elsewhere', 3600);
    const mallory = await issueClientCert(foreignCa, 'admin', ['system:masters']);
    const r = await as(mallory, 'GET', '/api/v1/namespaces');
    assert.equal(r.status, 401);
    // an expired certificate from the server's own CA
    const shortLived = await issueClientCert(serverCa(server), 'carol', ['auditors'], 1);
    await new Promise(res => setTimeout(res, 1100));
    const stale = await as(shortLived, 'GET', '/api/v1/namespaces/team/configmaps');
    assert.equal(stale.status, 401);
    // a foreign certificate does not spoil a good token
    assert.equal((await as({ ...mallory, token: 'alice-token' }, 'GET', '/api/v1/namespaces/team/pods')).status, 200);
    // forged impersonation from an unprivileged user and from anonymous
    assert.equal((await as(alice, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'admin', 'Impersonate-Group': 'system:masters' } })).status, 403);
    assert.equal((await as({}, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'admin' } })).status, 403);
    assert.equal((await as(alice, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-User': 'x', 'Impersonate-Extra-%zz': 'y' } })).status, 400);
    // oversized: the HTTP layer refuses the headers (431) or the token is just not known (401)
    for (const headers of [{ authorization: `Bearer ${'a'.repeat(70_000)}` }, { 'Impersonate-User': 'u'.repeat(70_000) }] as Record<string, string>[]) {
      const big = await as(alice, 'GET', '/api/v1/namespaces', { headers }).catch(e => ({ status: -1, body: String(e) }));
      assert.ok([401, 403, 431, -1].includes(big.status), `${big.status} ${big.body.slice(0, 200)}`);
    }
    // the server is still fine
    assert.equal((await as(admin, 'GET', '/api/v1/namespaces')).status, 200);
  });
});
