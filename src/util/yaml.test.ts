// The response writer: what it writes reads back as the same value in js-yaml, the `yaml` library (YAML 1.2) and a
// YAML 1.1 reader's eyes (strings that look like numbers, booleans, nulls, dates or merge keys are quoted), and its
// cost grows with the size of the value, not faster.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml12 } from 'yaml';
import { loadYamlCodecs, toYaml, yamlDecoder } from './yaml.js';

before(() => loadYamlCodecs());

const tricky = ['yes', 'no', 'on', 'off', 'y', 'N', 'true', 'False', 'null', '~', '', ' ', ' lead', 'trail ', '0x1F', '0o17', '017',
  '1e3', '1_000', '+.5', '.5', '-0', '.inf', '-.Inf', '.NaN', '12:30', '190:20:30', '2001-01-01', '2001-12-14t21:59:43.10-05:00', '<<',
  '=', '-', '- a', '? x', ':', 'a: b', 'a #b', '#c', '@x', '`x', '!x', '&a', '*a', '|', '>', '%x', '"q"', "'s'", '[a]', '{a}', 'a,b',
  'line1\nline2', 'line1\nline2\n', 'trailing\n\n', '\ttab', 'uni ☃ \u2028', '\u0007bell', `${'x'.repeat(200)} ${'y'.repeat(200)}`, '10.0.0.1', '100m'];

/** the strings a YAML 1.1 reader resolves as something else when written plain (a summary of its implicit types) */
const yaml11NonString = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|<<|=|[-+]?\.?[0-9][-+0-9._:a-fA-FxXoObBeE]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$/;

test('a response\'s YAML reads back as the value, keys in order, no anchors, nothing that a YAML 1.1 reader types otherwise', () => {
  const shared = { a: 1 };
  const value = {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { b: '1', a: '2' }, annotations: {} },
    data: Object.fromEntries(tricky.map((s, i) => [`k${i}`, s])),
    keys: Object.fromEntries(tricky.filter(s => s && !s.includes('\n')).map(s => [s, s])),
    extra: { nums: [0, -1, 1.5, 1e21, 123456789012], bools: [true, false], nil: null, empty: [], emptyObj: {}, nested: [[1, [2]], { a: [] }],
      twice: [shared, shared], absent: undefined },
  };
  const text = toYaml(value);
  const expected = JSON.parse(JSON.stringify(value));
  assert.deepEqual(yamlDecoder().load(text), expected);
  assert.deepEqual(parseYaml12(text), expected);
  assert.deepEqual(Object.keys(parseYaml12(text).metadata.labels), ['b', 'a']);
  assert.doesNotMatch(text, /[&*]id0/);
  // a string a YAML 1.1 reader would type otherwise is never written plain, as a value or as a key
  tricky.forEach((s, i) => {
    if (!yaml11NonString.test(s)) return;
    assert.ok(!text.includes(`\n  k${i}: ${s}\n`), `value ${JSON.stringify(s)} written plain`);
    assert.ok(!text.includes(`\n  ${s}: `), `key ${JSON.stringify(s)} written plain`);
  });
  assert.ok(yaml11NonString.test('1_000') && text.includes("'1_000': '1_000'"));
  // long lines stay whole
  assert.ok(text.includes(`${'x'.repeat(200)} ${'y'.repeat(200)}`));
});

test('writing YAML grows linearly with the number of keys', () => {
  const doc = (n: number) => ({ data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`])) });
  const best = (value: unknown) => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) { const t = performance.now(); toYaml(value); min = Math.min(min, performance.now() - t); }
    return min;
  };
  const small = doc(10_000), large = doc(80_000);
  best(doc(40_000));
  let s = Infinity, l = Infinity;
  for (let round = 0; round < 3; round++) { s = Math.min(s, best(small)); l = Math.min(l, best(large)); }
  // eight times the keys: about eight times the time when linear, sixty-four when quadratic (as body.test.ts bounds it)
  assert.ok(l / s < 40, `10,000 keys ${s.toFixed(1)} ms, 80,000 keys ${l.toFixed(1)} ms`);
});
