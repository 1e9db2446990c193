// A token bucket: it starts full (burst tokens) and refills at qps tokens a second, up to burst.

export interface TokenBucket {
  /** takes a token when one is there */
  tryAccept(): boolean;
  /** milliseconds until a token will be there (0 when one is) */
  waitMs(): number;
}

export function tokenBucket(qps: number, burst: number, now: () => number = () => performance.now()): TokenBucket {
  let tokens = burst, at = now();
  const refill = () => {
    const t = now();
    tokens = Math.min(burst, tokens + ((t - at) / 1000) * qps);
    at = t;
  };
  return {
    tryAccept() {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    waitMs() {
      refill();
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / qps) * 1000);
    },
  };
}
