// Calls that must not overlap at the runtime: containerd 1.6 (Debian 12's) dies with "concurrent map writes" when
// two stats listings (ListPodSandboxStats, ListContainerStats) run at once, which the agent's sampling, its
// /stats/summary and /metrics/resource (the metrics server's scrape) can ask for together.

/**
 * Wraps calls so that at most one runs at a time across all of them, and a caller arriving while a call of the
 * same name is running or waiting shares its answer instead of queueing another.
 */
export function oneAtATime() {
  let chain: Promise<unknown> = Promise.resolve();
  const pending = new Map<string, Promise<unknown>>();
  return <T>(name: string, call: () => Promise<T>): Promise<T> => {
    const shared = pending.get(name);
    if (shared) return shared as Promise<T>;
    const run = chain.then(call, call);
    const mine = run.finally(() => pending.delete(name));
    pending.set(name, mine);
    chain = run.catch(() => {});
    return mine;
  };
}
