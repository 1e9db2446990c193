// The real kubectl binaries read the OpenAPI documents: explain (v3; 1.27 also the v2 protobuf), and the
// commands that need OpenAPI before they send anything (create -f, apply, diff, replace).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlVersions, startKubectlEnv, type KubectlEnv, type Manifest } from '../../test/e2e/support.js';

const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): Manifest =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data, ...extra });

for (const version of kubectlVersions) describe(`kubectl ${version} with OpenAPI (k8s.io)`, () => {
  let k: KubectlEnv;
  before(async () => { k = await startKubectlEnv(version, 'k8s.io'); });
  after(async () => { await k?.close(); });

  test('explain', async () => {
    const pods = await k.ok(['explain', 'pods']);
    assert.match(pods, /KIND:\s+Pod/);
    assert.match(pods, /^\s+spec\s+<PodSpec>/m);
    const containers = await k.ok(['explain', 'pods.spec.containers']);
    assert.match(containers, /containers\s+<\[\]Container>/);
    assert.match(containers, /^\s+image\s+<string>/m);
    assert.match(containers, /^\s+ports\s+<\[\]ContainerPort>/m);
    const template = await k.ok(['explain', 'deployments.spec.template']);
    assert.match(template, /VERSION:\s+(apps\/)?v1/);
    assert.match(template, /template\s+<(PodTemplateSpec|Object)>/);
    assert.match(template, /^\s+spec\s+<(PodSpec|Object)>/m);
  });

  test('create -f, apply -f, diff -f and replace -f', async () => {
    const created = k.manifest('created.yaml', [configMap(`created-${version}`, { a: '1' })]);
    assert.match(await k.ok(['create', '-f', created]), /configmap\/created-.* created/);

    const applied = (data: Record<string, string>) => k.manifest('applied.yaml', [configMap(`applied-${version}`, data)]);
    assert.match(await k.ok(['apply', '-f', applied({ a: '1' })]), /created/);
    assert.match(await k.ok(['apply', '-f', applied({ a: '2', b: '3' })]), /configured/);
    assert.deepEqual((await k.json(['get', 'configmap', `applied-${version}`])).data, { a: '2', b: '3' });

    const changed = applied({ a: '4' });
    const diff = await k.run(['diff', '-f', changed]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^\+\s+a: "4"$/m);
    assert.match(await k.ok(['replace', '-f', changed]), /replaced/);
    assert.deepEqual((await k.json(['get', 'configmap', `applied-${version}`])).data, { a: '4' });
    // replace drops the last-applied annotation; once applied again, nothing differs
    await k.ok(['apply', '-f', changed]);
    assert.equal((await k.run(['diff', '-f', changed])).code, 0);
  });

  test('unknown fields are left to the server (fieldValidation=Strict)', async () => {
    const bad = k.manifest('bad.yaml', [configMap(`bad-${version}`, { a: '1' }, { colour: 'red' })]);
    const r = await k.run(['create', '-f', bad, '-v=6']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /fieldValidation=Strict/);
    assert.match(r.stderr, /unknown field "colour"/);
  });

  if (version === '1.27') test('the v2 document in protobuf form', async () => {
    const explained = await k.ok(['explain', '--output=plaintext-openapiv2', 'pods.spec.containers']);
    assert.match(explained, /RESOURCE: containers <\[\]Object>/);
    assert.match(explained, /^\s+image\s+<string>/m);
    const r = await k.run(['apply', '-f', k.manifest('v2.yaml', [configMap(`v2-${version}`, { a: '1' })]), '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /GET https:\/\/[^ ]+\/openapi\/v2(\?\S*)? 200 OK/);
  });
});

describe('kubectl 1.27 with OpenAPI (cluster.io)', () => {
  let k: KubectlEnv;
  before(async () => { k = await startKubectlEnv('1.27', 'cluster.io'); });
  after(async () => { await k?.close(); });

  test('create -f and apply -f', async () => {
    assert.match(await k.ok(['create', '-f', k.manifest('cm.yaml', [configMap('created', { a: '1' })])]), /created/);
    const applied = k.manifest('applied.yaml', [configMap('applied', { a: '1' })]);
    assert.match(await k.ok(['apply', '-f', applied]), /created/);
    assert.match(await k.ok(['apply', '-f', applied]), /unchanged/);
  });
});
