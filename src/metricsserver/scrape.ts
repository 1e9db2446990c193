// Reading a node agent's resource metrics: its `/metrics/resource` (Prometheus text, each sample with the time it
// was measured), fetched through the API server's nodes/proxy, so this program needs no credentials of its own
// towards the agents: the API server reaches them with its agent client certificate. Agents that simulate many
// nodes behind one server tell them apart by the `node` query parameter; others ignore it.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Client } from '../client/rest-client.js';

/** one measurement: cumulative CPU time and the working set, at a time */
export interface Point { at: number; cpuSeconds: number; memoryBytes: number }

export interface ContainerPoint extends Point {
  /** when the container started (ms since the epoch), to tell a restarted container from the one before */
  startedAt?: number;
}

/** what one scrape of a node found */
export interface NodeScrape {
  node?: Point;
  /** by `namespace/name`, then by container name */
  pods: Map<string, Map<string, ContainerPoint>>;
}

/** the largest response accepted from an agent, so a broken one cannot make this process hold more */
const maxBytes = 32 << 20;

/** the figures of a `/metrics/resource` text; samples without a time get `scrapedAt` */
export function parseResourceMetrics(text: string, scrapedAt: number): NodeScrape {
  const out: NodeScrape = { pods: new Map() };
  let node: Partial<Point> = {};
  const container = (l: Record<string, string>) => {
    const key = `${l.namespace}/${l.pod}`;
    let pod = out.pods.get(key);
    if (!pod) out.pods.set(key, (pod = new Map()));
    let c = pod.get(l.container!);
    if (!c) pod.set(l.container!, (c = { at: scrapedAt, cpuSeconds: NaN, memoryBytes: NaN }));
    return c;
  };
  for (const family of parsePrometheusTextFormat(text)) {
    for (const s of family.metrics) {
      const value = Number(s.value);
      const at = s.timestamp_ms ? Number(s.timestamp_ms) : scrapedAt;
      const l = s.labels ?? {};
      if (!Number.isFinite(value) || !Number.isFinite(at)) continue;
      const ofContainer = l.container && l.pod && l.namespace;
      switch (family.name) {
        case 'node_cpu_usage_seconds_total': node = { ...node, cpuSeconds: value, at }; break;
        case 'node_memory_working_set_bytes': node = { ...node, memoryBytes: value }; break;
        case 'container_cpu_usage_seconds_total': if (ofContainer) Object.assign(container(l), { cpuSeconds: value, at }); break;
        case 'container_memory_working_set_bytes': if (ofContainer) container(l).memoryBytes = value; break;
        case 'container_start_time_seconds': if (ofContainer) container(l).startedAt = value * 1000; break;
      }
    }
  }
  if (node.cpuSeconds !== undefined && node.memoryBytes !== undefined) out.node = node as Point;
  // a container is measured only with both figures
  for (const [key, pod] of out.pods) {
    for (const [name, c] of pod) if (Number.isNaN(c.cpuSeconds) || Number.isNaN(c.memoryBytes)) pod.delete(name);
    if (!pod.size) out.pods.delete(key);
  }
  return out;
}

/** one scrape of a node's agent through the API server */
export async function scrapeNode(client: Client, node: string, timeoutMs: number): Promise<NodeScrape> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await client.stream({
    method: 'GET', path: `/api/v1/nodes/${encodeURIComponent(node)}/proxy/metrics/resource`, query: { node }, accept: 'text/plain', signal,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res) {
      size += chunk.length;
      if (size > maxBytes) throw new Error(`the resource metrics of node ${node} are larger than ${maxBytes >> 20} MiB`);
      chunks.push(chunk);
    }
  } finally {
    res.destroy();
  }
  return parseResourceMetrics(Buffer.concat(chunks).toString('utf8'), Date.now());
}
