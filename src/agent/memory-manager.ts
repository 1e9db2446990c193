// The memory manager (--memory-manager-policy). `None`: containers may use memory of every NUMA node.
// `Static`: the containers of a guaranteed pod are bound (cpuset.mems) to a NUMA node whose memory,
// less --reserved-memory, still holds their memory requests; the memory is taken when the pod is
// admitted (a pod that does not fit on any node is rejected) and given back when it ends. The NUMA
// nodes are read from /sys/devices/system/node.

import { readdirSync, readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import type { AgentPod } from './objects.js';
import { qosClass, requests } from './resources.js';

export interface NumaNode {
  id: number;
  memory: number;
}

/** the machine's NUMA nodes and their memory; one node with all memory when the kernel shows none */
export function numaNodes(root = '/sys/devices/system/node'): NumaNode[] {
  try {
    const nodes = readdirSync(root).filter((e) => /^node\d+$/.test(e)).map((e) => {
      const meminfo = readFileSync(`${root}/${e}/meminfo`, 'utf8');
      const kb = Number(/MemTotal:\s+(\d+)/.exec(meminfo)?.[1] ?? 0);
      return { id: Number(e.slice(4)), memory: kb * 1024 };
    });
    if (nodes.length) return nodes.sort((a, b) => a.id - b.id);
  } catch {}
  return [{ id: 0, memory: totalmem() }];
}

/** --reserved-memory entries `<node>:memory=<quantity>,...` as bytes per node */
export function parseReservedMemory(entries: string[], parseQuantity: (q: string) => number): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of entries) {
    const [node, rest] = e.split(/:(.*)/s) as [string, string];
    for (const pair of rest.split(',')) {
      const [k, q] = pair.split('=') as [string, string];
      if (k === 'memory') out.set(Number(node), (out.get(Number(node)) ?? 0) + parseQuantity(q));
    }
  }
  return out;
}

export interface MemoryManager {
  readonly policy: 'None' | 'Static';
  /** takes the pod's memory on one NUMA node; a message when no node holds it */
  allocate(pod: AgentPod): string | undefined;
  /** the memory nodes of the pod's containers: '' for all */
  nodes(pod: AgentPod): string;
  release(uid: string): void;
}

export function createMemoryManager(policy: 'None' | 'Static', nodes: NumaNode[], reserved: Map<number, number>): MemoryManager {
  const used = new Map<string, { node: number; bytes: number }>();
  const free = (id: number) => nodes.find((n) => n.id === id)!.memory - (reserved.get(id) ?? 0) - [...used.values()].filter((u) => u.node === id).reduce((s, u) => s + u.bytes, 0);
  return {
    policy,
    allocate(pod) {
      if (policy !== 'Static' || qosClass(pod) !== 'Guaranteed' || used.has(pod.metadata.uid)) return undefined;
      const bytes = pod.spec.containers.reduce((s, c) => s + (requests(c).memory ?? 0), 0);
      const node = nodes.find((n) => free(n.id) >= bytes);
      if (!node) return `not enough memory on any NUMA node for ${bytes} bytes`;
      used.set(pod.metadata.uid, { node: node.id, bytes });
      return undefined;
    },
    nodes(pod) {
      const u = used.get(pod.metadata.uid);
      return u ? String(u.node) : '';
    },
    release(uid) {
      used.delete(uid);
    },
  };
}
