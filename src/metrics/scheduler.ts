// The reference's scheduler metrics: attempts to schedule pods by profile and result, how long they took
// (the scheduling cycle and the binding), and, read when scraped, the pods waiting in each part of the queue.
import type { MetricsRegistry } from './metrics.js';

export interface PendingPodCounts { active: number; backoff: number; unschedulable: number; gated: number }

/** the scheduler's side: what it calls as it works */
export interface SchedulerMetricEvents {
  attempt(profile: string, result: 'scheduled' | 'unschedulable' | 'error', seconds: number): void;
  pendingPods(read: () => PendingPodCounts): void;
}

/** 1 ms doubling 15 times (about 16 s), as the reference's */
const attemptBuckets = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export function schedulerMetrics(registry: MetricsRegistry): SchedulerMetricEvents {
  const attempts = registry.counter('scheduler_schedule_attempts_total',
    'Attempts to schedule pods, by result: unschedulable when the pod fits no node, error when the scheduler failed.', ['result', 'profile']);
  const durations = registry.histogram('scheduler_scheduling_attempt_duration_seconds',
    'Seconds a scheduling attempt took (the scheduling cycle, and the binding of a pod that was placed).', ['result', 'profile'], attemptBuckets);
  let read: (() => PendingPodCounts) | undefined;
  registry.collected('scheduler_pending_pods',
    'Pods waiting to be scheduled, by queue: active, backoff, unschedulable (tried and found to fit nowhere), gated (held by scheduling gates, never tried).',
    ['queue'], () => {
      const counts = read?.() ?? { active: 0, backoff: 0, unschedulable: 0, gated: 0 };
      return (['active', 'backoff', 'unschedulable', 'gated'] as const).map((queue): [Record<string, string>, number] => [{ queue }, counts[queue]]);
    });
  return {
    attempt(profile, result, seconds) {
      attempts({ result, profile });
      durations({ result, profile }, seconds);
    },
    pendingPods: (r) => { read = r; },
  };
}
