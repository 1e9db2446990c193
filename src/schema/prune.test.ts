import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { prune } from './prune.js';
import type { Schema } from '../api/schema.js';

describe('prune', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer' } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { x: { type: 'string' } } } } },
          port: { 'x-kubernetes-int-or-string': true },
          inner: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { y: { type: 'string' } } } } },
          empty: { type: 'object' },
        },
      },
    },
  };

  test('drops unknown fields at every level and reports their paths', () => {
    const obj = {
      apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n', labels: { a: 'b' }, bogus: 1 },
      spec: {
        a: 'x', b: 'y',
        list: [{ k: 'v', drop: 1 }],
        map: { one: { v: 1, w: 2 } },
        free: { anything: [1], known: { x: 'x', z: 'z' } },
        port: 80,
        inner: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: true }, spec: { y: 'y', q: 1 }, other: 1 },
        empty: { gone: true },
      },
      extra: true,
    };
    const pruned = prune(schema, obj);
    assert.deepEqual(obj, {
      apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n', labels: { a: 'b' } },
      spec: {
        a: 'x', list: [{ k: 'v' }], map: { one: { v: 1 } }, free: { anything: [1], known: { x: 'x' } }, port: 80,
        inner: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { y: 'y' } },
        empty: {},
      },
    });
    assert.deepEqual(pruned.sort(), [
      'extra', 'metadata.bogus', 'spec.b', 'spec.empty.gone', 'spec.free.known.z', 'spec.inner.metadata.junk', 'spec.inner.other',
      'spec.inner.spec.q', 'spec.list[0].drop', 'spec.map.one.w',
    ]);
  });

  test('a preserving root keeps everything; a non-root value has no type meta of its own', () => {
    const obj = { a: 1, b: { c: 2 } };
    assert.deepEqual(prune({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, obj), []);
    assert.deepEqual(obj, { a: 1, b: { c: 2 } });
    const inner = { kind: 'x', keep: 1 };
    assert.deepEqual(prune({ type: 'object', properties: { keep: { type: 'integer' } } }, inner, false), ['kind']);
  });

  test('fields named after what every JavaScript object inherits are unknown too', () => {
    const obj = JSON.parse('{"apiVersion":"g/v1","kind":"K","metadata":{"name":"n"},"constructor":1,"spec":{"a":"x","toString":2,"__proto__":{"a":"y"},"list":[{"hasOwnProperty":3}]}}');
    assert.deepEqual(prune(schema, obj), ['constructor', 'spec.toString', 'spec.__proto__', 'spec.list[0].hasOwnProperty']);
    assert.equal(JSON.stringify(obj), '{"apiVersion":"g/v1","kind":"K","metadata":{"name":"n"},"spec":{"a":"x","list":[{}]}}');
  });
});
