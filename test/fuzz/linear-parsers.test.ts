// Parsers that read request input or stored objects, run on the attack strings a ReDoS checker found for the
// patterns they used: each must take about twice the time on twice the input (the patterns were quadratic, cubic or
// exponential there, stalling the server for seconds to minutes on inputs of a few thousand characters).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/config/flags.js';
import { parseGoDuration } from '../../src/http/pipeline.js';
import { withoutTrailingSlashes } from '../../src/metricsserver/serve.js';
import { evaluateJsonPath } from '../../src/registry/crd/definition.js';
import { certificateRequestProblem } from '../../src/registry/resources/certificates/certificatesigningrequests/strategy.js';
import { pemBlocks, pemBlocksOfType } from '../../src/util/pem.js';
import { matchLabels, parseFieldSelector, parseLabelSelector, selectorMatches } from '../../src/api/selectors.js';

/** the best time of a few runs of f on the input of size n */
function best(f: (n: number) => unknown, make: (n: number) => string, n: number): number {
  const input = make(n);
  let min = Infinity;
  for (let i = 0; i < 5; i++) { const t = performance.now(); f(input as never); min = Math.min(min, performance.now() - t); }
  return min;
}

/**
 * Four times the input costs about four times the time when linear and sixteen times when quadratic: the bound sits
 * between. Sizes are large enough that the quadratic forms took hundreds of milliseconds at the smaller one, and rounds
 * alternate sizes so a busy machine slows both alike.
 */
function assertLinear(name: string, f: (s: string) => unknown, make: (n: number) => string, n: number) {
  best(f as never, make, n);
  let small = Infinity, large = Infinity;
  for (let round = 0; round < 3; round++) {
    small = Math.min(small, best(f as never, make, n));
    large = Math.min(large, best(f as never, make, 4 * n));
  }
  // below 50 ms the ratio is noise on a busy machine (a millisecond at the small size against a dozen at the large was
  // seen), and the quadratic forms took seconds at the large size
  assert.ok(large < 50 || large / small < 8, `${name}: ${n} ${small.toFixed(2)} ms, ${4 * n} ${large.toFixed(2)} ms`);
}

test('?timeout= durations: a long run of digits without a unit', () => {
  assertLinear('timeout', parseGoDuration, n => `${'0'.repeat(n)}µ0s`, 50_000);
  assert.equal(parseGoDuration('1m30s'), 90_000);
  assert.equal(parseGoDuration('1.5s'), 1500);
  assert.equal(parseGoDuration('1m30'), undefined);
  assert.equal(parseGoDuration(''), undefined);
  assert.equal(parseGoDuration('x1s'), undefined);
});

test('flag and configuration durations: parts that nearly repeat', () => {
  const near = (n: number) => `0m${'s00m'.repeat(n)}μ`;
  assertLinear('duration', (s: string) => { try { parseDuration(s); } catch { /* refused, as it must be */ } }, near, 10_000);
  assert.throws(() => parseDuration(near(30)), /invalid duration/);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('-1.5h'), -5_400_000);
  assert.equal(parseDuration('.5s'), 500);
  assert.equal(parseDuration('5.s'), 5000);
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('300ms'), 300);
  for (const bad of ['', '-', '00', '1', '1x', 's', '1s-']) assert.throws(() => parseDuration(bad), /invalid duration/, bad);
});

test('metrics server paths: a long run of slashes', () => {
  assertLinear('path', withoutTrailingSlashes, n => `${'/'.repeat(n)}x/`, 50_000);
  assert.equal(withoutTrailingSlashes('/apis/x///'), '/apis/x');
  assert.equal(withoutTrailingSlashes('///'), '');
});

test('printer column JSONPath filters: long runs of spaces around an operator', () => {
  const path = (n: number) => `{.items[?(@.$==${'\t'.repeat(n)}==${'\t'.repeat(n)}\n!=\u0000)]}`;
  assertLinear('jsonpath filter', (p: string) => evaluateJsonPath({ items: [{ $: 1 }] }, p), path, 100_000);
  const items = { items: [{ name: 'a', on: true }, { name: 'b', on: false }, { name: 'c' }] };
  assert.deepEqual(evaluateJsonPath(items, '.items[?(@.on == true)].name'), ['a']);
  assert.deepEqual(evaluateJsonPath(items, '.items[?(@.on)].name'), ['a', 'b']);
  assert.deepEqual(evaluateJsonPath(items, ".items[?(@.name != 'a')].name"), ['b', 'c']);
  assert.deepEqual(evaluateJsonPath(items, '.items[?(@.name=="c" )].name'), ['c']);
  assert.deepEqual(evaluateJsonPath(items, '.items[?(@.name ~ "c")].name'), []);
});

test('PEM blocks: many BEGIN lines without their END', () => {
  const unterminated = (n: number) => '-----BEGIN -----\n-----END D'.repeat(n / 27 | 0) + '\n';
  assertLinear('pem (any type)', pemBlocks, unterminated, 100_000);
  const distinctTypes = (n: number) => Array.from({ length: n / 20 | 0 }, (_, i) => `-----BEGIN T${i}-----\n`).join('');
  assertLinear('pem (distinct types)', pemBlocks, distinctTypes, 100_000);
  const certificates = (n: number) => '----END CERTIFICATE-----BEGIN CERTIFICATE-----I'.repeat(n / 47 | 0) + '----END CERTIFICATE-----';
  assertLinear('pem (certificates)', (s: string) => pemBlocksOfType(s, 'CERTIFICATE'), certificates, 100_000);
  // a CertificateSigningRequest's spec.request is such text (base64 in the body, up to its 3 MB limit)
  assertLinear('csr request', (s: string) => certificateRequestProblem(Buffer.from(s, 'latin1')), unterminated, 100_000);

  assert.deepEqual(pemBlocks('x\n-----BEGIN A-----\nQUJD\n-----END A-----\n-----BEGIN B-----\r\nREVG\n-----END B-----'),
    [{ type: 'A', body: 'QUJD\n' }, { type: 'B', body: 'REVG\n' }]);
  // the body runs to the first END of the same type; another type's END is body
  assert.deepEqual(pemBlocks('-----BEGIN A-----\n1\n-----END B-----\n2\n-----END A-----'), [{ type: 'A', body: '1\n-----END B-----\n2\n' }]);
  // a BEGIN line must end at a newline; a BEGIN without its END is skipped and the next one read
  assert.deepEqual(pemBlocks('-----BEGIN A----- x\n-----BEGIN B-----\n-----BEGIN C-----\n3\n-----END C-----'), [{ type: 'C', body: '3\n' }]);
  assert.deepEqual(pemBlocksOfType('a-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----b-----BEGIN CERTIFICATE-----Y-----END CERTIFICATE-----', 'CERTIFICATE'),
    ['-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----', '-----BEGIN CERTIFICATE-----Y-----END CERTIFICATE-----']);
});

test('PEM blocks: the same blocks as the pattern they replace, on random short texts', () => {
  const pieces = ['-----BEGIN ', '-----END ', '-----', 'A', 'B', 'A B', '-', '\n', '\r\n', 'x', ':'];
  let seed = 7;
  const random = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
  for (let i = 0; i < 20_000; i++) {
    const text = Array.from({ length: 1 + random(14) }, () => pieces[random(pieces.length)]).join('');
    const expected = [...text.matchAll(/-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g)].map(m => ({ type: m[1], body: m[2] }));
    assert.deepEqual(pemBlocks(text), expected, JSON.stringify(text));
    const certificates = text.replaceAll('A', 'CERTIFICATE');
    assert.deepEqual(pemBlocksOfType(certificates, 'CERTIFICATE'), certificates.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [],
      JSON.stringify(certificates));
  }
});

test('label selectors: matching against 16000 values costs about what matching against a thousand does', () => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => `v${String(i).padStart(7, '0')}`);
  // matching a fixed number of objects costs about the same whatever the number of values (a scan per match: 16 times)
  const objects = Array.from({ length: 20_000 }, (_, i) => ({ a: `v${String(i * 13).padStart(7, '0')}` }));
  const matchAll = (s: string) => {
    const sel = parseLabelSelector(s);
    const obj = { matchExpressions: [{ key: 'a', operator: 'NotIn', values: sel.requirements[0].values.slice().reverse() }] };
    return () => { for (const labels of objects) { matchLabels(sel, labels); selectorMatches(obj, labels); } };
  };
  const timeMatching = (n: number) => {
    const run = matchAll(`a in (${values(n).join(',')})`);
    run();
    let min = Infinity;
    for (let i = 0; i < 5; i++) { const t = performance.now(); run(); min = Math.min(min, performance.now() - t); }
    return min;
  };
  let few = Infinity, many = Infinity;
  for (let round = 0; round < 3; round++) { few = Math.min(few, timeMatching(1_000)); many = Math.min(many, timeMatching(16_000)); }
  // a scan per match took seconds with 16000 values; below 50 ms the ratio of two small times is noise
  assert.ok(many < 50 || many / few < 6, `matching 20000 objects: 1000 values ${few.toFixed(2)} ms, 16000 values ${many.toFixed(2)} ms`);

  const shuffled = (n: number) => Array.from({ length: n }, (_, i) => `v${(i * 7919) % n}`);
  const sel = parseLabelSelector(`a in (${shuffled(1000).join(',')}),b notin (${shuffled(1000).join(',')})`);
  assert.equal(matchLabels(sel, { a: 'v999' }), true);
  assert.equal(matchLabels(sel, { a: 'v999', b: 'v0' }), false);
  assert.equal(matchLabels(sel, { a: 'v1000' }), false);
  assert.equal(matchLabels(sel, { a: 'v1', b: 'x' }), true);
  const obj = { matchExpressions: [{ key: 'a', operator: 'NotIn', values: shuffled(1000) }] };
  assert.equal(selectorMatches(obj, { a: 'v5' }), false);
  assert.equal(selectorMatches(obj, { a: 'w5' }), true);
  assert.deepEqual(parseFieldSelector('metadata.name!=a\\,b').terms, [{ field: 'metadata.name', operator: '!=', value: 'a,b' }]);
});
