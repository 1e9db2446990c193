// Unit tests of ValidatingAdmissionPolicy evaluation over fake listers and a fake configuration source: which
// requests a policy and its binding concern (rules, excluded rules, matchPolicy, selectors, resource names), the
// binding's actions (Deny with the validation's reason, Warn, Audit), messages, parameters, failurePolicy for
// expressions that fail to evaluate, and audit annotations.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes, WebhookKind, WebhookSource } from '../../api/admission.js';
import type { ApiObject } from '../../api/meta.js';
import { ApiError } from '../../api/status.js';
import { attrs, fakeDeps, type Stored } from '../testing/fakes.js';
import { validatePolicies } from './validate.js';

const deploymentRule = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] };
const policy = (name: string, spec: object): ApiObject => ({ metadata: { name }, spec: { matchConstraints: { resourceRules: [deploymentRule] }, ...spec } } as ApiObject);
const binding = (name: string, policyName: string, spec: object = {}): ApiObject => ({ metadata: { name }, spec: { policyName, ...spec } } as ApiObject);

/** a request writing a Deployment with these replicas and labels, recording what the policy adds to it */
function deployment(replicas: number, labels: Record<string, string> = {}, extra: Partial<AdmissionAttributes> = {}) {
  const warnings: string[] = [], annotations: Record<string, string> = {};
  const a = attrs({ group: 'apps', version: 'v1', resource: 'deployments', kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, name: 'web', namespace: 'team',
    object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team', labels }, spec: { replicas } } as ApiObject,
    warn: w => warnings.push(w), annotate: (k, v) => { annotations[k] = v; }, ...extra });
  return { a, warnings, annotations };
}

function setUp(policies: ApiObject[], bindings: ApiObject[], stored: Stored[] = []) {
  const deps = fakeDeps([{ group: '', resource: 'namespaces', obj: { metadata: { name: 'team', labels: { env: 'prod' } } } }, ...stored]);
  const source: WebhookSource = {
    async configurations(kind: WebhookKind) { return kind === 'validatingadmissionpolicies' ? policies : kind === 'validatingadmissionpolicybindings' ? bindings : []; },
    servedVersions: (group, resource) => (group === 'apps' && resource === 'deployments' ? ['v1', 'v1beta2'] : []),
    kindFor: (group, version) => ({ group, version, kind: 'Deployment' }),
    async convert(_g, _r, obj) { return obj; },
  };
  const catalog = {
    byKind: (g: string, v: string, k: string) => (g === '' && v === 'v1' && k === 'ConfigMap' ? [{ group: '', version: 'v1', resource: 'configmaps', kind: k, namespaced: true }] : []),
    get: () => undefined,
  };
  return (a: AdmissionAttributes) => validatePolicies(a, { source, listers: deps.listers, names: deps.names, authorizer: deps.authorizer, catalog });
}

const refusal = async (p: Promise<unknown>) => {
  try { await p; } catch (e) { assert.ok(e instanceof ApiError); return e.status; }
  assert.fail('the request was admitted');
};

const replicaLimit = policy('limit', { validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5 replicas' }] });

describe('ValidatingAdmissionPolicy evaluation', () => {
  test('Deny refuses with 422 and the validation message; Warn warns; Audit annotates; each only when the validation fails', async () => {
    const run = setUp([replicaLimit], [binding('deny', 'limit'), binding('warn', 'limit', { validationActions: ['Warn', 'Audit'] })]);
    const status = await refusal(run(deployment(6).a));
    assert.equal(status.code, 422);
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.message, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'limit' with binding 'deny' denied request: at most 5 replicas`);

    const warnOnly = setUp([replicaLimit], [binding('warn', 'limit', { validationActions: ['Warn', 'Audit'] })]);
    const over = deployment(6);
    await warnOnly(over.a);
    assert.deepEqual(over.warnings, [`Validation failed for ValidatingAdmissionPolicy 'limit' with binding 'warn': at most 5 replicas`]);
    assert.deepEqual(JSON.parse(over.annotations['validation.policy.admission.cluster.io/validation_failure']!),
      [{ message: 'at most 5 replicas', policy: 'limit', binding: 'warn', expressionIndex: 0, validationActions: ['Warn', 'Audit'] }]);
    const under = deployment(5);
    await warnOnly(under.a);
    assert.deepEqual(under.warnings, []);
    assert.deepEqual(under.annotations, {});
  });

  test('the reason sets the code; a messageExpression replaces the message, unless it yields nothing usable', async () => {
    const run = setUp([policy('p', { validations: [
      { expression: 'false', reason: 'Forbidden', messageExpression: "'replicas: ' + string(object.spec.replicas)" },
      { expression: 'false', message: 'kept', messageExpression: "''" },
    ] })], [binding('b', 'p')]);
    const status = await refusal(run(deployment(2).a));
    assert.equal(status.code, 403);
    assert.equal(status.reason, 'Forbidden');
    assert.match(status.message!, /denied request: replicas: 2$/);

    const second = setUp([policy('p', { validations: [{ expression: 'object.spec.replicas < 1', message: 'kept', messageExpression: "''" }] })], [binding('b', 'p')]);
    assert.match((await refusal(second(deployment(2).a))).message!, /denied request: kept$/);
    const fallback = setUp([policy('p', { validations: [{ expression: ' 1 > 2 ' }] })], [binding('b', 'p')]);
    assert.match((await refusal(fallback(deployment(2).a))).message!, /denied request: failed expression: 1 > 2$/);
  });

  test('excluded rules, resource names, selectors and the binding\'s own resources narrow what a policy sees', async () => {
    const excluding = policy('limit', { matchConstraints: { resourceRules: [deploymentRule],
      excludeResourceRules: [{ ...deploymentRule, resourceNames: ['web'] }] }, validations: [{ expression: 'false' }] });
    await setUp([excluding], [binding('b', 'limit')])(deployment(9).a);

    const named = policy('limit', { matchConstraints: { resourceRules: [{ ...deploymentRule, resourceNames: ['other'] }] }, validations: [{ expression: 'false' }] });
    await setUp([named], [binding('b', 'limit')])(deployment(9).a);

    const bySelector = (spec: object) => setUp([replicaLimit], [binding('b', 'limit', { matchResources: spec })]);
    await bySelector({ namespaceSelector: { matchLabels: { env: 'dev' } } })(deployment(9).a);
    await refusal(bySelector({ namespaceSelector: { matchLabels: { env: 'prod' } } })(deployment(9).a));
    await bySelector({ objectSelector: { matchLabels: { tier: 'web' } } })(deployment(9).a);
    await refusal(bySelector({ objectSelector: { matchLabels: { tier: 'web' } } })(deployment(9, { tier: 'web' }).a));
    // a binding's rules narrow further: this one covers only updates
    await bySelector({ resourceRules: [{ ...deploymentRule, operations: ['UPDATE'] }] })(deployment(9).a);
    await refusal(bySelector({ resourceRules: [{ ...deploymentRule, operations: ['UPDATE'] }] })(deployment(9, {}, { operation: 'UPDATE' }).a));
    // a binding of a policy that does not exist binds nothing
    await setUp([], [binding('b', 'limit')])(deployment(9).a);
  });

  test('matchPolicy Equivalent matches a rule naming another served version of the resource; Exact does not', async () => {
    const atBeta = (matchPolicy: string) => policy('limit', {
      matchConstraints: { matchPolicy, resourceRules: [{ ...deploymentRule, apiVersions: ['v1beta2'] }] }, validations: [{ expression: 'false' }] });
    await refusal(setUp([atBeta('Equivalent')], [binding('b', 'limit')])(deployment(1).a));
    await setUp([atBeta('Exact')], [binding('b', 'limit')])(deployment(1).a);
  });

  test('params come from the object the binding names; a missing one fails under Fail and is passed over under Ignore', async () => {
    const limits = { group: '', resource: 'configmaps', obj: { metadata: { name: 'limits', namespace: 'team' }, data: { max: '3' } } as ApiObject };
    const withParams = (failurePolicy: string) => policy('limit', { failurePolicy, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }] });
    const bound = (name: string) => binding('b', 'limit', { paramRef: { name, namespace: 'team' } });
    assert.match((await refusal(setUp([withParams('Fail')], [bound('limits')], [limits])(deployment(4).a))).message!, /denied request: at most 3$/);
    await setUp([withParams('Fail')], [bound('limits')], [limits])(deployment(3).a);
    assert.match((await refusal(setUp([withParams('Fail')], [bound('missing')], [limits])(deployment(1).a))).message!,
      /failed to configure binding: no params found: configmaps "missing" not found/);
    await setUp([withParams('Ignore')], [bound('missing')], [limits])(deployment(1).a);
  });

  test('an expression that fails to evaluate refuses under Fail and is passed over under Ignore; match conditions choose requests', async () => {
    const erring = (failurePolicy: string) => policy('p', { failurePolicy, validations: [{ expression: "object.metadata.labels['missing'] == 'x'" }] });
    assert.match((await refusal(setUp([erring('Fail')], [binding('b', 'p')])(deployment(1).a))).message!, /expression 'object.metadata.labels\['missing'\] == 'x'' resulted in error: .*no such key/);
    await setUp([erring('Ignore')], [binding('b', 'p')])(deployment(1).a);

    const conditioned = policy('p', { matchConditions: [{ name: 'labelled', expression: "'enforce' in object.metadata.labels" }], validations: [{ expression: 'false' }] });
    await setUp([conditioned], [binding('b', 'p')])(deployment(1).a);
    await refusal(setUp([conditioned], [binding('b', 'p')])(deployment(1, { enforce: 'yes' }).a));
  });

  test('audit annotations are recorded under the policy\'s name; empty or null values are left out', async () => {
    const run = setUp([policy('p', { validations: [{ expression: 'true' }], auditAnnotations: [
      { key: 'replicas', valueExpression: "'replicas ' + string(object.spec.replicas)" },
      { key: 'nothing', valueExpression: 'null' }, { key: 'empty', valueExpression: "''" }] })], [binding('b', 'p')]);
    const d = deployment(2);
    await run(d.a);
    assert.deepEqual(d.annotations, { 'p/replicas': 'replicas 2' });
  });
});
