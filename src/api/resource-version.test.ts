import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatResourceVersion, parseResourceVersion, revisionOf } from './resource-version.js';
import { ApiError } from './status.js';

test('resourceVersions: revisions as decimal strings, and a 400 for anything else a client sends', () => {
  assert.equal(formatResourceVersion(42), '42');
  assert.equal(parseResourceVersion('42'), 42);
  assert.equal(parseResourceVersion('0'), 0);
  assert.equal(parseResourceVersion(''), undefined);
  assert.equal(parseResourceVersion(undefined), undefined);
  for (const bad of ['-1', '1.5', 'abc', ' 1', '12345678901234567'])
    assert.throws(() => parseResourceVersion(bad), (e: unknown) => e instanceof ApiError && e.code === 400, bad);
  assert.equal(revisionOf({ metadata: { resourceVersion: '7' } }), 7);
  assert.equal(revisionOf({ metadata: {} }), 0);
  assert.equal(revisionOf(undefined), 0);
  assert.equal(revisionOf({ metadata: { resourceVersion: 'x' } }), 0);
});
