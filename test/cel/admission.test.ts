// The CEL of admission expressions: the variables they see, the authorizer (decisions asked as the evaluation
// meets them), compile errors, type warnings against a schema, and the runtime cost limit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionActivation, compileAdmissionExpression, evaluateAdmission, expressionProblems, perExpressionCostLimit, typeWarnings,
  type AdmissionActivation } from '../../src/cel/admission.js';
import type { Authorizer, AuthzAttributes } from '../../src/api/auth.js';

function activation(object: unknown, authorizer?: Authorizer): AdmissionActivation {
  return admissionActivation({
    object, request: { operation: 'CREATE', userInfo: { username: 'ann', groups: ['dev'] }, namespace: 'ns', name: 'd' },
    user: { username: 'ann', groups: ['dev'] }, authorizer,
    resource: { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'd' },
  });
}

async function run(source: string, act: AdmissionActivation, params?: unknown, limit = perExpressionCostLimit) {
  const c = compileAdmissionExpression(source, 'bool');
  assert.ok(c.ok, c.ok ? '' : c.error);
  return evaluateAdmission(c.program, act, { cost: 0, limit }, params);
}

describe('admission CEL', () => {
  test('object, request and params', async () => {
    const act = activation({ spec: { replicas: 3 }, metadata: { name: 'd', labels: { tier: 'web' } } });
    assert.deepEqual(await run("object.spec.replicas < 5 && object.metadata.labels.tier == 'web'", act), { value: true });
    assert.deepEqual(await run("request.userInfo.username == 'ann' && 'dev' in request.userInfo.groups && request.operation == 'CREATE'", act), { value: true });
    assert.deepEqual(await run('object.spec.replicas <= int(params.data.max)', act, { data: { max: '2' } }), { value: false });
    assert.match(String((await run('object.spec.missing == 1', act) as { error: string }).error), /no such key: missing/);
  });

  test('the authorizer asks the server as the request\'s user, once per question', async () => {
    const asked: AuthzAttributes[] = [];
    const authorizer: Authorizer = {
      async authorize(a) {
        asked.push(a);
        return a.verb === 'delete' ? { decision: 'NoOpinion', reason: 'no RBAC rule' } : { decision: 'Allow', reason: '' };
      },
    };
    const act = activation({}, authorizer);
    assert.deepEqual(await run("authorizer.group('apps').resource('deployments').namespace('ns').check('create').allowed()", act), { value: true });
    assert.deepEqual(await run("!authorizer.requestResource.check('delete').allowed() && authorizer.requestResource.check('delete').reason() == 'no RBAC rule'", act), { value: true });
    assert.deepEqual(await run("authorizer.path('/healthz').check('get').allowed()", act), { value: true });
    assert.deepEqual(asked.map(a => [a.user.username, a.verb, a.resource, a.namespace, a.name, a.path]), [
      ['ann', 'create', 'deployments', 'ns', '', ''], ['ann', 'delete', 'deployments', 'ns', 'd', ''], ['ann', 'get', '', '', '', '/healthz']]);
    // the same question again is answered from the request's decisions
    await run("authorizer.group('apps').resource('deployments').namespace('ns').check('create').allowed()", act);
    assert.equal(asked.length, 3);
    const sa = await run("authorizer.serviceAccount('kube', 'robot').group('').resource('pods').check('list').allowed()", act);
    assert.deepEqual(sa, { value: true });
    assert.equal(asked.at(-1)!.user.username, 'system:serviceaccount:kube:robot');
  });

  test('compile errors are located, results must have the expected type, webhooks have no params', () => {
    const syntax = compileAdmissionExpression('object.spec.replicas <', 'bool');
    assert.ok(!syntax.ok && /^ERROR: <input>:1:\d+: Syntax error/.test(syntax.error));
    const notBool = compileAdmissionExpression("'text'", 'bool');
    assert.ok(!notBool.ok && /must evaluate to bool/.test(notBool.error));
    assert.ok(compileAdmissionExpression("object.metadata.name + '!'", 'string').ok);
    assert.deepEqual(expressionProblems('x', 'params.a == 1', 'bool', false).map(p => /undeclared reference to 'params'/.test(p.message!)), [true]);
    assert.deepEqual(expressionProblems('x', 'params.a == 1', 'bool', true), []);
    assert.equal(expressionProblems('x', '', 'bool')[0]!.reason, 'FieldValueRequired');
  });

  test('type warnings name the kind and the field the schema does not have', () => {
    const schema = { type: 'object' as const, properties: { spec: { type: 'object' as const, properties: { replicas: { type: 'integer' as const } } } } };
    assert.deepEqual(typeWarnings('object.spec.replicas > 1', 'bool', [{ label: 'apps/v1, Kind=Deployment', schema }]), []);
    const [w] = typeWarnings('object.spec.replica > 1', 'bool', [{ label: 'apps/v1, Kind=Deployment', schema }]);
    assert.match(w!, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'/);
    const [t] = typeWarnings("object.spec.replicas == 'three'", 'bool', [{ label: 'apps/v1, Kind=Deployment', schema }]);
    assert.match(t!, /found no matching overload for '_==_' applied to '\(int, string\)'/);
  });

  test('an expression over its cost limit is stopped', async () => {
    const act = activation({ items: Array.from({ length: 2000 }, (_, i) => i) });
    const r = await run('object.items.all(x, object.items.all(y, x + y >= 0))', act);
    assert.deepEqual(r, { error: 'operation cancelled: actual cost limit exceeded' });
  });
});
