// The time of the change that made a Service's endpoints what they are, for the
// `endpoints.<domain>/last-change-trigger-time` annotation (consumers such as the node proxy measure how long a
// change takes to reach them from it). A pod's change is the last transition of its Ready condition, a Service's its
// creation; a sync reports the earliest of those that moved since the Service's last sync, or nothing when none did.
import { podCondition } from './common.js';
import type { Pod, Service } from './types.js';

interface SeenTimes { service: number; pods: Map<string, number> }

export interface TriggerTimes {
  /** the earliest trigger time that moved since the last call for this key (an RFC 3339 string), if any */
  compute(key: string, service: Service, pods: Pod[]): string | undefined;
  /** a Service that is gone: its times are forgotten */
  forget(key: string): void;
}

const timeOf = (s: string | null | undefined) => (s ? Date.parse(s) || 0 : 0);

export function triggerTimes(): TriggerTimes {
  const seen = new Map<string, SeenTimes>();
  return {
    compute(key, service, pods) {
      const before = seen.get(key) ?? { service: 0, pods: new Map<string, number>() };
      const now: SeenTimes = { service: timeOf(service.metadata.creationTimestamp), pods: new Map() };
      let earliest = Infinity;
      for (const pod of pods) {
        const t = timeOf(podCondition(pod, 'Ready')?.lastTransitionTime);
        if (!t) continue;
        now.pods.set(pod.metadata.name!, t);
        if (t > (before.pods.get(pod.metadata.name!) ?? 0)) earliest = Math.min(earliest, t);
      }
      if (now.service > before.service) earliest = Math.min(earliest, now.service);
      seen.set(key, now);
      // RFC 3339 with the fraction of a second only as long as it needs to be
      return earliest < Infinity ? new Date(earliest).toISOString().replace(/\.?0+Z$/, 'Z') : undefined;
    },
    forget: (key) => { seen.delete(key); },
  };
}
