// Eviction (the reference agent's eviction manager, reduced): every interval the signals are
// observed; a crossed hard threshold evicts one pod at once, a soft one after its grace period, with
// a grace of at most --eviction-max-pod-grace-period. Pods are ranked BestEffort, then Burstable,
// then Guaranteed, lower priority first; static pods are critical and never evicted. Pressure
// conditions stay on for --eviction-pressure-transition-period after the pressure ends. A threshold that
// was met stays met until the signal is back above it by --eviction-minimum-reclaim. Pods using more
// local storage than their limits (emptyDir sizeLimit, containers' ephemeral-storage) are evicted at once.

import type { Threshold } from './quantity.js';
import type { Pressure } from './node-status.js';
import type { AgentPod } from './objects.js';
import { amount } from './resources.js';

export type Signals = Record<string, { available: number; capacity: number }>;

export interface EvictionDeps {
  hard: Threshold[];
  soft: Threshold[];
  softGraceMs: Record<string, number>;
  transitionMs: number;
  /** 0: the pod's own grace period */
  maxPodGraceSeconds: number;
  observe(): Signals;
  /** --eviction-minimum-reclaim by signal */
  minReclaim?: Threshold[];
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

const amountOf = (t: Threshold | undefined, capacity: number) => (!t ? 0 : t.percentage !== undefined ? t.percentage * capacity : t.quantity ?? 0);

const resourceOf = (t: Threshold) =>
  t.signal.startsWith('memory') || t.signal.startsWith('allocatableMemory') ? 'memory' : t.signal.startsWith('pid') ? 'pids' : 'ephemeral-storage';

export function evictionManager(deps: EvictionDeps): EvictionManager {
  const softSince = new Map<string, number>();
  const lastSeen: Record<keyof Pressure, number> = { memory: -Infinity, disk: -Infinity, pid: -Infinity };

  const kindOf = (t: Threshold): keyof Pressure => (resourceOf(t) === 'memory' ? 'memory' : resourceOf(t) === 'pids' ? 'pid' : 'disk');

  /** thresholds met at the last check: they hold until the signal recovers past the minimum reclaim */
  const active = new Set<string>();
  const met = (t: Threshold, signals: Signals) => {
    const s = signals[t.signal];
    if (!s) return false;
    const reclaim = active.has(t.signal) ? amountOf(deps.minReclaim?.find((r) => r.signal === t.signal), s.capacity) : 0;
    return s.available < amountOf(t, s.capacity) + reclaim;
  };

  return {
    check(now = Date.now()) {
      const signals = deps.observe();
      const hard = deps.hard.filter((t) => met(t, signals));
      const softMet = deps.soft.filter((t) => met(t, signals));
      for (const t of deps.soft) if (!softMet.includes(t)) softSince.delete(t.signal);
      for (const t of softMet) if (!softSince.has(t.signal)) softSince.set(t.signal, now);
      for (const t of [...hard, ...softMet]) lastSeen[kindOf(t)] = now;
      const soft = softMet.filter((t) => now - softSince.get(t.signal)! >= (deps.softGraceMs[t.signal] ?? 0));
      active.clear();
      for (const t of [...hard, ...softMet]) active.add(t.signal);
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

/** a byte count as a quantity: binary units when exact, else plain bytes */
export function formatBytes(n: number): string {
  for (const [suffix, size] of [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) if (n >= size && n % size === 0) return `${n / size}${suffix}`;
  return String(n);
}

export interface StorageUse {
  /** bytes of each emptyDir volume on disk, by name */
  volumes: Map<string, number>;
  /** bytes of each container (writable layer and logs), by name */
  containers: Map<string, number>;
}

/** Why the pod must go for its local storage, as the reference words it; undefined when within its limits. */
export function localStorageViolation(pod: AgentPod, use: StorageUse): string | undefined {
  for (const v of pod.spec.volumes ?? []) {
    const limit = v.emptyDir && v.emptyDir.medium !== 'Memory' ? v.emptyDir.sizeLimit : undefined;
    if (limit === undefined) continue;
    if ((use.volumes.get(v.name) ?? 0) > amount('ephemeral-storage', limit)) return `Usage of EmptyDir volume "${v.name}" exceeds the limit "${limit}". `;
  }
  const limits = pod.spec.containers.map((c) => c.resources?.limits?.['ephemeral-storage']);
  if (limits.every((l) => l !== undefined)) {
    const total = limits.reduce<number>((n, l) => n + amount('ephemeral-storage', l), 0);
    const emptyDirs = (pod.spec.volumes ?? []).filter((v) => v.emptyDir && v.emptyDir.medium !== 'Memory').reduce((n, v) => n + (use.volumes.get(v.name) ?? 0), 0);
    const used = [...use.containers.values()].reduce((n, b) => n + b, 0) + emptyDirs;
    if (used > total) return `Pod ephemeral local storage usage exceeds the total limit of containers ${formatBytes(total)}. `;
  }
  for (const c of pod.spec.containers) {
    const limit = c.resources?.limits?.['ephemeral-storage'];
    if (limit !== undefined && (use.containers.get(c.name) ?? 0) > amount('ephemeral-storage', limit)) return `Container ${c.name} exceeded its local ephemeral storage limit "${limit}". `;
  }
  return undefined;
}
