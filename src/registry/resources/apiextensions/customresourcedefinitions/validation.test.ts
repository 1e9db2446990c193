import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCrdDefaults, validateCrd, validateCrdUpdate, type CrdBody } from './validation.js';

/** a CRD of the given spec fields, defaulted; the tests give malformed ones too */
const crd = (spec: Record<string, unknown> = {}, name = 'foos.example.com'): CrdBody => {
  const c = {
    metadata: { name },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'foos', kind: 'Foo' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      ...spec,
    },
  } as CrdBody;
  applyCrdDefaults(c);
  return c;
};
const problems = (c: CrdBody) => validateCrd(c).map(x => `${x.field}: ${x.message}`);

describe('CRD validation', () => {
  test('defaults: singular, listKind, conversion None, webhook service port', () => {
    const c = crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', name: 's' } } } } });
    assert.equal(c.spec?.names?.singular, 'foo');
    assert.equal(c.spec?.names?.listKind, 'FooList');
    assert.equal(c.spec?.conversion?.webhook?.clientConfig?.service?.port, 443);
    assert.deepEqual(crd().spec?.conversion, { strategy: 'None' });
    assert.deepEqual(problems(c), []);
    assert.deepEqual(problems(crd()), []);
  });

  test('group, names, scope and the name rule', () => {
    assert.deepEqual(problems(crd({ group: 'example' }, 'foos.example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']);
    assert.deepEqual(problems(crd({}, 'bars.example.com')), ['metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group']);
    assert.deepEqual(problems(crd({ scope: undefined })), ['spec.scope: Required value']);
    assert.deepEqual(problems(crd({ scope: 'Everywhere' })), ['spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"']);
    const bad = problems(crd({ names: { plural: 'foos', kind: 'Foo', listKind: 'Foo', shortNames: ['F'], categories: ['ok'] } }));
    assert.ok(bad.includes('spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same'), bad.join('\n'));
    assert.ok(bad.some(b => b.startsWith('spec.names.shortNames[0]: Invalid value: "F": a DNS-1035 label')), bad.join('\n'));
    assert.deepEqual(problems(crd({ names: { plural: 'foos' } })), ['spec.names.kind: Required value', 'spec.names.listKind: Required value']);
  });

  test('versions: exactly one storage version, unique names, schemas required and structural', () => {
    const v = (name: string, storage: boolean, schema: unknown = { type: 'object' }) => ({ name, served: true, storage, schema: { openAPIV3Schema: schema } });
    assert.deepEqual(problems(crd({ versions: [v('v1', true), v('v2', true)] })), ['spec.versions: Invalid value: ["v1","v2"]: must have exactly one version marked as storage version']);
    assert.deepEqual(problems(crd({ versions: [v('v1', true), v('v1', false)] })), ['spec.versions[1].name: Invalid value: "v1": must be unique']);
    assert.deepEqual(problems(crd({ versions: [{ name: 'v1', served: true, storage: true }] })), ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
    assert.deepEqual(problems(crd({ versions: [v('v1', true, { type: 'object', properties: { a: {} } })] })),
      ['spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields']);
    assert.deepEqual(problems(crd({ versions: [] })), ['spec.versions: Required value: must have exactly one version marked as storage version']);
    assert.deepEqual(problems(crd({ preserveUnknownFields: true })),
      ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead']);
  });

  test('subresources and printer columns', () => {
    const version = (extra: object) => [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } }, ...extra }];
    assert.deepEqual(problems(crd({ versions: version({ subresources: { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '.spec.x', labelSelectorPath: '.selector' } } }) })), [
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: ".spec.x": should be a json path under .status',
      'spec.versions[0].subresources.scale.labelSelectorPath: Invalid value: ".selector": should be a json path under either .spec or .status',
    ]);
    assert.deepEqual(problems(crd({ versions: version({ additionalPrinterColumns: [{ name: 'A', type: 'text', jsonPath: 'spec.a', format: 'x' }, { type: 'string' }] }) })), [
      'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "text": supported values: "boolean", "date", "integer", "number", "string"',
      'spec.versions[0].additionalPrinterColumns[0].format: Unsupported value: "x": supported values: "byte", "date", "date-time", "double", "float", "int32", "int64", "password"',
      'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.a": must be a simple json path starting with .',
      'spec.versions[0].additionalPrinterColumns[1].name: Required value',
      'spec.versions[0].additionalPrinterColumns[1].jsonPath: Required value',
    ]);
  });

  test('conversion', () => {
    assert.deepEqual(problems(crd({ conversion: { strategy: 'Magic' } })), ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']);
    assert.deepEqual(problems(crd({ conversion: { strategy: 'Webhook' } })), ['spec.conversion.webhook: Required value: required when strategy is set to Webhook']);
    assert.deepEqual(problems(crd({ conversion: { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } } })),
      ['spec.conversion.webhook: Forbidden: should not be set when strategy is not set to Webhook']);
    assert.deepEqual(problems(crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'https://x/convert' } } } })),
      ['spec.conversion.webhook.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1']);
    // the webhook is checked as an admission webhook's is: its URL, its Service, and its review versions listed once each
    const webhook = (clientConfig: unknown, conversionReviewVersions = ['v1']) => crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions, clientConfig } } });
    assert.deepEqual(problems(webhook({ url: 'https://user@x/convert?debug=1' })), [
      'spec.conversion.webhook.clientConfig.url: Invalid value: "user": user information is not permitted in the URL',
      'spec.conversion.webhook.clientConfig.url: Invalid value: "debug=1": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(problems(webhook({ service: { namespace: 'ns', name: 's', port: 0, path: 'convert' } })), [
      'spec.conversion.webhook.clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      'spec.conversion.webhook.clientConfig.service.path: Invalid value: "convert": must start with a \'/\'',
    ]);
    assert.deepEqual(problems(webhook({ url: 'https://x/convert' }, ['v1', 'v1'])),
      ['spec.conversion.webhook.conversionReviewVersions[1]: Invalid value: "v1": duplicate version']);
  });

  test('storedVersions must appear in the versions; updates keep group, plural, and once established scope and kind', () => {
    const c = crd();
    c.status = { storedVersions: ['v1beta1', 'v1'] };
    assert.deepEqual(problems(c), ['status.storedVersions[0]: Invalid value: "v1beta1": must appear in spec.versions']);
    const old = crd();
    old.status = { conditions: [{ type: 'Established', status: 'True' }] };
    const next = crd({ scope: 'Cluster', group: 'other.com', names: { plural: 'bars', kind: 'Bar' } }, 'bars.other.com');
    assert.deepEqual(validateCrdUpdate(next, old).map(x => `${x.field}: ${x.message}`), [
      'spec.group: Invalid value: "other.com": field is immutable',
      'spec.names.plural: Invalid value: "bars": field is immutable',
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Bar": field is immutable',
    ]);
  });
});
