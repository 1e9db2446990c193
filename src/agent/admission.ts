// Admission of pods on the node, as the reference agent admits them before running anything: the OS
// the pod asks for, its sysctls, the node's pressure, then the scheduler's general checks against this
// node (resources against allocatable, node selector and required node affinity, host ports) and its
// NoExecute taints. A refused pod ends Failed with the check's reason (OutOfcpu, NodeAffinity, ...) and
// an event of that reason.

import type { Naming } from '../api/naming.js';
import type { AgentPod, Node, NodeSelectorRequirement, Taint, Toleration } from './objects.js';
import { isStaticPod } from './sources/static.js';
import { forbiddenSysctl } from './sysctls.js';
import { podRequests, qosClass } from './resources.js';
import type { Pressure } from './node-status.js';

export interface Rejection {
  reason: string;
  message: string;
}

export interface AdmissionInput {
  pod: AgentPod;
  /** the pods already admitted and still running or about to */
  others: AgentPod[];
  /** the node as the API holds it (labels, taints), or as the agent registers it */
  node: Node;
  /** allocatable by resource: cpu in millicores, the rest in units */
  allocatable: Record<string, number>;
  pressure: Pressure;
  allowedUnsafeSysctls: readonly string[];
  names: Naming;
}

const critical = (pod: AgentPod, names: Naming) => isStaticPod(pod, names) || (pod.spec.priority ?? 0) >= 2_000_000_000;

export function admit(a: AdmissionInput): Rejection | undefined {
  const { pod, node, names } = a;
  const labels = node.metadata?.labels ?? {};
  const osLabel = names.label('os');
  if (pod.metadata.labels?.[osLabel] !== undefined && pod.metadata.labels[osLabel] !== 'linux')
    return { reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: `Failed to admit pod as the \`${osLabel}\` label doesn't match node label` };
  if (pod.spec.os?.name && pod.spec.os.name !== 'linux') return { reason: 'PodOSNotSupported', message: 'Failed to admit pod as the OS field doesn\'t match node OS' };

  const forbidden = forbiddenSysctl(pod, a.allowedUnsafeSysctls);
  if (forbidden) return { reason: 'SysctlForbidden', message: `forbidden sysctl: ${forbidden}` };

  if (!critical(pod, names)) {
    const conditions = [...(a.pressure.memory && qosClass(pod) === 'BestEffort' ? ['MemoryPressure'] : []), ...(a.pressure.disk ? ['DiskPressure'] : []), ...(a.pressure.pid ? ['PIDPressure'] : [])];
    if (conditions.length) return { reason: 'Evicted', message: `The node had condition: [${conditions.join(', ')}]. ` };
  }

  const insufficient = fits(pod, a.others, a.allocatable, names);
  if (insufficient) return insufficient;
  if (!matchesNodeSelector(pod, node, labels)) return predicate('NodeAffinity');
  if (pod.spec.nodeName && node.metadata?.name && pod.spec.nodeName !== node.metadata.name) return predicate('NodeName');
  if (hostPortsConflict(pod, a.others)) return predicate('NodePorts');
  if (!isStaticPod(pod, names) && untolerated(node.spec?.taints ?? [], pod.spec.tolerations ?? [])) return predicate('TaintToleration');
  return undefined;
}

const predicate = (name: string): Rejection => ({ reason: name, message: `Predicate ${name} failed` });

/** the first resource the node lacks, as the reference reports it */
function fits(pod: AgentPod, others: AgentPod[], allocatable: Record<string, number>, names: Naming): Rejection | undefined {
  const allowedPods = allocatable.pods ?? Infinity;
  if (others.length + 1 > allowedPods) return insufficientResource('pods', 1, others.length, allowedPods);
  const want = podRequests(pod);
  const used: Record<string, number> = {};
  for (const o of others) for (const [k, v] of Object.entries(podRequests(o))) used[k] = (used[k] ?? 0) + v;
  for (const [resource, requested] of Object.entries(want)) {
    if (resource === 'pods' || requested <= 0) continue;
    const capacity = allocatable[resource];
    // an extended resource the node has none of is the scheduler's business (cluster-level resources)
    if (capacity === undefined && isExtended(resource, names)) continue;
    const free = (capacity ?? 0) - (used[resource] ?? 0);
    if (requested > free) return insufficientResource(resource, requested, used[resource] ?? 0, capacity ?? 0);
  }
  return undefined;
}

/** a resource outside the built-in names: a domain-qualified name not under the vendor's domain */
const isExtended = (resource: string, names: Naming) => {
  const domain = resource.split('/')[0]!;
  return resource.includes('/') && domain !== names.labelDomain && !domain.endsWith(`.${names.labelDomain}`) && !resource.startsWith('requests.');
};

const insufficientResource = (resource: string, requested: number, used: number, capacity: number): Rejection => ({
  reason: `OutOf${resource}`,
  message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
});

export function matchesNodeSelector(pod: AgentPod, node: Node, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  const fields = { 'metadata.name': node.metadata?.name ?? '' } as Record<string, string>;
  return terms.some((t) => {
    const exprs = t.matchExpressions ?? [];
    const fieldExprs = t.matchFields ?? [];
    if (!exprs.length && !fieldExprs.length) return false;
    return exprs.every((r) => requirementMatches(r, labels)) && fieldExprs.every((r) => requirementMatches(r, fields));
  });
}

function requirementMatches(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return has && values.includes(v!);
    case 'NotIn': return !has || !values.includes(v!);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt':
    case 'Lt': {
      const bound = Number(values[0]);
      const n = Number(v);
      if (!has || !Number.isInteger(n) || !Number.isInteger(bound)) return false;
      return r.operator === 'Gt' ? n > bound : n < bound;
    }
  }
  return false;
}

function hostPorts(pod: AgentPod): { ip: string; protocol: string; port: number }[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].flatMap((c) => (c.ports ?? [])
    .filter((p) => (p.hostPort ?? 0) > 0)
    .map((p) => ({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol ?? 'TCP', port: p.hostPort! })));
}

function hostPortsConflict(pod: AgentPod, others: AgentPod[]): boolean {
  const mine = hostPorts(pod);
  if (!mine.length) return false;
  const theirs = others.flatMap(hostPorts);
  return mine.some((m) => theirs.some((t) => t.port === m.port && t.protocol === m.protocol && (t.ip === m.ip || t.ip === '0.0.0.0' || m.ip === '0.0.0.0')));
}

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

/** the agent only refuses pods for NoExecute taints; the scheduler sees to the others */
function untolerated(taints: Taint[], tolerations: Toleration[]): boolean {
  return taints.some((taint) => taint.effect === 'NoExecute' && !tolerations.some((t) => tolerates(t, taint)));
}
