import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createExpectations, semanticJson, slowStartCreations, templateHash } from './common.js';

test('slow start: batches of 1, 2, 4, ... stop after the first batch with a failure', async () => {
  const calls: number[] = [];
  const failing = new Set([5, 6]);
  const expectations = createExpectations();
  const { done, error } = await slowStartCreations(expectations, 'ns/rs', 20, async (i) => {
    calls.push(i);
    if (failing.has(i)) throw new Error(`refused ${i}`);
  });
  // batches 0 | 1-2 | 3-6: the third has failures, so 7..19 are never tried
  assert.deepEqual(calls.sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(done, 5);
  assert.equal((error as Error).message, 'refused 5');
  // expectations wait for exactly the five creations that succeeded
  for (let i = 0; i < 4; i++) expectations.created('ns/rs');
  assert.equal(expectations.satisfied('ns/rs'), false);
  expectations.created('ns/rs');
  assert.equal(expectations.satisfied('ns/rs'), true);
});

test('slow start: every creation made when none fails', async () => {
  const expectations = createExpectations();
  let n = 0;
  const { done, error } = await slowStartCreations(expectations, 'ns/rs', 500, async () => { n++; });
  assert.equal(n, 500);
  assert.equal(done, 500);
  assert.equal(error, undefined);
  for (let i = 0; i < 499; i++) expectations.created('ns/rs');
  assert.equal(expectations.satisfied('ns/rs'), false);
  expectations.created('ns/rs');
  assert.equal(expectations.satisfied('ns/rs'), true);
});

test('semantic JSON: null, empty objects and empty lists are the same as absent, in objects at any depth', () => {
  const stored = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x', resources: {} }], securityContext: {} } };
  const sent = { metadata: { creationTimestamp: null, labels: { app: 'web' }, annotations: {} }, spec: { containers: [{ image: 'x', name: 'c', env: [] }] } };
  assert.equal(semanticJson(sent), semanticJson(stored));
  assert.equal(templateHash(sent), templateHash(stored));
  // list elements keep their place, and values that are set still count
  assert.notEqual(semanticJson({ a: [1, null] }), semanticJson({ a: [1] }));
  assert.notEqual(semanticJson({ a: { b: 0 } }), semanticJson({ a: {} }));
});
