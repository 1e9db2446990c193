// How long a client waits before sending a refused request again: exponential back-off with full jitter
// (so that many clients refused together do not come back together), never shorter than the server's
// Retry-After and never longer than a cap.

export interface BackoffPolicy {
  /** the first pause's upper bound; default 200 ms */
  baseMs?: number;
  /** no pause is longer; default 30 s */
  maxMs?: number;
}

/** seconds from a Retry-After header (delta-seconds or an HTTP date), or undefined */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * The pause before attempt `attempt` + 1 (attempt counts from 0): a random time in [0, base * 2^attempt],
 * capped, raised to what the server asked for. `random` is injectable for tests.
 */
export function backoffMs(attempt: number, retryAfter: number | undefined, policy: BackoffPolicy = {}, random = Math.random): number {
  const base = policy.baseMs ?? 200;
  const max = policy.maxMs ?? 30_000;
  const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 30));
  const jittered = random() * ceiling;
  return Math.min(max, Math.max(jittered, retryAfter ?? 0));
}

/** the reference client's rule: a 429 is always worth another try, a 5xx when the server says when to come back */
export function isRetryable(status: number, hasRetryAfter: boolean): boolean {
  if (status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501 && hasRetryAfter;
}
