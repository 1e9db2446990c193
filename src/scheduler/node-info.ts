// A node with what is placed on it, as the scheduler's filters and scores read it: the pods (bound
// and assumed), their summed requests, the host ports in use, and the pods whose affinity terms other
// pods must respect. A pod is parsed once into a PodInfo (requests, ports, affinity terms).
import { labelSelectorFromObject, matchLabels, type LabelSelector } from '../api/selectors.js';
import {
  addInto, amounts, copyPorts, hostPorts, nonZeroRequests, podRequests, usePort,
  type Amounts, type HostPort, type UsedPorts,
} from './resources.js';
import type { Node, Pod, PodAffinityTerm, WeightedPodAffinityTerm } from './types.js';

/** a pod affinity term with its selectors parsed; `namespaces` empty and no selector means the pod's own namespace */
export interface AffinityTerm {
  topologyKey: string;
  selector: LabelSelector;
  namespaces: ReadonlySet<string>;
  /** undefined: only `namespaces` count; parsed `{}` selects every namespace */
  namespaceSelector?: LabelSelector;
}
export interface WeightedAffinityTerm extends AffinityTerm { weight: number }

export interface PodInfo {
  pod: Pod;
  /** namespace/name */
  key: string;
  requests: Amounts;
  /** the resources it asks a positive amount of (the pod count aside), for the fit check that runs once per node */
  asks: readonly { resource: string; amount: number }[];
  nonZero: { cpu: number; memory: number };
  ports: HostPort[];
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: WeightedAffinityTerm[];
  preferredAntiAffinity: WeightedAffinityTerm[];
  /** a selector the API server let through but that cannot be parsed */
  parseError?: string;
}

export const podKey = (pod: { metadata: { namespace?: string; name?: string } }) => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;

function affinityTerm(pod: Pod, t: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set(t.namespaces ?? []);
  if (!namespaces.size && !t.namespaceSelector) namespaces.add(pod.metadata.namespace ?? '');
  return {
    topologyKey: t.topologyKey,
    selector: labelSelectorFromObject(t.labelSelector),
    namespaces,
    namespaceSelector: t.namespaceSelector ? labelSelectorFromObject(t.namespaceSelector) : undefined,
  };
}

const weighted = (pod: Pod, ts: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] =>
  (ts ?? []).map((t) => ({ ...affinityTerm(pod, t.podAffinityTerm), weight: t.weight }));

export function podInfo(pod: Pod): PodInfo {
  const a = pod.spec.affinity;
  const requests = podRequests(pod);
  const info: PodInfo = {
    pod, key: podKey(pod), requests, nonZero: nonZeroRequests(pod), ports: hostPorts(pod),
    asks: Object.entries(requests).filter(([r, n]) => n > 0 && r !== 'pods').map(([resource, amount]) => ({ resource, amount })),
    requiredAffinity: [], requiredAntiAffinity: [], preferredAffinity: [], preferredAntiAffinity: [],
  };
  try {
    info.requiredAffinity = (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t));
    info.requiredAntiAffinity = (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t));
    info.preferredAffinity = weighted(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    info.preferredAntiAffinity = weighted(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  } catch (e) {
    info.parseError = `invalid pod affinity term: ${(e as Error).message}`;
  }
  return info;
}

/** whether the term selects the pod; `namespaceLabels` gives a namespace's labels for namespace selectors */
export function termMatches(term: AffinityTerm, pod: Pod, namespaceLabels: (ns: string) => Record<string, string> | undefined): boolean {
  const ns = pod.metadata.namespace ?? '';
  const inNamespace = term.namespaces.has(ns) || (!!term.namespaceSelector && matchLabels(term.namespaceSelector, namespaceLabels(ns)));
  return inNamespace && matchLabels(term.selector, pod.metadata.labels);
}

export const hasAffinity = (p: PodInfo) =>
  p.requiredAffinity.length + p.requiredAntiAffinity.length + p.preferredAffinity.length + p.preferredAntiAffinity.length > 0;

export interface NodeInfo {
  node: Node;
  name: string;
  pods: PodInfo[];
  podsWithAffinity: PodInfo[];
  podsWithRequiredAntiAffinity: PodInfo[];
  /** the sum of the pods' requests */
  requested: Amounts;
  /** CPU and memory as scoring counts them (defaults for containers that ask for none) */
  nonZeroRequested: { cpu: number; memory: number };
  allocatable: Amounts;
  usedPorts: UsedPorts;
  /** changes whenever the node or its pods change */
  generation: number;
}

let generations = 0;
export const nextGeneration = () => ++generations;

export function newNodeInfo(node: Node): NodeInfo {
  return {
    node, name: node.metadata.name ?? '', pods: [], podsWithAffinity: [], podsWithRequiredAntiAffinity: [],
    requested: {}, nonZeroRequested: { cpu: 0, memory: 0 }, allocatable: amounts(node.status?.allocatable),
    usedPorts: new Map(), generation: nextGeneration(),
  };
}

export function setNode(info: NodeInfo, node: Node) {
  info.node = node;
  info.allocatable = amounts(node.status?.allocatable);
  info.generation = nextGeneration();
}

function account(info: NodeInfo, p: PodInfo, sign: 1 | -1) {
  addInto(info.requested, p.requests, sign);
  info.nonZeroRequested.cpu += sign * p.nonZero.cpu;
  info.nonZeroRequested.memory += sign * p.nonZero.memory;
  for (const port of p.ports) usePort(info.usedPorts, port, sign);
  info.generation = nextGeneration();
}

export function addPod(info: NodeInfo, p: PodInfo) {
  info.pods.push(p);
  if (hasAffinity(p)) info.podsWithAffinity.push(p);
  if (p.requiredAntiAffinity.length) info.podsWithRequiredAntiAffinity.push(p);
  account(info, p, 1);
}

const without = (list: PodInfo[], key: string) => {
  const i = list.findIndex((p) => p.key === key);
  if (i < 0) return undefined;
  const [removed] = list.splice(i, 1);
  return removed;
};

/** removes the pod by namespace/name; false when it was not on the node */
export function removePod(info: NodeInfo, key: string): boolean {
  const p = without(info.pods, key);
  if (!p) return false;
  without(info.podsWithAffinity, key);
  without(info.podsWithRequiredAntiAffinity, key);
  account(info, p, -1);
  return true;
}

/** a copy that may be changed without touching the original (for preemption's what-ifs) */
export function cloneNodeInfo(info: NodeInfo): NodeInfo {
  return {
    ...info, pods: [...info.pods], podsWithAffinity: [...info.podsWithAffinity], podsWithRequiredAntiAffinity: [...info.podsWithRequiredAntiAffinity],
    requested: { ...info.requested }, nonZeroRequested: { ...info.nonZeroRequested }, usedPorts: copyPorts(info.usedPorts),
  };
}
