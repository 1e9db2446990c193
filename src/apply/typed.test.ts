import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toFieldsV1 } from './field-set.js';
import { paths } from './field-set.js';
import { merge, prune } from './merge.js';
import { fromFieldsV1 } from './field-set.js';
import * as S from './test-schemas.js';
import { compare, InvalidObjectError, toFieldSet } from './typed.js';

const fields = (o: unknown, schema = S.deployment) => toFieldsV1(toFieldSet(o, schema));

describe('fields an object sets', () => {
  test('declared struct fields are owned through their leaves; list entries and map keys own themselves', () => {
    const d = {
      metadata: { name: 'd', labels: { app: 'x' }, finalizers: ['a'] },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: { spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], args: ['-v'], env: [{ name: 'E', value: '1' }] }], nodeSelector: { zone: 'a' } } },
      },
    };
    assert.deepEqual(fields(d), {
      'f:metadata': { 'f:finalizers': { 'v:"a"': {} }, 'f:labels': { 'f:app': {} }, 'f:name': {} },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': {
                'f:args': {},
                'f:env': { 'k:{"name":"E"}': { 'f:name': {}, 'f:value': {}, '.': {} } },
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { 'f:containerPort': {}, '.': {} } },
                '.': {},
              },
            },
            'f:nodeSelector': {},
          },
        },
      },
    });
  });

  test('empty maps and nulls are owned; an empty granular list under a declared field sets nothing', () => {
    assert.deepEqual(fields({ metadata: { labels: {}, annotations: null, finalizers: [] } }), { 'f:metadata': { 'f:annotations': {}, 'f:labels': {} } });
  });

  test('unstructured values: every key a field, lists atomic', () => {
    const cr = { spec: { a: { b: 1 }, list: [{ x: 1 }], s: 'v' } };
    assert.deepEqual(fields(cr, S.unstructuredResource), { 'f:spec': { 'f:a': { 'f:b': {}, '.': {} }, 'f:list': {}, 'f:s': {} } });
    assert.deepEqual(fields(cr, undefined as never), { 'f:spec': { 'f:a': { 'f:b': {}, '.': {} }, 'f:list': {}, 'f:s': {} } });
  });

  test('list-map entries need their keys; sets refuse maps', () => {
    assert.throws(() => toFieldSet({ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, S.deployment), InvalidObjectError);
    assert.throws(() => toFieldSet({ metadata: { finalizers: [{ a: 1 }] } }, S.configMap), InvalidObjectError);
  });
});

describe('comparison', () => {
  test('added containers report the container and its leaves; changed leaves are modified', () => {
    const before = { spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } };
    const after = { spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'y' }, { name: 'b', image: 'z' }] } } } };
    const c = compare(before, after, S.deployment);
    const cs = ['f:spec', 'f:template', 'f:spec', 'f:containers'];
    assert.deepEqual(paths(c.modified), [['f:spec', 'f:replicas'], [...cs, 'k:{"name":"a"}', 'f:image']]);
    assert.deepEqual(paths(c.added), [[...cs, 'k:{"name":"b"}'], [...cs, 'k:{"name":"b"}', 'f:image'], [...cs, 'k:{"name":"b"}', 'f:name']]);
    assert.deepEqual(paths(c.removed), []);
  });

  test('a removed map reports the map and its keys; atomic values are compared whole', () => {
    const c = compare({ metadata: { labels: { a: '1' } }, spec: { selector: { matchLabels: { a: '1' } } } }, { spec: { selector: { matchLabels: { a: '2' } } } }, S.deployment);
    assert.deepEqual(paths(c.removed), [['f:metadata'], ['f:metadata', 'f:labels'], ['f:metadata', 'f:labels', 'f:a']]);
    assert.deepEqual(paths(c.modified), [['f:spec', 'f:selector']]);
  });

  test('{} and absent differ; a key held twice is compared as one piece', () => {
    assert.deepEqual(paths(compare({}, { metadata: { labels: {} } }, S.configMap).added), [['f:metadata'], ['f:metadata', 'f:labels']]);
    const dup = { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }, { name: 'a', image: '2' }] } } } };
    const c = compare(dup, { spec: { template: { spec: { containers: [{ name: 'a', image: '1' }] } } } }, S.deployment);
    assert.deepEqual(paths(c.modified), [['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}']]);
  });
});

describe('merge', () => {
  const containers = (...cs: object[]) => ({ spec: { template: { spec: { containers: cs } } } });
  const names = (o: unknown) => ((o as ReturnType<typeof containers>).spec.template.spec.containers as { name: string }[]).map((c) => c.name);

  test('list maps merge by key: applied order for shared entries, live-only entries stay in place', () => {
    const live = containers({ name: 'a', image: '1' }, { name: 'x' }, { name: 'b', image: '2' });
    const out = merge(live, containers({ name: 'b', image: '3' }, { name: 'a' }, { name: 'new' }), S.deployment);
    assert.deepEqual(names(out), ['x', 'b', 'a', 'new']);
    assert.deepEqual((out as ReturnType<typeof containers>).spec.template.spec.containers[1], { name: 'b', image: '3' });
    assert.deepEqual((out as ReturnType<typeof containers>).spec.template.spec.containers[2], { name: 'a', image: '1' });
  });

  test('sets union, atomic lists and maps are replaced, granular maps merge, null clears', () => {
    const live = { metadata: { finalizers: ['a', 'b'], labels: { x: '1', y: '2' } }, spec: { template: { spec: { nodeSelector: { z: '1' }, containers: [{ name: 'c', args: ['1', '2'] }] } } } };
    const applied = { metadata: { finalizers: ['c', 'a'], labels: { y: null, w: '3' } }, spec: { template: { spec: { nodeSelector: { q: '2' }, containers: [{ name: 'c', args: ['3'] }] } } } };
    assert.deepEqual(merge(live, applied, S.deployment), {
      metadata: { finalizers: ['c', 'a', 'b'], labels: { x: '1', w: '3' } },
      spec: { template: { spec: { nodeSelector: { q: '2' }, containers: [{ name: 'c', args: ['3'] }] } } },
    });
  });

  test('the live object is not modified, untouched subtrees are shared', () => {
    const live = { metadata: { labels: { a: '1' } }, data: { k: 'v' } };
    const frozen = JSON.stringify(live);
    const out = merge(live, { data: { k: 'w' } }, S.configMap) as typeof live;
    assert.equal(JSON.stringify(live), frozen);
    assert.equal(out.metadata, live.metadata);
  });

  test('duplicate keys in the applied list are refused', () => {
    assert.throws(() => merge(containers({ name: 'a' }), containers({ name: 'b' }, { name: 'b' }), S.deployment), /duplicate entries/);
  });
});

describe('prune', () => {
  test('fields the applier owned last time and nobody owns now go; co-owned ones stay', () => {
    const obj = { data: { a: '1', b: '2', c: '3' } };
    const last = fromFieldsV1({ 'f:data': { 'f:a': {}, 'f:b': {}, 'f:c': {} } });
    const now = fromFieldsV1({ 'f:data': { 'f:a': {} } });
    const other = fromFieldsV1({ 'f:data': { 'f:c': {} } });
    assert.deepEqual(prune(obj, S.configMap, last, [now, other]), { data: { a: '1', c: '3' } });
  });

  test('a list entry goes with its unowned children; an emptied map goes unless owned as such', () => {
    const obj = { metadata: { labels: { a: '1' } }, spec: { template: { spec: { containers: [{ name: 'a', image: 'x', terminationMessagePath: '/d' }, { name: 'b' }] } } } };
    const last = fromFieldsV1({ 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:image': {} }, 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } } } } });
    const now = fromFieldsV1({ 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } } } } });
    assert.deepEqual(prune(obj, S.deployment, last, [now]), { spec: { template: { spec: { containers: [{ name: 'b' }] } } } });
    const labelsOwner = fromFieldsV1({ 'f:metadata': { 'f:labels': {} } });
    assert.deepEqual((prune(obj, S.deployment, last, [now, labelsOwner]) as typeof obj).metadata, { labels: {} });
  });
});
