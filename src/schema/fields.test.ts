// The typed reading of a body: wrong types and formats reported with their paths (at any depth, in maps and lists),
// unknown fields dropped, quantities made canonical, and a map of many scalars read in time linear in its size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../api/schema.js';
import { canonicalForm, inexactIntegers, readTyped, scanBodyText } from './fields.js';

const schema: Schema = {
  type: 'object',
  properties: {
    count: { type: 'integer', format: 'int32' },
    when: { type: 'string', format: 'date-time' },
    data: { type: 'object', additionalProperties: { type: 'string' } },
    bytes: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    limits: { type: 'object', additionalProperties: { type: 'string', format: 'quantity' } },
    items: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', format: 'int32' } } } },
  },
};

test('wrong types and formats are reported at their paths; unknown fields dropped; quantities canonical', () => {
  const value = { count: 2 ** 40, when: 'garbage', data: { a: 'x', b: 7, '': true }, bytes: { ok: 'eA==', bad: 'e!' },
    limits: { cpu: '0.5' }, items: [{ n: 'one' }, null], extra: 1 };
  const { unknown, wrongTypes } = readTyped(schema, value, { canonicalQuantities: true });
  assert.deepEqual(unknown, ['extra']);
  assert.deepEqual(wrongTypes, [
    'count: expected int32, got number 1099511627776',
    'when: parsing time "garbage" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time',
    'data.b: expected string, got integer',
    'data.: expected string, got boolean',
    'bytes.bad: illegal base64 data at input byte 1',
    'items[0].n: expected integer, got string',
  ]);
  assert.equal(value.limits.cpu, '500m');
  assert.deepEqual(value.items[1], {});
  assert.ok(!('extra' in value));
  assert.deepEqual(readTyped(schema, 'x').wrongTypes, ['<root>: expected object, got string']);
});

test('null entries of scalar lists and maps read as their zero values when asked, as the reference decodes them', () => {
  const s: Schema = { type: 'object', properties: {
    names: { type: 'array', items: { type: 'string' } }, counts: { type: 'array', items: { type: 'integer' } },
    flags: { type: 'object', additionalProperties: { type: 'boolean' } }, labels: { type: 'object', additionalProperties: { type: 'string' } },
    items: { type: 'array', items: { type: 'object' } }, note: { type: 'string' },
  } };
  const body = () => ({ names: [null, 'a'], counts: [null], flags: { on: null }, labels: { a: null }, items: [null], note: null });
  const zeroed = body();
  assert.deepEqual(readTyped(s, zeroed, { zeroNulls: true }), { unknown: [], wrongTypes: [] });
  assert.deepEqual(zeroed, { names: ['', 'a'], counts: [0], flags: { on: false }, labels: { a: '' }, items: [{}], note: null });
  // without: only a list's null objects become empty objects
  const kept = body();
  readTyped(s, kept);
  assert.deepEqual(kept, { ...body(), items: [{}] });
});

test('reading a map of many scalars grows linearly with its keys', () => {
  const doc = (n: number) => ({ data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`])) });
  const best = (n: number) => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) { const v = doc(n); const t = performance.now(); readTyped(schema, v, { canonicalQuantities: true }); min = Math.min(min, performance.now() - t); }
    return min;
  };
  best(40_000);
  let small = Infinity, large = Infinity;
  for (let round = 0; round < 3; round++) { small = Math.min(small, best(5_000)); large = Math.min(large, best(80_000)); }
  // sixteen times the keys: about sixteen times the time when linear, 256 when quadratic; the bound sits far from both,
  // as a busy machine's pauses fall more on the larger reading (one run at load 5-15 saw 59x for eight times the keys)
  assert.ok(large / small < 100, `5,000 keys ${small.toFixed(1)} ms, 80,000 keys ${large.toFixed(1)} ms`);
});

test('empty optional lists and maps are left out when asked; filled ones, and structs, stay', () => {
  const withStruct: Schema = { ...schema, properties: { ...schema.properties, struct: { type: 'object', properties: { a: { type: 'string' } } } } };
  const value: Record<string, unknown> = { data: {}, bytes: { k: 'eA==' }, items: [], limits: {}, struct: {} };
  readTyped(withStruct, value, { omitEmpty: true });
  assert.deepEqual(value, { bytes: { k: 'eA==' }, struct: {} });
});

test('an object read for comparison has canonical quantities: a copy where one is not, the object itself otherwise', () => {
  const cyclic: Schema = { type: 'object', properties: { limits: schema.properties!.limits } };
  cyclic.properties!.self = cyclic;
  const other = { limits: { cpu: '0.5' }, self: { limits: { memory: '1Gi' } } };
  const copy = canonicalForm(cyclic, other);
  assert.notEqual(copy, other);
  assert.deepEqual(copy, { limits: { cpu: '500m' }, self: { limits: { memory: '1Gi' } } });
  const deep = { self: { self: { limits: { cpu: '0.25' } } } };
  assert.deepEqual(canonicalForm(cyclic, deep), { self: { self: { limits: { cpu: '250m' } } } });
  const plain = { data: { a: '0.5' }, limits: { cpu: '500m' } };
  assert.equal(canonicalForm(schema, plain), plain);
});

test('an int64 field that read as 2^63 (the largest int64 as a double) keeps the largest double that is an int64', () => {
  const schema: Schema = { type: 'object', properties: { grace: { type: 'integer', format: 'int64' }, small: { type: 'integer', format: 'int64' } } };
  const value = JSON.parse('{"grace":9223372036854775807,"small":-9223372036854775808}') as { grace: number; small: number };
  const { wrongTypes } = readTyped(schema, value);
  assert.deepEqual(wrongTypes, []);
  assert.equal(value.grace, 9223372036854774784);
  assert.ok(BigInt(value.grace) <= (1n << 63n) - 1n, 'a Go int64 holds it');
  assert.equal(value.small, -(2 ** 63), 'the smallest int64 is exact as a double');
});

test('integer fields written with a fraction or an exponent are refused whatever their value, as the reference decodes JSON', () => {
  const fractionalIntegers = (s: Schema | undefined, text: string) => scanBodyText(text, { duplicates: false, integersOf: s }).fractionalIntegers;
  const s: Schema = { type: 'object', properties: { ...schema.properties,
    port: { type: 'string', format: 'int-or-string' }, ratio: { type: 'number' }, raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
  assert.deepEqual(fractionalIntegers(s, '{"count":1.0,"items":[{"n":2},{"n":1e3}],"port":8E1,"ratio":1.0,"raw":{"count":1.0},"data":{"v":"1.0"}}'),
    ['count: expected int32, got number 1.0', 'items[1].n: expected int32, got number 1e3', 'port: expected int or string, got number 8E1']);
  // past 2^53, where JSON.parse rounds to a whole number
  assert.deepEqual(fractionalIntegers(s, '{"count":9007199254740993.5,"items":[{"n":-0.0}]}'),
    ['count: expected int32, got number 9007199254740993.5', 'items[0].n: expected int32, got number -0.0']);
  // whole numbers, and numbers that are not whole (a wrong type the typed reading reports), are left to it
  assert.deepEqual(fractionalIntegers(s, '{"count":1,"items":[{"n":-20}],"port":"1.5"}'), []);
  assert.deepEqual(fractionalIntegers(s, '{"count":1.5}'), []);
  assert.deepEqual(fractionalIntegers(undefined, '{"count":1.0}'), []);
  // duplicates in the same pass, when asked for
  assert.deepEqual(scanBodyText('{"count":1.0,"items":[{"n":1,"n":2}],"count":2}', { duplicates: true, integersOf: s }),
    { duplicates: ['duplicate field "items[0].n"', 'duplicate field "count"'], fractionalIntegers: ['count: expected int32, got number 1.0'] });
  assert.deepEqual(scanBodyText('{"count":1,"count":2}', { duplicates: false, integersOf: s }), { duplicates: [], fractionalIntegers: [] });
});

test('integers that a double would round but an int64 holds are found with their paths; strings, fractions and exact ones are not', () => {
  assert.deepEqual(inexactIntegers('{"a":9007199254740992,"b":[1,-9007199254740993],"c":{"d":9223372036854775807}}'),
    ['a: 9007199254740992', 'b[1]: -9007199254740993', 'c.d: 9223372036854775807']);
  assert.deepEqual(inexactIntegers('9223372036854775808'), [], 'past int64 the reference reads a double as well');
  assert.deepEqual(inexactIntegers('[-9223372036854775808, -9223372036854775809]'), ['[0]: -9223372036854775808']);
  assert.deepEqual(inexactIntegers('{"s":"12345678901234567890","f":12345678901234567890.5,"e":1234567890123456789e0,"ok":9007199254740991}'), []);
  // a literal of three million digits is past int64 by its length alone: no BigInt is read from it
  const read: number[] = [];
  const nativeBigInt = globalThis.BigInt;
  globalThis.BigInt = Object.assign((v: string) => { read.push(String(v).length); return nativeBigInt(v); }, nativeBigInt);
  try {
    assert.deepEqual(inexactIntegers(`{"n":${'9'.repeat(3_000_000)},"m":9007199254740993}`), ['m: 9007199254740993']);
  } finally {
    globalThis.BigInt = nativeBigInt;
  }
  assert.deepEqual(read, [16]);
  // text without 16 digits in a row is not scanned at all
  assert.deepEqual(inexactIntegers('{"a":123456789012345}'), []);
});

test('times are written back as the reference writes its typed objects\': in UTC, a Time to the second, a MicroTime to the microsecond', () => {
  const time: Schema = { type: 'string', format: 'date-time', 'x-ref': 'io.k8s.apimachinery.pkg.apis.meta.v1.Time' };
  const micro: Schema = { type: 'string', format: 'date-time', 'x-ref': 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime' };
  const s: Schema = { type: 'object', properties: { first: time, event: micro, renew: micro, last: time, times: { type: 'array', items: time } } };
  const written = () => ({ first: '2026-11-29T03:00:58.7+01:00', event: '2026-11-29T03:00:58.5+01:00', renew: '2026-11-29T03:00:58.123456789Z',
    last: '2026-12-31T23:59:59-01:00', times: ['2026-11-29T03:00:58Z', '0001-01-01T00:30:00+01:00'] });
  const value = written();
  assert.deepEqual(readTyped(s, value, { canonicalTimes: true }).wrongTypes, []);
  assert.deepEqual(value, { first: '2026-11-29T02:00:58Z', event: '2026-11-29T02:00:58.500000Z', renew: '2026-11-29T03:00:58.123456Z',
    last: '2027-01-01T00:59:59Z', times: ['2026-11-29T03:00:58Z', '0000-12-31T23:30:00Z'] });
  // a custom resource's times stay as written, as the reference keeps them
  const kept = written();
  readTyped(s, kept);
  assert.deepEqual(kept, written());
});
