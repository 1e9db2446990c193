import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createMetrics, maxSeriesPerMetric, metricVerb, renderInSlices } from './metrics.js';

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

test('a registry written in pieces is the text prom-client writes whole', async () => {
  const registry = new Registry();
  const h = new Histogram({ name: 'h_seconds', help: 'a "histogram"\nwith \\ in its help', labelNames: ['a'], buckets: [0.1, 1, 10], registers: [registry] });
  const c = new Counter({ name: 'c_total', help: 'a counter', labelNames: ['a'], registers: [registry] });
  new Gauge({ name: 'g', help: 'an empty gauge', registers: [registry] });
  new Gauge({ name: 'g2', help: 'a gauge read when written', labelNames: ['a'], registers: [registry], collect() { this.set({ a: 'x' }, 2); } });
  for (let i = 0; i < 1500; i++) { h.observe({ a: `v"${i}\\` }, i / 100); c.inc({ a: `v${i}` }); }
  assert.equal(await renderInSlices(registry), await registry.metrics());
});

test('a scrape of full histograms gives the event loop back between pieces', async () => {
  const metrics = createMetrics();
  const duration = metrics.histogram('request_duration_seconds', 'request latency', ['verb', 'resource'],
    [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]);
  for (let i = 0; i < maxSeriesPerMetric; i++) duration({ verb: i % 2 ? 'GET' : 'LIST', resource: `r${i}` }, (i % 70) / 7);
  await metrics.render();
  let turns = 0, longest = 0, last = performance.now(), rendering = true;
  const tick = () => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; turns++; if (rendering) setImmediate(tick); };
  setImmediate(tick);
  const t0 = performance.now();
  const text = await metrics.render();
  const whole = performance.now() - t0;
  rendering = false;
  assert.equal(text.split('\n').filter(l => l.startsWith('request_duration_seconds_bucket')).length, maxSeriesPerMetric * 24);
  assert.ok(turns > 1, 'the loop turned while the scrape was made');
  // the longest stretch against the whole scrape, in one run (a scrape in one piece is one stretch)
  assert.ok(longest < whole / 2, `longest stretch ${longest.toFixed(0)} ms of ${whole.toFixed(0)} ms`);
});
