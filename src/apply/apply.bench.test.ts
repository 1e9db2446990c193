import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measure } from './apply.bench.js';

test('applying a Deployment with 50 containers costs at most 3x an update of it', () => {
  // the best of three short runs, so that a busy machine does not decide the outcome
  const ratios = [measure(15), measure(15), measure(15)].map((r) => r.ratio);
  assert.ok(Math.min(...ratios) <= 3, `apply/update ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
});
