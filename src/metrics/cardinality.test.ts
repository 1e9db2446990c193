import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics, maxSeriesPerMetric, metricVerb } from './metrics.js';

test('made-up label values cannot grow a metric past its series limit; the rest is counted as "other"', async () => {
  const metrics = createMetrics();
  const count = metrics.counter('requests_total', 'requests', ['resource', 'code']);
  for (let i = 0; i < maxSeriesPerMetric + 500; i++) count({ resource: `made-up-${i}`, code: '404' });
  const lines = (await metrics.render()).split('\n').filter(l => l.startsWith('requests_total'));
  assert.equal(lines.length, maxSeriesPerMetric + 1);
  assert.ok(lines.includes('requests_total{code="other",resource="other"} 500') || lines.includes('requests_total{resource="other",code="other"} 500'), lines.at(-1));
});

test('a method outside the standard ones is labelled "other"', () => {
  assert.equal(metricVerb('', 'PROPFIND'), 'other');
  assert.equal(metricVerb('', 'OPTIONS'), 'OPTIONS');
  assert.equal(metricVerb('list', 'GET'), 'LIST');
});
