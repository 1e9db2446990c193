// A list written member by member is the same text as the list encoded whole, in JSON (compact and indented) and YAML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadYamlCodecs, toYaml } from '../util/yaml.js';
import { jsonArrayParts, packedJsonArray, yamlArrayParts } from './read.js';
import { batchBytes } from './respond.js';

const head = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '12', continue: 'x' } };
const items = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { x: 'y' } }, data: { script: 'line1\nline2\n\nline4\n', empty: '', indented: 'a\n  b\n', yes: 'yes', n: '123', quote: '"\'' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: {}, nested: [[1, 2], [3, { a: [] }]], unicode: 'ж\u2028' },
];

test('JSON and YAML lists written member by member are the whole list\'s text', async () => {
  await loadYamlCodecs();
  for (const list of [items, [], [items[0]]]) {
    const joined = (parts: Iterable<Buffer>) => Buffer.concat([...parts]).toString();
    assert.equal(joined(jsonArrayParts(head, 'items', list.length, n => list[n], false)), JSON.stringify({ ...head, items: list }));
    assert.equal(joined(jsonArrayParts(head, 'items', list.length, n => list[n], true)), `${JSON.stringify({ ...head, items: list }, null, 2)}\n`);
    assert.equal(joined(yamlArrayParts(head, 'items', list.length, n => list[n])), toYaml({ ...head, items: list }));
  }
});

test('a list packed from its members\' bytes is the whole list\'s text, in pieces of the batch size', () => {
  const member = (n: number) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `m${n}` }, data: { v: 'x'.repeat(n * 37 % 900) } });
  // members of every size around a piece's end, one larger than a piece, and none
  const lists = [[], [member(1)], Array.from({ length: 3000 }, (_, n) => member(n)),
    [member(2), { ...member(3), data: { big: 'y'.repeat(batchBytes * 2 + 5) } }, member(4)]];
  const head = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' } };
  const itemHead = '{"kind":"ConfigMap","apiVersion":"v1",';
  for (const list of lists) {
    const bytes = list.map(m => Buffer.from(JSON.stringify(m)));
    for (const skip of [0, itemHead.length]) {
      const pieces = [...packedJsonArray(head, 'items', bytes, skip)];
      const served = skip ? list.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) : list;
      assert.equal(Buffer.concat(pieces).toString(), JSON.stringify({ ...head, items: served }));
      assert.ok(pieces.slice(0, -1).every(p => p.length === batchBytes), 'every piece but the last is full');
    }
  }
});
