// Values of the downward API, for environment variables and downwardAPI volumes: fields of the pod
// (fieldRef) and its containers' resources (resourceFieldRef, a missing limit reading as the node's
// allocatable).

import type { AgentPod, ResourceFieldSelector } from './objects.js';
import { amount, limits, requests } from './resources.js';

export interface PodFacts {
  nodeName: string;
  hostIP: string;
  podIPs: string[];
}

/** a map as the reference writes it into a file: sorted `key="value"` lines */
const mapText = (m: Record<string, string> | undefined) =>
  Object.keys(m ?? {}).sort().map((k) => `${k}=${JSON.stringify(m![k])}`).join('\n');

export function fieldValue(pod: AgentPod, path: string, facts: PodFacts): string {
  const m = pod.metadata;
  switch (path) {
    case 'metadata.name': return m.name;
    case 'metadata.namespace': return m.namespace;
    case 'metadata.uid': return m.uid;
    case 'metadata.labels': return mapText(m.labels);
    case 'metadata.annotations': return mapText(m.annotations);
    case 'spec.nodeName': return pod.spec.nodeName || facts.nodeName;
    case 'spec.serviceAccountName': return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP': return facts.hostIP;
    case 'status.hostIPs': return facts.hostIP;
    case 'status.podIP': return pod.spec.hostNetwork ? facts.hostIP : facts.podIPs[0] ?? '';
    case 'status.podIPs': return (pod.spec.hostNetwork ? [facts.hostIP] : facts.podIPs).join(',');
  }
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (keyed[1] === 'labels' ? m.labels : m.annotations)?.[keyed[2]!] ?? '';
  throw new Error(`unsupported field path ${JSON.stringify(path)}`);
}

/** `limits.cpu`, `requests.memory`, ... of a container, divided by the divisor and rounded up */
export function resourceValue(pod: AgentPod, containerName: string | undefined, ref: ResourceFieldSelector, allocatable: Record<string, number>): string {
  const c = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((x) => x.name === (ref.containerName || containerName));
  if (!c) throw new Error(`container ${JSON.stringify(ref.containerName || containerName)} not found for resource field ${ref.resource}`);
  const [kind, resource] = ref.resource.split(/\.(.*)/s) as [string, string];
  if (!['limits', 'requests'].includes(kind) || !resource) throw new Error(`unsupported resource field ${JSON.stringify(ref.resource)}`);
  let value = (kind === 'limits' ? limits(c) : requests(c))[resource];
  if (kind === 'limits' && !value) value = allocatable[resource] ?? 0;
  const divisor = amount(resource, ref.divisor ?? '1') || amount(resource, '1');
  return String(Math.ceil((value ?? 0) / divisor));
}
