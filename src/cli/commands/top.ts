// top: CPU and memory use of nodes and pods from the metrics API (`metrics.<domain>/v1beta1`), which an
// aggregated metrics server provides; without it the answer is the reference's "Metrics API not available".

import { Command } from 'commander';
import { quantityValue } from '../../api/quantity.js';
import { CliError, type Cli } from '../cli.js';
import { alignColumns } from '../printers/table.js';
import { lookup } from '../resources.js';

/** a quantity the metrics API reported; 0 for one that is not a quantity */
const parseQuantity = (q: string) => quantityValue(q) ?? 0;
const cores = (q: string) => `${Math.round(parseQuantity(q) * 1000)}m`;
const mebibytes = (q: string) => `${Math.round(parseQuantity(q) / 2 ** 20)}Mi`;

async function metricsGroup(cli: Cli): Promise<string> {
  const d = await cli.discovery();
  const group = d.names.group('metrics');
  const served = d.groups.find((g) => g.name === group);
  if (!served || !served.versions.includes('v1beta1')) throw new CliError('Metrics API not available');
  return `/apis/${group}/v1beta1`;
}

interface TopFlags { selector?: string; sortBy?: string; headers: boolean; allNamespaces?: boolean; containers?: boolean; showCapacity?: boolean }

const sorter = (by: string | undefined) => (a: { cpu: number; memory: number; name: string }, b: { cpu: number; memory: number; name: string }) =>
  by === 'cpu' ? b.cpu - a.cpu : by === 'memory' ? b.memory - a.memory : a.name.localeCompare(b.name);

function nodeCommand(cli: Cli): Command {
  return new Command('node').alias('nodes').alias('no')
    .description('CPU and memory use of nodes')
    .argument('[name]')
    .option('-l, --selector <selector>', 'the nodes these labels select')
    .option('--sort-by <field>', 'cpu or memory')
    .option('--no-headers', 'leave out the header line')
    .option('--show-capacity', 'percentages of capacity rather than of allocatable resources')
    .action(async (name: string | undefined, f: TopFlags) => {
      const base = await metricsGroup(cli);
      const client = await cli.client();
      const list = name ? { items: [await client.request({ method: 'GET', path: `${base}/nodes/${encodeURIComponent(name)}` })] }
        : await client.request({ method: 'GET', path: `${base}/nodes`, query: { labelSelector: f.selector } });
      const nodes = await (await cli.client()).resource(lookup(await cli.discovery(), 'nodes')).list({ labelSelector: f.selector });
      const byName = new Map(nodes.items.map((n: any) => [n.metadata.name, n]));
      const rows = (list.items as any[]).map((m) => {
        const node: any = byName.get(m.metadata.name);
        const limit = f.showCapacity ? node?.status?.capacity : node?.status?.allocatable;
        const cpu = parseQuantity(m.usage.cpu);
        const memory = parseQuantity(m.usage.memory);
        const pct = (used: number, total?: string) => (total ? `${Math.round((used / parseQuantity(total)) * 100)}%` : '<unknown>');
        return { name: m.metadata.name, cpu, memory, cells: [m.metadata.name, cores(m.usage.cpu), pct(cpu, limit?.cpu), mebibytes(m.usage.memory), pct(memory, limit?.memory)] };
      }).sort(sorter(f.sortBy));
      if (!rows.length) throw new CliError('metrics not available yet');
      // nodes the metrics server has no figures for yet are listed after the others, as kubectl does
      const measured = new Set(rows.map((r) => r.name));
      const missing = [...byName.keys()].filter((n) => !measured.has(n) && (!name || n === name)).sort().map((n) => [n, ...Array(4).fill('<unknown>')]);
      cli.out(alignColumns([...(f.headers ? [['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']] : []), ...rows.map((r) => r.cells), ...missing]));
    });
}

function podCommand(cli: Cli): Command {
  return new Command('pod').alias('pods').alias('po')
    .description('CPU and memory use of pods')
    .argument('[name]')
    .option('-l, --selector <selector>', 'the pods these labels select')
    .option('-A, --all-namespaces', 'in every namespace')
    .option('--containers', 'a line per container')
    .option('--sort-by <field>', 'cpu or memory')
    .option('--no-headers', 'leave out the header line')
    .action(async (name: string | undefined, f: TopFlags) => {
      const base = await metricsGroup(cli);
      const client = await cli.client();
      const { namespace } = await cli.namespace();
      const scope = f.allNamespaces ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
      const list = name ? { items: [await client.request({ method: 'GET', path: `${base}${scope}/pods/${encodeURIComponent(name)}` })] }
        : await client.request({ method: 'GET', path: `${base}${scope}/pods`, query: { labelSelector: f.selector } });
      const rows = (list.items as any[]).flatMap((m) => {
        const sum = (k: 'cpu' | 'memory') => (m.containers ?? []).reduce((t: number, c: any) => t + parseQuantity(c.usage[k] ?? '0'), 0);
        const lead = f.allNamespaces ? [m.metadata.namespace] : [];
        if (f.containers) {
          return (m.containers ?? []).map((c: any) => ({ name: m.metadata.name, cpu: parseQuantity(c.usage.cpu), memory: parseQuantity(c.usage.memory), cells: [...lead, m.metadata.name, c.name, cores(c.usage.cpu), mebibytes(c.usage.memory)] }));
        }
        const cpu = sum('cpu');
        const memory = sum('memory');
        return [{ name: m.metadata.name, cpu, memory, cells: [...lead, m.metadata.name, `${Math.round(cpu * 1000)}m`, `${Math.round(memory / 2 ** 20)}Mi`] }];
      }).sort(sorter(f.sortBy));
      if (!rows.length) {
        // pods without figures are new ones the metrics server has not measured twice yet, as kubectl tells them apart
        if (!f.allNamespaces && (await client.resource(lookup(await cli.discovery(), 'pods'), namespace).list({ labelSelector: f.selector, limit: 1 })).items.length)
          throw new CliError('metrics not available yet');
        cli.err(f.allNamespaces ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`);
        return;
      }
      const header = [...(f.allNamespaces ? ['NAMESPACE'] : []), ...(f.containers ? ['POD', 'NAME'] : ['NAME']), 'CPU(cores)', 'MEMORY(bytes)'];
      cli.out(alignColumns([...(f.headers ? [header] : []), ...rows.map((r) => r.cells)]));
    });
}

export function topCommand(cli: Cli): Command {
  return new Command('top').description('Show CPU and memory use of nodes and pods').addCommand(nodeCommand(cli)).addCommand(podCommand(cli));
}
