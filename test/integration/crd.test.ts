// Custom resources: a CRD is validated, served at once (discovery included) and Established; its objects are
// pruned, defaulted and validated by the structural schema; status and printer columns work; deleting the CRD
// removes its objects first. Then the real kubectl 1.32 drives the same flow in k8s.io mode.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { startKubectlEnv, type KubectlEnv } from '../e2e/support.js';
import { waitFor } from '../support/wait.js';

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', enum: ['small', 'large'] },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        color: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 32 }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, number: { type: 'integer', default: 80 } } },
        },
        options: { type: 'object', properties: { debug: { type: 'boolean', default: false } } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        startedAt: { type: 'string', format: 'date-time' },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, replicas: { type: 'integer' } } },
  },
  'x-kubernetes-validations': [{ rule: 'true' }],
};
/** the spec's CEL rules: a plain one, one with messageExpression, a regex, a list macro and a transition rule */
const specRules = [
  { rule: "self.size != 'large' || self.replicas <= 8", message: 'large widgets allow at most 8 replicas' },
  { rule: "!has(self.color) || self.color != 'red'", messageExpression: "'color ' + self.color + ' is reserved'" },
  { rule: "!has(self.tags) || self.tags.all(t, t.matches('^[a-z]+$'))" },
  { rule: '!has(oldSelf.color) || (has(self.color) && self.color == oldSelf.color)', message: 'color is immutable' },
];
(widgetSchema.properties.spec as Record<string, unknown>)['x-kubernetes-validations'] = specRules;

function widgetCrd(group: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: widgetSchema },
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'string', jsonPath: '.spec.size' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'wanted' },
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready', priority: 1 },
        ],
      }],
      ...extra,
    },
  };
}

const crdPath = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';

const condition = (crd: any, type: string) => (crd?.status?.conditions ?? []).find((c: any) => c.type === type);

async function established(c: Client, name: string) {
  return waitFor(`${name} Established`, async () => {
    const r = await c.get(`${crdPath}/${name}`);
    return condition(r.json, 'Established')?.status === 'True' ? r.json : undefined;
  });
}

describe('custom resources', { concurrency: 1 }, () => {
  let server: TestServer;
  let c: Client;
  let n = 0;
  /** a fresh CRD group per test */
  const groupName = () => `t${++n}.example.com`;

  // instances holding finalizers are waited for half a second, not the server's minute, before the CRD says so
  before(async () => { server = await startTestServer({ crdInstanceWaitMs: 500 }); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });

  async function install(group: string, extra: Record<string, unknown> = {}) {
    const r = await c.request('POST', crdPath, { body: widgetCrd(group, extra) });
    assert.equal(r.status, 201, r.body);
    return established(c, `widgets.${group}`);
  }

  test('a CRD is Established, accepted names are set, and discovery shows it at once', async () => {
    const group = groupName();
    const crd = await install(group);
    assert.equal(condition(crd, 'NamesAccepted').status, 'True');
    assert.equal(condition(crd, 'NamesAccepted').reason, 'NoConflicts');
    assert.equal(condition(crd, 'Established').reason, 'InitialNamesAccepted');
    assert.equal(crd.status.acceptedNames.plural, 'widgets');
    assert.equal(crd.status.acceptedNames.listKind, 'WidgetList');   // defaulted
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.spec.conversion.strategy, 'None');

    const list = await c.get(`/apis/${group}/v1`);
    assert.equal(list.status, 200, list.body);
    const widgets = list.json.resources.find((r: any) => r.name === 'widgets');
    assert.equal(widgets.kind, 'Widget');
    assert.equal(widgets.namespaced, true);
    assert.deepEqual(widgets.shortNames, ['wd']);
    assert.deepEqual(widgets.categories, ['all']);
    assert.deepEqual([...widgets.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.ok(list.json.resources.some((r: any) => r.name === 'widgets/status'));

    const groups = await c.get('/apis');
    assert.ok(groups.json.groups.some((g: any) => g.name === group && g.preferredVersion.version === 'v1'));
    const aggregated = await c.get('/apis', { accept: 'application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList' });
    assert.equal(aggregated.status, 200, aggregated.body);
    const entry = aggregated.json.items.find((g: any) => g.metadata.name === group);
    assert.ok(entry, 'the group is in aggregated discovery');
    assert.equal(entry.versions[0].resources[0].resource, 'widgets');
  });

  test('create, get, list, watch, merge and JSON patch, delete of custom objects', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const watch = await c.watch(`${base}?watch=1`);
    const created = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'one' }, spec: { size: 'small' } } });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json.metadata.generation, 1);
    const ev = await watch.next(3000);
    assert.equal(ev?.type, 'ADDED');
    assert.equal(ev?.object.metadata.name, 'one');
    watch.close();

    const got = await c.get(`${base}/one`);
    assert.equal(got.json.kind, 'Widget');
    assert.equal(got.json.apiVersion, `${group}/v1`);
    const list = await c.get(base);
    assert.equal(list.json.kind, 'WidgetList');
    assert.deepEqual(list.json.items.map((i: any) => i.metadata.name), ['one']);
    // a custom resource's items name their kind, as the reference's unstructured lists do (a built-in's do not)
    assert.deepEqual([list.json.items[0].kind, list.json.items[0].apiVersion], ['Widget', `${group}/v1`]);
    const all = await c.get(`/apis/${group}/v1/widgets`);
    assert.equal(all.json.items.length, 1);

    const merged = await c.request('PATCH', `${base}/one`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    assert.equal(merged.status, 200, merged.body);
    assert.equal(merged.json.spec.replicas, 3);
    assert.equal(merged.json.metadata.generation, 2);
    const jsonPatched = await c.request('PATCH', `${base}/one`, { body: [{ op: 'replace', path: '/spec/size', value: 'large' }], contentType: 'application/json-patch+json' });
    assert.equal(jsonPatched.status, 200, jsonPatched.body);
    assert.equal(jsonPatched.json.spec.size, 'large');
    const strategic = await c.request('PATCH', `${base}/one`, { body: { spec: { replicas: 4 } }, contentType: 'application/strategic-merge-patch+json' });
    assert.equal(strategic.status, 415, strategic.body);
    // the reference's words: every patch type a custom resource takes, apply included
    assert.equal(strategic.json.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    const badPatch = await c.request('PATCH', `${base}/one`, { body: { spec: { replicas: 'many' } }, contentType: 'application/merge-patch+json' });
    assert.equal(badPatch.status, 422, badPatch.body);

    // PUT must name the version it replaces
    const { resourceVersion: _rv, ...meta } = jsonPatched.json.metadata;
    const unconditional = await c.request('PUT', `${base}/one`, { body: { ...jsonPatched.json, metadata: meta } });
    assert.equal(unconditional.status, 422, unconditional.body);
    const put = await c.request('PUT', `${base}/one`, { body: { ...jsonPatched.json, spec: { size: 'small' } } });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json.spec.replicas, 1, 'defaulted again');

    const del = await c.request('DELETE', `${base}/one`);
    assert.equal(del.status, 200, del.body);
    assert.equal((await c.get(`${base}/one`)).status, 404);
  });

  test('pruning and defaulting show in the stored object; unknown fields are warned about', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const r = await c.request('POST', base, {
      body: {
        apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'pruned', labels: { a: 'b' } },
        spec: {
          size: 'small', unknown: 1, options: {}, ports: [{ name: 'http' }, { name: 'https', number: 443, junk: true }],
          extra: { anything: { goes: [1] } },
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { x: 1 } },
        },
        status: { ready: true },
        topLevel: 'x',
      },
    });
    assert.equal(r.status, 201, r.body);
    const stored = (await c.get(`${base}/pruned`)).json;
    assert.deepEqual(stored.spec, {
      size: 'small', replicas: 1, options: { debug: false }, ports: [{ name: 'http', number: 80 }, { name: 'https', number: 443 }],
      extra: { anything: { goes: [1] } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } },
    });
    assert.equal(stored.topLevel, undefined);
    assert.equal(stored.status, undefined, 'status is written through its subresource only');
    assert.deepEqual(stored.metadata.labels, { a: 'b' });
    assert.match(String(r.headers.warning), /unknown field \\"spec.unknown\\"/);
  });

  test('integers a JSON number would round are refused with a 400, not stored changed; the largest exact ones are kept', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const widget = (name: string, extra: string) =>
      `{"apiVersion":"${group}/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"size":"small","extra":${extra}}}`;
    // 2^53 + 1 rounds to 2^53 as a double; the reference keeps it (and any int64) exactly
    const refused = await c.request('POST', base, { body: widget('big', '{"id":9007199254740993,"ok":[1,-9223372036854775808]}') });
    assert.equal(refused.status, 400, refused.body);
    assert.match(refused.json.message, /cannot be kept exactly by this server: spec\.extra\.id: 9007199254740993, spec\.extra\.ok\[1\]: -9223372036854775808/);
    assert.equal((await c.get(`${base}/big`)).status, 404);
    // the largest exact integer, one past int64 (a double at the reference too) and digits in strings are kept
    const kept = await c.request('POST', base, { body: widget('exact', '{"id":9007199254740991,"huge":99999999999999999999,"text":"12345678901234567890"}') });
    assert.equal(kept.status, 201, kept.body);
    assert.deepEqual((await c.get(`${base}/exact`)).json.spec.extra, { id: 9007199254740991, huge: 1e20, text: '12345678901234567890' });
    // patches and applies alike
    for (const [type, body] of [
      ['application/merge-patch+json', '{"spec":{"extra":{"id":1234567890123456789}}}'],
      ['application/json-patch+json', '[{"op":"add","path":"/spec/extra/id","value":-9007199254740993}]'],
      ['application/apply-patch+yaml', widget('exact', '{"id":1152921504606846977}')],
    ]) {
      const r = await c.request('PATCH', `${base}/exact${type.includes('apply') ? '?fieldManager=t' : ''}`, { body, contentType: type });
      assert.equal(r.status, 400, `${type}: ${r.body}`);
    }
    assert.equal((await c.get(`${base}/exact`)).json.spec.extra.id, 9007199254740991);
  });

  test('validation failures are 422 with the reference causes', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const create = (name: string, spec: unknown) =>
      c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec } });

    const wrongType = await create('bad', { size: 'small', replicas: 'string' });
    assert.equal(wrongType.status, 422, wrongType.body);
    assert.equal(wrongType.json.reason, 'Invalid');
    // a type error stops the CEL rules from running, and says so
    assert.deepEqual(wrongType.json.details.causes, [{
      reason: 'FieldValueTypeInvalid', field: 'spec.replicas',
      message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    }, {
      reason: 'FieldValueInvalid', field: '<nil>',
      message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    }]);
    assert.match(wrongType.json.message,
      /^Widget\.t\d+\.example\.com "bad" is invalid: \[spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string", <nil>: Invalid value: "null": some validation rules were not checked/);

    const many = await create('bad', { size: 'medium', replicas: 0, color: 'Red', port: true, tags: ['a', 'a'], ports: [{ name: 'x' }, { name: 'x' }], startedAt: 'yesterday' });
    assert.equal(many.status, 422, many.body);
    const byField = Object.fromEntries(many.json.details.causes.map((x: any) => [x.field, x.message]));
    assert.equal(byField['spec.size'], 'Unsupported value: "medium": supported values: "small", "large"');
    assert.equal(byField['spec.replicas'], 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1');
    assert.equal(byField['spec.color'], "Invalid value: \"Red\": spec.color in body should match '^[a-z]+$'");
    assert.equal(byField['spec.port'], 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"');
    assert.equal(byField['spec.tags[1]'], 'Duplicate value: "a"');
    assert.equal(byField['spec.ports[1]'], 'Duplicate value: {"name":"x"}');
    assert.equal(byField['spec.startedAt'], 'Invalid value: "yesterday": spec.startedAt in body must be of type date-time: "yesterday"');

    const missing = await create('bad', {});
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.json.details.causes, [{ reason: 'FieldValueRequired', field: 'spec.size', message: 'Required value' }]);

    const embedded = await create('bad', { size: 'small', template: { metadata: {} } });
    assert.equal(embedded.status, 422);
    assert.deepEqual(embedded.json.details.causes.map((x: any) => x.field), ['spec.template.apiVersion', 'spec.template.kind']);
    // an embedded object's metadata is object metadata: its name a path segment, its labels qualified names
    const embeddedMeta = await create('bad', { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b', labels: { 'a b': 'c' } } } });
    assert.equal(embeddedMeta.status, 422, embeddedMeta.body);
    assert.deepEqual(embeddedMeta.json.details.causes.map((x: any) => `${x.field}: ${x.message}`), [
      'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
      'spec.template.metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    ]);
    // metadata of the wrong shape is refused, never stored or failed on: the object's own a 400 as the reference's
    // decoder gives it, an embedded one a 422 at its path; a null finalizer reads as "" (invalid)
    for (const [metadata, field] of [[{ name: 'a', labels: 'x' }, 'labels'], [{ name: 'a', generateName: {} }, 'generateName'], [{ name: 'a', finalizers: [{}] }, 'finalizers[0]']] as const) {
      const r = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata, spec: { size: 'small' } } });
      assert.equal(r.status, 400, r.body);
      assert.match(r.json.message, new RegExp(`cannot be handled as a Widget: metadata\\.${field.replace(/[[\]]/g, '\\$&')}: expected`));
    }
    const nullFinalizer = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a', finalizers: [null] }, spec: { size: 'small' } } });
    assert.equal(nullFinalizer.status, 422, nullFinalizer.body);
    assert.match(nullFinalizer.json.message, /metadata\.finalizers: Invalid value: "": name part must be non-empty/);
    for (const metadata of [{ labels: 'x' }, { generateName: {} }, { finalizers: [null] }]) {
      const r = await create('bad', { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', metadata } });
      assert.equal(r.status, 422, r.body);
      assert.ok(r.json.details.causes.every((x: any) => x.field.startsWith('spec.template.metadata')), r.body);
    }
    const embeddedOk = await create('embedded', { size: 'small', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'Any_Name', labels: { app: 'x' } } } });
    assert.equal(embeddedOk.status, 201, embeddedOk.body);

    const badName = await create('Bad_Name', { size: 'small' });
    assert.equal(badName.status, 422);
    assert.equal(badName.json.details.causes[0].field, 'metadata.name');
  });

  test('CEL rules: evaluated on create and update, transition rules only on update, messages and causes', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const create = (name: string, spec: unknown) =>
      c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec } });
    const bad = await create('rules', { size: 'large', replicas: 9, color: 'red', tags: ['ok', 'Not-OK'] });
    assert.equal(bad.status, 422, bad.body);
    assert.deepEqual(bad.json.details.causes, [
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": large widgets allow at most 8 replicas' },
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": color red is reserved' },
      { reason: 'FieldValueInvalid', field: 'spec', message: "Invalid value: \"object\": failed rule: !has(self.tags) || self.tags.all(t, t.matches('^[a-z]+$'))" },
    ]);
    assert.match(bad.json.message, /is invalid: \[spec: Invalid value: "object": large widgets allow at most 8 replicas, /);

    const ok = await create('rules', { size: 'large', replicas: 3, color: 'blue' });
    assert.equal(ok.status, 201, ok.body);
    const recolor = await c.request('PATCH', `${base}/rules`, { body: { spec: { color: 'green' } }, contentType: 'application/merge-patch+json' });
    assert.equal(recolor.status, 422, recolor.body);
    assert.deepEqual(recolor.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": color is immutable' }]);
    const scale = await c.request('PATCH', `${base}/rules`, { body: { spec: { replicas: 4 } }, contentType: 'application/merge-patch+json' });
    assert.equal(scale.status, 200, scale.body);
  });

  test('CEL rules are compiled at CRD create: bad syntax, unknown fields and too expensive rules are refused', async () => {
    const group = groupName();
    const withRules = (rules: unknown[], extraProps: Record<string, unknown> = {}) => {
      const crd = widgetCrd(group) as any;
      crd.spec.versions[0].schema.openAPIV3Schema = { type: 'object', properties: { spec: {
        type: 'object', properties: { size: { type: 'string' }, list: { type: 'array', items: { type: 'string' } }, ...extraProps },
        'x-kubernetes-validations': rules } } };
      return crd;
    };
    const path = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    const r = await c.request('POST', crdPath, { body: withRules([
      { rule: 'self.size ==' }, { rule: 'self.nope == 1' }, { rule: "self.list.all(x, x.matches('^a+$'))" },
      { rule: 'true', messageExpression: 'self.nope' },
    ]) });
    assert.equal(r.status, 422, r.body);
    const causes = r.json.details.causes;
    assert.equal(causes[0].field, `${path}[0].rule`);
    assert.match(causes[0].message, /^Invalid value: apiextensions.ValidationRule\{Rule:"self.size ==", Message:"", MessageExpression:""\}: compilation failed: ERROR: <input>:1:\d+: Syntax error/);
    assert.equal(causes[1].field, `${path}[1].rule`);
    assert.match(causes[1].message, /compilation failed: ERROR: <input>:1:5: undefined field 'nope'/);
    assert.equal(causes[2].field, `${path}[2].rule`);
    assert.match(causes[2].message, /^Forbidden: estimated rule cost exceeds budget by factor of more than 100x/);
    assert.equal(causes[3].field, `${path}[3].messageExpression`);
    assert.match(causes[3].message, /messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'/);
    const bounded = await c.request('POST', crdPath, { body: withRules([{ rule: "self.list.all(x, x.matches('^a+$'))" }],
      { list: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } } }) });
    assert.equal(bounded.status, 201, bounded.body);
  });

  test('a CEL rule whose constant pattern is not RE2 is refused at CRD create, as the reference makes its program', async () => {
    const group = groupName();
    const crd = widgetCrd(group) as any;
    crd.spec.versions[0].schema.openAPIV3Schema = { type: 'object', properties: { spec: {
      type: 'object', properties: { size: { type: 'string', maxLength: 64 } },
      'x-kubernetes-validations': [{ rule: "self.size.matches('[')" }, { rule: "matches(self.size, '(?=a)')" }, { rule: "self.size.find('a{2,1}') == ''" },
        { rule: "self.size.matches('^[a-z]+$') && self.size.findAll('[0-9]').size() == 0" }, { rule: 'self.size.matches(self.size)' }] } } };
    const r = await c.request('POST', crdPath, { body: crd });
    assert.equal(r.status, 422, r.body);
    const path = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    assert.deepEqual(r.json.details.causes.map((x: { field: string }) => x.field), [0, 1, 2].map(i => `${path}[${i}].rule`), r.body);
    const [bracket, lookahead, repeat] = r.json.details.causes.map((x: { message: string }) => x.message);
    assert.match(bracket, /^Invalid value: apiextensions.ValidationRule\{Rule:"self.size.matches\('\['\)".*\}: program instantiation failed: error parsing regexp: missing closing \]: `\[`$/);
    assert.match(lookahead, /program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax/);
    assert.match(repeat, /program instantiation failed: error parsing regexp: invalid repeat count/);
  });

  test('status subresource: spec changes through status are ignored and status changes through the object', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const created = (await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 's' }, spec: { size: 'small' } } })).json;
    const st = await c.request('PUT', `${base}/s/status`, { body: { ...created, spec: { size: 'large' }, status: { ready: true, replicas: 2, junk: 1 } } });
    assert.equal(st.status, 200, st.body);
    assert.deepEqual(st.json.status, { ready: true, replicas: 2 }, 'pruned');
    assert.equal(st.json.spec.size, 'small');
    assert.equal(st.json.metadata.generation, 1);

    const badStatus = await c.request('PATCH', `${base}/s/status`, { body: { status: { replicas: 'two' } }, contentType: 'application/merge-patch+json' });
    assert.equal(badStatus.status, 422, badStatus.body);
    assert.equal(badStatus.json.details.causes[0].field, 'status.replicas');

    const main = await c.request('PATCH', `${base}/s`, { body: { spec: { size: 'large' }, status: { ready: false } }, contentType: 'application/merge-patch+json' });
    assert.equal(main.status, 200, main.body);
    assert.equal(main.json.spec.size, 'large');
    assert.deepEqual(main.json.status, { ready: true, replicas: 2 });
    assert.equal(main.json.metadata.generation, 2);
  });

  test('printer columns in the Table form', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 't' }, spec: { size: 'large', replicas: 2 } } });
    const table = await c.get(base, { accept: 'application/json;as=Table;g=meta.cluster.io;v=v1' });
    assert.equal(table.status, 200, table.body);
    assert.equal(table.json.kind, 'Table');
    assert.deepEqual(table.json.columnDefinitions.map((d: any) => [d.name, d.type, d.priority]),
      [['Name', 'string', 0], ['Size', 'string', 0], ['Replicas', 'integer', 0], ['Ready', 'boolean', 1]]);
    assert.equal(table.json.columnDefinitions[2].description, 'wanted');
    assert.deepEqual(table.json.rows[0].cells, ['t', 'large', 2, null]);

    // without printer columns: Name and Age
    const bare = groupName();
    const crd = widgetCrd(bare);
    delete (crd.spec.versions[0] as any).additionalPrinterColumns;
    assert.equal((await c.request('POST', crdPath, { body: crd })).status, 201);
    await established(c, `widgets.${bare}`);
    const bareTable = await c.get(`/apis/${bare}/v1/namespaces/default/widgets`, { accept: 'application/json;as=Table;g=meta.cluster.io;v=v1' });
    assert.deepEqual(bareTable.json.columnDefinitions.map((d: any) => [d.name, d.type]), [['Name', 'string'], ['Age', 'date']]);
  });

  test('deleting a CRD removes its objects, then its resource, then the CRD', async () => {
    const group = groupName();
    await install(group);
    for (const ns of [server.names.publicNamespace, 'default']) {
      const r = await c.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`,
        { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'small' } } });
      assert.equal(r.status, 201, r.body);
    }
    const del = await c.request('DELETE', `${crdPath}/widgets.${group}`);
    assert.equal(del.status, 200, del.body);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.cluster.io']);
    assert.equal(condition(del.json, 'Terminating').status, 'True');
    await waitFor('the CRD to go', async () => ((await c.get(`${crdPath}/widgets.${group}`)).status === 404 ? true : undefined));
    assert.equal((await c.get(`/apis/${group}/v1`)).status, 404);
    assert.ok(!(await c.get('/apis')).json.groups.some((g: any) => g.name === group));
    assert.ok(!server.resources.all().some(r => r.group === group));
    // created again: no objects left over from before
    await install(group);
    assert.deepEqual((await c.get(`/apis/${group}/v1/widgets`)).json.items, []);
  });

  test('a non-structural schema and bad definitions are refused with reasons', async () => {
    const group = groupName();
    const bad = widgetCrd(group);
    bad.spec.versions[0].schema.openAPIV3Schema = {
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { labels: { type: 'object' } } },
        spec: { properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        list: { type: 'array', items: {} },
        port: { type: 'string', 'x-kubernetes-int-or-string': true },
        keep: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
        either: { type: 'object', anyOf: [{ type: 'object' }] },
      },
    } as any;
    const r = await c.request('POST', crdPath, { body: bad });
    assert.equal(r.status, 422, r.body);
    const p = 'spec.versions[0].schema.openAPIV3Schema';
    const msgs = r.json.details.causes.map((x: any) => `${x.field}: ${x.message}`);
    for (const want of [
      `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${p}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${p}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}.properties[list].items.type: Required value: must not be empty for specified array items`,
      `${p}.properties[port].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true`,
      `${p}.properties[keep].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      `${p}.properties[either].anyOf[0].type: Forbidden: must be empty to be structural`,
    ]) assert.ok(msgs.includes(want), `expected "${want}" in:\n${msgs.join('\n')}`);

    const names = widgetCrd(group);
    (names.metadata as any).name = 'wrong.example.com';
    names.spec.scope = 'Global';
    (names.spec as any).versions = [{ ...names.spec.versions[0] }, { ...names.spec.versions[0] }];
    const r2 = await c.request('POST', crdPath, { body: names });
    assert.equal(r2.status, 422);
    const fields = r2.json.details.causes.map((x: any) => `${x.field}: ${x.message}`);
    assert.ok(fields.includes(`metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group`), fields.join('\n'));
    assert.ok(fields.includes('spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'), fields.join('\n'));
    assert.ok(fields.some((f: string) => f.startsWith('spec.versions: Invalid value') && f.endsWith('must have exactly one version marked as storage version')), fields.join('\n'));
    assert.ok(fields.includes('spec.versions[1].name: Invalid value: "v1": must be unique'), fields.join('\n'));

    const noSchema = widgetCrd(group);
    delete (noSchema.spec.versions[0] as any).schema;
    const r3 = await c.request('POST', crdPath, { body: noSchema });
    assert.equal(r3.status, 422);
    assert.equal(r3.json.details.causes[0].field, 'spec.versions[0].schema.openAPIV3Schema');
  });

  test('names taken by another CRD are not accepted', async () => {
    const group = groupName();
    await install(group);
    const other = widgetCrd(group);
    other.metadata.name = `gadgets.${group}`;
    other.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Widget', shortNames: ['wd'], categories: [] };
    assert.equal((await c.request('POST', crdPath, { body: other })).status, 201);
    const crd = await waitFor('NamesAccepted', async () => {
      const r = await c.get(`${crdPath}/gadgets.${group}`);
      return condition(r.json, 'NamesAccepted') ? r.json : undefined;
    });
    assert.equal(condition(crd, 'NamesAccepted').status, 'False');
    // short names, kind and list kind conflict: the condition tells the last one checked, as the reference's does
    assert.equal(condition(crd, 'NamesAccepted').reason, 'ListKindConflict');
    assert.equal(condition(crd, 'NamesAccepted').message, '"WidgetList" is already in use');
    assert.equal(condition(crd, 'Established').status, 'False');
    assert.equal((await c.get(`/apis/${group}/v1/gadgets`)).status, 404);

    // a plural another CRD has as a short name, and short names alone
    const named = async (plural: string, kind: string, shortNames: string[]) => {
      const crd = widgetCrd(group);
      crd.metadata.name = `${plural}.${group}`;
      crd.spec.names = { plural, singular: kind.toLowerCase(), kind, shortNames, categories: [] };
      assert.equal((await c.request('POST', crdPath, { body: crd })).status, 201);
      return waitFor(`NamesAccepted of ${plural}`, async () => condition((await c.get(`${crdPath}/${plural}.${group}`)).json, 'NamesAccepted'));
    };
    const shortOnly = await named('doodads', 'Doodad', ['wd', 'widget']);
    assert.deepEqual([shortOnly.status, shortOnly.reason, shortOnly.message], ['False', 'ShortNamesConflict', '["wd" is already in use, "widget" is already in use]']);
    const plural = await named('wd', 'Thingamajig', []);
    assert.deepEqual([plural.status, plural.reason, plural.message], ['False', 'PluralConflict', '"wd" is already in use']);
  });

  test('a schema change is served at once; cluster-scoped resources', async () => {
    const group = groupName();
    const crd = await install(group, { scope: 'Cluster' });
    const base = `/apis/${group}/v1/widgets`;
    assert.equal((await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'c' }, spec: { size: 'tiny' } } })).status, 422);
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.enum.push('tiny');
    const up = await c.request('PUT', `${crdPath}/widgets.${group}`, { body: crd });
    assert.equal(up.status, 200, up.body);
    await waitFor('the new schema', async () => {
      const r = await c.request('POST', `${base}?dryRun=All`, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'c' }, spec: { size: 'tiny' } } });
      return r.status === 201 ? true : undefined;
    });
    const scopeChange = await c.request('PUT', `${crdPath}/widgets.${group}`, { body: { ...up.json, spec: { ...up.json.spec, scope: 'Namespaced' } } });
    assert.equal(scopeChange.status, 422);
    assert.equal(scopeChange.json.details.causes[0].message, 'Invalid value: "Namespaced": field is immutable');
  });

  test('a default added to the schema shows in objects written before it, however they are read', async () => {
    const group = groupName();
    const crd = await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const created = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'old' }, spec: { size: 'small' } } });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json.spec.shape, undefined);
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.shape = { type: 'string', default: 'round' };
    assert.equal((await c.request('PUT', `${crdPath}/widgets.${group}`, { body: crd })).status, 200);
    await waitFor('the new schema', async () => {
      const r = await c.request('POST', `${base}?dryRun=All`, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'new' }, spec: { size: 'small' } } });
      return r.status === 201 && r.json.spec.shape === 'round' ? true : undefined;
    });
    // read from storage, the object is defaulted by the schema of now, as the reference defaults what it reads from etcd
    assert.equal((await c.get(`${base}/old`)).json.spec.shape, 'round');
    assert.equal((await c.get(base)).json.items[0].spec.shape, 'round');
    const table = await c.get(base, { accept: 'application/json;as=Table;g=meta.cluster.io;v=v1' });
    assert.equal(table.json.rows[0].cells[0], 'old');
    const watch = await c.watch(`${base}?watch=1&resourceVersion=0`);
    const ev = await watch.next(3000);
    watch.close();
    assert.equal(ev?.object.spec.shape, 'round');
    // what is written after the change was defaulted as it was written
    const touched = await c.request('PATCH', `${base}/old`, { body: { spec: { replicas: 2 } }, contentType: 'application/merge-patch+json' });
    assert.equal(touched.json.spec.shape, 'round');
  });

  test('storedVersions grows with the storage version and a status write may only trim it to real versions', async () => {
    const group = groupName();
    const crd = await install(group);
    crd.spec.versions = [{ ...crd.spec.versions[0], storage: false }, { ...crd.spec.versions[0], name: 'v2', storage: true }];
    const up = await c.request('PUT', `${crdPath}/widgets.${group}`, { body: crd });
    assert.equal(up.status, 200, up.body);
    assert.deepEqual(up.json.status.storedVersions, ['v1', 'v2']);
    const setStored = (storedVersions: string[]) => c.request('PATCH', `${crdPath}/widgets.${group}/status`,
      { body: { status: { storedVersions } }, contentType: 'application/merge-patch+json' });
    const causesOf = (r: { json: any }) => r.json.details.causes.map((x: any) => `${x.field}: ${x.message}`);
    const withoutStorage = await setStored(['v1']);
    assert.equal(withoutStorage.status, 422, withoutStorage.body);
    assert.deepEqual(causesOf(withoutStorage), ['status.storedVersions: Invalid value: ["v1"]: must have the storage version v2']);
    const unknown = await setStored(['v2', 'v9']);
    assert.equal(unknown.status, 422, unknown.body);
    assert.deepEqual(causesOf(unknown), ['status.storedVersions[1]: Invalid value: "v9": must appear in spec.versions']);
    const empty = await setStored([]);
    assert.equal(empty.status, 422, empty.body);
    assert.deepEqual(causesOf(empty), ['status.storedVersions: Invalid value: []: must have at least one stored version']);
    // after a migration the old version is dropped
    const migrated = await setStored(['v2']);
    assert.equal(migrated.status, 200, migrated.body);
    assert.deepEqual(migrated.json.status.storedVersions, ['v2']);
  });

  test('without a status subresource a status change moves generation, as every change outside metadata does', async () => {
    const group = groupName();
    const crd = widgetCrd(group);
    delete (crd.spec.versions[0] as any).subresources;
    assert.equal((await c.request('POST', crdPath, { body: crd })).status, 201);
    await established(c, `widgets.${group}`);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const created = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'g' }, spec: { size: 'small' }, status: { ready: false } } });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual([created.json.metadata.generation, created.json.status], [1, { ready: false }]);
    const status = await c.request('PATCH', `${base}/g`, { body: { status: { ready: true } }, contentType: 'application/merge-patch+json' });
    assert.equal(status.status, 200, status.body);
    assert.deepEqual([status.json.metadata.generation, status.json.status], [2, { ready: true }]);
    const labelled = await c.request('PATCH', `${base}/g`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(labelled.status, 200, labelled.body);
    assert.equal(labelled.json.metadata.generation, 2, 'metadata changes leave it');
  });

  test('watches of custom objects end when their CRD changes or goes, so clients watch again', async () => {
    const group = groupName();
    const crd = await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    assert.equal((await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'small' } } })).status, 201);
    const untilEnded = async (w: { ended: Promise<void> }, what: string) => {
      let ended = false;
      void w.ended.then(() => { ended = true; });
      await waitFor(what, () => ended);
    };

    const beforeChange = await c.watch(`${base}?watch=1&resourceVersion=0`);
    assert.equal((await beforeChange.next(3000))?.type, 'ADDED');
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.enum.push('medium');
    assert.equal((await c.request('PUT', `${crdPath}/widgets.${group}`, { body: crd })).status, 200);
    await untilEnded(beforeChange, 'the watch to end after the schema change');

    const whole = await c.watch(`/apis/${group}/v1/widgets?watch=1`);
    assert.equal(whole.status, 200);
    assert.equal((await c.request('DELETE', `${crdPath}/widgets.${group}`)).status, 200);
    await untilEnded(whole, 'the watch to end after the CRD went');
    await waitFor('the CRD to go', async () => ((await c.get(`${crdPath}/widgets.${group}`)).status === 404 ? true : undefined));
    assert.equal((await c.watch(`${base}?watch=1`)).status, 404);
  });

  test('a watch of custom objects sees them deleted with their CRD, then ends', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    for (const name of ['a', 'b']) {
      const r = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 'small' } } });
      assert.equal(r.status, 201, r.body);
    }
    const rv = (await c.get(base)).json.metadata.resourceVersion;
    const w = await c.watch(`${base}?watch=1&resourceVersion=${rv}`);
    assert.equal(w.status, 200);
    let ended = false;
    void w.ended.then(() => { ended = true; });
    assert.equal((await c.request('DELETE', `${crdPath}/widgets.${group}`)).status, 200);
    // as the reference keeps the resource's storage (and its watches) while the CRD is terminating: the Terminating
    // condition does not end the watch before the objects are deleted
    const events = await w.collect(60_000);
    assert.ok(ended, 'the watch ends once the CRD is gone');
    assert.deepEqual(events.map(e => [e.type, e.object.metadata.name]).sort(), [['DELETED', 'a'], ['DELETED', 'b']]);
  });

  test('a terminating CRD refuses new objects with a 405 while the ones with finalizers wait', async () => {
    const group = groupName();
    await install(group);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const widget = (name: string, finalizers?: string[]) =>
      ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { size: 'small' } });
    assert.equal((await c.request('POST', base, { body: widget('held', ['example.com/hold']) })).status, 201);
    assert.equal((await c.request('DELETE', `${crdPath}/widgets.${group}`)).status, 200);
    await waitFor('the held object to be deleted', async () => ((await c.get(`${base}/held`)).json?.metadata?.deletionTimestamp ? true : undefined));
    const refused = await c.request('POST', base, { body: widget('late') });
    assert.equal(refused.status, 405, refused.body);
    assert.equal(refused.json.reason, 'MethodNotAllowed');
    assert.equal(refused.json.message, 'create not allowed while custom resource definition is terminating');
    assert.deepEqual(refused.json.details, { group, kind: 'widgets' });
    // discovery offers only reading and deleting meanwhile
    const listed = (await c.get(`/apis/${group}/v1`)).json.resources.find((r: any) => r.name === 'widgets');
    assert.deepEqual(listed.verbs, ['delete', 'deletecollection', 'get', 'list', 'watch']);
    // after each wait the reference gives up for a while, saying so, then waits again
    const terminating = async () => condition((await c.get(`${crdPath}/widgets.${group}`)).json, 'Terminating');
    const timedOut = await waitFor('the wait to time out', async () => { const t = await terminating(); return t?.reason === 'InstanceDeletionCheck' && t; });
    assert.deepEqual(timedOut, { ...timedOut, type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck',
      message: 'could not confirm zero CustomResources remaining: timed out waiting for the condition' });
    await waitFor('the next wait', async () => (await terminating())?.reason === 'InstanceDeletionInProgress');
    // the objects there are can still be changed, so their finalizers can go
    const released = await c.request('PATCH', `${base}/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    assert.equal(released.status, 200, released.body);
    await waitFor('the CRD to go', async () => ((await c.get(`${crdPath}/widgets.${group}`)).status === 404 ? true : undefined));
  });

  test('CRDs of the vendor\'s own groups need the API approval annotation, and say so in a condition', async () => {
    const annotation = `api-approved.${server.names.labelDomain}`;
    const protectedCrd = (annotations?: Record<string, string>) => {
      const crd = widgetCrd(`approval.${server.names.domain}`);
      if (annotations) (crd.metadata as any).annotations = annotations;
      return crd;
    };
    const missing = await c.request('POST', crdPath, { body: protectedCrd() });
    assert.equal(missing.status, 422, missing.body);
    assert.deepEqual(missing.json.details.causes, [{
      reason: 'FieldValueRequired', field: `metadata.annotations[${annotation}]`,
      message: `Required value: protected groups must have approval annotation "${annotation}", see https://github.com/kubernetes/enhancements/pull/1111`,
    }]);
    const invalid = await c.request('POST', crdPath, { body: protectedCrd({ [annotation]: 'soon' }) });
    assert.equal(invalid.status, 422, invalid.body);
    assert.deepEqual(invalid.json.details.causes, [{
      reason: 'FieldValueInvalid', field: `metadata.annotations[${annotation}]`,
      message: `Invalid value: "soon": protected groups must have approval annotation "${annotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
    }]);

    const created = await c.request('POST', crdPath, { body: protectedCrd({ [annotation]: 'unapproved, testing only' }) });
    assert.equal(created.status, 201, created.body);
    const name = `widgets.approval.${server.names.domain}`;
    const conformant = async (status: string) => waitFor(`the approval condition ${status}`, async () => {
      const crd = (await c.get(`${crdPath}/${name}`)).json;
      return condition(crd, 'KubernetesAPIApprovalPolicyConformant')?.status === status ? condition(crd, 'KubernetesAPIApprovalPolicyConformant') : undefined;
    });
    const unapproved = await conformant('False');
    assert.deepEqual([unapproved.reason, unapproved.message], ['UnapprovedAnnotation', 'not approved: "unapproved, testing only"']);
    assert.equal(condition(await established(c, name), 'Established').status, 'True', 'an unapproved API is still served');

    const url = 'https://github.com/example/enhancements/pull/1';
    const approved = await c.request('PATCH', `${crdPath}/${name}`, { body: { metadata: { annotations: { [annotation]: url } } }, contentType: 'application/merge-patch+json' });
    assert.equal(approved.status, 200, approved.body);
    const cond = await conformant('True');
    assert.deepEqual([cond.reason, cond.message], ['ApprovedAnnotation', `approved in ${url}`]);
    const dropped = await c.request('PATCH', `${crdPath}/${name}`, { body: { metadata: { annotations: { [annotation]: null } } }, contentType: 'application/merge-patch+json' });
    assert.equal(dropped.status, 422, dropped.body);

    // other groups have neither the rule nor the condition
    const other = await install(groupName());
    assert.equal(condition(other, 'KubernetesAPIApprovalPolicyConformant'), undefined);
  });
});

describe('custom resources of two versions without conversion (strategy None)', () => {
  let server: TestServer;
  let c: Client;
  before(async () => { server = await startTestServer(); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });

  test('an object written at the version that keeps unknown fields is stored by the storage version\'s schema', async () => {
    const group = 'none.example.com';
    const strict = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string', default: 'red' } } } } };
    const r = await c.request('POST', crdPath, { body: {
      apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: strict } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ] },
    } });
    assert.equal(r.status, 201, r.body);
    await established(c, `gadgets.${group}`);
    const created = await c.request('POST', `/apis/${group}/v2/namespaces/default/gadgets`, {
      body: { apiVersion: `${group}/v2`, kind: 'Gadget', metadata: { name: 'g' }, spec: { replicas: 2, whatever: 1 } },
    });
    assert.equal(created.status, 201, created.body);
    // stored at v1: its schema prunes what it does not know and gives its defaults, whatever version reads it
    assert.deepEqual(created.json.spec, { replicas: 2, color: 'red' });
    assert.deepEqual((await c.get(`/apis/${group}/v1/namespaces/default/gadgets/g`)).json.spec, { replicas: 2, color: 'red' });
    assert.deepEqual((await c.get(`/apis/${group}/v2/namespaces/default/gadgets/g`)).json.spec, { replicas: 2, color: 'red' });
    const listed = (await c.get(`/apis/${group}/v2/namespaces/default/gadgets`)).json.items[0];
    assert.deepEqual([listed.apiVersion, listed.spec], [`${group}/v2`, { replicas: 2, color: 'red' }]);
  });

  test('each version has the subresources it declares', async () => {
    const group = 'subs.example.com';
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { ready: { type: 'boolean' } } } } };
    const r = await c.request('POST', crdPath, { body: {
      apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: schema } },
      ] },
    } });
    assert.equal(r.status, 201, r.body);
    await established(c, `gadgets.${group}`);
    const discovered = async (version: string) => (await c.get(`/apis/${group}/${version}`)).json.resources.map((x: any) => x.name).sort();
    assert.deepEqual(await discovered('v1'), ['gadgets', 'gadgets/scale', 'gadgets/status']);
    assert.deepEqual(await discovered('v2'), ['gadgets']);
    const at = (version: string) => `/apis/${group}/${version}/namespaces/default/gadgets`;
    const created = await c.request('POST', at('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Gadget', metadata: { name: 'g' }, spec: { replicas: 1 }, status: { ready: true } } });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(created.json.status, { ready: true }, 'v2 has no status subresource: status is written with the object');
    assert.equal((await c.get(`${at('v2')}/g/status`)).status, 404);
    assert.equal((await c.get(`${at('v2')}/g/scale`)).status, 404);
    assert.equal((await c.get(`${at('v1')}/g/status`)).status, 200);
    const ignored = await c.request('PATCH', `${at('v1')}/g`, { body: { status: { ready: false } }, contentType: 'application/merge-patch+json' });
    assert.deepEqual(ignored.json.status, { ready: true }, 'v1 has one: status is written through it only');
  });
});

describe('custom resources after a restart', () => {
  test('a CRD stored before a restart is served from the first request', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crd-restart-'));
    try {
      const first = await startTestServer({ storage: 'sqlite', dataDir });
      const c1 = createClient(first);
      try {
        assert.equal((await c1.request('POST', crdPath, { body: widgetCrd('restart.example.com') })).status, 201);
        await established(c1, 'widgets.restart.example.com');
        const r = await c1.request('POST', '/apis/restart.example.com/v1/namespaces/default/widgets',
          { body: { metadata: { name: 'kept' }, spec: { size: 'small' } } });
        assert.equal(r.status, 201, r.body);
      } finally { c1.close(); await first.close(); }
      const second = await startTestServer({ storage: 'sqlite', dataDir });
      const c2 = createClient(second);
      try {
        const got = await c2.get('/apis/restart.example.com/v1/namespaces/default/widgets/kept');
        assert.equal(got.status, 200, got.body);
        assert.equal(got.json.spec.replicas, 1);
      } finally { c2.close(); await second.close(); }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('kubectl 1.32 with custom resources (k8s.io mode)', () => {
  let env: KubectlEnv;
  before(async () => { env = await startKubectlEnv('1.32', 'k8s.io'); });
  after(async () => { await env.close(); });

  test('apply a CRD, wait for Established, apply and get objects, delete', async () => {
    const crd = widgetCrd('kube.example.com');
    crd.apiVersion = 'apiextensions.k8s.io/v1';
    const crdFile = env.manifest('crd', [crd as any]);
    assert.match(await env.ok(['apply', '-f', crdFile]), /customresourcedefinition.apiextensions.k8s.io\/widgets.kube.example.com created/);
    assert.match(await env.ok(['wait', '--for=condition=Established', 'crd/widgets.kube.example.com', '--timeout=60s']), /condition met/);
    const empty = await env.run(['get', 'widgets']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stderr, /No resources found/);

    const crFile = env.manifest('cr', [{ apiVersion: 'kube.example.com/v1', kind: 'Widget', metadata: { name: 'first', namespace: 'default' }, spec: { size: 'large' } }]);
    const applied = await env.run(['apply', '-f', crFile]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /widget.kube.example.com\/first created/);
    const table = await env.ok(['get', 'widgets']);
    assert.match(table, /^NAME\s+SIZE\s+REPLICAS\n/);
    assert.match(table, /first\s+large\s+1/);
    assert.match(await env.ok(['get', 'wd']), /first/);
    // kubectl refuses unknown fields (fieldValidation=Strict), naming the kind the body could not be read as
    const junk = await env.run(['create', '-f', env.manifest('junk', [{ apiVersion: 'kube.example.com/v1', kind: 'Widget', metadata: { name: 'junk', namespace: 'default' }, spec: { size: 'large', junk: 1 } }])]);
    assert.equal(junk.code, 1);
    assert.match(junk.stderr, /^Error from server \(BadRequest\): error when creating ".*": Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.junk"$/m);
    // explain describes the fields every object has, as for a built-in kind
    const explained = await env.ok(['explain', 'widgets']);
    assert.match(explained, /apiVersion\t<string>\n\s+The group and version of the schema/);
    assert.match(explained, /kind\t<string>\n\s+The kind of object this is/);
    assert.match(explained, /metadata\t<ObjectMeta>\n\s+Standard object metadata/);
    const yaml = await env.ok(['get', 'widgets', '-o', 'yaml']);
    assert.match(yaml, /kind: Widget/);
    assert.match(yaml, /replicas: 1/);
    assert.doesNotMatch(yaml, /junk/);

    // apply again with a change: kubectl patches custom resources with a merge patch
    const changed = env.manifest('cr2', [{ apiVersion: 'kube.example.com/v1', kind: 'Widget', metadata: { name: 'first', namespace: 'default' }, spec: { size: 'small', replicas: 5 } }]);
    assert.match(await env.ok(['apply', '-f', changed]), /configured/);
    assert.match(await env.ok(['get', 'widgets']), /first\s+small\s+5/);
    const ruleBroken = await env.run(['apply', '-f', env.manifest('cr4', [{ apiVersion: 'kube.example.com/v1', kind: 'Widget', metadata: { name: 'first', namespace: 'default' }, spec: { size: 'large', replicas: 9 } }])]);
    assert.notEqual(ruleBroken.code, 0);
    assert.match(ruleBroken.stderr, /spec: Invalid value: "object": (large widgets allow at most 8 replicas|replicas may not decrease)/);
    const invalidApply = await env.run(['apply', '-f', env.manifest('cr3', [{ apiVersion: 'kube.example.com/v1', kind: 'Widget', metadata: { name: 'second', namespace: 'default' }, spec: { size: 'huge' } }])]);
    assert.notEqual(invalidApply.code, 0);
    assert.match(invalidApply.stderr, /spec.size: Unsupported value: "huge"/);

    assert.match(await env.ok(['delete', '-f', crFile]), /widget.kube.example.com "first" deleted/);
    assert.match(await env.ok(['delete', '-f', crdFile]), /customresourcedefinition.apiextensions.k8s.io "widgets.kube.example.com" deleted/);
    const gone = await env.run(['get', 'widgets']);
    assert.notEqual(gone.code, 0);
  });
});
