// Admission of writes through subresources that have a kind of their own, as the reference admits them: a webhook's
// review names the kind of the objects it is sent (autoscaling/v1 Scale for deployments/scale, policy/v1 Eviction,
// v1 Binding, the authentication group's TokenRequest) beside the resource and subresource written; a
// ValidatingAdmissionPolicy sees the same `request.kind` and objects; token requests go through mutating admission too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { startWebhookServer, type Received, type WebhookServer } from '../support/admission-webhook.js';
import { until } from '../support/wait.js';

const W = '/apis/admissionregistration.cluster.io/v1';
const P = '/apis/admissionregistration.cluster.io/v1alpha1';
const auth = 'authentication.cluster.io';
const deployment = (name: string, replicas: number) => ({
  metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } } });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });

describe('admission of subresources with a kind of their own', () => {
  let server: TestServer, c: Client, wh: WebhookServer;
  const post = (path: string, body: unknown) => c.request('POST', path, { body });
  const hook = (name: string, path: string, operations: string[], apiGroups: string[], resources: string[], extra: Record<string, unknown> = {}) => ({
    name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations, apiGroups, apiVersions: ['v1'], resources }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
  });
  /** the last review a path was sent for an object of this name */
  const lastCall = (path: string, name: string): Received | undefined => wh.calls.get(path)?.filter(r => r.name === name).at(-1);

  before(async () => {
    wh = await startWebhookServer();
    server = await startTestServer({ flags: ['--feature-gates=ValidatingAdmissionPolicy=true', '--runtime-config=admissionregistration.cluster.io/v1alpha1=true'] });
    c = createClient(server);
    await until(async () => (await c.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200, 'the default service account');
    const made = await post(`${W}/validatingwebhookconfigurations`, { metadata: { name: 'seen' }, webhooks: [
      hook('scale.example.com', '/scale', ['UPDATE'], ['apps'], ['deployments/scale']),
      hook('status.example.com', '/status', ['UPDATE'], ['apps'], ['deployments/status']),
      hook('pods.example.com', '/pods', ['CREATE', 'UPDATE'], [''], ['pods/eviction', 'pods/binding', 'bindings', 'pods/ephemeralcontainers']),
      hook('token.example.com', '/token', ['CREATE'], [''], ['serviceaccounts/token']),
      hook('connect.example.com', '/connect', ['CONNECT'], [''], ['pods/exec', 'pods/proxy', 'pods/log']),
    ] });
    assert.equal(made.status, 201, made.body);
  });
  after(async () => { c?.close(); await server?.close(); await wh?.close(); });

  test('a scale write is reviewed as an autoscaling/v1 Scale of apps/v1 deployments/scale; status as the Deployment', async () => {
    assert.equal((await post('/apis/apps/v1/namespaces/default/deployments', deployment('web', 1))).status, 201);
    const scale = (replicas: number) => c.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale',
      { body: { spec: { replicas } }, contentType: 'application/merge-patch+json' });
    let replicas = 1;
    await until(async () => { assert.equal((await scale(++replicas)).status, 200); return lastCall('/scale', 'web') !== undefined; }, 'the scale webhook');
    const seen = lastCall('/scale', 'web')!;
    assert.deepEqual(seen.kind, gvk('autoscaling', 'v1', 'Scale'));
    assert.deepEqual(seen.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal(seen.subResource, 'scale');
    assert.deepEqual(seen.requestKind, gvk('autoscaling', 'v1', 'Scale'));
    assert.deepEqual(seen.requestResource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal(seen.requestSubResource, 'scale');
    const object = seen.object as any, old = seen.oldObject as any;
    assert.equal(`${object.apiVersion} ${object.kind}`, 'autoscaling/v1 Scale');
    assert.equal(object.spec.replicas, replicas);
    assert.equal(`${old.apiVersion} ${old.kind}`, 'autoscaling/v1 Scale');
    assert.equal(old.spec.replicas, replicas - 1);

    const d = (await c.get('/apis/apps/v1/namespaces/default/deployments/web')).json;
    assert.equal((await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/web/status', { body: d })).status, 200);
    await until(async () => lastCall('/status', 'web') !== undefined, 'the status webhook');
    const status = lastCall('/status', 'web')!;
    assert.deepEqual(status.kind, gvk('apps', 'v1', 'Deployment'));
    assert.equal(status.subResource, 'status');
    assert.equal((status.object as any).kind, 'Deployment');
  });

  test('a mutating webhook changes the replica count a Scale asks for', async () => {
    wh.handle.set('/scale-mutate', () => ({ allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'replace', path: '/spec/replicas', value: 4 }]) }));
    assert.equal((await post('/apis/apps/v1/namespaces/default/deployments', deployment('mutated', 1))).status, 201);
    assert.equal((await post(`${W}/mutatingwebhookconfigurations`, { metadata: { name: 'scale-mutate' }, webhooks: [
      hook('scale-mutate.example.com', '/scale-mutate', ['UPDATE'], ['apps'], ['deployments/scale'], { reinvocationPolicy: 'Never',
        objectSelector: {} })] })).status, 201);
    let answer: any;
    await until(async () => {
      answer = (await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/mutated/scale',
        { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'mutated', namespace: 'default' }, spec: { replicas: 2 } } })).json;
      return answer.spec?.replicas === 4;
    }, 'the mutating webhook on scale');
    assert.equal(answer.kind, 'Scale');
    assert.equal((await c.get('/apis/apps/v1/namespaces/default/deployments/mutated')).json.spec.replicas, 4);
    assert.equal((await c.request('DELETE', `${W}/mutatingwebhookconfigurations/scale-mutate`)).status, 200);
  });

  test('evictions and bindings are reviewed as creates of a policy/v1 Eviction and a v1 Binding', async () => {
    const pod = (name: string) => post('/api/v1/namespaces/default/pods', { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } });
    assert.equal((await post('/api/v1/nodes', { metadata: { name: 'n1' } })).status, 201);
    let n = 0, bound = '';
    await until(async () => {
      bound = `bound-${++n}`;
      assert.equal((await pod(bound)).status, 201);
      const r = await post(`/api/v1/namespaces/default/pods/${bound}/binding`, { metadata: { name: bound }, target: { kind: 'Node', name: 'n1' } });
      assert.equal(r.status, 201, r.body);
      return lastCall('/pods', bound) !== undefined;
    }, 'the pods webhook');
    const binding = lastCall('/pods', bound)!;
    assert.equal(binding.operation, 'CREATE');
    assert.deepEqual(binding.kind, gvk('', 'v1', 'Binding'));
    assert.deepEqual(binding.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(binding.subResource, 'binding');
    assert.equal((binding.object as any).kind, 'Binding');
    assert.equal((binding.object as any).target.name, 'n1');
    assert.equal((await c.get(`/api/v1/namespaces/default/pods/${bound}`)).json.spec.nodeName, 'n1');

    assert.equal((await pod('other')).status, 201);
    assert.equal((await post('/api/v1/namespaces/default/bindings', { metadata: { name: 'other' }, target: { name: 'n1' } })).status, 201);
    const viaBindings = lastCall('/pods', 'other')!;
    assert.deepEqual(viaBindings.resource, { group: '', version: 'v1', resource: 'bindings' });
    assert.equal(viaBindings.subResource, undefined);
    assert.deepEqual(viaBindings.kind, gvk('', 'v1', 'Binding'));

    assert.equal((await pod('evicted')).status, 201);
    const evicted = await post('/api/v1/namespaces/default/pods/evicted/eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted' } });
    assert.equal(evicted.status, 201, evicted.body);
    const eviction = lastCall('/pods', 'evicted')!;
    assert.equal(eviction.operation, 'CREATE');
    assert.deepEqual(eviction.kind, gvk('policy', 'v1', 'Eviction'));
    assert.deepEqual(eviction.requestKind, gvk('policy', 'v1', 'Eviction'));
    assert.deepEqual(eviction.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(eviction.subResource, 'eviction');
    assert.equal(`${(eviction.object as any).apiVersion} ${(eviction.object as any).kind}`, 'policy/v1 Eviction');
  });

  test('ephemeral containers are reviewed as the Pod they change, and PodSecurity checks them', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    assert.equal((await post(pods, { metadata: { name: 'debugged' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } })).status, 201);
    const add = async (ns: string, name: string, securityContext?: object) => {
      const cur = (await c.get(`/api/v1/namespaces/${ns}/pods/${name}`)).json;
      const ephemeralContainers = [...(cur.spec.ephemeralContainers ?? []), { name: `debug-${(cur.spec.ephemeralContainers ?? []).length}`, image: 'busybox', ...(securityContext ? { securityContext } : {}) }];
      return c.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/ephemeralcontainers`, { body: { ...cur, spec: { ...cur.spec, ephemeralContainers } } });
    };
    await until(async () => { assert.equal((await add('default', 'debugged')).status, 200); return lastCall('/pods', 'debugged') !== undefined; }, 'the pods webhook');
    const seen = lastCall('/pods', 'debugged')!;
    assert.deepEqual(seen.kind, gvk('', 'v1', 'Pod'));
    assert.equal(seen.subResource, 'ephemeralcontainers');
    assert.equal((seen.object as any).kind, 'Pod');

    assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'baseline', labels: { 'pod-security.cluster.io/enforce': 'baseline' } } })).status, 201);
    assert.equal((await post('/api/v1/namespaces/baseline/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } })).status, 201);
    const refused = await add('baseline', 'p', { privileged: true });
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.json.message, /violates PodSecurity "baseline:latest": privileged/);
  });

  test('exec and proxy are reviewed as a CONNECT of their options (v1 PodExecOptions, PodProxyOptions); a webhook may refuse them', async () => {
    wh.handle.set('/connect', r => ((r.object as any).command?.[0] === 'rm' ? { allowed: false, status: { message: 'no rm' } } : { allowed: true }));
    assert.equal((await post('/api/v1/namespaces/default/pods', { metadata: { name: 'shell' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } })).status, 201);
    const exec = (command: string) => c.request('POST', `/api/v1/namespaces/default/pods/shell/exec?container=c&stdout=true&command=${command}&command=-x`);
    let refused!: Awaited<ReturnType<typeof exec>>;
    await until(async () => (refused = await exec('rm')).status === 400, 'the connect webhook');
    assert.equal(refused.json.message, 'admission webhook "connect.example.com" denied the request: no rm');
    const seen = lastCall('/connect', 'shell')!;
    assert.equal(seen.operation, 'CONNECT');
    assert.deepEqual(seen.kind, gvk('', 'v1', 'PodExecOptions'));
    assert.deepEqual(seen.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(seen.subResource, 'exec');
    assert.deepEqual(seen.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, container: 'c', command: ['rm', '-x'] });
    assert.equal(seen.options, null);
    // allowed, the request goes on (this pod has no node to run on)
    assert.equal((await exec('ls')).status, 400);

    const calls = wh.calls.get('/connect')!.length;
    await c.request('GET', '/api/v1/namespaces/default/pods/shell/proxy/healthz');
    const proxied = wh.calls.get('/connect')!.at(-1)!;
    assert.equal(wh.calls.get('/connect')!.length, calls + 1);
    assert.deepEqual(proxied.kind, gvk('', 'v1', 'PodProxyOptions'));
    assert.equal((proxied.object as any).path, '/healthz');
    // a log is a read, not a CONNECT
    await c.request('GET', '/api/v1/namespaces/default/pods/shell/log');
    assert.equal(wh.calls.get('/connect')!.length, calls + 1);

    // the options are read from the query when the stream opens: a mutating webhook's change to them is refused, saying so
    wh.handle.set('/connect-mutate', () => ({ allowed: true, patchType: 'JSONPatch', patch: b64([{ op: 'replace', path: '/container', value: 'other' }]) }));
    assert.equal((await post(`${W}/mutatingwebhookconfigurations`, { metadata: { name: 'connect-mutate' }, webhooks: [
      hook('connect-mutate.example.com', '/connect-mutate', ['CONNECT'], [''], ['pods/exec'], { reinvocationPolicy: 'Never' })] })).status, 201);
    let mutated!: Awaited<ReturnType<typeof exec>>;
    await until(async () => (mutated = await exec('ls')).status === 500, 'the mutating connect webhook');
    assert.equal(mutated.json.message, 'Internal error occurred: admission webhook "connect-mutate.example.com" attempted to modify the object, which is not supported for this operation');
    assert.equal((await c.request('DELETE', `${W}/mutatingwebhookconfigurations/connect-mutate`)).status, 200);
  });

  test('a token request is reviewed as the authentication group\'s TokenRequest, and a mutating webhook sets its lifetime', async () => {
    wh.handle.set('/token-mutate', r => ({ allowed: true, patchType: 'JSONPatch',
      patch: b64([{ op: 'replace', path: '/spec/expirationSeconds', value: (r.object as any).spec.expirationSeconds === 3600 ? 7200 : 5400 }]) }));
    assert.equal((await post(`${W}/mutatingwebhookconfigurations`, { metadata: { name: 'token-mutate' }, webhooks: [
      hook('token-mutate.example.com', '/token-mutate', ['CREATE'], [''], ['serviceaccounts/token'], { reinvocationPolicy: 'Never' })] })).status, 201);
    let issued: any;
    await until(async () => {
      const r = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: `${auth}/v1`, kind: 'TokenRequest', spec: {} });
      assert.equal(r.status, 201, r.body);
      issued = r.json;
      return issued.spec.expirationSeconds === 7200;
    }, 'the mutating webhook on token requests');
    const claims = JSON.parse(Buffer.from(issued.status.token.split('.')[1], 'base64url').toString('utf8'));
    assert.equal(claims.exp - claims.iat, 7200);
    const mutating = wh.calls.get('/token-mutate')!.at(-1)!;
    assert.deepEqual(mutating.kind, gvk(auth, 'v1', 'TokenRequest'));
    assert.equal((mutating.object as any).spec.expirationSeconds, 3600, 'the lifetime was defaulted before mutating admission');
    await until(async () => lastCall('/token', 'default') !== undefined, 'the validating webhook on token requests');
    const validating = lastCall('/token', 'default')!;
    assert.deepEqual(validating.kind, gvk(auth, 'v1', 'TokenRequest'));
    assert.deepEqual(validating.resource, { group: '', version: 'v1', resource: 'serviceaccounts' });
    assert.equal(validating.subResource, 'token');
    assert.equal((validating.object as any).spec.expirationSeconds, 7200, 'validating admission sees the mutated request');
    assert.equal((await c.request('DELETE', `${W}/mutatingwebhookconfigurations/token-mutate`)).status, 200);
  });

  test('a custom resource\'s scale is an autoscaling/v1 Scale at every version: a webhook registered for another version gets it unconverted', async () => {
    const group = 'gadgets.example.com';
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } };
    const version = (name: string, storage: boolean) => ({ name, served: true, storage, schema,
      subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } });
    const crd = await post('/apis/apiextensions.cluster.io/v1/customresourcedefinitions', { metadata: { name: `gadgets.${group}` }, spec: {
      group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, versions: [version('v1', true), version('v2', false)] } });
    assert.equal(crd.status, 201, crd.body);
    assert.equal((await post(`${W}/validatingwebhookconfigurations`, { metadata: { name: 'gadgets' }, webhooks: [{
      ...hook('gadgets.example.com', '/gadgets', ['UPDATE'], [group], ['gadgets/scale']),
      rules: [{ operations: ['UPDATE'], apiGroups: [group], apiVersions: ['v2'], resources: ['gadgets/scale'] }] }] })).status, 201);
    await until(async () => (await post(`/apis/${group}/v1/namespaces/default/gadgets`, { metadata: { name: 'g' }, spec: { replicas: 1 } })).status === 201, 'the custom resource served');
    let replicas = 1;
    await until(async () => {
      const r = await c.request('PATCH', `/apis/${group}/v1/namespaces/default/gadgets/g/scale`, { body: { spec: { replicas: ++replicas } }, contentType: 'application/merge-patch+json' });
      assert.equal(r.status, 200, r.body);
      return lastCall('/gadgets', 'g') !== undefined;
    }, 'the gadgets webhook');
    const seen = lastCall('/gadgets', 'g')!;
    assert.deepEqual(seen.kind, gvk('autoscaling', 'v1', 'Scale'));
    assert.deepEqual(seen.resource, { group, version: 'v2', resource: 'gadgets' });
    assert.deepEqual(seen.requestKind, gvk('autoscaling', 'v1', 'Scale'));
    assert.deepEqual(seen.requestResource, { group, version: 'v1', resource: 'gadgets' });
    assert.equal(seen.subResource, 'scale');
    assert.equal(`${(seen.object as any).apiVersion} ${(seen.object as any).kind}`, 'autoscaling/v1 Scale');
    assert.equal((seen.object as any).spec.replicas, replicas);
  });

  test('a ValidatingAdmissionPolicy sees request.kind and the Scale of a scale write', async () => {
    const made = await post(`${P}/validatingadmissionpolicies`, { metadata: { name: 'scale-limit' }, spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments', 'deployments/scale'] }] },
      matchConditions: [{ name: 'through-scale', expression: "request.kind.group == 'autoscaling'" }],
      validations: [{ expression: "object.kind == 'Scale' && request.resource.group == 'apps' && object.spec.replicas <= 5", message: 'scale to at most 5 replicas' }],
    } });
    assert.equal(made.status, 201, made.body);
    assert.equal((await post(`${P}/validatingadmissionpolicybindings`, { metadata: { name: 'scale-limit' }, spec: { policyName: 'scale-limit', validationActions: ['Deny'] } })).status, 201);
    assert.equal((await post('/apis/apps/v1/namespaces/default/deployments', deployment('limited', 1))).status, 201);
    const scale = (replicas: number) => c.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/limited/scale',
      { body: { spec: { replicas } }, contentType: 'application/merge-patch+json' });
    let refused!: Awaited<ReturnType<typeof scale>>;
    await until(async () => (refused = await scale(6)).status !== 200, 'the policy to take effect');
    assert.equal(refused.status, 422, refused.body);
    assert.match(refused.json.message, /ValidatingAdmissionPolicy 'scale-limit' with binding 'scale-limit' denied request: scale to at most 5 replicas/);
    assert.equal((await scale(5)).status, 200);
    // the Deployment written itself is of the apps group: the match condition leaves it alone
    const d = (await c.get('/apis/apps/v1/namespaces/default/deployments/limited')).json;
    d.spec.replicas = 9;
    assert.equal((await c.request('PUT', '/apis/apps/v1/namespaces/default/deployments/limited', { body: d })).status, 200);
  });
});
