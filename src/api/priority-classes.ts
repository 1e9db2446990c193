// The two PriorityClasses the reference's server keeps in place: critical pods of nodes and of the cluster. Their
// names take the reserved `system-` prefix, which no other class may use.
import type { PriorityClass } from './types/scheduling-v1.js';

export const systemPriorityClassPrefix = 'system-';

export const systemPriorityClasses: ReadonlyArray<Required<Pick<PriorityClass, 'value' | 'description'>> & { name: string }> = [
  { name: 'system-node-critical', value: 2000001000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2000000000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** the stored form of a system class */
export const systemPriorityClass = (c: (typeof systemPriorityClasses)[number], group: string): PriorityClass & { metadata: { name: string } } => ({
  apiVersion: `${group}/v1` as PriorityClass['apiVersion'], kind: 'PriorityClass', metadata: { name: c.name },
  value: c.value, description: c.description, preemptionPolicy: 'PreemptLowerPriority', globalDefault: false,
});
