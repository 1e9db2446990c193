// Eviction (the reference agent's eviction manager, reduced): every interval the signals are
// observed; a crossed hard threshold evicts one pod at once, a soft one after its grace period, with
// a grace of at most --eviction-max-pod-grace-period. Pods are ranked BestEffort, then Burstable,
// then Guaranteed, lower priority first; static pods are critical and never evicted. Pressure
// conditions stay on for --eviction-pressure-transition-period after the pressure ends.

import type { Threshold } from './quantity.js';
import type { Pressure } from './node-status.js';
import type { AgentPod } from './objects.js';

export type Signals = Record<string, { available: number; capacity: number }>;

export interface EvictionDeps {
  hard: Threshold[];
  soft: Threshold[];
  softGraceMs: Record<string, number>;
  transitionMs: number;
  /** 0: the pod's own grace period */
  maxPodGraceSeconds: number;
  observe(): Signals;
  activePods(): AgentPod[];
  isCritical(pod: AgentPod): boolean;
  evict(pod: AgentPod, message: string, graceSeconds: number): void;
}

export interface EvictionManager {
  /** observes once and acts; returns the thresholds met now */
  check(now?: number): Threshold[];
  pressure(now?: number): Pressure;
}

const qosRank: Record<string, number> = { BestEffort: 0, Burstable: 1, Guaranteed: 2 };

const met = (t: Threshold, signals: Signals) => {
  const s = signals[t.signal];
  if (!s) return false;
  return s.available < (t.percentage !== undefined ? t.percentage * s.capacity : t.quantity!);
};

const resourceOf = (t: Threshold) =>
  t.signal.startsWith('memory') || t.signal.startsWith('allocatableMemory') ? 'memory' : t.signal.startsWith('pid') ? 'pids' : 'ephemeral-storage';

export function evictionManager(deps: EvictionDeps): EvictionManager {
  const softSince = new Map<string, number>();
  const lastSeen: Record<keyof Pressure, number> = { memory: -Infinity, disk: -Infinity, pid: -Infinity };

  const kindOf = (t: Threshold): keyof Pressure => (resourceOf(t) === 'memory' ? 'memory' : resourceOf(t) === 'pids' ? 'pid' : 'disk');

  return {
    check(now = Date.now()) {
      const signals = deps.observe();
      const hard = deps.hard.filter((t) => met(t, signals));
      const softMet = deps.soft.filter((t) => met(t, signals));
      for (const t of deps.soft) if (!softMet.includes(t)) softSince.delete(t.signal);
      for (const t of softMet) if (!softSince.has(t.signal)) softSince.set(t.signal, now);
      for (const t of [...hard, ...softMet]) lastSeen[kindOf(t)] = now;
      const soft = softMet.filter((t) => now - softSince.get(t.signal)! >= (deps.softGraceMs[t.signal] ?? 0));
      const acting = hard[0] ?? soft[0];
      if (acting) {
        const victim = deps.activePods()
          .filter((p) => !deps.isCritical(p))
          .sort((a, b) => (qosRank[a.status?.qosClass ?? ''] ?? 0) - (qosRank[b.status?.qosClass ?? ''] ?? 0) || (a.spec.priority ?? 0) - (b.spec.priority ?? 0))[0];
        if (victim) {
          const own = victim.spec?.terminationGracePeriodSeconds ?? 30;
          const grace = hard[0] ? 0 : deps.maxPodGraceSeconds > 0 ? Math.min(own, deps.maxPodGraceSeconds) : own;
          deps.evict(victim, `The node was low on resource: ${resourceOf(acting)}. Threshold quantity: ${acting.signal}.`, grace);
        }
      }
      return [...hard, ...soft];
    },
    pressure(now = Date.now()) {
      const on = (k: keyof Pressure) => now - lastSeen[k] < Math.max(deps.transitionMs, 1);
      return { memory: on('memory'), disk: on('disk'), pid: on('pid') };
    },
  };
}
