// What a pod asks of a node: its resource requests (the larger of its containers' sum and any one init
// container, plus the pod overhead), the defaults scoring assumes for containers that ask nothing, and
// its host ports.
import { milliUnits, wholeUnits } from '../api/quantity.js';
import type { Container, Pod, ResourceList } from './types.js';

/** amounts by resource name: `cpu` in millicores, everything else in whole units */
export type Amounts = Record<string, number>;

export const cpu = 'cpu';
export const memory = 'memory';
export const ephemeralStorage = 'ephemeral-storage';
export const podsResource = 'pods';

/** what scoring counts for a container that requests no CPU or memory, as the reference does */
export const defaultMilliCpuRequest = 100;
export const defaultMemoryRequest = 200 * 1024 * 1024;

export const amountOf = (name: string, q: unknown) => (name === cpu ? milliUnits(q) : wholeUnits(q));

export function amounts(list: ResourceList | undefined): Amounts {
  const out: Amounts = {};
  for (const [name, q] of Object.entries(list ?? {})) out[name] = amountOf(name, q);
  return out;
}

export function addInto(into: Amounts, add: Amounts, sign = 1): Amounts {
  for (const name in add) into[name] = (into[name] ?? 0) + sign * add[name]!;
  return into;
}

function maxInto(into: Amounts, other: Amounts): Amounts {
  for (const name in other) if (other[name]! > (into[name] ?? 0)) into[name] = other[name]!;
  return into;
}

const requestsOf = (c: Container) => amounts(c.resources?.requests);

function combined(pod: Pod, perContainer: (c: Container) => Amounts): Amounts {
  const sum: Amounts = {};
  for (const c of pod.spec.containers ?? []) addInto(sum, perContainer(c));
  for (const c of pod.spec.initContainers ?? []) maxInto(sum, perContainer(c));
  return addInto(sum, amounts(pod.spec.overhead));
}

/** the pod's effective requests: max(sum of containers, each init container) + overhead */
export const podRequests = (pod: Pod): Amounts => combined(pod, requestsOf);

/** CPU and memory as scoring sees them: a container that asks for none is counted at the defaults */
export function nonZeroRequests(pod: Pod): { cpu: number; memory: number } {
  const r = combined(pod, (c) => {
    const req = requestsOf(c);
    return { cpu: req[cpu] || defaultMilliCpuRequest, memory: req[memory] || defaultMemoryRequest };
  });
  return { cpu: r[cpu] ?? 0, memory: r[memory] ?? 0 };
}

export interface HostPort { ip: string; protocol: string; port: number }

const anyAddress = '0.0.0.0';

/** the host ports the pod's containers ask for */
export function hostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || anyAddress, protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

/** host ports in use on a node: protocol/port → address → how many pods use it */
export type UsedPorts = Map<string, Map<string, number>>;

export function usePort(used: UsedPorts, p: HostPort, sign = 1) {
  const key = `${p.protocol}/${p.port}`;
  let ips = used.get(key);
  if (!ips) used.set(key, (ips = new Map()));
  const n = (ips.get(p.ip) ?? 0) + sign;
  if (n > 0) ips.set(p.ip, n);
  else ips.delete(p.ip);
  if (!ips.size) used.delete(key);
}

/** a port on 0.0.0.0 takes that port on every address */
export function portTaken(used: UsedPorts, p: HostPort): boolean {
  const ips = used.get(`${p.protocol}/${p.port}`);
  if (!ips) return false;
  return p.ip === anyAddress ? ips.size > 0 : ips.has(p.ip) || ips.has(anyAddress);
}

export const copyPorts = (used: UsedPorts): UsedPorts => new Map([...used].map(([k, ips]) => [k, new Map(ips)]));
