// The TTL-after-finished controller: a Job that finished (Complete or Failed) and sets
// ttlSecondsAfterFinished is deleted that many seconds after it finished, its pods with it: in the foreground, as
// the reference does, so the Job stays (with the foregroundDeletion finalizer) until its pods are gone.
import { isNotFound } from '../client/rest-client.js';
import { keyOf, splitKey, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { Job } from './types.js';

/** when a finished Job may be deleted, in ms since the epoch; undefined while it runs or has no TTL */
export function expiresAt(job: Job): number | undefined {
  if (job.spec.ttlSecondsAfterFinished === undefined || job.metadata.deletionTimestamp) return undefined;
  const done = (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (!done) return undefined;
  const finishedAt = Date.parse(job.status?.completionTime ?? done.lastTransitionTime ?? '');
  return Number.isFinite(finishedAt) ? finishedAt + job.spec.ttlSecondsAfterFinished * 1000 : undefined;
}

export const ttlAfterFinishedController: Controller = {
  name: 'ttl-after-finished',
  start(ctx) {
    const jobs = ctx.informers.informer(ctx.refs.jobs);
    const queue = startQueue(ctx, async (key) => {
      const job = jobs.get(key);
      if (!job) return;
      const at = expiresAt(job);
      if (at === undefined) return;
      if (at > Date.now()) return { requeueAfterMs: at - Date.now() };
      // the live object decides: its TTL may have been changed since the cache saw it
      const [namespace, name] = splitKey(key);
      const client = ctx.client.resource(ctx.refs.jobs, namespace);
      const fresh = await client.get(name).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
      const freshAt = fresh && fresh.metadata.uid === job.metadata.uid ? expiresAt(fresh) : undefined;
      if (freshAt === undefined) return;
      if (freshAt > Date.now()) return { requeueAfterMs: freshAt - Date.now() };
      await client.delete(name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh!.metadata.uid, resourceVersion: fresh!.metadata.resourceVersion } })
        .catch((e) => { if (!isNotFound(e)) throw e; });
    });
    jobs.addHandler({ added: (j) => queue.add(keyOf(j)), updated: (_, j) => queue.add(keyOf(j)) });
  },
};
