// A token bucket, as the reference client's QPS and burst settings describe: `burst` requests may go
// at once, then `qps` per second. Waiters are served in order.

export interface RateLimiter {
  /** resolves when a request may be sent */
  take(): Promise<void>;
}

/** qps <= 0 means unlimited */
export function tokenBucket(qps: number, burst: number): RateLimiter {
  if (qps <= 0) return { take: () => Promise.resolve() };
  const capacity = Math.max(1, burst);
  let tokens = capacity;
  let last = performance.now();
  let tail: Promise<void> = Promise.resolve();

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(capacity, tokens + ((now - last) / 1000) * qps);
    last = now;
  };
  const takeOne = async () => {
    refill();
    if (tokens < 1) {
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - tokens) / qps) * 1000)));
      refill();
    }
    tokens -= 1;
  };
  return {
    take() {
      // chained so waiters keep their order and each sees the tokens the previous one left
      const turn = tail.then(takeOne);
      tail = turn.catch(() => {});
      return turn;
    },
  };
}
