// Waiting on a condition rather than on the clock. The deadlines only end a test that would otherwise hang, so they
// are generous for a busy machine.

/** polls until ready() holds, and fails naming what never came */
export async function until(ready: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

/** polls until f() gives a value, and returns it; an error thrown meanwhile is named if the wait fails */
export async function waitFor<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
