// Requests and limits as the node uses them: the pod's QoS class, what the pod asks of the node (for
// admission), the Linux resources of each container (CPU shares and CFS quota, memory limit, OOM score)
// and of the pod's cgroup. Quantities become plain numbers: CPU in millicores, the rest in units.

import type { AgentPod, Container, Quantity } from './objects.js';
import { parseQuantity } from './quantity.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** a quantity in the resource's unit: millicores for cpu, bytes or counts for the rest (rounded up, as the reference) */
export function amount(resource: string, q: Quantity | undefined): number {
  if (q === undefined || q === null || q === '') return 0;
  const v = typeof q === 'number' ? q : parseQuantity(q);
  return resource === 'cpu' ? Math.ceil(Math.round(v * 1e9) / 1e6) : Math.ceil(v);
}

/** a container's requests, a missing request taking its limit (the defaulting the API server applies) */
export function requests(c: Container): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, q] of Object.entries(c.resources?.limits ?? {})) out[k] = amount(k, q);
  for (const [k, q] of Object.entries(c.resources?.requests ?? {})) out[k] = amount(k, q);
  return out;
}

export function limits(c: Container): Record<string, number> {
  return Object.fromEntries(Object.entries(c.resources?.limits ?? {}).map(([k, q]) => [k, amount(k, q)]));
}

/** The reference's QoS rules over cpu and memory of every container, init containers included. */
export function qosClass(pod: AgentPod): QosClass {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const req: Record<string, number> = {};
  const lim: Record<string, number> = {};
  let guaranteed = true;
  for (const c of containers) {
    const r = requests(c);
    const l = limits(c);
    for (const k of ['cpu', 'memory']) {
      if (r[k]! > 0) req[k] = (req[k] ?? 0) + r[k]!;
      if (l[k]! > 0) lim[k] = (lim[k] ?? 0) + l[k]!;
    }
    if (!(l.cpu! > 0 && l.memory! > 0)) guaranteed = false;
  }
  if (!Object.keys(req).length && !Object.keys(lim).length) return 'BestEffort';
  if (guaranteed && ['cpu', 'memory'].every((k) => req[k] === lim[k])) return 'Guaranteed';
  return 'Burstable';
}

/**
 * What the pod asks of the node: the larger of the sum of its containers and its largest init
 * container, per resource, plus its overhead; `pods` is 1.
 */
export function podRequests(pod: AgentPod): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of pod.spec.containers) for (const [k, v] of Object.entries(requests(c))) sum[k] = (sum[k] ?? 0) + v;
  for (const c of pod.spec.initContainers ?? []) for (const [k, v] of Object.entries(requests(c))) sum[k] = Math.max(sum[k] ?? 0, v);
  for (const [k, q] of Object.entries(pod.spec.overhead ?? {})) sum[k] = (sum[k] ?? 0) + amount(k, q);
  sum.pods = 1;
  return sum;
}

/** A limit of the pod as a whole: the sum over its containers when every one of them has it, else none. */
export function podLimit(pod: AgentPod, resource: string): number | undefined {
  let sum = 0;
  for (const c of pod.spec.containers) {
    const l = limits(c)[resource];
    if (!l) return undefined;
    sum += l;
  }
  for (const c of pod.spec.initContainers ?? []) sum = Math.max(sum, limits(c)[resource] ?? 0);
  return sum;
}

export interface LinuxResources {
  cpuPeriod: number;
  cpuQuota: number;
  cpuShares: number;
  memoryLimitBytes: number;
  oomScoreAdj: number;
  cpusetCpus: string;
  cpusetMems: string;
}

export interface ResourceSettings {
  /** enforce CPU limits with the CFS quota (--cpu-cfs-quota) */
  cfsQuota: boolean;
  /** the CFS period in microseconds (--cpu-cfs-quota-period) */
  cfsPeriodUs: number;
  /** the node's memory, for the OOM score of burstable pods */
  memoryCapacity: number;
}

const minShares = 2;
const maxShares = 262144;
const minQuotaUs = 1000;

export const milliCpuToShares = (milli: number) => (milli <= 0 ? minShares : Math.min(maxShares, Math.max(minShares, Math.floor((milli * 1024) / 1000))));
export const milliCpuToQuota = (milli: number, periodUs: number) => (milli <= 0 ? 0 : Math.max(minQuotaUs, Math.floor((milli * periodUs) / 1000)));

/** critical to the node: the system-node-critical priority and above */
const nodeCriticalPriority = 2_000_001_000;

/** The OOM score of a container by its pod's QoS: guaranteed -997, best-effort 1000, burstable by its memory request. */
export function oomScoreAdj(pod: AgentPod, c: Container, memoryCapacity: number): number {
  if ((pod.spec.priority ?? 0) >= nodeCriticalPriority) return -997;
  const qos = qosClass(pod);
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort') return 1000;
  const request = requests(c).memory ?? 0;
  const score = 1000 - Math.floor((1000 * request) / Math.max(1, memoryCapacity));
  if (score < 3) return 3;
  return score === 1000 ? 999 : score;
}

export function containerResources(pod: AgentPod, c: Container, s: ResourceSettings): LinuxResources {
  const r = requests(c);
  const l = limits(c);
  const cpuLimit = l.cpu ?? 0;
  const quota = s.cfsQuota && cpuLimit > 0 ? milliCpuToQuota(cpuLimit, s.cfsPeriodUs) : 0;
  return {
    cpuShares: milliCpuToShares(r.cpu ?? 0),
    cpuQuota: quota,
    cpuPeriod: quota ? s.cfsPeriodUs : 0,
    memoryLimitBytes: l.memory ?? 0,
    oomScoreAdj: oomScoreAdj(pod, c, s.memoryCapacity),
    cpusetCpus: '',
    cpusetMems: '',
  };
}
