// Filter: the pod's requests (init containers and overhead counted) must fit in what the node has
// allocatable less what its pods request, and the node must have room for one more pod. Score: by
// the profile's strategy, LeastAllocated (the default), MostAllocated or RequestedToCapacityRatio.
import { maxNodeScore, nodeUpdates, unschedulable, type PluginSpec } from '../framework.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import { cpu, memory, podsResource } from '../resources.js';

export const reasonTooManyPods = 'Too many pods';
export const reasonInsufficient = (resource: string) => `Insufficient ${resource}`;

export interface ResourceWeight { name: string; weight: number }

interface Args {
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
  scoringStrategy?: {
    type?: 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
    resources?: ResourceWeight[];
    requestedToCapacityRatio?: { shape?: { utilization: number; score: number }[] };
  };
}

export const defaultScoredResources: ResourceWeight[] = [{ name: cpu, weight: 1 }, { name: memory, weight: 1 }];

/**
 * What is requested of the resource on the node with the pod added; unless `asRequested`, CPU and
 * memory count the scoring defaults for containers that request none.
 */
export function requestedWith(node: NodeInfo, pod: PodInfo, resource: string, asRequested = false): number {
  if (!asRequested && resource === cpu) return node.nonZeroRequested.cpu + pod.nonZero.cpu;
  if (!asRequested && resource === memory) return node.nonZeroRequested.memory + pod.nonZero.memory;
  return (node.requested[resource] ?? 0) + (pod.requests[resource] ?? 0);
}

/** the reasons the pod does not fit the node's resources (undefined when it fits) */
export function insufficientResources(pod: PodInfo, node: NodeInfo, ignored?: (resource: string) => boolean): string[] | undefined {
  let reasons: string[] | undefined;
  if (node.pods.length + 1 > (node.allocatable[podsResource] ?? 0)) reasons = [reasonTooManyPods];
  for (const { resource, amount } of pod.asks) {
    if (ignored?.(resource)) continue;
    if (amount > (node.allocatable[resource] ?? 0) - (node.requested[resource] ?? 0)) (reasons ??= []).push(reasonInsufficient(resource));
  }
  return reasons;
}

type Scorer = (requested: number, allocatable: number) => number;

function shapeScorer(shape: { utilization: number; score: number }[]): Scorer {
  // scores in the configuration run 0..10; the framework's run 0..100
  const points = [...shape].sort((a, b) => a.utilization - b.utilization).map((p) => ({ x: p.utilization, y: p.score * (maxNodeScore / 10) }));
  if (!points.length) throw new Error('NodeResourcesFit: requestedToCapacityRatio needs at least one shape point');
  return (requested, allocatable) => {
    if (allocatable === 0 || requested > allocatable) return Math.trunc(points[points.length - 1]!.y);
    const u = Math.trunc((requested * maxNodeScore) / allocatable);
    if (u <= points[0]!.x) return Math.trunc(points[0]!.y);
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      if (u <= b.x) return Math.trunc(a.y + ((b.y - a.y) * (u - a.x)) / (b.x - a.x));
    }
    return Math.trunc(points[points.length - 1]!.y);
  };
}

const scorers: Record<string, (a: Args) => Scorer> = {
  LeastAllocated: () => (req, alloc) => (alloc === 0 || req > alloc ? 0 : Math.trunc(((alloc - req) * maxNodeScore) / alloc)),
  MostAllocated: () => (req, alloc) => (alloc === 0 ? 0 : Math.trunc((Math.min(req, alloc) * maxNodeScore) / alloc)),
  RequestedToCapacityRatio: (a) => shapeScorer(a.scoringStrategy?.requestedToCapacityRatio?.shape ?? []),
};

export const nodeResourcesFit: PluginSpec = {
  name: 'NodeResourcesFit',
  create: (rawArgs) => {
    const args = rawArgs as Args;
    const ignored = new Set(args.ignoredResources ?? []);
    const ignoredGroups = new Set(args.ignoredResourceGroups ?? []);
    const isIgnored = ignored.size || ignoredGroups.size
      ? (r: string) => ignored.has(r) || (r.includes('/') && ignoredGroups.has(r.slice(0, r.indexOf('/'))))
      : undefined;
    const strategy = args.scoringStrategy?.type ?? 'LeastAllocated';
    const makeScorer = scorers[strategy];
    if (!makeScorer) throw new Error(`NodeResourcesFit: unknown scoring strategy ${JSON.stringify(strategy)}`);
    const scorer = makeScorer(args);
    // a weight left out (or 0) is 1, as the reference defaults it
    const resources = args.scoringStrategy?.resources?.length ? args.scoringStrategy.resources.map((r) => ({ ...r, weight: r.weight || 1 })) : defaultScoredResources;
    return {
      name: 'NodeResourcesFit',
      events: ['Pod/Delete', 'Node/Add', ...nodeUpdates],
      filter(_state, pod, node) {
        const reasons = insufficientResources(pod, node, isIgnored);
        return reasons ? unschedulable(...reasons) : undefined;
      },
      score(_state, pod, node) {
        let total = 0;
        let weights = 0;
        for (const { name, weight } of resources) {
          const allocatable = node.allocatable[name] ?? 0;
          if (!allocatable) continue;
          total += scorer(requestedWith(node, pod, name), allocatable) * weight;
          weights += weight;
        }
        return weights ? Math.trunc(total / weights) : 0;
      },
    };
  },
};
