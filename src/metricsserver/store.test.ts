import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourceMetrics } from './scrape.js';
import { createMetricsStore } from './store.js';
import { formatUsage, formatWindow } from './serve.js';

/** a /metrics/resource text as the agent writes it, at time `at` (ms), with cumulative CPU seconds */
const text = (at: number, node: number, containers: Array<{ pod: string; name: string; cpu: number; memory: number; started: number }>) => [
  '# TYPE node_cpu_usage_seconds_total counter', `node_cpu_usage_seconds_total ${node} ${at}`,
  '# TYPE node_memory_working_set_bytes gauge', `node_memory_working_set_bytes 1048576 ${at}`,
  '# TYPE container_cpu_usage_seconds_total counter',
  ...containers.map((c) => `container_cpu_usage_seconds_total{container="${c.name}",namespace="ns",pod="${c.pod}"} ${c.cpu} ${at}`),
  '# TYPE container_memory_working_set_bytes gauge',
  ...containers.map((c) => `container_memory_working_set_bytes{container="${c.name}",namespace="ns",pod="${c.pod}"} ${c.memory} ${at}`),
  '# TYPE container_start_time_seconds gauge',
  ...containers.map((c) => `container_start_time_seconds{container="${c.name}",namespace="ns",pod="${c.pod}"} ${c.started / 1000}`),
  '',
].join('\n');

test('the text parses into the node and its containers, with the sample times', () => {
  const s = parseResourceMetrics(text(5000, 12.5, [{ pod: 'p', name: 'c', cpu: 1.5, memory: 4096, started: 1000 }]), 9999);
  assert.deepEqual(s.node, { at: 5000, cpuSeconds: 12.5, memoryBytes: 1048576 });
  assert.deepEqual(s.pods.get('ns/p')?.get('c'), { at: 5000, cpuSeconds: 1.5, memoryBytes: 4096, startedAt: 1000 });
  // a container with only one of the two figures is not measured
  const half = parseResourceMetrics('container_cpu_usage_seconds_total{container="c",namespace="ns",pod="p"} 1\n', 1);
  assert.equal(half.pods.size, 0);
  assert.equal(half.node, undefined);
});

test('usage is the rate between two scrapes; memory the later working set', () => {
  const store = createMetricsStore();
  store.record('n', parseResourceMetrics(text(10_000, 100, [{ pod: 'p', name: 'c', cpu: 10, memory: 1024, started: 0 }]), 0));
  assert.equal(store.node('n'), undefined, 'one scrape gives no rate');
  assert.equal(store.pods().size, 0);
  store.record('n', parseResourceMetrics(text(20_000, 105, [{ pod: 'p', name: 'c', cpu: 12.5, memory: 2048, started: 0 }]), 0));
  assert.deepEqual(store.node('n'), { at: 20_000, windowMs: 10_000, cpuNanoCores: 500_000_000, memoryBytes: 1048576 });
  assert.deepEqual(store.pods().get('ns/p'), { at: 20_000, windowMs: 10_000, containers: [{ name: 'c', at: 20_000, windowMs: 10_000, cpuNanoCores: 250_000_000, memoryBytes: 2048 }] });
});

test('a restarted or new container waits for a new pair; a pod needs all its containers', () => {
  const store = createMetricsStore();
  store.record('n', parseResourceMetrics(text(10_000, 1, [{ pod: 'p', name: 'a', cpu: 50, memory: 1, started: 0 }]), 0));
  store.record('n', parseResourceMetrics(text(20_000, 2, [
    { pod: 'p', name: 'a', cpu: 1, memory: 1, started: 15_000 },
    { pod: 'q', name: 'b', cpu: 2, memory: 1, started: 16_000 },
  ]), 0));
  // a restarted at 15 s and b is new: neither has a pair yet, whatever they used while starting
  assert.equal(store.pods().size, 0);
  store.record('n', parseResourceMetrics(text(30_000, 3, [
    { pod: 'p', name: 'a', cpu: 3, memory: 1, started: 15_000 },
    { pod: 'q', name: 'b', cpu: 7, memory: 1, started: 16_000 },
    { pod: 'q', name: 'c', cpu: 1, memory: 1, started: 25_000 },
  ]), 0));
  assert.equal(store.pods().get('ns/p')?.containers[0]?.cpuNanoCores, 200_000_000);
  assert.equal(store.pods().get('ns/q'), undefined, 'one of its containers has no usage yet');
  // CPU time that went down with the same start time (a counter reset) gives nothing
  store.record('n', parseResourceMetrics(text(40_000, 4, [{ pod: 'p', name: 'a', cpu: 0.5, memory: 1, started: 15_000 }]), 0));
  assert.equal(store.pods().get('ns/p'), undefined);
  store.keepOnly([]);
  assert.equal(store.node('n'), undefined);
});

test('figures are written as metrics-server writes them', () => {
  assert.deepEqual(formatUsage({ cpuNanoCores: 1234, memoryBytes: 2048 }), { cpu: '1234n', memory: '2Ki' });
  assert.deepEqual(formatUsage({ cpuNanoCores: 0, memoryBytes: 1000 }), { cpu: '0', memory: '1000' });
  assert.equal(formatWindow(15_003), '15.003s');
  assert.equal(formatWindow(60_500), '1m0.5s');
});
