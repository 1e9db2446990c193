// Events expire --event-ttl after their last change, as the reference's store drops them (it gives each write of an
// Event a lease that long). The server looks through its cached Events now and then and deletes the expired ones
// through the store, so watchers see them go; one changed meanwhile (its resourceVersion moved on) stays.
import type { ResourceCache } from '../api/cache.js';
import type { ApiObject } from '../api/meta.js';
import { ApiError } from '../api/status.js';
import { noAdmission, type Store } from './store.js';

export interface EventExpiryOptions {
  /** the store and the watch cache of core/v1 Events (events/v1 ones are kept with them) */
  store: Store;
  cache: ResourceCache;
  ttlMs: number;
  log(message: string): void;
  now?: () => number;
}

type Times = { lastTimestamp?: string; eventTime?: string; series?: { lastObservedTime?: string } };

/** the latest time an Event shows it changed: its own times and its writers' */
export function lastChange(e: ApiObject): number {
  const { lastTimestamp, eventTime, series } = e as ApiObject & Times;
  const times = [e.metadata.creationTimestamp, lastTimestamp, eventTime, series?.lastObservedTime, ...((e.metadata.managedFields ?? []) as Array<{ time?: string }>).map(f => f.time)];
  return Math.max(0, ...times.map(t => Date.parse(t ?? '') || 0));
}

/** a quarter of the TTL between looks, within 100 ms and a minute */
export function startEventExpiry(o: EventExpiryOptions): { stop(): void } {
  const now = o.now ?? Date.now;
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const oldest = now() - o.ttlMs;
      for (const { obj } of o.cache.snapshot(o.cache.prefix)) {
        if (lastChange(obj) > oldest) continue;
        const { namespace = '', name = '', resourceVersion } = obj.metadata;
        await o.store.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { resourceVersion } }, noAdmission).catch((e: unknown) => {
          // gone already, or changed since the look: nothing to do
          const code = e instanceof ApiError ? e.status.code : 0;
          if (code !== 404 && code !== 409) o.log(`deleting expired event ${namespace}/${name}: ${(e as Error).message}`);
        });
      }
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(() => void sweep(), Math.min(60_000, Math.max(100, o.ttlMs / 4)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
