// The client's QPS and burst, as the reference client's settings describe: `burst` requests may go at once, then
// `qps` per second. Waiters are served in order.
import { tokenBucket as bucket } from '../util/token-bucket.js';

export interface RateLimiter {
  /** resolves when a request may be sent */
  take(): Promise<void>;
}

/** the time the limiter reads and waits on; a test passes a clock of its own */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const realClock: Clock = { now: () => performance.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/** qps <= 0 means unlimited */
export function tokenBucket(qps: number, burst: number, clock: Clock = realClock): RateLimiter {
  if (qps <= 0) return { take: () => Promise.resolve() };
  const tokens = bucket(qps, Math.max(1, burst), clock.now);
  const takeOne = async () => { while (!tokens.tryAccept()) await clock.sleep(tokens.waitMs()); };
  let tail: Promise<void> = Promise.resolve();
  return {
    take() {
      // chained so waiters keep their order and each sees the tokens the previous one left
      const turn = tail.then(takeOne);
      tail = turn.catch(() => {});
      return turn;
    },
  };
}
