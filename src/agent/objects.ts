// The API objects as the agent holds them. Every pod a source hands over has its name, namespace and
// uid set (the merger and the static-pod source see to it) and a spec, so the agent's code reads them
// without checks at every turn.

import type { Container, Pod, PodSpec, PodStatus } from '../api/types/core-v1.js';
import type { ObjectMeta } from '../api/types/meta-v1.js';

export type * from '../api/types/core-v1.js';
export type { ObjectMeta, Quantity } from '../api/types/meta-v1.js';

export interface AgentPod extends Pod {
  metadata: ObjectMeta & { name: string; namespace: string; uid: string };
  spec: PodSpec;
  status?: PodStatus;
}

/** An object named by the events it gets: a pod, or the node. */
export interface EventTarget {
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export const podKey = (pod: AgentPod) => `${pod.metadata.namespace}/${pod.metadata.name}`;

/** init containers first, then the regular ones */
export const allContainers = (pod: AgentPod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

export const isTerminalPhase = (phase: string | undefined) => phase === 'Succeeded' || phase === 'Failed';

export { withoutManagedFields, shareStrings, compactObject as compactPod } from '../client/compact.js';
