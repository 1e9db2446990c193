// A list written member by member is the same text as the list encoded whole, in JSON (compact and indented) and YAML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadYamlCodecs, toYaml } from '../util/yaml.js';
import { jsonArrayParts, yamlArrayParts } from './read.js';

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
