// Work queues as controllers use them: a key waits at most once (adding it again while it waits changes
// nothing), a key being worked on is never handed to a second worker (added meanwhile, it comes back once
// the first is done), and failed keys come back after a delay from a rate limiter. The default limiter is the
// reference controller's: the larger of a per-key exponential back-off (5 ms doubling to 1000 s) and an
// overall token bucket (10 per second, burst 100).

export interface QueueRateLimiter<K> {
  /** how long the key waits before its next try */
  when(key: K): number;
  /** the key succeeded: its back-off starts again from the beginning */
  forget(key: K): void;
  /** how many times the key was retried since it was last forgotten */
  retries(key: K): number;
}

export function exponentialBackoff<K>(baseMs = 5, maxMs = 1_000_000): QueueRateLimiter<K> {
  const failures = new Map<K, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(maxMs, baseMs * 2 ** n);
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/** An overall limit: each retry takes a token; when none is left the retry waits for the next one. */
export function bucketLimiter<K>(qps = 10, burst = 100): QueueRateLimiter<K> {
  let tokens = burst;
  let last = performance.now();
  return {
    when() {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - last) / 1000) * qps);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens / qps) * 1000;
    },
    forget() {},
    retries: () => 0,
  };
}

/** The longest wait any of the limiters asks for. */
export function maxOf<K>(...limiters: QueueRateLimiter<K>[]): QueueRateLimiter<K> {
  return {
    when: (key) => Math.max(...limiters.map((l) => l.when(key))),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    retries: (key) => Math.max(...limiters.map((l) => l.retries(key))),
  };
}

export const defaultControllerRateLimiter = <K>(): QueueRateLimiter<K> => maxOf(exponentialBackoff<K>(), bucketLimiter<K>());

export interface WorkQueue<K = string> {
  add(key: K): void;
  /** adds the key after a delay (a later, shorter delay wins) */
  addAfter(key: K, delayMs: number): void;
  /** adds the key after the delay its rate limiter gives */
  addRateLimited(key: K): void;
  /** clears the key's back-off */
  forget(key: K): void;
  retries(key: K): number;
  /** the next key to work on; undefined once the queue is shut down */
  get(): Promise<K | undefined>;
  /** the worker is done with the key */
  done(key: K): void;
  /** keys waiting (not counting delayed ones or ones being worked on) */
  len(): number;
  /** when each key being worked on was taken (performance.now() milliseconds) */
  workStarts(): IterableIterator<number>;
  shutDown(): void;
  readonly shuttingDown: boolean;
}

/** what a queue tells as it works, for metrics like the reference's workqueue_* families */
export interface QueueObserver {
  /** a key was added (not one already waiting) */
  added(): void;
  /** a worker took a key that had waited this long since it was added */
  taken(waitedMs: number): void;
  /** a worker is done with a key it had for this long */
  finished(workedMs: number): void;
  /** a key was put back through the rate limiter (a failed sync) */
  retried(): void;
}

export function createWorkQueue<K = string>(limiter: QueueRateLimiter<K> = defaultControllerRateLimiter<K>(), observer?: QueueObserver): WorkQueue<K> {
  const queue: K[] = [];
  let head = 0;
  const dirty = new Set<K>();
  /** keys being worked on, with when they were taken */
  const processing = new Map<K, number>();
  /** when each waiting key was added */
  const addedAt = new Map<K, number>();
  const delayed = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  const waiters: Array<(k: K | undefined) => void> = [];
  let shuttingDown = false;

  const take = (key: K) => {
    dirty.delete(key);
    const now = performance.now();
    observer?.taken(now - (addedAt.get(key) ?? now));
    addedAt.delete(key);
    processing.set(key, now);
  };
  /** a dirty key goes to a waiting worker, else to the end of the queue */
  const hand = (key: K) => {
    const waiter = waiters.shift();
    if (waiter) { take(key); waiter(key); } else queue.push(key);
  };
  const add = (key: K) => {
    if (shuttingDown || dirty.has(key)) return;
    dirty.add(key);
    addedAt.set(key, performance.now());
    observer?.added();
    if (processing.has(key)) return;   // it comes back when the worker is done
    hand(key);
  };
  const addAfter = (key: K, delayMs: number) => {
    if (shuttingDown) return;
    if (delayMs <= 0) return add(key);
    const at = Date.now() + delayMs;
    const prev = delayed.get(key);
    if (prev && prev.at <= at) return;
    if (prev) clearTimeout(prev.timer);
    const timer = setTimeout(() => { delayed.delete(key); add(key); }, delayMs);
    delayed.set(key, { at, timer });
  };

  return {
    add,
    addAfter,
    addRateLimited: (key) => { observer?.retried(); addAfter(key, limiter.when(key)); },
    forget: (key) => limiter.forget(key),
    retries: (key) => limiter.retries(key),
    get() {
      if (head < queue.length) {
        const key = queue[head++]!;
        if (head > 1024 && head * 2 > queue.length) { queue.splice(0, head); head = 0; }
        take(key);
        return Promise.resolve(key);
      }
      if (shuttingDown) return Promise.resolve(undefined);
      return new Promise((resolve) => waiters.push(resolve));
    },
    done(key) {
      const since = processing.get(key);
      if (since === undefined) return;
      processing.delete(key);
      observer?.finished(performance.now() - since);
      // added again while it was worked on: it waits its turn now, unless the queue is going away
      if (dirty.has(key)) { if (shuttingDown) dirty.delete(key); else hand(key); }
    },
    len: () => queue.length - head,
    workStarts: () => processing.values(),
    shutDown() {
      shuttingDown = true;
      for (const { timer } of delayed.values()) clearTimeout(timer);
      delayed.clear();
      for (const w of waiters.splice(0)) w(undefined);
    },
    get shuttingDown() { return shuttingDown; },
  };
}

/** What a sync may ask for besides success: to look at the key again after a while. */
export interface SyncResult { requeueAfterMs?: number }

/**
 * Runs `workers` loops that take keys from the queue and sync them until the queue shuts down: a sync that
 * throws puts its key back through the rate limiter, one that succeeds clears the key's back-off.
 */
export function runWorkers<K>(queue: WorkQueue<K>, workers: number, sync: (key: K) => Promise<SyncResult | void>,
  onError?: (key: K, err: unknown) => void): Promise<void> {
  const worker = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await sync(key);
        queue.forget(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (e) {
        onError?.(key, e);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  return Promise.all(Array.from({ length: Math.max(1, workers) }, worker)).then(() => {});
}
