import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerSafe, maxWarningRunes, warningHeaderValues } from './warnings.js';

const textOf = (value: string) => value.slice('299 - "'.length, -1).replace(/\\(.)/g, '$1');

test('each warning once, quoted with its quotes and backslashes escaped', () => {
  assert.deepEqual(warningHeaderValues(['a "b" \\c', 'x', 'a "b" \\c', ''], 'HTTP/2'), ['299 - "a \\"b\\" \\\\c"', '299 - "x"']);
});

test('over 4 KB of text, each warning is cut to 256 characters, the rest dropped and counted', () => {
  const warnings = Array.from({ length: 100 }, (_, i) => `${i} ${'y'.repeat(400)}`);
  const values = warningHeaderValues(warnings, 'HTTP/1.1');
  const kept = values.slice(0, -1).map(textOf);
  assert.ok(kept.every(t => [...t].length <= 256));
  const total = kept.reduce((n, t) => n + t.length, 0);
  assert.ok(total >= maxWarningRunes && total < maxWarningRunes + 256, String(total));
  assert.equal(values.at(-1), `299 - "${100 - kept.length} more warnings were dropped: the warnings exceeded 4096 characters"`);
});

test('under the limit nothing is cut', () => {
  const warnings = Array.from({ length: 10 }, (_, i) => `${i} ${'z'.repeat(300)}`);
  assert.deepEqual(warningHeaderValues(warnings, 'HTTP/2').map(textOf), warnings);
});

test('header values: UTF-8 bytes over HTTP/2, characters past Latin-1 escaped over HTTP/1.1, no control characters', () => {
  assert.equal(headerSafe('ж', 'HTTP/2'), Buffer.from('ж').toString('latin1'));
  assert.equal(headerSafe('é ж 😀', 'HTTP/1.1'), 'é \\u0436 \\ud83d\\ude00');
  assert.equal(headerSafe('a\r\nb\u0000c\td', 'HTTP/1.1'), 'a  b c\td');
});
