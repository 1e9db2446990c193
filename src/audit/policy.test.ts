// Unit tests of the audit policy: what a policy file must hold, and which rule decides for a request.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultApiDomain, naming } from '../api/naming.js';
import { loadYaml } from '../util/yaml.js';
import { decide, parsePolicy, type RequestAttributes } from './policy.js';

const names = naming(defaultApiDomain);
const policy = (rules: object[], extra: object = {}) =>
  parsePolicy(JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy', rules, ...extra }), names);

const request = (a: Partial<RequestAttributes> = {}): RequestAttributes => ({
  user: { username: 'alice', groups: ['devs', 'system:authenticated'] }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns/pods/p',
  apiGroup: '', namespace: 'ns', resource: 'pods', subresource: '', name: 'p', ...a,
});

describe('audit policy', () => {
  before(loadYaml);

  test('the first matching rule decides; a request no rule matches, or a None rule, is not recorded', () => {
    const p = policy([
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', userGroups: ['admins'] },
      { level: 'Request', verbs: ['create', 'update'] },
      { level: 'Metadata', verbs: ['get'] },
    ]);
    assert.equal(decide(p, request({ user: { username: 'system:kube-proxy', groups: ['admins'] } })).level, 'None');
    assert.equal(decide(p, request({ user: { username: 'bob', groups: ['admins'] } })).level, 'RequestResponse');
    assert.equal(decide(p, request({ verb: 'create' })).level, 'Request');
    assert.equal(decide(p, request()).level, 'Metadata');
    assert.equal(decide(p, request({ verb: 'delete' })).level, 'None');
  });

  test('resources by group, name, subresource forms and namespace ("" is cluster scope)', () => {
    const p = policy([
      { level: 'RequestResponse', resources: [{ group: '', resources: ['secrets'], resourceNames: ['root-ca'] }] },
      { level: 'Request', resources: [{ group: '', resources: ['pods/log', '*/status'] }] },
      { level: 'Request', resources: [{ group: 'apps', resources: ['deployments/*'] }], namespaces: ['prod'] },
      { level: 'Metadata', namespaces: [''] },
    ]);
    assert.equal(decide(p, request({ resource: 'secrets', name: 'root-ca' })).level, 'RequestResponse');
    assert.equal(decide(p, request({ resource: 'secrets', name: 'other' })).level, 'None');
    assert.equal(decide(p, request({ subresource: 'log' })).level, 'Request');
    assert.equal(decide(p, request({ subresource: 'exec' })).level, 'None');
    assert.equal(decide(p, request({ resource: 'services', subresource: 'status' })).level, 'Request');
    assert.equal(decide(p, request({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'prod' })).level, 'Request');
    assert.equal(decide(p, request({ apiGroup: 'apps', resource: 'deployments', namespace: 'prod' })).level, 'Request');
    assert.equal(decide(p, request({ apiGroup: 'apps', resource: 'deployments', namespace: 'dev' })).level, 'None');
    assert.equal(decide(p, request({ resource: 'nodes', namespace: '' })).level, 'Metadata');
    // a rule on resources never matches a non-resource request
    assert.equal(decide(p, request({ isResourceRequest: false, path: '/healthz', resource: '', namespace: '' })).level, 'None');
  });

  test('non-resource URLs match exactly or by a trailing *', () => {
    const p = policy([{ level: 'Metadata', nonResourceURLs: ['/healthz*', '/version'] }]);
    const url = (path: string) => decide(p, request({ isResourceRequest: false, path, resource: '', namespace: '' })).level;
    assert.deepEqual(['/healthz', '/healthz/etcd', '/version', '/versions', '/metrics'].map(url), ['Metadata', 'Metadata', 'Metadata', 'None', 'None']);
    assert.equal(decide(p, request()).level, 'None');
  });

  test('omitted stages add up from the policy and the rule; a rule may keep the managed fields the policy omits', () => {
    const p = policy([
      { level: 'Metadata', verbs: ['watch'], omitStages: ['ResponseStarted'], omitManagedFields: false },
      { level: 'Request' },
    ], { omitStages: ['RequestReceived'], omitManagedFields: true });
    assert.deepEqual(decide(p, request({ verb: 'watch' })), { level: 'Metadata', omitStages: ['RequestReceived', 'ResponseStarted'], omitManagedFields: false });
    assert.deepEqual(decide(p, request()), { level: 'Request', omitStages: ['RequestReceived'], omitManagedFields: true });
  });

  test('a wrong policy is refused with the rule and field named', () => {
    assert.throws(() => parsePolicy('{"apiVersion":"v1","kind":"Policy","rules":[]}', names), /expected kind Policy of audit.cluster.io\/v1/);
    assert.throws(() => policy([]), /the policy has no rules/);
    assert.throws(() => policy([{ level: 'Everything' }]), /rules\[0\].level: unknown level "Everything"/);
    assert.throws(() => policy([{ level: 'Metadata', omitStages: ['Later'] }]), /rules\[0\].omitStages: unknown value "Later"/);
    assert.throws(() => policy([{ level: 'Metadata', nonResourceURLs: ['/x'], namespaces: ['a'] }]), /cannot apply to both resources/);
    assert.throws(() => policy([{ level: 'Metadata', users: 'alice' }]), /rules\[0\].users must be a list of strings/);
    // what the reference's validation refuses too: such rules would never match
    assert.throws(() => policy([{ level: 'None', nonResourceURLs: ['healthz'] }]), /rules\[0\].nonResourceURLs\[0\]: invalid value "healthz": non-resource URL rules must begin with a '\/'/);
    assert.throws(() => policy([{ level: 'None', nonResourceURLs: ['/*/healthz'] }]), /wildcards '\*' must be the final character/);
    assert.throws(() => policy([{ level: 'Metadata', resources: [{ group: 'apps/v1', resources: ['deployments'] }] }]), /rules\[0\].resources\[0\].group: invalid value "apps\/v1"/);
    assert.throws(() => policy([{ level: 'Metadata', resources: [{ group: '', resourceNames: ['x'] }] }]), /using resourceNames requires at least one resource/);
    assert.equal(decide(policy([{ level: 'Metadata', nonResourceURLs: ['*', '/api*'] }]), request({ isResourceRequest: false, path: '/x' })).level, 'Metadata');
    // YAML reads as well as JSON
    const yaml = parsePolicy('apiVersion: audit.cluster.io/v1\nkind: Policy\nrules:\n- level: Metadata\n', names);
    assert.equal(decide(yaml, request()).level, 'Metadata');
  });
});
