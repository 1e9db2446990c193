import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateFields } from './fields.js';

test('duplicateFields names each repeated key with its path, through objects and arrays', () => {
  assert.deepEqual(duplicateFields('{"a":1,"b":{"c":"x","c":"y"},"a":2}'), ['duplicate field "b.c"', 'duplicate field "a"']);
  assert.deepEqual(duplicateFields('{"spec":{"containers":[{"name":"a"},{"name":"b","name":"c"}]}}'),
    ['duplicate field "spec.containers[1].name"']);
  assert.deepEqual(duplicateFields('[[{"k":1,"k":2}]]'), ['duplicate field "[0][0].k"']);
  assert.deepEqual(duplicateFields('{"[0]":{"x":1,"x":1}}'), ['duplicate field "[0].x"'], 'a key that looks like an index is a key');
});

test('duplicateFields decodes escaped keys and skips strings that hold braces, quotes or escapes', () => {
  assert.deepEqual(duplicateFields('{"a\\u0062":1,"ab":2}'), ['duplicate field "ab"']);
  assert.deepEqual(duplicateFields('{"s":"{\\"s\\":1,\\"s\\":2}","t":"\\\\","t2":"]"}'), []);
  assert.deepEqual(duplicateFields(' { "a" : [ 1 , "x" , null ] , "b" : { } , "a" : true } '), ['duplicate field "a"']);
  assert.deepEqual(duplicateFields('{"a":1}'), []);
  assert.deepEqual(duplicateFields(''), []);
});
