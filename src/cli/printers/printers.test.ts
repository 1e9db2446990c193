// The printers against the reference's output rules: JSONPath templates, table alignment and cells, custom
// columns, sorted JSON and YAML; and the client-side apply's three-way merge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPathPrinter, loadJsonPath, parseTemplate, toJsonPathPlus } from './jsonpath.js';
import { alignColumns, cellText, tableCells } from './table.js';
import { customColumnsText, parseCustomColumns } from './custom-columns.js';
import { asList, nameOf, toJson, toYaml } from './objects.js';
import { threeWayMergePatch } from '../commands/apply.js';

const list = asList([
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'web' } }, status: { conditions: [{ type: 'Ready', status: 'True' }], phase: 'Running' } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'b' }, status: { conditions: [{ type: 'Ready', status: 'False' }], phase: 'Pending' } },
]);

test('JSONPath templates: fields, wildcards, ranges, literals, filters, escaped dots, missing keys', async () => {
  await loadJsonPath();
  assert.equal(jsonPathPrinter('{.items[*].metadata.name}')(list), 'a b');
  assert.equal(jsonPathPrinter('{range .items[*]}{.metadata.name}:{.status.phase}{"\\n"}{end}')(list), 'a:Running\nb:Pending\n');
  assert.equal(jsonPathPrinter('{.items[?(@.status.phase=="Pending")].metadata.name}')(list), 'b');
  assert.equal(jsonPathPrinter('{.items[0].status.conditions[?(@.type=="Ready")].status}')(list), 'True');
  assert.equal(jsonPathPrinter('{.items[0].metadata.labels.app\\.kubernetes\\.io/name}')(list), 'web');
  assert.equal(jsonPathPrinter('{.items[0].status.conditions}')(list), '[{"type":"Ready","status":"True"}]');
  assert.equal(jsonPathPrinter('.items[1].metadata.name')(list), 'b', 'a bare expression');
  assert.equal(jsonPathPrinter('{.items[*].nothing}')(list), '', 'missing keys print nothing');
  assert.throws(() => jsonPathPrinter('{.items[*].nothing}', false)(list), /is not found/);
  assert.throws(() => parseTemplate('{range .items[*]}{.x}'), /without \{end\}/);
  assert.throws(() => parseTemplate('{.a'), /unclosed action/);
  assert.equal(toJsonPathPlus('.a.b\\.c[*]'), "$.a['b.c'][*]");
});

test('tables: headers upper-cased, wide columns only with -o wide, namespace and label columns, kind prefixes', () => {
  const table = {
    columnDefinitions: [{ name: 'Name', type: 'string', format: 'name' }, { name: 'Ready', type: 'string' }, { name: 'IP', type: 'string', priority: 1 }],
    rows: [
      { cells: ['a', '1/1', '10.0.0.1'], object: { metadata: { name: 'a', namespace: 'ns1', labels: { app: 'x', tier: 'y' } } } },
      { cells: ['bb', '0/1', null], object: { metadata: { name: 'bb', namespace: 'ns2' } } },
    ],
  };
  assert.deepEqual(tableCells(table), [['NAME', 'READY'], ['a', '1/1'], ['bb', '0/1']]);
  assert.deepEqual(tableCells(table, { wide: true })[2], ['bb', '0/1', '<none>']);
  assert.deepEqual(tableCells(table, { withNamespace: true, labelColumns: ['app'], showLabels: true, namePrefix: 'pod' }), [
    ['NAMESPACE', 'NAME', 'READY', 'APP', 'LABELS'],
    ['ns1', 'pod/a', '1/1', 'x', 'app=x,tier=y'],
    ['ns2', 'pod/bb', '0/1', '', '<none>'],
  ]);
  assert.deepEqual(tableCells(table, { noHeaders: true }).length, 2);
  // three spaces between columns; a column is at least six wide; the last is not padded
  assert.equal(alignColumns([['NAME', 'A', 'AGE'], ['x', 'bb', '5s']]), 'NAME   A     AGE\nx      bb    5s\n');
  assert.equal(cellText(3), '3');
  assert.equal(cellText({ a: 1 }), '{"a":1}');
});

test('custom columns: several results joined with commas, nothing found as <none>', async () => {
  await loadJsonPath();
  const columns = parseCustomColumns('NAME:.metadata.name,TYPES:.status.conditions[*].type,X:.metadata.nothing');
  assert.equal(customColumnsText(columns, list.items), 'NAME   TYPES   X\na      Ready   <none>\nb      Ready   <none>\n');
  assert.throws(() => parseCustomColumns('NAME'), /not HEADER:expression/);
});

test('JSON and YAML print keys in order; YAML quotes what YAML 1.1 would read otherwise; names carry their group', async () => {
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { b: 'yes', a: '1' }, list: [{ z: 1 }] };
  assert.equal(toJson(obj).split('\n')[1], '    "apiVersion": "v1",');
  const yaml = await toYaml(obj);
  assert.match(yaml, /^apiVersion: v1\ndata:\n  a: "1"\n  b: "yes"\nkind: ConfigMap\nlist:\n- z: 1\nmetadata:\n  creationTimestamp: "2026-01-01T00:00:00Z"\n/);
  assert.equal(nameOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }), 'deployment.apps/web');
  assert.equal(nameOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }), 'configmap/c');
});

test('client-side apply: a merge patch of what changed, and nulls for what the last configuration had and the new one drops', () => {
  const original = { metadata: { name: 'x', labels: { a: '1', gone: 'y' } }, data: { k: 'v', old: 'o' } };
  const modified = { metadata: { name: 'x', labels: { a: '2' } }, data: { k: 'v', added: 'n' } };
  const current = { metadata: { name: 'x', uid: 'u', labels: { a: '1', gone: 'y', other: 'kept' } }, data: { k: 'v', old: 'o' } };
  assert.deepEqual(threeWayMergePatch(original, modified, current), { metadata: { labels: { a: '2', gone: null } }, data: { added: 'n', old: null } });
  assert.deepEqual(threeWayMergePatch(modified, modified, { ...modified, metadata: { ...modified.metadata, uid: 'u' } }), {});
});
