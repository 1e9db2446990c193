// The reference's workqueue_* metrics of a process's work queues, one series per queue name: keys added and retried,
// how long keys wait and are worked on, and, read when scraped, each queue's depth and its work still in progress.
import type { MetricsRegistry } from './metrics.js';

/** what the metrics read of a queue when scraped */
export interface ObservedQueue {
  len(): number;
  /** when each key being worked on was taken (performance.now() milliseconds) */
  workStarts(): Iterable<number>;
}

/** what a queue calls as it works */
export interface QueueEvents {
  added(): void;
  taken(waitedMs: number): void;
  finished(workedMs: number): void;
  retried(): void;
}

/** 10 ns to 10 s, a bucket per power of ten, as the reference's */
const buckets = Array.from({ length: 10 }, (_, i) => 10 ** (i - 8));

/** the families, registered once; the function it returns gives a queue its events and has it read when scraped */
export function workQueueMetrics(registry: MetricsRegistry): (name: string, queue: () => ObservedQueue) => QueueEvents {
  const queues = new Map<string, () => ObservedQueue>();
  const adds = registry.counter('workqueue_adds_total', 'Keys added to the work queue.', ['name']);
  const retries = registry.counter('workqueue_retries_total', 'Keys put back into the work queue after a failed try.', ['name']);
  const waited = registry.histogram('workqueue_queue_duration_seconds', 'Seconds a key waits in the work queue before a worker takes it.', ['name'], buckets);
  const worked = registry.histogram('workqueue_work_duration_seconds', 'Seconds a worker spends on a key.', ['name'], buckets);
  const perQueue = (read: (q: ObservedQueue, now: number) => number) => () => {
    const now = performance.now();
    return [...queues].map(([name, q]): [Record<string, string>, number] => [{ name }, read(q(), now)]);
  };
  const ages = (q: ObservedQueue, now: number) => [...q.workStarts()].map(t => (now - t) / 1000);
  registry.collected('workqueue_depth', 'Keys waiting in the work queue.', ['name'], perQueue(q => q.len()));
  registry.collected('workqueue_unfinished_work_seconds', 'Seconds spent so far on the keys being worked on, summed; a large value with no progress shows a stuck worker.',
    ['name'], perQueue((q, now) => ages(q, now).reduce((a, b) => a + b, 0)));
  registry.collected('workqueue_longest_running_processor_seconds', 'Seconds the longest-held key has been worked on.',
    ['name'], perQueue((q, now) => Math.max(0, ...ages(q, now))));
  return (name, queue) => {
    queues.set(name, queue);
    const labels = { name };
    const wait = waited.bound(labels), work = worked.bound(labels);
    return { added: () => adds(labels), taken: ms => wait(ms / 1000), finished: ms => work(ms / 1000), retried: () => retries(labels) };
  };
}
