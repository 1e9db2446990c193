// The API objects as the agent holds them. Every pod a source hands over has its name, namespace and
// uid set (the merger and the static-pod source see to it) and a spec, so the agent's code reads them
// without checks at every turn.

import type { Container, Pod, PodSpec, PodStatus } from '../api/types/core-v1.js';
import type { ObjectMeta } from '../api/types/meta-v1.js';
import { withoutManagedFields } from '../client/informer.js';

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
  metadata: { name: string; namespace?: string; uid?: string };
}

export const podKey = (pod: AgentPod) => `${pod.metadata.namespace}/${pod.metadata.name}`;

/** init containers first, then the regular ones */
export const allContainers = (pod: AgentPod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];

export const isTerminalPhase = (phase: string | undefined) => phase === 'Succeeded' || phase === 'Failed';

/** a pod (or the node) from the API as the agent keeps it: without its managed fields, which it never reads or sends back */
export { withoutManagedFields };

/** a pod from the API as the agent keeps it: without its managed fields, its spec's strings shared with other pods */
export function compactPod<T extends { metadata?: { managedFields?: unknown }; spec?: unknown }>(pod: T): T {
  withoutManagedFields(pod);
  shareStrings(pod?.spec);
  return pod;
}

/** strings shared by the pods of this process, by their text; bounded, so that unique values cannot grow it without end */
const shared = new Map<string, string>();
const maxShared = 20_000;
const share = (s: string): string => {
  // V8's JSON parser already shares values of up to 10 characters; long ones are rarely repeated
  if (s.length <= 10 || s.length > 256) return s;
  const known = shared.get(s);
  if (known !== undefined) return known;
  if (shared.size < maxShared) shared.set(s, s);
  return s;
};

/**
 * Replaces the strings of a decoded object (a pod's spec) by one copy of each text for the whole process: the specs
 * of thousands of pods repeat the same paths, images, tolerations and names, each decoded into a string of its own.
 */
export function shareStrings(value: unknown): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (typeof v === 'string') value[i] = share(v);
      else if (v && typeof v === 'object') shareStrings(v);
    }
  } else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (typeof v === 'string') o[k] = share(v);
      else if (v && typeof v === 'object') shareStrings(v);
    }
  }
}
