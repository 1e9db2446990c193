import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedMemo } from './memo.js';

test('a bounded memo keeps short keys up to its size, and makes long keys each time', () => {
  const made: string[] = [];
  const memo = boundedMemo(k => { made.push(k); return k.length; }, 2, 4);
  assert.equal(memo('ab'), 2);
  assert.equal(memo('ab'), 2);
  assert.deepEqual(made, ['ab']);
  assert.equal(memo('abcde'), 5);
  assert.equal(memo('abcde'), 5);
  assert.deepEqual(made, ['ab', 'abcde', 'abcde']);
  memo('cd');
  memo('ef');   // full: starts again with this key
  memo('ab');
  assert.deepEqual(made, ['ab', 'abcde', 'abcde', 'cd', 'ef', 'ab']);
});
