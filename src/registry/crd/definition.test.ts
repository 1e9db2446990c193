import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject, Stored } from '../../api/meta.js';
import { naming } from '../../api/naming.js';
import { ApiError } from '../../api/status.js';
import type { CustomResourceDefinition } from '../../api/types/apiextensions-v1.js';
import type { StrategyContext } from '../strategy.js';
import { columnCell, definitionFromCrd, evaluateJsonPath, typedCell } from './definition.js';
import { strategy as customResourceDefinitions } from '../resources/apiextensions/customresourcedefinitions/strategy.js';

const ctx: StrategyContext = { names: naming(), now: '' };
const specOf = (o: ApiObject) => o.spec as Record<string, unknown>;

const crd = (extra: Partial<CustomResourceDefinition['spec']> = {}): Stored<CustomResourceDefinition> => ({
  apiVersion: 'apiextensions.example.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com' },
  spec: {
    group: 'example.com', scope: 'Cluster', names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList', shortNames: ['fo'] },
    versions: [
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { old: { type: 'string' } } } } } } },
      {
        name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer', default: 2 } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n' } },
        additionalPrinterColumns: [{ name: 'N', type: 'integer', jsonPath: '.spec.n' }],
      },
    ],
    conversion: { strategy: 'None' },
    ...extra,
  },
  status: { acceptedNames: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList', shortNames: ['fo'] } },
});

describe('definitionFromCrd', () => {
  test('names, scope, versions, subresources, columns and a strategy per version that prunes, defaults and validates', () => {
    const def = definitionFromCrd(crd());
    assert.equal(def.group, 'example.com');
    assert.equal(def.resource, 'foos');
    assert.equal(def.kind, 'Foo');
    assert.equal(def.namespaced, false);
    assert.equal(def.custom, true);
    assert.deepEqual(def.shortNames, ['fo']);
    assert.deepEqual(def.versions.map(v => [v.name, v.served, v.storage]), [['v1beta1', true, false], ['v1', true, true]]);
    assert.equal(def.versions[1].schema!.properties!.metadata!['x-ref'], 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.deepEqual(Object.keys(def.subresources!), ['status', 'scale']);
    assert.deepEqual(def.columns!.map(c => c.name), ['N'], 'the preferred version (v1) gives the columns');
    assert.deepEqual(def.versions[1].columns!.map(c => c.name), ['N']);
    assert.deepEqual(def.versions[0].columns!.map(c => c.name), ['Age'], 'v1beta1 has no columns of its own');
    const strategy = def.versions[1].strategy!;
    const obj: ApiObject = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'x' }, spec: { old: 'gone' } };
    strategy.defaults!(obj, ctx);
    assert.deepEqual(obj.spec, { n: 2 });
    specOf(obj).n = 'two';
    assert.equal(strategy.validate!(obj, { names: naming() })[0].field, 'spec.n');
    const older: ApiObject = { apiVersion: 'example.com/v1beta1', kind: 'Foo', metadata: { name: 'x' }, spec: { old: 'kept', n: 1 } };
    def.versions[0].strategy!.defaults!(older, ctx);
    assert.deepEqual(older.spec, { old: 'kept' }, 'v1beta1 is pruned by its own schema');
  });

  test('conversion None renames and reads by the new version\'s schema; Webhook serves every version; a service reference needs a resolver', async () => {
    const none = definitionFromCrd(crd());
    const stored: ApiObject = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'x' }, spec: { n: 1 } };
    const atV1: ApiObject = { apiVersion: 'example.com/v1beta1', kind: 'Foo', metadata: { name: 'y' } };
    const [renamed, same] = await none.convert!([stored, atV1], 'example.com/v1beta1', naming());
    assert.deepEqual(renamed, { ...stored, apiVersion: 'example.com/v1beta1', spec: {} }, 'v1beta1 does not know spec.n');
    assert.deepEqual(stored.spec, { n: 1 }, 'the object converted is left as it was');
    const [back] = await none.convert!([{ ...atV1, spec: {} }], 'example.com/v1', naming());
    assert.deepEqual(back.spec, { n: 2 }, 'v1 gives its default');
    assert.equal(same, atV1, 'an object already at the version is returned as it is');

    const service = { namespace: 'ops', name: 'converter' };
    const webhook = definitionFromCrd(crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service } } } }));
    assert.deepEqual(webhook.versions.map(v => [v.name, v.served]), [['v1beta1', true], ['v1', true]]);
    assert.deepEqual(await webhook.convert!([stored], 'example.com/v1', naming()), [stored], 'nothing to convert, no call');
    await assert.rejects(webhook.convert!([stored], 'example.com/v1beta1', naming()), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 500);
      assert.match(e.message, /conversion webhook for example.com\/v1, Kind=Foo failed: Post "https:\/\/converter\.ops\.svc:443": this server resolves no service references here/);
      return true;
    });
  });

  test('a terminating CRD takes no new objects; no columns means Age', () => {
    const c = crd();
    c.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    delete c.spec.versions[1]!.additionalPrinterColumns;
    const def = definitionFromCrd(c);
    assert.ok(!def.verbs.includes('create'));
    assert.deepEqual(def.columns!.map(x => [x.name, x.type, x.jsonPath]), [['Age', 'date', '.metadata.creationTimestamp']]);
  });
});

describe('printer column JSONPath', () => {
  const obj = { spec: { a: { b: 1 }, list: [{ name: 'x', v: 1 }, { name: 'y', v: 2 }], 'dotted.key': 'd' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] } };
  test('fields, indexes, wildcards, quoted keys and filters', () => {
    assert.deepEqual(evaluateJsonPath(obj, '.spec.a.b'), [1]);
    assert.deepEqual(evaluateJsonPath(obj, '.spec.list[1].name'), ['y']);
    assert.deepEqual(evaluateJsonPath(obj, '.spec.list[-1].v'), [2]);
    assert.deepEqual(evaluateJsonPath(obj, '.spec.list[*].name'), ['x', 'y']);
    assert.deepEqual(evaluateJsonPath(obj, ".spec['dotted.key']"), ['d']);
    assert.deepEqual(evaluateJsonPath(obj, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(evaluateJsonPath(obj, '{.status.conditions[?(@.type!="Ready")].type}'), ['Synced']);
    assert.deepEqual(evaluateJsonPath(obj, '.spec.missing.x'), []);
    assert.equal(columnCell(obj, '.spec.list[*].v'), '1, 2');
    assert.equal(columnCell(obj, '.spec.none'), undefined);
  });

  test('a cell takes its column\'s type: dates as ages, any value as text in a string column, others only when they are of the type', () => {
    const now = Date.now();
    assert.equal(typedCell('date', new Date(now - 5 * 60_000).toISOString()), '5m');
    assert.equal(typedCell('date', 'yesterday'), '<invalid>');
    assert.equal(typedCell('date', 12345), null);
    assert.equal(typedCell('string', 3), '3');
    assert.equal(typedCell('string', true), 'true');
    assert.equal(typedCell('integer', 7.9), 7);
    assert.equal(typedCell('integer', '7'), null);
    assert.equal(typedCell('number', [1, 2]), null);
    assert.equal(typedCell('boolean', 'yes'), null);
    assert.equal(typedCell('boolean', false), false);
    assert.equal(typedCell('string', undefined), null);
  });
});

describe('CRD strategy', () => {
  test('create sets storedVersions; the first delete adds the cleanup finalizer and Terminating', async () => {
    const c = crd();
    delete c.status;
    await customResourceDefinitions.prepareForCreate!(c, ctx);
    const statusOf = (x: Stored<CustomResourceDefinition>) => x.status;
    assert.deepEqual(statusOf(c)?.storedVersions, ['v1']);
    assert.equal(customResourceDefinitions.pendingFinalizers!(c), true, 'a live CRD always takes the two-phase delete');
    c.metadata.deletionTimestamp = 'now';
    customResourceDefinitions.prepareForDelete!(c);
    assert.deepEqual(c.metadata.finalizers, ['customresourcecleanup.apiextensions.example.io']);
    assert.equal(statusOf(c)?.conditions?.[0]?.type, 'Terminating');
    assert.equal(customResourceDefinitions.pendingFinalizers!(c), true);
    c.metadata.finalizers = [];
    assert.equal(customResourceDefinitions.pendingFinalizers!(c), false);
  });
});
