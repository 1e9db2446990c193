import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestInfo } from './request-info.js';

const verbOf = (query: string) => requestInfo('GET', '/api/v1/namespaces/default/pods', new URLSearchParams(query)).verb;

test('a collection GET is a watch when its watch parameter is present and neither 0 nor false', () => {
  for (const q of ['watch=true', 'watch=1', 'watch=True', 'watch=', 'watch', 'watch=yes']) assert.equal(verbOf(q), 'watch', q);
  for (const q of ['', 'watch=false', 'watch=FALSE', 'watch=0', 'watcher=true']) assert.equal(verbOf(q), 'list', q);
});

test('a GET by name stays a get whatever its watch parameter says; the watch path segment makes a watch', () => {
  assert.equal(requestInfo('GET', '/api/v1/namespaces/default/pods/p', new URLSearchParams('watch=true')).verb, 'get');
  assert.equal(requestInfo('GET', '/api/v1/watch/namespaces/default/pods', new URLSearchParams()).verb, 'watch');
});
