import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { structuralProblems } from './structural.js';

const problems = (schema: unknown) => structuralProblems(schema, 's').map(c => `${c.field}: ${c.message}`);

describe('structuralProblems', () => {
  test('a structural schema has none', () => {
    assert.deepEqual(problems({
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
        spec: {
          type: 'object',
          properties: {
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            any: { 'x-kubernetes-preserve-unknown-fields': true },
            pod: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
            ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            mode: { type: 'string', default: 'a', enum: ['a', 'b'] },
            either: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] },
          },
          'x-kubernetes-validations': [{ rule: 'self.mode == "a"' }],
        },
      },
    }), []);
  });

  test('missing types, with where they are missing', () => {
    assert.deepEqual(problems({ properties: { a: { type: 'string' } } }), ['s.type: Required value: must not be empty at the root']);
    assert.deepEqual(problems({ type: 'string' }), ['s.type: Invalid value: "string": must be object at the root']);
    assert.deepEqual(problems({ type: 'object', properties: { a: {}, b: { type: 'array', items: {} }, c: { type: 'object', additionalProperties: {} } } }), [
      's.properties[a].type: Required value: must not be empty for specified object fields',
      's.properties[b].items.type: Required value: must not be empty for specified array items',
      's.properties[c].additionalProperties.type: Required value: must not be empty for specified object fields',
    ]);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array' } } }), ['s.properties[a].items: Required value: must be specified']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'map' } } }),
      ['s.properties[a].type: Unsupported value: "map": supported values: "array", "boolean", "integer", "number", "object", "string"']);
  });

  test('structure rules: additionalProperties, metadata, markers', () => {
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }),
      ['s.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive']);
    assert.deepEqual(problems({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }),
      ['s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified']);
    assert.deepEqual(problems({ type: 'object', properties: { kind: { type: 'integer' } } }), ['s.properties[kind].type: Invalid value: "integer": must be string']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } } }),
      ['s.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-int-or-string': true } } }),
      ['s.properties[a].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'object', 'x-kubernetes-embedded-resource': true } } }),
      ['s.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array', uniqueItems: true, items: { type: 'string' } } } }),
      ['s.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { $ref: '#/definitions/x' } } }), [
      's.properties[a].$ref: Forbidden: $ref is not supported',
      's.properties[a].type: Required value: must not be empty for specified object fields',
    ]);
  });

  test('list markers', () => {
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } } } }),
      ['s.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'string' } } } }), [
      's.properties[a].x-kubernetes-list-map-keys: Invalid value: ["k"]: entries must all be names of item properties',
      's.properties[a].items.type: Invalid value: "string": must be object if parent array\'s x-kubernetes-list-type is map',
    ]);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } } } }),
      ['s.properties[a].items.x-kubernetes-map-type: Invalid value: "": must be atomic as item of a list with x-kubernetes-list-type=set']);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } } }),
      ['s.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"']);
  });

  test('value validations carry no structure', () => {
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ type: 'object', properties: { b: { minLength: 1 } } }, { default: 1 }] }), [
      's.anyOf[0].type: Forbidden: must be empty to be structural',
      's.anyOf[0].properties[b]: Required value: must be specified in the structural part of the schema',
      's.anyOf[1].default: Forbidden: must be empty to be structural',
    ]);
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'string' } }, not: { 'x-kubernetes-preserve-unknown-fields': true } }),
      ['s.not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural']);
  });

  test('defaults must be valid and pruned', () => {
    assert.deepEqual(problems({ type: 'object', properties: { n: { type: 'integer', default: 'x' } } }),
      ['s.properties[n].default: Invalid value: "string": s.properties[n].default in body must be of type integer: "string"']);
    assert.deepEqual(problems({ type: 'object', properties: { o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 1 } } } }),
      ['s.properties[o].default: Invalid value: {"a":"x","b":1}: must not have unknown fields: "b"']);
    assert.deepEqual(problems({ type: 'object', properties: { o: { type: 'object', required: ['a'], properties: { a: { type: 'string', default: 'x' } }, default: {} } } }), [],
      'nested defaults apply before the default is checked');
  });

  test('a missing schema', () => {
    assert.deepEqual(problems(undefined), ['s: Required value: schemas are required']);
  });

  test('patterns must be RE2, the syntax the reference matches with', () => {
    assert.deepEqual(problems({ type: 'object', properties: { a: { type: 'string', pattern: '^(?i)[a-z]+$' } } }), []);
    assert.deepEqual(problems({
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?=a)a' }, b: { type: 'string', pattern: '(a)\\1' }, c: { type: 'string' } },
      allOf: [{ properties: { c: { pattern: '+' } } }],
    }), [
      's.properties[a].pattern: Invalid value: "(?=a)a": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
      's.properties[b].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn\'t: error parsing regexp: invalid escape sequence: `\\1`',
      's.allOf[0].properties[c].pattern: Invalid value: "+": must be a valid regular expression, but isn\'t: error parsing regexp: missing argument to repetition operator: `+`',
    ]);
  });
});
