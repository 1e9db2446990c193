import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { validateValue, type ValidationSchema } from './validate.js';

const fields = (s: ValidationSchema, v: unknown) => validateValue(s, v).map(c => `${c.field}: ${c.message}`);

describe('validateValue', () => {
  const spec: ValidationSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object', required: ['size'],
        properties: {
          size: { type: 'string', enum: ['s', 'm'] },
          replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 5 },
          ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true, multipleOf: 0.25 },
          name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
          maybe: { type: 'string', nullable: true },
          never: { type: 'string' },
          port: { 'x-kubernetes-int-or-string': true },
          when: { type: 'string', format: 'date-time' },
          items: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'integer' } },
          labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
        },
      },
    },
  };

  test('types, with the reference message', () => {
    assert.deepEqual(validateValue(spec, { spec: { size: 's', replicas: 'x' } }), [{
      reason: 'FieldValueTypeInvalid', field: 'spec.replicas',
      message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    }]);
    assert.deepEqual(fields(spec, { spec: { size: 's', replicas: 1.5 } }), ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']);
    assert.deepEqual(fields(spec, { spec: 'x' }), ['spec: Invalid value: "string": spec in body must be of type object: "string"']);
  });

  test('required, enum, bounds, lengths, pattern', () => {
    assert.deepEqual(fields(spec, { spec: {} }), ['spec.size: Required value']);
    assert.deepEqual(fields(spec, { spec: { size: 'x', replicas: 0 } }), [
      'spec.size: Unsupported value: "x": supported values: "s", "m"',
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    ]);
    assert.deepEqual(fields(spec, { spec: { size: 's', replicas: 6, ratio: 1 } }), [
      'spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5',
      'spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1',
    ]);
    assert.deepEqual(fields(spec, { spec: { size: 's', ratio: 0 } }), ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0']);
    assert.deepEqual(fields(spec, { spec: { size: 's', ratio: 0.3 } }), ['spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25']);
    assert.deepEqual(fields(spec, { spec: { size: 's', name: 'a' } }), ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long']);
    assert.deepEqual(fields(spec, { spec: { size: 's', name: 'abcde' } }), ['spec.name: Too long: may not be longer than 4']);
    assert.deepEqual(fields(spec, { spec: { size: 's', name: 'AB' } }), ["spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'"]);
  });

  test('nullable, int-or-string, formats', () => {
    assert.deepEqual(fields(spec, { spec: { size: 's', maybe: null } }), []);
    assert.deepEqual(fields(spec, { spec: { size: 's', never: null } }), ['spec.never: Invalid value: "null": spec.never in body must be of type string: "null"']);
    assert.deepEqual(fields(spec, { spec: { size: 's', port: 80 } }), []);
    assert.deepEqual(fields(spec, { spec: { size: 's', port: 'http' } }), []);
    assert.deepEqual(fields(spec, { spec: { size: 's', port: 1.5 } }), ['spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"']);
    assert.deepEqual(fields(spec, { spec: { size: 's', when: '2024-01-02T03:04:05Z' } }), []);
    assert.deepEqual(fields(spec, { spec: { size: 's', when: 'soon' } }), ['spec.when: Invalid value: "soon": spec.when in body must be of type date-time: "soon"']);
    assert.deepEqual(fields(spec, { spec: { size: 's', replicas: 2 ** 31 } }).length, 2, 'above maximum and outside int32');
  });

  test('arrays and maps', () => {
    assert.deepEqual(fields(spec, { spec: { size: 's', items: [] } }), ['spec.items: Invalid value: 0: spec.items in body should have at least 1 items']);
    assert.deepEqual(fields(spec, { spec: { size: 's', items: [1, 2, 3] } }), ['spec.items: Too many: 3: must have at most 2 items']);
    assert.deepEqual(fields(spec, { spec: { size: 's', items: [1, 'x'] } }), ['spec.items[1]: Invalid value: "string": spec.items[1] in body must be of type integer: "string"']);
    assert.deepEqual(fields(spec, { spec: { size: 's', labels: { a: 1 } } }), ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"']);
    assert.deepEqual(fields(spec, { spec: { size: 's', labels: { a: 'x', b: 'y' } } }), ['spec.labels: Too many: 2: must have at most 1 items']);
  });

  test('list types set and map; uniqueItems', () => {
    const set: ValidationSchema = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
    assert.deepEqual(fields(set, ['a', 'b', 'a']), ['[2]: Duplicate value: "a"']);
    const map: ValidationSchema = {
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'proto'],
      items: { type: 'object', properties: { name: { type: 'string' }, proto: { type: 'string' }, n: { type: 'integer' } } },
    };
    assert.deepEqual(fields(map, [{ name: 'a', proto: 'tcp' }, { name: 'a', proto: 'udp' }]), []);
    assert.deepEqual(fields(map, [{ name: 'a', proto: 'tcp', n: 1 }, { name: 'a', proto: 'tcp', n: 2 }]), ['[1]: Duplicate value: {"name":"a","proto":"tcp"}']);
    assert.equal(fields({ type: 'array', uniqueItems: true, items: { type: 'object' } }, [{ a: 1 }, { a: 1 }]).length, 1);
  });

  test('embedded resources need apiVersion and kind', () => {
    const s: ValidationSchema = { type: 'object', properties: { t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } };
    assert.deepEqual(fields(s, { t: { metadata: {} } }), ['t.apiVersion: Required value: must not be empty', 't.kind: Required value: must not be empty']);
    assert.deepEqual(fields(s, { t: { apiVersion: 'v1', kind: 'Pod' } }), []);
  });

  test('allOf, anyOf, oneOf, not', () => {
    const s: ValidationSchema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
      not: { required: ['a', 'b'] },
    };
    assert.deepEqual(fields(s, { a: 1 }), []);
    assert.deepEqual(fields(s, {}), [': Invalid value: {}: <root> in body must validate at least one schema (anyOf)']);
    assert.equal(fields(s, { a: 1, b: 2 }).length, 1);
    const one: ValidationSchema = { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] };
    assert.equal(fields(one, 5).length, 1);
    assert.equal(fields(one, 20).length, 0);
  });

  test('patterns match as RE2 does: its syntax, and time linear in the value', () => {
    const s = (pattern: string): ValidationSchema => ({ type: 'object', properties: { a: { type: 'string', pattern } } });
    // flags are RE2 syntax that JavaScript's expressions refuse
    assert.deepEqual(fields(s('^(?i)abc$'), { a: 'ABC' }), []);
    assert.deepEqual(fields(s('^(?i)abc$'), { a: 'abd' }), ["a: Invalid value: \"abd\": a in body should match '^(?i)abc$'"]);
    // a backtracking engine takes 2^n steps on this pattern (it would not finish here); RE2 takes n
    const value = `${'a'.repeat(10_000)}!`;
    assert.deepEqual(fields(s('^(a+)+$'), { a: value }), [`a: Invalid value: "${value}": a in body should match '^(a+)+$'`]);
  });
});

test('set and uniqueItems duplicates: equal JSON values whatever their key order, found in one pass', () => {
  const set: ValidationSchema = { type: 'array', 'x-kubernetes-list-type': 'set', items: { 'x-kubernetes-preserve-unknown-fields': true } };
  assert.deepEqual(fields(set, [{ a: 1, b: [2] }, { b: [2], a: 1 }, { a: 1, b: [3] }, '1', 1]), ['[1]: Duplicate value: {"b":[2],"a":1}']);
  const unique: ValidationSchema = { type: 'array', uniqueItems: true, items: { type: 'integer' } };
  assert.equal(fields(unique, [1, 2, 1]).length, 1);
  assert.deepEqual(fields(unique, [1, 2, 3]), []);
  // 200,000 distinct items: a pairwise comparison would take minutes
  const big = Array.from({ length: 200_000 }, (_, i) => `t${i}`);
  assert.deepEqual(fields({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, big), []);
});
