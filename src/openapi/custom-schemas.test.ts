import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../api/schema.js';
import { publishedCustomSchema } from './custom-schemas.js';

const spec = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Schema =>
  ({ type: 'object', properties: { spec: { type: 'object', properties, ...extra } } }) as Schema;
const specOf = (s: Schema) => s.properties!.spec as Schema & Record<string, unknown>;

describe('custom resource schemas as published', () => {
  test('v2: what keeps unknown fields names none, so kubectl validation lets them through', () => {
    const s = spec({
      open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
      closed: { type: 'object', properties: { b: { type: 'string' } } },
    });
    const p = specOf(publishedCustomSchema(s, true)).properties!;
    assert.deepEqual(p.open, { 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(p.list, { 'x-kubernetes-preserve-unknown-fields': true });
    assert.deepEqual(p.closed, { type: 'object', properties: { b: { type: 'string' } } });
    // the v3 document keeps the schema as written
    assert.deepEqual(specOf(publishedCustomSchema(s, false)).properties!.open, (s.properties!.spec as Schema).properties!.open);
  });

  test('v2: a kind that keeps unknown fields is only an object', () => {
    const s = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object' } } } as Schema;
    assert.deepEqual(publishedCustomSchema(s, true), { type: 'object' });
    assert.deepEqual(publishedCustomSchema(s, false).properties, s.properties);
  });

  test('v2: nullable values have no type and are not required; junctors are left out', () => {
    const s = spec({
      maybe: { type: 'string', nullable: true },
      must: { type: 'string' },
      choice: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }], not: { pattern: '^c' } },
    }, { required: ['maybe', 'must'] });
    const v2 = specOf(publishedCustomSchema(s, true));
    assert.deepEqual(v2.properties!.maybe, {});
    assert.deepEqual(v2.required, ['must']);
    assert.deepEqual(v2.properties!.choice, { type: 'string' });
    const v3 = specOf(publishedCustomSchema(s, false));
    assert.deepEqual(v3.properties!.maybe, { type: 'string', nullable: true });
    assert.deepEqual(v3.required, ['maybe', 'must']);
    assert.ok((v3.properties!.choice as Record<string, unknown>).anyOf);
  });

  test('embedded resources declare apiVersion, kind and metadata, except in v2 where they keep unknown fields', () => {
    const s = spec({
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      loose: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    });
    for (const v2 of [true, false]) {
      const p = specOf(publishedCustomSchema(s, v2)).properties!;
      assert.deepEqual(Object.keys(p.template.properties!), ['spec', 'apiVersion', 'kind', 'metadata']);
      assert.deepEqual(p.template.required, ['kind', 'apiVersion']);
      assert.equal(p.template.properties!.metadata['x-ref'], 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
      if (v2) assert.equal(p.loose.properties, undefined);
      else assert.deepEqual(Object.keys(p.loose.properties!), ['apiVersion', 'kind', 'metadata']);
    }
    // the CRD's own schema is left as it was
    assert.deepEqual(Object.keys((s.properties!.spec as Schema).properties!.template.properties!), ['spec']);
  });

  test('v3: int-or-string values are one of an integer or a string, as the reference unfolds them; v2 leaves that out', () => {
    const s = spec({
      plain: { 'x-kubernetes-int-or-string': true },
      spelled: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      other: { 'x-kubernetes-int-or-string': true, anyOf: [{ pattern: '^a' }, { type: 'integer' }] },
    });
    const p = specOf(publishedCustomSchema(s, false)).properties! as Record<string, Record<string, unknown>>;
    assert.deepEqual(p.plain, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    assert.deepEqual(p.spelled, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    assert.deepEqual(p.other.allOf, [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }]);
    assert.deepEqual(p.other.anyOf, [{ pattern: '^a' }, { type: 'integer' }]);
    assert.deepEqual(specOf(publishedCustomSchema(s, true)).properties!.plain, { 'x-kubernetes-int-or-string': true });
  });
});
