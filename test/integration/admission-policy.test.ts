// ValidatingAdmissionPolicies and webhook match conditions through a real server: a policy bound with Deny
// refuses a Deployment over its replica limit with its message, with Warn only warns; policies with invalid CEL
// are refused at create; parameters, match conditions and the authorizer are seen by the expressions; type
// warnings land in the policy's status; a webhook whose match condition is false is not called.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { startWebhookServer, type WebhookServer } from '../support/admission-webhook.js';
import { until } from '../support/wait.js';

const G = '/apis/admissionregistration.cluster.io/v1alpha1';
const W = '/apis/admissionregistration.cluster.io/v1';
const deployment = (name: string, replicas: number, labels: Record<string, string> = {}) => ({
  metadata: { name, labels }, spec: { replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } } });
const deploymentRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

let attempt = 0;
/** a name of its own for each try, so a try made before a policy took effect leaves nothing in the way */
const fresh = (base: string) => `${base}-${++attempt}`;

/** retries a check until it holds: caches (authorization, listers, configurations) take a moment to see new objects */
const waitFor = (check: () => Promise<boolean>) => until(check, 'the server to act on the new objects');

describe('ValidatingAdmissionPolicy', () => {
  let server: TestServer, c: Client;
  const post = (path: string, body: unknown) => c.request('POST', path, { body });
  const createIn = (ns: string, d: unknown) => post(`/apis/apps/v1/namespaces/${ns}/deployments`, d);
  const namespace = async (name: string, labels: Record<string, string> = {}) => assert.equal((await post('/api/v1/namespaces', { metadata: { name, labels } })).status, 201);

  before(async () => {
    server = await startTestServer({ flags: ['--feature-gates=ValidatingAdmissionPolicy=true', '--runtime-config=admissionregistration.cluster.io/v1alpha1=true'] });
    c = createClient(server);
  });
  after(async () => { c?.close(); await server?.close(); });

  test('a bound policy refuses a Deployment over its replica limit with its message; Warn only warns', async () => {
    const policy = await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'replica-limit' }, spec: {
      matchConstraints: deploymentRules,
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'a Deployment may run at most 5 replicas' },
        { expression: "object.metadata.name.startsWith('web')", messageExpression: "'name ' + object.metadata.name + ' must start with web'", reason: 'Forbidden' }],
    } });
    assert.equal(policy.status, 201, policy.body);
    await namespace('enforced', { policy: 'deny' });
    await namespace('advised', { policy: 'warn' });
    const bind = (name: string, action: string, label: string) => post(`${G}/validatingadmissionpolicybindings`, { metadata: { name }, spec: {
      policyName: 'replica-limit', validationActions: [action], matchResources: { namespaceSelector: { matchLabels: { policy: label } } } } });
    assert.equal((await bind('deny-enforced', 'Deny', 'deny')).status, 201);
    assert.equal((await bind('warn-advised', 'Warn', 'warn')).status, 201);

    let refused!: Awaited<ReturnType<typeof createIn>>;
    await waitFor(async () => (refused = await createIn('enforced', deployment(fresh('web-big'), 6))).status !== 201);
    assert.equal(refused.status, 422);
    assert.equal(refused.json.reason, 'Invalid');
    assert.match(refused.json.message,
      /^deployments.apps "web-big-\d+" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'deny-enforced' denied request: a Deployment may run at most 5 replicas$/);
    const named = await createIn('enforced', deployment('api', 2));
    assert.equal(named.status, 403);
    assert.match(named.json.message, /denied request: name api must start with web$/);
    assert.equal((await createIn('enforced', deployment('web-small', 5))).status, 201);

    let warned!: Awaited<ReturnType<typeof createIn>>;
    await waitFor(async () => (warned = await createIn('advised', deployment(fresh('web-big'), 6))).headers.warning !== undefined);
    assert.equal(warned.status, 201);
    assert.match(String(warned.headers.warning),
      /299 - "Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'warn-advised': a Deployment may run at most 5 replicas"/);
    // elsewhere the policy is not bound
    assert.equal((await createIn('default', deployment('web-huge', 50))).status, 201);
  });

  test('a policy or binding with invalid CEL, or invalid fields, is refused with 422 and the problem named', async () => {
    const bad = await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'broken' }, spec: { matchConstraints: deploymentRules, validations: [
      { expression: 'object.spec.replicas <=' }, { expression: 'object.spec.replicas' }, { expression: 'true', messageExpression: '1 + 1' },
      { expression: 'nosuchvariable > 1' }] } });
    assert.equal(bad.status, 422);
    const fields = bad.json.details.causes.map((x: { field: string }) => x.field);
    assert.deepEqual(fields, ['spec.validations[0].expression', 'spec.validations[2].messageExpression', 'spec.validations[3].expression']);
    assert.match(bad.json.message, /spec.validations\[0\].expression: Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:\d+: Syntax error/);
    assert.match(bad.json.message, /undeclared reference to 'nosuchvariable'/);
    const conditions = await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'bad-conditions' }, spec: { matchConstraints: deploymentRules,
      validations: [{ expression: 'true' }], matchConditions: [{ name: 'x', expression: "'a'" }, { name: 'x', expression: 'true' }] } });
    assert.equal(conditions.status, 422);
    assert.match(conditions.json.message, /spec.matchConditions\[0\].expression: .*must evaluate to bool/);
    assert.match(conditions.json.message, /spec.matchConditions\[1\].name: Duplicate value: "x"/);
    const binding = await post(`${G}/validatingadmissionpolicybindings`, { metadata: { name: 'bad-binding' }, spec: { policyName: 'p', validationActions: ['Deny', 'Warn'] } });
    assert.equal(binding.status, 422);
    assert.match(binding.json.message, /must not contain both "Deny" and "Warn"/);
    assert.equal((await c.get(`${G}/validatingadmissionpolicies/broken`)).status, 404);
  });

  test('params, match conditions and the authorizer are seen by the expressions', async () => {
    await namespace('limits');
    assert.equal((await post('/api/v1/namespaces/limits/configmaps', { metadata: { name: 'max' }, data: { replicas: '2' } })).status, 201);
    assert.equal((await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'param-limit' }, spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: deploymentRules,
      matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
      validations: [{ expression: 'object.spec.replicas <= int(params.data.replicas)', messageExpression: "'at most ' + params.data.replicas + ' replicas'" },
        { expression: "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete').allowed()", message: 'only users who may delete Deployments create them' }],
    } })).status, 201);
    assert.equal((await post(`${G}/validatingadmissionpolicybindings`, { metadata: { name: 'param-limit' }, spec: {
      policyName: 'param-limit', paramRef: { name: 'max', namespace: 'limits' }, validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'cluster.io/metadata.name': 'limits' } } } } })).status, 201);
    let r!: Awaited<ReturnType<typeof createIn>>;
    await waitFor(async () => (r = await createIn('limits', deployment(fresh('three'), 3))).status === 422);
    assert.match(r.json.message, /denied request: at most 2 replicas$/);
    assert.equal((await createIn('limits', deployment('two', 2))).status, 201);
    // a false match condition leaves the request to the other policies
    assert.equal((await createIn('limits', deployment('exempted', 9, { exempt: 'yes' }))).status, 201);
  });

  test('policies and bindings are never judged by policies, so one that refuses everything can be removed; webhook configurations are', async () => {
    const everything = { resourceRules: [{ apiGroups: [G.split('/')[2]], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] };
    assert.equal((await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'lockout' }, spec: { matchConstraints: everything,
      validations: [{ expression: 'false', message: 'locked' }] } })).status, 201);
    assert.equal((await post(`${G}/validatingadmissionpolicybindings`, { metadata: { name: 'lockout' }, spec: { policyName: 'lockout', validationActions: ['Deny'] } })).status, 201);
    const W = `/apis/${G.split('/')[2]}/v1`;
    let refused!: Awaited<ReturnType<typeof post>>;
    await waitFor(async () => (refused = await post(`${W}/validatingwebhookconfigurations`, { metadata: { name: fresh('hooks') }, webhooks: [] })).status === 422);
    assert.match(refused.json.message, /denied request: locked$/);
    assert.equal((await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'another' }, spec: { matchConstraints: deploymentRules,
      validations: [{ expression: 'true' }] } })).status, 201);
    assert.equal((await c.request('DELETE', `${G}/validatingadmissionpolicybindings/lockout`)).status, 200);
    assert.equal((await c.request('DELETE', `${G}/validatingadmissionpolicies/lockout`)).status, 200);
    assert.equal((await c.request('DELETE', `${G}/validatingadmissionpolicies/another`)).status, 200);
  });

  test('expressions are checked against the schemas of the kinds the policy names: warnings in status.typeChecking', async () => {
    assert.equal((await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'typo' }, spec: { matchConstraints: deploymentRules,
      validations: [{ expression: 'object.spec.replicas >= 0' }, { expression: 'object.spec.replica >= 0' }] } })).status, 201);
    let status: any;
    await waitFor(async () => (status = (await c.get(`${G}/validatingadmissionpolicies/typo`)).json.status)?.observedGeneration === 1);
    assert.equal(status.typeChecking.expressionWarnings.length, 1);
    assert.equal(status.typeChecking.expressionWarnings[0].fieldRef, 'spec.validations[1].expression');
    assert.match(status.typeChecking.expressionWarnings[0].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'/);
    // a policy without warnings has an empty typeChecking, as the reference writes it (the list is left out when empty)
    assert.equal((await post(`${G}/validatingadmissionpolicies`, { metadata: { name: 'clean' }, spec: { matchConstraints: deploymentRules,
      validations: [{ expression: 'object.spec.replicas >= 0' }] } })).status, 201);
    await waitFor(async () => (status = (await c.get(`${G}/validatingadmissionpolicies/clean`)).json.status)?.observedGeneration === 1);
    assert.deepEqual(status.typeChecking, {});
  });
});

describe('webhook match conditions (gate AdmissionWebhookMatchConditions)', () => {
  let server: TestServer, c: Client, wh: WebhookServer;
  const hook = (name: string, path: string, matchConditions: unknown, extra: Record<string, unknown> = {}) => ({
    name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle }, matchConditions,
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
  });
  const configMap = (name: string, labels: Record<string, string> = {}) => c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name, labels } } });

  before(async () => {
    wh = await startWebhookServer();
    server = await startTestServer({ flags: ['--feature-gates=AdmissionWebhookMatchConditions=true'] });
    c = createClient(server);
  });
  after(async () => { c?.close(); await server?.close(); await wh?.close(); });

  test('a webhook is called only when every match condition is true', async () => {
    wh.handle.set('/deny', () => ({ allowed: false, status: { message: 'labelled ones are refused' } }));
    const made = await c.request('POST', `${W}/validatingwebhookconfigurations`, { body: { metadata: { name: 'conditional' }, webhooks: [
      hook('deny.example.com', '/deny', [{ name: 'labelled', expression: "has(object.metadata.labels) && 'checked' in object.metadata.labels" },
        { name: 'by-admin', expression: "request.userInfo.username != '' && authorizer.group('').resource('configmaps').check('create').allowed()" }])] } });
    assert.equal(made.status, 201, made.body);
    let refused = await configMap('checked', { checked: 'yes' });
    await waitFor(async () => (refused = await configMap(`checked-${Date.now()}`, { checked: 'yes' })).status === 400);
    assert.match(refused.json.message, /admission webhook "deny.example.com" denied the request: labelled ones are refused/);
    const calls = wh.calls.get('/deny')?.length ?? 0;
    assert.equal((await configMap('plain')).status, 201);
    assert.equal(wh.calls.get('/deny')?.length ?? 0, calls, 'the webhook was not called for a request its condition is false for');
  });

  test('a mutating webhook sees a generateName create as the reference sends it: no name, uid or creation time yet', async () => {
    const made = await c.request('POST', `${W}/mutatingwebhookconfigurations`, { body: { metadata: { name: 'seen' }, webhooks: [
      hook('seen.example.com', '/seen', [{ name: 'generated', expression: "has(object.metadata.generateName) && object.metadata.generateName == 'seen-'" }], { reinvocationPolicy: 'Never' })] } });
    assert.equal(made.status, 201, made.body);
    let created: any;
    await waitFor(async () => {
      const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { generateName: 'seen-' } } });
      assert.equal(r.status, 201, r.body);
      created = r.json;
      return (wh.calls.get('/seen')?.length ?? 0) > 0;
    });
    const sent = wh.calls.get('/seen')!.at(-1)! as any;
    assert.equal(sent.name ?? '', '');
    assert.equal(sent.object.metadata.name, undefined);
    assert.equal(sent.object.metadata.uid, undefined);
    assert.equal(sent.object.metadata.creationTimestamp, undefined);
    assert.match(created.metadata.name, /^seen-[a-z0-9]{5}$/);
    assert.ok(created.metadata.uid);
  });

  test('a mutating webhook\'s patch is read as a body is: a wrong type is a clear 500 and nothing is stored; moving the object to another namespace is refused', async () => {
    const b64 = (ops: unknown) => Buffer.from(JSON.stringify(ops)).toString('base64');
    wh.handle.set('/retype', () => ({ allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'add', path: '/data', value: { x: 5 } }]) }));
    wh.handle.set('/move', () => ({ allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'replace', path: '/metadata/namespace', value: 'kube-public' }]) }));
    assert.equal((await c.request('POST', `${W}/mutatingwebhookconfigurations`, { body: { metadata: { name: 'patching' }, webhooks: [
      hook('retype.example.com', '/retype', [], { objectSelector: { matchLabels: { patch: 'retype' } } }),
      hook('move.example.com', '/move', [], { objectSelector: { matchLabels: { patch: 'move' } } })] } })).status, 201);
    let retyped = await configMap('retyped-0', { patch: 'retype' });
    await waitFor(async () => (retyped = await configMap(`retyped-${Date.now()}`, { patch: 'retype' })).status !== 201);
    assert.equal(retyped.status, 500, retyped.body);
    assert.match(retyped.json.message, /admission webhook "retype.example.com" returned an object that cannot be read: ConfigMap in version "v1" cannot be handled as a ConfigMap: data.x: expected string, got integer/);
    const moved = await configMap('moved', { patch: 'move' });
    assert.equal(moved.status, 400, moved.body);
    assert.equal(moved.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
    const stored = (await c.request('GET', '/api/v1/configmaps?labelSelector=patch')).json.items;
    assert.deepEqual(stored.filter((o: any) => o.metadata.name !== 'retyped-0'), [], 'nothing the webhooks broke was stored');
  });

  test('a condition that fails to evaluate follows failurePolicy', async () => {
    wh.handle.set('/allow', () => ({ allowed: true }));
    const erring = [{ name: 'errs', expression: "object.data.missing == 'x'" }];
    assert.equal((await c.request('POST', `${W}/validatingwebhookconfigurations`, { body: { metadata: { name: 'erring' }, webhooks: [
      hook('fail.example.com', '/allow', erring, { failurePolicy: 'Fail', objectSelector: { matchLabels: { policy: 'fail' } } }),
      hook('ignore.example.com', '/allow', erring, { failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } })] } })).status, 201);
    let failed = await configMap('f0', { policy: 'fail' });
    await waitFor(async () => (failed = await configMap(`f-${Date.now()}`, { policy: 'fail' })).status === 500);
    assert.match(failed.json.message, /failed calling webhook "fail.example.com": failed to evaluate match conditions/);
    assert.equal((await configMap('ignored', { policy: 'ignore' })).status, 201);
  });

  test('conditions are compiled when the configuration is written: invalid CEL and more than 64 are refused', async () => {
    const bad = await c.request('POST', `${W}/mutatingwebhookconfigurations`, { body: { metadata: { name: 'bad' }, webhooks: [
      hook('bad.example.com', '/allow', [{ name: 'syntax', expression: 'object.metadata.name ==' }, { name: 'params', expression: 'params.x == 1' }])] } });
    assert.equal(bad.status, 422);
    assert.match(bad.json.message, /webhooks\[0\].matchConditions\[0\].expression: Invalid value: "object.metadata.name ==": compilation failed/);
    assert.match(bad.json.message, /webhooks\[0\].matchConditions\[1\].expression: .*undeclared reference to 'params'/);
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await c.request('POST', `${W}/mutatingwebhookconfigurations`, { body: { metadata: { name: 'many' }, webhooks: [hook('many.example.com', '/allow', many)] } });
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.json.message, /webhooks\[0\].matchConditions: Too many: 65: must have at most 64 items/);
  });
});

describe('webhook match conditions with the gate off', () => {
  test('are not stored, so nothing stored is silently ignored', async () => {
    const wh = await startWebhookServer();
    const server = await startTestServer();
    const c = createClient(server);
    try {
      const r = await c.request('POST', `${W}/validatingwebhookconfigurations`, { body: { metadata: { name: 'gated' }, webhooks: [{
        name: 'gated.example.com', clientConfig: { url: `${wh.url}/x`, caBundle: wh.caBundle }, matchConditions: [{ name: 'a', expression: 'true' }],
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }] } });
      assert.equal(r.status, 201, r.body);
      assert.equal(r.json.webhooks[0].matchConditions, undefined);
    } finally {
      c.close();
      await server.close();
      await wh.close();
    }
  });
});
