// The last two scrapes of every node, and the usage they imply: CPU is the change of cumulative CPU time over the
// window between two measurements, memory the working set of the later one. A node or container needs two
// measurements; a container whose start time changed (it restarted) or whose CPU time went down waits for a new
// pair. A container's first measurement is not taken against its start time: the CPU it used while starting
// would make a short window's rate far higher than what it uses. A pod is reported only when every container it
// was seen with has a usage.
import type { ContainerPoint, NodeScrape, Point } from './scrape.js';

export interface Usage { at: number; windowMs: number; cpuNanoCores: number; memoryBytes: number }

export interface PodUsage { at: number; windowMs: number; containers: Array<{ name: string } & Usage> }

export interface MetricsStore {
  record(node: string, scrape: NodeScrape): void;
  /** forgets nodes not in the list (deleted ones) */
  keepOnly(nodes: Iterable<string>): void;
  node(name: string): Usage | undefined;
  /** every pod with a usage, by `namespace/name` */
  pods(): Map<string, PodUsage>;
}

/** the shortest window a rate is taken over, so clock jitter cannot make a figure of nothing */
const minWindowMs = 10;

function rate(prev: Point, last: Point): Usage | undefined {
  const windowMs = last.at - prev.at;
  if (windowMs < minWindowMs || last.cpuSeconds < prev.cpuSeconds) return undefined;
  return { at: last.at, windowMs, cpuNanoCores: Math.round(((last.cpuSeconds - prev.cpuSeconds) * 1e9 * 1000) / windowMs), memoryBytes: last.memoryBytes };
}

const containerUsage = (prev: ContainerPoint | undefined, last: ContainerPoint) =>
  (prev && prev.startedAt === last.startedAt ? rate(prev, last) : undefined);

export function createMetricsStore(): MetricsStore {
  const scrapes = new Map<string, { prev?: NodeScrape; last: NodeScrape }>();

  return {
    record(node, scrape) {
      const before = scrapes.get(node);
      scrapes.set(node, { prev: before?.last, last: scrape });
    },
    keepOnly(nodes) {
      const keep = new Set(nodes);
      for (const name of scrapes.keys()) if (!keep.has(name)) scrapes.delete(name);
    },
    node(name) {
      const s = scrapes.get(name);
      return s?.prev?.node && s.last.node ? rate(s.prev.node, s.last.node) : undefined;
    },
    pods() {
      const out = new Map<string, PodUsage>();
      for (const { prev, last } of scrapes.values()) {
        for (const [key, containers] of last.pods) {
          const measured: PodUsage['containers'] = [];
          for (const [name, point] of containers) {
            const u = containerUsage(prev?.pods.get(key)?.get(name), point);
            if (u) measured.push({ name, ...u });
          }
          if (!measured.length || measured.length !== containers.size) continue;
          const latest = measured.reduce((a, b) => (b.at > a.at ? b : a));
          out.set(key, { at: latest.at, windowMs: latest.windowMs, containers: measured.sort((a, b) => a.name.localeCompare(b.name)) });
        }
      }
      return out;
    },
  };
}
