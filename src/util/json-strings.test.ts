import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonStrings } from './json-strings.js';

/** the strings of a text, as (start, end, escaped), stepped over from its start */
function spans(text: string): Array<[number, number, boolean]> {
  const s = jsonStrings(text);
  const out: Array<[number, number, boolean]> = [];
  for (let i = text.indexOf('"'); i >= 0 && i < text.length; i = text.indexOf('"', i + 1)) {
    const end = s.end(i);
    out.push([i, end, s.escaped]);
    i = end;
  }
  return out;
}

test('strings end at their closing quote, escapes and all', () => {
  assert.deepEqual(spans('{"a":"b"}'), [[1, 3, false], [5, 7, false]]);
  assert.deepEqual(spans('["x\\"y", "\\\\", "z"]'), [[1, 6, true], [9, 12, true], [15, 17, false]]);
  // a backslash far ahead is found once and kept: the strings before it hold no escape
  assert.deepEqual(spans('["a","b","c\\n"]'), [[1, 3, false], [5, 7, false], [9, 13, true]]);
  // unterminated, and a backslash as the text's last character
  assert.deepEqual(spans('["abc'), [[1, 5, false]]);
  assert.deepEqual(spans('"ab\\'), [[0, 4, true]]);
  assert.deepEqual(spans('"\\u00e9\\"" "'), [[0, 9, true], [11, 12, false]]);
});

test('the same answers as reading a character at a time, on generated texts', () => {
  const slow = (text: string, open: number): [number, boolean] => {
    let escaped = false;
    let i = open + 1;
    while (i < text.length && text[i] !== '"') { if (text[i] === '\\') { escaped = true; i += 2; } else i++; }
    return [Math.min(i, text.length), escaped];
  };
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let n = 0; n < 500; n++) {
    const text = Array.from({ length: 40 }, () => '"\\ab,'[Math.floor(random() * 5)]).join('');
    const fast = jsonStrings(text);
    for (let i = text.indexOf('"'); i >= 0 && i < text.length; i = text.indexOf('"', i + 1)) {
      const end = fast.end(i);
      assert.deepEqual([end, fast.escaped], slow(text, i), `${JSON.stringify(text)} at ${i}`);
      i = end;
    }
  }
});
