// The Table form of NodeMetrics and PodMetrics, as metrics-server converts them for `kubectl get`: Name, one
// quantity column per resource the first item measures (sorted by name), and the Window; a pod's usage is the
// sum of its containers'. Rows carry the object as the generic server does (PartialObjectMetadata by default).
import type { Naming } from '../api/naming.js';
import { canonicalQuantity, quantityValue } from '../api/quantity.js';
import { badRequest } from '../api/status.js';
import type { NodeMetrics, PodMetrics } from '../api/resource-metrics.js';

/** the Table version the Accept header asks for before plain JSON ('v1' or 'v1beta1'), or undefined */
export function tableVersion(accept: string | undefined, names: Naming): string | undefined {
  for (const entry of (accept ?? '').split(',')) {
    const [type = '', ...params] = entry.split(';').map(s => s.trim().toLowerCase());
    const p = new Map(params.map(x => { const i = x.indexOf('='); return [x.slice(0, i), x.slice(i + 1)] as const; }));
    if (!p.has('as') && (type === 'application/json' || type === '*/*' || type === 'application/*')) return undefined;
    if (type === 'application/json' && p.get('as') === 'table' && p.get('g') === names.metaGroup.toLowerCase()
      && (p.get('v') === 'v1' || p.get('v') === 'v1beta1')) return p.get('v');
  }
  return undefined;
}

type Metrics = NodeMetrics | PodMetrics;

/** a quantity's total over several, in the canonical form a summed Quantity prints */
function total(values: string[], unit: 'cpu' | 'memory' | string): string {
  if (values.length === 1) return String(canonicalQuantity(values[0]!));
  const sum = values.reduce((s, v) => s + (quantityValue(v) ?? 0), 0);
  if (unit === 'cpu') return String(canonicalQuantity(`${Math.round(sum * 1e9)}n`));
  return String(canonicalQuantity(sum % 1024 === 0 ? `${sum / 1024}Ki` : String(Math.round(sum))));
}

/** the usage of a node, or the sum of a pod's containers', by resource name */
function usageOf(m: Metrics): Map<string, string> {
  const parts = m.kind === 'NodeMetrics' ? [m.usage] : m.containers.map(c => c.usage);
  const byName = new Map<string, string[]>();
  for (const usage of parts) for (const [k, v] of Object.entries(usage)) byName.set(k, [...(byName.get(k) ?? []), String(v)]);
  return new Map([...byName].map(([k, vs]) => [k, total(vs, k)]));
}

/** the Table of a metrics object or list, at the version asked for */
export function metricsTable(answer: Metrics | { metadata: object; items: Metrics[] }, version: string, names: Naming, includeObject: string | null) {
  const include = includeObject || 'Metadata';
  if (!['None', 'Metadata', 'Object'].includes(include))
    throw badRequest(`Unable to convert to Table as requested: includeObject: Unsupported value: "${include}": supported values: "Metadata", "None", "Object"`);
  const items = 'items' in answer ? answer.items : [answer];
  const resources = items.length ? [...usageOf(items[0]!).keys()].sort() : [];
  const columnDefinitions = items.length ? [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    ...resources.map(name => ({ name, type: 'string', format: 'quantity', description: '', priority: 0 })),
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ] : [];
  const rows = items.map(m => {
    const usage = usageOf(m);
    const row: Record<string, unknown> = { cells: [m.metadata.name, ...resources.map(r => usage.get(r) ?? '0'), m.window] };
    if (include === 'Object') row.object = m;
    else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: `${names.metaGroup}/v1`, metadata: m.metadata };
    return row;
  });
  return { kind: 'Table', apiVersion: `${names.metaGroup}/${version}`, metadata: 'items' in answer ? answer.metadata : {}, columnDefinitions, rows };
}
