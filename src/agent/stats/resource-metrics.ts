// /metrics/resource: the few figures resource-metrics consumers (the metrics API's server) read, in the
// Prometheus text format with the time of each measurement: cumulative CPU seconds and working-set memory
// of the node, each pod and each container, and the containers' start times.

import type { Summary } from './summary.js';

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labels = (l: Record<string, string>) => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};
const ms = (time: string) => Date.parse(time);

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: string[];
}

export function resourceMetrics(s: Summary): string {
  const family = (name: string, help: string, type: Family['type']): Family => ({ name, help, type, samples: [] });
  const containerCpu = family('container_cpu_usage_seconds_total', 'CPU time the container has used, in core-seconds', 'counter');
  const containerMemory = family('container_memory_working_set_bytes', 'Working set of the container, in bytes', 'gauge');
  const containerStart = family('container_start_time_seconds', 'When the container started, in seconds since the epoch', 'gauge');
  const nodeCpu = family('node_cpu_usage_seconds_total', 'CPU time the node has used, in core-seconds', 'counter');
  const nodeMemory = family('node_memory_working_set_bytes', 'Working set of the node, in bytes', 'gauge');
  const podCpu = family('pod_cpu_usage_seconds_total', 'CPU time the pod has used, in core-seconds', 'counter');
  const podMemory = family('pod_memory_working_set_bytes', 'Working set of the pod, in bytes', 'gauge');
  const scrapeError = family('scrape_error', '1 when the last collection of these figures failed, else 0', 'gauge');

  const add = (f: Family, l: Record<string, string>, value: number, time?: string) => f.samples.push(`${f.name}${labels(l)} ${value}${time ? ` ${ms(time)}` : ''}`);
  if (s.node.cpu) add(nodeCpu, {}, s.node.cpu.usageCoreNanoSeconds / 1e9, s.node.cpu.time);
  if (s.node.memory) add(nodeMemory, {}, s.node.memory.workingSetBytes, s.node.memory.time);
  for (const p of s.pods) {
    const pl = { namespace: p.podRef.namespace, pod: p.podRef.name };
    if (p.cpu) add(podCpu, pl, p.cpu.usageCoreNanoSeconds / 1e9, p.cpu.time);
    if (p.memory) add(podMemory, pl, p.memory.workingSetBytes, p.memory.time);
    for (const c of p.containers) {
      const cl = { container: c.name, ...pl };
      if (c.cpu) add(containerCpu, cl, c.cpu.usageCoreNanoSeconds / 1e9, c.cpu.time);
      if (c.memory) add(containerMemory, cl, c.memory.workingSetBytes, c.memory.time);
      add(containerStart, cl, ms(c.startTime) / 1000);
    }
  }
  add(scrapeError, {}, 0);
  return [containerCpu, containerMemory, containerStart, nodeCpu, nodeMemory, podCpu, podMemory, scrapeError]
    .map((f) => `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${f.samples.join('\n')}${f.samples.length ? '\n' : ''}`)
    .join('');
}
