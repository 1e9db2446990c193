// Waiting in tests on a condition rather than on the clock: a predicate polled until it gives a value. Errors it
// throws meanwhile (a 404 before the object exists, a refused connection) count as "not yet"; the last one is named
// if the wait times out.

export interface WaitOptions {
  /** how long before the wait fails (default 30 s): only a bound for a test that would otherwise hang */
  timeoutMs?: number;
  /** how long between two calls of the predicate (default 50 ms) */
  intervalMs?: number;
  /** what is waited for, named in the error of a timeout */
  description?: string;
}

/** a falsy answer: not yet */
export type Pending = undefined | null | false | 0 | '';

/**
 * Calls `predicate` until it gives a truthy value, and resolves with it; fails after `timeoutMs` with an error that
 * names `description` and the predicate's last error, if it threw.
 */
export async function waitFor<T>(predicate: () => T | Pending | Promise<T | Pending>, opts: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, description = 'the condition' } = opts;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as T;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      const why = last === undefined ? '' : `; last error: ${last instanceof Error ? last.message : String(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
