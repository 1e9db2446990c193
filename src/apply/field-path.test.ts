import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareElements, fieldElement, indexElement, keyElement, sortElements, valueElement } from './field-path.js';

const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', 'a"b', 'a#', '<', 'é'), fc.boolean(), fc.constant(null));
const element = fc.oneof(
  fc.constantFrom('a', 'b', 'Z', 'a.b').map(fieldElement),
  fc.integer({ min: 0, max: 12 }).map(indexElement),
  fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.constantFrom('x', 'y'), scalar)).map(valueElement),
  fc.uniqueArray(fc.tuple(fc.constantFrom('name', 'port', 'protocol'), scalar), { minLength: 1, maxLength: 3, selector: ([n]) => n })
    .map((fields) => keyElement(fields as [string, unknown][])),
);

test('sortElements orders as comparing elements one pair at a time does', () => {
  fc.assert(fc.property(fc.uniqueArray(element, { maxLength: 30 }), (pes) => {
    assert.deepEqual(sortElements(pes), [...pes].sort(compareElements));
  }), { numRuns: 500 });
});

test('fields, then keys, then values, then indexes; indexes by number, values by type then value', () => {
  assert.deepEqual(sortElements(['i:10', 'v:"b"', 'i:9', 'k:{"port":2}', 'f:z', 'v:1', 'k:{"name":"a","port":1}', 'f:a', 'v:true']),
    ['f:a', 'f:z', 'k:{"name":"a","port":1}', 'k:{"port":2}', 'v:1', 'v:"b"', 'v:true', 'i:9', 'i:10']);
});
