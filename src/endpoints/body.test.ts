import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { checkDecodedValue, decodeYaml, jsonNestsDeeper, largeBodyBytes, maxNestingDepth, parseJson, parseYamlObject } from './body.js';
import { loadYamlCodecs } from '../util/yaml.js';
import { decodeYamlOffThread } from '../util/yaml-thread.js';
import { ApiError } from '../api/status.js';

before(() => loadYamlCodecs());

const code = (f: () => unknown) => { try { f(); return 0; } catch (e) { return e instanceof ApiError ? e.code : -1; } };

test('JSON nesting is measured in one pass, strings and escapes skipped', () => {
  assert.equal(jsonNestsDeeper('{"a":[1,{"b":"[[[["}]}', 3), false);
  assert.equal(jsonNestsDeeper('{"a":[1,{"b":"\\"[[[["}]}', 3), false);
  assert.equal(jsonNestsDeeper('[[[[]]]]', 3), true);
  assert.equal(code(() => parseJson('['.repeat(maxNestingDepth + 1) + ']'.repeat(maxNestingDepth + 1))), 400);
  assert.deepEqual(parseJson('['.repeat(maxNestingDepth) + ']'.repeat(maxNestingDepth)) instanceof Array, true);
  assert.equal(code(() => parseJson('{"a":')), 400);
});

test('YAML: nesting past the limit, aliases that expand, several documents and duplicate keys are 400s', () => {
  assert.equal(code(() => parseYamlObject(`${'- '.repeat(maxNestingDepth + 5)}x`)), 400);
  assert.equal(code(() => parseYamlObject(Array.from({ length: maxNestingDepth + 5 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'))), 400);
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 6; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
  assert.equal(code(() => parseYamlObject(lines.join('\n'))), 400);
  assert.equal(code(() => parseYamlObject('a: 1\n---\nb: 2\n')), 400);
  assert.equal(code(() => parseYamlObject('a: 1\na: 2\n')), 400);
  // a few aliases are fine, and the YAML 1.2 core schema leaves dates and "yes" as strings
  assert.deepEqual(parseYamlObject('a: &x [1]\nb: *x\nc: 2001-01-01\nd: yes\n'), { a: [1], b: [1], c: '2001-01-01', d: 'yes' });
});

test('YAML: a mapping key that is a sequence or a mapping is a 400, as the reference\'s decoder has it, on the loop and on the thread', async () => {
  const message = (f: () => unknown) => { try { f(); return undefined; } catch (e) { return e instanceof ApiError ? `${e.code} ${e.status.message}` : `thrown ${e}`; } };
  for (const [doc, what] of [['? [a, b]: c\n', 'a sequence (["a","b"])'], ['{? {a: b}: c}', 'a mapping ({"a":"b"})'], ['[a, b]: c\n', 'a sequence (["a","b"])'],
    ['x:\n  ? - a\n    - b\n  : c\n', 'a sequence (["a","b"])'], ['{[a]: b}', 'a sequence (["a"])'], ['? [a] # k\n: b\n', 'a sequence (["a"])']]) {
    assert.equal(message(() => parseYamlObject(doc)), `400 error decoding YAML: invalid map key: ${what}`, doc);
    await assert.rejects(decodeYaml(`# ${'x'.repeat(largeBodyBytes)}\n${doc}`), (e: ApiError) => e.code === 400 && /invalid map key/.test(String(e.status.message)));
  }
  // scalar keys, explicit or not, and sequences and mappings as values stay as they were
  assert.deepEqual(parseYamlObject('? a\n: [b]\n? c\n: {d: e}\nf: what?\ng: # why?\n  h: [i] # :\n"::1": {j: k}\n'),
    { a: ['b'], c: { d: 'e' }, f: 'what?', g: { h: ['i'] }, '::1': { j: 'k' } });
});

test('a large YAML body decodes on the decoding thread to what the loop would decode, with the same errors', async () => {
  const codeOf = (p: Promise<unknown>) => p.then(() => 0, (e) => (e instanceof ApiError ? `${e.code} ${e.status.message}` : `thrown ${e}`));
  const pad = `# ${'x'.repeat(largeBodyBytes)}\n`;
  const doc = `${pad}a: &x [1, 2.5, "s", null, true]\nb: *x\nc: 2001-01-01\nd: yes\n${Array.from({ length: 5000 }, (_, i) => `k${i}: v${i}`).join('\n')}\n`;
  const value = await decodeYaml(doc) as Record<string, unknown>;
  assert.deepEqual(value, parseYamlObject(doc));
  assert.deepEqual([value.a, value.b, value.c, value.d, value.k4999], [[1, 2.5, 's', null, true], [1, 2.5, 's', null, true], '2001-01-01', 'yes', 'v4999']);
  for (const bad of [`${pad}a: 1\n---\nb: 2\n`, `${pad}a: 1\na: 2\n`, `${pad}${'- '.repeat(maxNestingDepth + 5)}x`, `${pad}a: [1, 2`]) {
    const offThread = await codeOf(decodeYaml(bad));
    assert.equal(offThread, await codeOf(Promise.resolve().then(() => parseYamlObject(bad))));
    assert.match(String(offThread), /^400 /);
  }
  // aliases that expand past the text's size are refused on the thread
  const lines = [pad, 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 7; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
  assert.match(String(await codeOf(decodeYaml(lines.join('\n')))), /^400 .*aliases/);
  assert.deepEqual(await decodeYamlOffThread(lines.join('\n'), maxNestingDepth, false, lines.join('\n').length), { beyond: 'values' });
});

test('aliases chained 100,000 deep are refused on the decoding thread: the value is never copied to the server\'s thread', async () => {
  // the decoder's own depth bound does not follow aliases; copying such a value between threads held the loop a second
  const chain = `a: &a0 [x]\n${Array.from({ length: 100_000 }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}]`).join('\n')}\n`;
  assert.ok(chain.length >= largeBodyBytes);
  const result = await decodeYamlOffThread(chain, maxNestingDepth, false, chain.length + 16);
  assert.deepEqual(Object.keys(result), ['beyond'], 'the thread refuses the value rather than hand it over');
  assert.equal('beyond' in result && result.beyond, 'depth');
  await assert.rejects(decodeYaml(chain), (e: ApiError) => e.code === 400 && /nested more than 1000 levels/.test(String(e.status.message)));
});

test('YAML decoding grows linearly with the number of keys', () => {
  const doc = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: v`).join('\n');
  const best = (n: number) => {
    const text = doc(n);
    let min = Infinity;
    for (let i = 0; i < 5; i++) { const t = performance.now(); parseYamlObject(text); min = Math.min(min, performance.now() - t); }
    return min;
  };
  best(40_000);
  // the best of rounds that alternate sizes, so a busy machine slows both alike
  let small = Infinity, large = Infinity;
  for (let round = 0; round < 3; round++) { small = Math.min(small, best(10_000)); large = Math.min(large, best(80_000)); }
  // eight times the keys: about eight times the time when linear, sixty-four when quadratic; the bound sits between,
  // nearer quadratic, since collecting the larger heap adds to it on a loaded machine (29x seen under a load of 18)
  assert.ok(large / small < 40, `10,000 keys ${small.toFixed(1)} ms, 80,000 keys ${large.toFixed(1)} ms`);
});

test('decoded values: depth checked without recursion', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(code(() => checkDecodedValue(deep)), 400);
  assert.equal(code(() => checkDecodedValue({ a: [1, 2, { b: 3 }] })), 0);
});

test('lone UTF-16 surrogates escaped in JSON or YAML strings and keys read as U+FFFD; pairs are kept', async () => {
  assert.deepEqual(parseJson('{"a":"x\\ud800y","b":["\\udc00"],"k\\udbff":"\\ud83d\\ude00","c":{"d":"\\uD800\\uD800"}}'),
    { a: 'x\ufffdy', b: ['\ufffd'], 'k\ufffd': '\ud83d\ude00', c: { d: '\ufffd\ufffd' } });
  assert.equal(parseJson('"\\ud800"'), '\ufffd');
  // an escaped backslash before "ud800" is no escape of a surrogate
  assert.deepEqual(parseJson('{"a":"\\\\ud800"}'), { a: '\\ud800' });
  assert.deepEqual(parseYamlObject('a: "x\\ud800"\nb: "\\ud83d\\ude00"\n'), { a: 'x\ufffd', b: '\ud83d\ude00' });
  const large = `a: "\\ud800"\nb: "${'x'.repeat(largeBodyBytes)}"\n`;
  assert.equal(((await decodeYaml(large)) as { a: string }).a, '\ufffd');
});

test('YAML merge keys merge as the reference\'s decoder merges them; the keys merged are bounded by the text', async () => {
  const doc = 'base: &b {a: 1, b: 2}\nmore: &m {b: 3, c: 4}\none:\n  <<: *b\n  a: 9\nmany:\n  <<: [*b, *m]\nquoted:\n  "<<": x\n';
  const expected = { base: { a: 1, b: 2 }, more: { b: 3, c: 4 }, one: { a: 9, b: 2 }, many: { a: 1, b: 2, c: 4 }, quoted: { '<<': 'x' } };
  assert.deepEqual(parseYamlObject(doc), expected);
  assert.deepEqual(await decodeYaml(`${doc}pad: "${'x'.repeat(largeBodyBytes)}"\n`).then(v => { delete (v as { pad?: string }).pad; return v; }), expected);
  // something other than a mapping to merge is a 400
  assert.equal(code(() => parseYamlObject('a: &s x\nb:\n  <<: *s\n')), 400);
  // a mapping of 2,000 keys merged into 2,000 mappings: four million keys copied from a text of 40 kB
  const keys = Array.from({ length: 2000 }, (_, i) => `k${i}: 1`).join(', ');
  const bomb = `big: &big {${keys}}\nall:\n${Array.from({ length: 2000 }, (_, i) => `  m${i}: {<<: *big}`).join('\n')}\n`;
  assert.equal(code(() => parseYamlObject(bomb)), 400);
  await assert.rejects(decodeYaml(`${bomb}pad: "${'x'.repeat(largeBodyBytes)}"\n`), (e: ApiError) => e.code === 400);
});
