import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from './defaults.js';
import type { Schema } from '../api/schema.js';

describe('applyDefaults', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', default: 1 },
          mode: { type: 'string', default: 'auto' },
          maybe: { type: 'string', nullable: true, default: 'x' },
          nested: { type: 'object', properties: { on: { type: 'boolean', default: true } } },
          withDefault: { type: 'object', default: {}, properties: { level: { type: 'integer', default: 3 } } },
          list: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { weight: { type: 'integer', default: 5 } } } },
          gone: { type: 'string' },
        },
      },
    },
  };

  test('absent fields take their defaults; nested objects only when they exist; defaults are defaulted', () => {
    const obj: any = { spec: { replicas: 4, list: [{}, { port: 8080 }], map: { a: {} } } };
    applyDefaults(schema, obj);
    assert.deepEqual(obj.spec, {
      replicas: 4, mode: 'auto', maybe: 'x', withDefault: { level: 3 },
      list: [{ port: 80 }, { port: 8080 }], map: { a: { weight: 5 } },
    });
    assert.equal(obj.spec.nested, undefined, 'an absent object without a default stays absent');
  });

  test('null where null is not allowed: defaulted, or dropped; allowed nulls stay', () => {
    const obj: any = { spec: { replicas: null, maybe: null, gone: null, nested: {} } };
    applyDefaults(schema, obj);
    assert.equal(obj.spec.replicas, 1);
    assert.equal(obj.spec.maybe, null);
    assert.ok(!('gone' in obj.spec));
    assert.deepEqual(obj.spec.nested, { on: true });
  });

  test('no spec at all: nothing is created', () => {
    const obj: any = { metadata: {} };
    applyDefaults(schema, obj);
    assert.deepEqual(obj, { metadata: {} });
  });

  test('defaults are copies', () => {
    const s: Schema = { type: 'object', properties: { a: { type: 'object', default: { x: [1] } } } };
    const one: any = {}, two: any = {};
    applyDefaults(s, one); applyDefaults(s, two);
    one.a.x.push(2);
    assert.deepEqual(two.a.x, [1]);
  });
});
