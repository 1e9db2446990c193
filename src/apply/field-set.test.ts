import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareElements, elementString, fieldElement, goJSON, indexElement, keyElement, pathString, valueElement } from './field-path.js';
import {
  difference, equals, fromFieldsV1, has, insert, intersection, isEmpty, paths, recursiveDifference, setOf, size, toFieldsV1, union,
} from './field-set.js';

describe('path elements', () => {
  test('spellings match fieldsV1 keys', () => {
    assert.equal(fieldElement('spec'), 'f:spec');
    assert.equal(indexElement(3), 'i:3');
    assert.equal(valueElement('x'), 'v:"x"');
    assert.equal(valueElement(42), 'v:42');
    assert.equal(valueElement(true), 'v:true');
  });

  test('key fields are sorted by name whatever the schema order', () => {
    assert.equal(keyElement([['protocol', 'TCP'], ['containerPort', 80]]), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(keyElement([['name', 'c']]), 'k:{"name":"c"}');
  });

  test('JSON escapes HTML characters and sorts map keys, as the reference encoder does', () => {
    assert.equal(goJSON('a<b>&c'), '"a\\u003cb\\u003e\\u0026c"');
    assert.equal(goJSON({ b: 1, a: [{ d: 1, c: 2 }] }), '{"a":[{"c":2,"d":1}],"b":1}');
  });

  test('ordering: fields, then keys, then values (numbers, strings, booleans), then indexes', () => {
    const shuffled = ['i:2', 'v:true', 'v:"ab"', 'k:{"port":443,"protocol":"udp"}', 'f:b', 'v:3', 'i:10', 'k:{"name":"x"}', 'f:a', 'v:"aa"', 'k:{"port":443,"protocol":"tcp"}', 'v:1'];
    assert.deepEqual([...shuffled].sort(compareElements), [
      'f:a', 'f:b', 'k:{"name":"x"}', 'k:{"port":443,"protocol":"tcp"}', 'k:{"port":443,"protocol":"udp"}',
      'v:1', 'v:3', 'v:"aa"', 'v:"ab"', 'v:true', 'i:2', 'i:10',
    ]);
  });

  test('paths print as conflict messages show them', () => {
    assert.equal(pathString(['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image']), '.spec.containers[name="c"].image');
    assert.equal(pathString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}']), '.spec.ports[port=80,protocol="TCP"]');
    assert.equal(elementString('v:"a"'), '[="a"]');
    assert.equal(elementString('i:0'), '[0]');
  });
});

describe('field sets', () => {
  const a = setOf(['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d'], ['f:e']);
  const b = setOf(['f:b', 'f:c'], ['f:e'], ['f:x']);

  test('insert and has', () => {
    assert.ok(has(a, ['f:b', 'f:c']));
    assert.ok(!has(a, ['f:b']), 'a parent of owned paths is not itself owned');
    assert.ok(!has(a, ['f:z']));
    assert.equal(size(a), 4);
  });

  test('union, intersection, difference', () => {
    assert.deepEqual(paths(union(a, b)), [['f:a'], ['f:e'], ['f:x'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
    assert.deepEqual(paths(intersection(a, b)), [['f:e'], ['f:b', 'f:c']]);
    assert.deepEqual(paths(difference(a, b)), [['f:a'], ['f:b', 'f:d']]);
    assert.ok(isEmpty(difference(a, a)));
  });

  test('difference keeps paths below a removed member; recursive difference drops them', () => {
    const s = setOf(['f:m'], ['f:m', 'f:k']);
    assert.deepEqual(paths(difference(s, setOf(['f:m']))), [['f:m', 'f:k']]);
    assert.ok(isEmpty(recursiveDifference(s, setOf(['f:m']))));
  });

  test('operations never change their inputs', () => {
    const before = [paths(a), paths(b)];
    union(a, b); union(b, a); difference(a, b); recursiveDifference(b, a); intersection(a, b);
    assert.deepEqual([paths(a), paths(b)], before);
    const built = setOf();
    insert(built, ['f:new']);
    assert.ok(has(built, ['f:new']));
  });
});

describe('fieldsV1', () => {
  test('members are {}, a member with children gets "." after the children', () => {
    const s = setOf(['f:data'], ['f:data', 'f:k'], ['f:metadata', 'f:labels', 'f:app']);
    assert.equal(JSON.stringify(toFieldsV1(s)), '{"f:data":{"f:k":{},".":{}},"f:metadata":{"f:labels":{"f:app":{}}}}');
  });

  test('round trip keeps the reference text byte for byte', () => {
    const text = '{"f:a":{"k:{\\"name\\":\\"x\\"}":{"v:3":{"f:b":{}}},"v:3":{},"v:true":{}},"f:b":{"f:a":{},"f:f":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:1":{}}},"k:{\\"name\\":\\"first\\"}":{}},"k:{\\"name\\":\\"first\\"}":{"f:d":{}},"v:1":{},"v:\\"aa\\"":{"f:x":{},".":{}},"i:2":{}}';
    const s = fromFieldsV1(JSON.parse(text));
    assert.equal(JSON.stringify(toFieldsV1(s)), text);
  });

  test('element order on output does not depend on input order', () => {
    const s = fromFieldsV1({ 'i:1': {}, 'v:"b"': {}, 'f:z': {}, 'k:{"protocol":"TCP","containerPort":80}': { '.': {}, 'f:x': {} }, 'f:a': {} });
    assert.deepEqual(Object.keys(toFieldsV1(s)), ['f:a', 'f:z', 'k:{"containerPort":80,"protocol":"TCP"}', 'v:"b"', 'i:1']);
    assert.deepEqual(Object.keys(toFieldsV1(s)['k:{"containerPort":80,"protocol":"TCP"}']), ['f:x', '.']);
  });

  test('unknown element kinds are dropped, malformed elements refused', () => {
    assert.deepEqual(toFieldsV1(fromFieldsV1({ 'f:a': {}, 'r:b': {} })), { 'f:a': {} });
    assert.throws(() => fromFieldsV1({ 'k:{bad': {} }));
    assert.ok(equals(fromFieldsV1({}), setOf()));
  });
});
