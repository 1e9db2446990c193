// Waiting on a condition rather than on the clock: polls until ready() holds, and fails naming what never came.
export async function until(ready: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}
