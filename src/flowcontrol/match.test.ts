// Matching requests to FlowSchemas: subjects, resource and non-resource rules, precedence, distinguishers, and the
// reference's default objects classifying the requests they were made for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import type { FlowRequest, FlowSchema } from '../api/flowcontrol.js';
import type { UserInfo } from '../api/auth.js';
import type { Subject } from '../api/types/flowcontrol-v1beta3.js';
import { requestInfo } from '../http/request-info.js';
import { compileSchema, flowDistinguisher, orderSchemas } from './match.js';
import { defaultObjects } from './defaults.js';

const request = (user: UserInfo, method: string, url: string): FlowRequest => {
  const [path, q = ''] = url.split('?');
  const query = new URLSearchParams(q);
  return { user, info: requestInfo(method, path, query), query };
};
const alice: UserInfo = { username: 'alice', groups: ['dev', 'system:authenticated'] };
const sa: UserInfo = { username: 'system:serviceaccount:team:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };

const schema = (name: string, spec: Partial<NonNullable<FlowSchema['spec']>>): FlowSchema =>
  ({ metadata: { name, uid: `uid-${name}` }, spec: { priorityLevelConfiguration: { name: 'pl' }, ...spec } });

test('subjects: users, groups and service accounts by name or wildcard', () => {
  const all = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] };
  const by = (subjects: Subject[]) =>
    compileSchema(schema('s', { rules: [{ subjects, ...all }] }));
  const get = (u: UserInfo) => request(u, 'GET', '/api/v1/namespaces/team/pods');
  assert.ok(by([{ kind: 'User', user: { name: 'alice' } }]).matches(get(alice)));
  assert.ok(!by([{ kind: 'User', user: { name: 'bob' } }]).matches(get(alice)));
  assert.ok(by([{ kind: 'User', user: { name: '*' } }]).matches(get(alice)));
  assert.ok(by([{ kind: 'Group', group: { name: 'dev' } }]).matches(get(alice)));
  assert.ok(!by([{ kind: 'Group', group: { name: 'ops' } }]).matches(get(alice)));
  assert.ok(by([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'team', name: 'builder' } }]).matches(get(sa)));
  assert.ok(by([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'team', name: '*' } }]).matches(get(sa)));
  assert.ok(!by([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'other', name: '*' } }]).matches(get(sa)));
  assert.ok(!by([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'team', name: '*' } }]).matches(get(alice)));
});

test('resource rules: verb, group, resource with subresource, namespaces and cluster scope', () => {
  const fs = compileSchema(schema('s', {
    rules: [{
      subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }],
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale'], namespaces: ['team'] },
        { verbs: ['*'], apiGroups: [''], resources: ['nodes'], clusterScope: true },
      ],
    }],
  }));
  assert.ok(fs.matches(request(alice, 'GET', '/apis/apps/v1/namespaces/team/deployments')));
  assert.ok(fs.matches(request(alice, 'GET', '/apis/apps/v1/namespaces/team/deployments/web/scale')));
  assert.ok(!fs.matches(request(alice, 'GET', '/apis/apps/v1/namespaces/team/deployments/web/status')), 'another subresource');
  assert.ok(!fs.matches(request(alice, 'DELETE', '/apis/apps/v1/namespaces/team/deployments/web')), 'another verb');
  assert.ok(!fs.matches(request(alice, 'GET', '/apis/apps/v1/namespaces/prod/deployments')), 'another namespace');
  assert.ok(!fs.matches(request(alice, 'GET', '/apis/apps/v1/deployments')), 'all namespaces is cluster scope');
  assert.ok(fs.matches(request(alice, 'DELETE', '/api/v1/nodes/n1')));
  assert.ok(!fs.matches(request(alice, 'GET', '/api/v1/namespaces/team/pods')));
  assert.ok(!fs.matches(request(alice, 'GET', '/healthz')), 'resource rules never match a non-resource request');
  // a namespace's own path is in that namespace, as the reference's request info has it; creating one is cluster scope
  const namespaces = (rule: object) => compileSchema(schema('ns', { rules: [{ subjects: [{ kind: 'User', user: { name: '*' } }],
    resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['namespaces', 'namespaces/finalize'], ...rule }] }] }));
  assert.ok(namespaces({ namespaces: ['team'] }).matches(request(alice, 'GET', '/api/v1/namespaces/team')));
  assert.ok(namespaces({ namespaces: ['team'] }).matches(request(alice, 'PUT', '/api/v1/namespaces/team/finalize')));
  assert.ok(!namespaces({ clusterScope: true }).matches(request(alice, 'DELETE', '/api/v1/namespaces/team')));
  assert.ok(namespaces({ clusterScope: true }).matches(request(alice, 'POST', '/api/v1/namespaces')));
});

test('non-resource rules: exact paths, prefixes ending in *, and verbs', () => {
  const fs = compileSchema(schema('s', {
    rules: [{
      subjects: [{ kind: 'User', user: { name: '*' } }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*'] }],
    }],
  }));
  assert.ok(fs.matches(request(alice, 'GET', '/healthz')));
  assert.ok(!fs.matches(request(alice, 'GET', '/healthz/etcd')));
  assert.ok(fs.matches(request(alice, 'GET', '/metrics/slis')));
  assert.ok(!fs.matches(request(alice, 'POST', '/healthz')));
  assert.ok(!fs.matches(request(alice, 'GET', '/api/v1/pods')), 'non-resource rules never match a resource request');
});

test('precedence orders the schemas, ties go to the name; a missing precedence is 1000', () => {
  const order = orderSchemas([
    compileSchema(schema('b', { matchingPrecedence: 500 })),
    compileSchema(schema('a', { matchingPrecedence: 500 })),
    compileSchema(schema('default', {})),
    compileSchema(schema('first', { matchingPrecedence: 2 })),
  ]).map(s => s.name);
  assert.deepEqual(order, ['first', 'a', 'b', 'default']);
});

test('distinguishers: by user, by namespace (none for cluster scope), or none', () => {
  const req = request(alice, 'GET', '/api/v1/namespaces/team/pods');
  assert.equal(flowDistinguisher(compileSchema(schema('s', { distinguisherMethod: { type: 'ByUser' } })), req), 'alice');
  assert.equal(flowDistinguisher(compileSchema(schema('s', { distinguisherMethod: { type: 'ByNamespace' } })), req), 'team');
  assert.equal(flowDistinguisher(compileSchema(schema('s', { distinguisherMethod: { type: 'ByNamespace' } })), request(alice, 'GET', '/api/v1/nodes')), '');
  assert.equal(flowDistinguisher(compileSchema(schema('s', {})), req), '');
  assert.equal(flowDistinguisher(compileSchema(schema('s', { distinguisherMethod: { type: 'ByNamespace' } })), request(alice, 'GET', '/api/v1/namespaces/team')), 'team');
});

test('the default objects classify the requests they were made for', () => {
  for (const names of [naming('k8s.io'), naming('cluster.io')]) {
    const d = defaultObjects(names);
    const schemas = orderSchemas([...d.mandatorySchemas, ...d.suggestedSchemas].map(compileSchema));
    const classify = (user: UserInfo, method: string, url: string) => schemas.find(s => s.matches(request(user, method, url)))?.name;
    const leases = `/apis/${names.group('coordination')}/v1/namespaces/${names.nodeLeaseNamespace}/leases/n1`;
    assert.equal(classify({ username: 'admin', groups: ['system:masters', 'system:authenticated'] }, 'GET', '/api/v1/pods'), 'exempt');
    assert.equal(classify({ username: 'system:anonymous', groups: ['system:unauthenticated'] }, 'GET', '/readyz'), 'probes');
    assert.equal(classify(alice, 'GET', '/livez'), 'probes');
    assert.equal(classify(alice, 'GET', '/api/v1/namespaces/team/pods'), 'global-default');
    assert.equal(classify(sa, 'GET', '/api/v1/namespaces/team/pods'), 'service-accounts');
    const node: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
    assert.equal(classify(node, 'PUT', leases), 'system-node-high');
    assert.equal(classify(node, 'PATCH', '/api/v1/nodes/n1/status'), 'system-node-high');
    assert.equal(classify(node, 'GET', '/api/v1/namespaces/team/pods'), 'system-nodes');
    const kcm: UserInfo = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
    assert.equal(classify(kcm, 'PUT', `/apis/${names.group('coordination')}/v1/namespaces/${names.systemNamespace}/leases/kube-controller-manager`), 'system-leader-election');
    assert.equal(classify(kcm, 'PUT', '/api/v1/namespaces/team/endpoints/web'), 'endpoint-controller');
    assert.equal(classify(kcm, 'GET', '/apis/apps/v1/deployments'), 'kube-controller-manager');
    const systemSa: UserInfo = { username: `system:serviceaccount:${names.systemNamespace}:coredns`, groups: ['system:serviceaccounts', 'system:authenticated'] };
    assert.equal(classify(systemSa, 'GET', '/api/v1/services'), 'kube-system-service-accounts');
    assert.equal(classify({ username: 'x', groups: [] }, 'GET', '/api/v1/pods'), undefined, 'no group at all matches nothing');
  }
});
