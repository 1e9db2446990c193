// The Job controller: runs pods until `completions` of them succeed (or, without completions, until one
// does), at most `parallelism` at once; Indexed jobs give each pod an index and complete when every index
// has succeeded. Failed pods are replaced after a back-off (10 s doubling, at most 6 min) until more than
// backoffLimit have failed; activeDeadlineSeconds bounds the run; a podFailurePolicy can fail the job at once
// on an exit code or pod condition, or ignore a failure. Pods carry the job-tracking finalizer: a finished pod
// is first recorded in status.uncountedTerminatedPods, then released, then counted, so no pod is counted twice
// or lost, across restarts of the controller; a pod whose Job is gone, finished or being deleted is let go of, so it
// can go away. Suspended jobs run no pods.
import { nowTimestamp } from '../api/meta.js';
import { ownerUidIndex } from '../client/informer.js';
import { isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import {
  claimOwned, controllerOf, controllerRef, createExpectations, deletionRank, keyOf, liveOwner, podFromTemplate, podReady,
  selects, setCondition, slowStartCreations, splitKey, startQueue,
} from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, Job, JobStatus, Pod, PodFailurePolicyRule } from './types.js';

const backoffBaseMs = 10_000;
const backoffMaxMs = 6 * 60_000;

/** a condition as the reference's job controller writes it: probed when it starts or its status changes, then kept */
function jobCondition(conditions: Condition[] | undefined, change: Condition, now: string): Condition[] {
  const prev = conditions?.find((c) => c.type === change.type);
  return setCondition(conditions, { ...change, lastProbeTime: prev?.status === change.status ? prev.lastProbeTime : now }, now);
}
const isFinished = (j: Job) => (j.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
const succeeded = (p: Pod) => p.status?.phase === 'Succeeded';
/** failed, or going away before it finished */
const failed = (p: Pod) => p.status?.phase === 'Failed' || (!!p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded');
const terminated = (p: Pod) => succeeded(p) || failed(p);

/** `1,3-5` from a set of indexes */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(',');
}
export function parseIndexes(s: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (s ?? '').split(',').filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    for (let i = a!; i <= (b ?? a!) && i < completions; i++) out.add(i);
  }
  return out;
}

/** the first rule of a pod failure policy that matches a failed pod, with a message naming why */
export function matchFailurePolicy(rules: PodFailurePolicyRule[], pod: Pod): { rule: PodFailurePolicyRule; index: number; message: string } | undefined {
  for (const [index, rule] of rules.entries()) {
    if (rule.onExitCodes) {
      const { containerName, operator, values } = rule.onExitCodes;
      for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
        const code = cs.state?.terminated?.exitCode;
        if (code === undefined || (containerName && cs.name !== containerName)) continue;
        const hit = operator === 'In' ? values.includes(code) : code !== 0 && !values.includes(code);
        if (hit) return { rule, index, message: `Container ${cs.name} for pod ${pod.metadata.namespace}/${pod.metadata.name} failed with exit code ${code} matching ${rule.action} rule at index ${index}` };
      }
    }
    for (const pc of rule.onPodConditions ?? []) {
      if ((pod.status?.conditions ?? []).some((c) => c.type === pc.type && c.status === (pc.status ?? 'True'))) {
        return { rule, index, message: `Pod ${pod.metadata.namespace}/${pod.metadata.name} has condition ${pc.type} matching ${rule.action} rule at index ${index}` };
      }
    }
  }
  return undefined;
}

export const jobController: Controller = {
  name: 'job',
  start(ctx) {
    const jobs = ctx.informers.informer(ctx.refs.jobs);
    const pods = ctx.informers.informer(ctx.refs.pods);
    pods.addIndex('owner', ownerUidIndex);
    const expectations = createExpectations();
    const trackingFinalizer = `batch.${ctx.names.labelDomain}/job-tracking`;
    const indexAnnotation = `batch.${ctx.names.labelDomain}/job-completion-index`;
    const queue = startQueue(ctx, (key) => syncJob(ctx, key));
    /** pods holding the finalizer that no Job will release (keys `namespace/name`) */
    const orphans = startQueue(ctx, (podKey) => releaseOrphan(podKey));
    /** a failure decided by the backoff limit or the deadline, by Job uid: kept until the Job's pods are counted
     *  and it is marked Failed, since deleting its pods can take away what the decision rested on (their restarts) */
    const decidedFailures = new Map<string, { reason: string; message: string }>();

    const ownerKey = (p: Pod) => {
      const ref = controllerOf(p);
      return ref?.kind === 'Job' ? `${p.metadata.namespace}/${ref.name}` : undefined;
    };
    /** whether the Job that should release this pod's finalizer is missing (gone, replaced, or none) or finished */
    const looksOrphaned = (p: Pod) => {
      if (!p.metadata.finalizers?.includes(trackingFinalizer)) return false;
      const ref = controllerOf(p);
      if (ref?.kind !== 'Job') return true;
      const job = jobs.get(`${p.metadata.namespace}/${ref.name}`);
      return !job || job.metadata.uid !== ref.uid || isFinished(job);
    };
    jobs.addHandler({
      added: (j) => queue.add(keyOf(j)),
      updated: (_, j) => queue.add(keyOf(j)),
      deleted: (j) => {
        expectations.forget(keyOf(j));
        decidedFailures.delete(j.metadata.uid!);
        queue.add(keyOf(j));
        // its pods may not change again: look at each one still holding the finalizer
        for (const p of pods.byIndex('owner', j.metadata.uid!)) if (p.metadata.finalizers?.includes(trackingFinalizer)) orphans.add(keyOf(p));
      },
    });
    pods.addHandler({
      added: (p) => {
        const k = ownerKey(p);
        if (k) { expectations.created(k); queue.add(k); }
        if (looksOrphaned(p)) orphans.add(keyOf(p));
      },
      updated: (old, p) => {
        if (old.metadata.resourceVersion === p.metadata.resourceVersion) return;
        const k = ownerKey(p);
        if (k) queue.add(k);
        const was = ownerKey(old);
        if (was && was !== k) queue.add(was);
        if (looksOrphaned(p)) orphans.add(keyOf(p));
      },
      deleted: (p) => { const k = ownerKey(p); if (k) { expectations.deleted(k, keyOf(p)); queue.add(k); } },
    });

    /** removes the tracking finalizer from a pod whose Job is gone or finished, so the pod can go away; the Job is
     *  read live before, as the cache may not have seen a Job that was just created */
    async function releaseOrphan(podKey: string): Promise<void> {
      const pod = pods.get(podKey);
      if (!pod || !looksOrphaned(pod)) return;
      const [namespace] = splitKey(podKey);
      const ref = controllerOf(pod);
      if (ref?.kind === 'Job') {
        const live = await ctx.client.resource(ctx.refs.jobs, namespace).get(ref.name).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
        if (live && live.metadata.uid === ref.uid && !isFinished(live)) return;   // its Job is there: syncJob decides
      }
      await ctx.client.resource(ctx.refs.pods, namespace).patch(pod.metadata.name!, {
        metadata: { resourceVersion: pod.metadata.resourceVersion, finalizers: pod.metadata.finalizers!.filter((f) => f !== trackingFinalizer) },
      }, 'merge').catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });   // a newer version of the pod brings another look
    }

    async function syncJob(ctx: ControllerContext, key: string): Promise<SyncResult | void> {
      const cached = jobs.get(key);
      if (!cached) { expectations.forget(key); return; }
      const job = structuredClone(cached);
      const [namespace] = splitKey(key);
      const podClient = ctx.client.resource(ctx.refs.pods, namespace);
      const all = await claimOwned(ctx, ctx.refs.pods, job, { kind: 'Job', apiVersion: 'batch/v1' }, job.spec.selector,
        pods.list(namespace).filter((p) => selects(job.spec.selector, p.metadata.labels) || controllerOf(p)?.uid === job.metadata.uid),
        liveOwner(ctx, ctx.refs.jobs, job));
      const status: JobStatus = structuredClone(job.status ?? {});
      const now = nowTimestamp();
      const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
      const recorded = new Set([...uncounted.succeeded, ...uncounted.failed]);
      const finished = isFinished(job);

      // with a pod failure policy a pod that is going away counts once it has failed, when its conditions tell why (an
      // eviction's DisruptionTarget), not as its deletion starts; meanwhile it is neither active nor finished
      const withPolicy = !!job.spec.podFailurePolicy;
      const hasFailed = (p: Pod) => (withPolicy ? p.status?.phase === 'Failed' : failed(p));
      const isTerminated = (p: Pod) => succeeded(p) || hasFailed(p);

      // 1. finished pods still holding the finalizer are recorded as uncounted, failures checked against the policy
      let failJob: { reason: string; message: string } | undefined;
      const ignored = new Set<string>();
      const indexed = job.spec.completionMode === 'Indexed';
      const indexOf = (p: Pod) => Number(p.metadata.annotations?.[indexAnnotation] ?? NaN);
      /** an Indexed Job's pod has an index below completions (an elastic Job scaled down leaves pods beyond it) */
      const inRange = (p: Pod) => !indexed || validIndex(indexOf(p), job.spec.completions ?? 0);
      for (const p of all) {
        if (!p.metadata.finalizers?.includes(trackingFinalizer) || !isTerminated(p) || recorded.has(p.metadata.uid!)) continue;
        // a pod of an index beyond completions counts neither as a failure nor as a success: it is only let go
        if (!inRange(p)) { ignored.add(p.metadata.uid!); continue; }
        if (withPolicy && hasFailed(p)) {
          const m = matchFailurePolicy(job.spec.podFailurePolicy!.rules, p);
          if (m?.rule.action === 'Ignore') { ignored.add(p.metadata.uid!); continue; }
          if (m?.rule.action === 'FailJob') failJob ??= { reason: 'PodFailurePolicy', message: m.message };
        }
        (succeeded(p) ? uncounted.succeeded : uncounted.failed).push(p.metadata.uid!);
        recorded.add(p.metadata.uid!);
      }
      const succeededIndexes = parseIndexes(status.completedIndexes, job.spec.completions ?? 0);
      for (const p of all) if (indexed && succeeded(p) && recorded.has(p.metadata.uid!) && inRange(p)) succeededIndexes.add(indexOf(p));

      // 2. released pods fold into the counts; counted uids leave uncountedTerminatedPods
      const stillHeld = new Set(all.filter((p) => p.metadata.finalizers?.includes(trackingFinalizer)).map((p) => p.metadata.uid!));
      const fold = (list: string[]) => { const done = list.filter((u) => !stillHeld.has(u)); return { done: done.length, left: list.filter((u) => stillHeld.has(u)) }; };
      const s = fold(uncounted.succeeded);
      const f = fold(uncounted.failed);
      status.succeeded = indexed ? succeededIndexes.size : (status.succeeded ?? 0) + s.done;
      status.failed = (status.failed ?? 0) + f.done;
      status.uncountedTerminatedPods = { ...(s.left.length ? { succeeded: s.left } : {}), ...(f.left.length ? { failed: f.left } : {}) };
      // an empty string is left out, as the reference's omitempty field
      if (indexed && succeededIndexes.size) status.completedIndexes = formatIndexes(succeededIndexes);
      else delete status.completedIndexes;
      const pendingSucceeded = s.left.length;
      const pendingFailed = f.left.length;

      const active = all.filter((p) => !isTerminated(p) && !(withPolicy && p.metadata.deletionTimestamp));
      status.active = active.length;
      status.ready = active.filter(podReady).length;
      const completions = job.spec.completions;
      const parallelism = job.spec.parallelism ?? 1;
      const totalSucceeded = status.succeeded + (indexed ? 0 : pendingSucceeded);
      const totalFailed = status.failed + pendingFailed;
      let requeueAfterMs: number | undefined;
      /** a refused create: the sync fails after writing the status, so the Job is tried again with back-off */
      let createError: unknown;

      // 3. decide: suspended, failed, complete, or pods to start or stop
      if (!finished) {
        const wasSuspended = status.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True');
        if (job.spec.suspend) {
          status.conditions = jobCondition(status.conditions, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }, now);
          if (!wasSuspended) ctx.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
        } else {
          if (wasSuspended) {
            status.conditions = jobCondition(status.conditions, { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' }, now);
            status.startTime = now;   // the deadline counts from the resumption
            ctx.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
          }
          status.startTime ??= now;
        }
        const restarts = job.spec.template.spec.restartPolicy === 'OnFailure'
          ? active.reduce((n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0), 0) : 0;
        const deadline = job.spec.activeDeadlineSeconds !== undefined && status.startTime && !job.spec.suspend
          ? Date.parse(status.startTime) + job.spec.activeDeadlineSeconds * 1000 : undefined;
        const target = status.conditions?.find((c) => c.type === 'FailureTarget' && c.status === 'True');
        const decided = decidedFailures.get(job.metadata.uid!);
        if (failJob) {
          // decided above by the pod failure policy
        } else if (target) {
          failJob = { reason: target.reason ?? 'PodFailurePolicy', message: target.message ?? '' };
        } else if (decided) {
          failJob = decided;
        } else if (totalFailed + restarts > (job.spec.backoffLimit ?? 6)) {
          failJob = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
        } else if (deadline !== undefined && deadline <= Date.now()) {
          failJob = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
        } else if (deadline !== undefined) {
          requeueAfterMs = deadline - Date.now() + 100;
        }
        if (failJob && failJob.reason !== 'PodFailurePolicy') decidedFailures.set(job.metadata.uid!, failJob);
      }
      // a Job being deleted starts and stops no pods: the garbage collector takes them
      const deleting = !!job.metadata.deletionTimestamp;
      const complete = !finished && !failJob && (completions !== undefined
        ? (indexed ? succeededIndexes.size >= completions : totalSucceeded >= completions)
        : totalSucceeded > 0 && active.length === 0);
      if (!finished && expectations.satisfied(key) && !deleting) {
        if (failJob || complete || job.spec.suspend) {
          // no more pods: the active ones stop
          await deletePods(active);
        } else if (completions === undefined && totalSucceeded > 0) {
          // a work queue: after the first success no new pods start; the running ones finish
        } else {
          const wanted = indexed
            ? Math.min(parallelism, completions! - succeededIndexes.size)
            : Math.min(parallelism, completions !== undefined ? completions - totalSucceeded : parallelism);
          // an Indexed Job's pods beyond completions and second pods of one index go first, then the surplus
          const invalid = indexed ? surplusIndexPods(active, indexOf, completions!) : [];
          const kept = active.filter((p) => !invalid.includes(p));
          if (invalid.length || kept.length > wanted) {
            await deletePods([...invalid, ...[...kept].sort(deletionRank).slice(0, Math.max(0, kept.length - wanted))]);
          } else if (active.length < wanted) {
            const wait = backoffRemaining(all);
            if (wait > 0) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
            else createError = await createPods(wanted - active.length, active, succeededIndexes);
          }
        }
      }
      if (!finished) {
        if (failJob && pendingFailed + pendingSucceeded === 0 && active.length === 0) {
          status.conditions = jobCondition(status.conditions, { type: 'Failed', status: 'True', reason: failJob.reason, message: failJob.message }, now);
          ctx.recorder.event(job, 'Warning', failJob.reason, failJob.message);
        } else if (failJob?.reason === 'PodFailurePolicy') {
          // a failure policy's decision is written down until the pods are counted, so it survives the syncs in between
          // (the backoff limit and the deadline are kept in memory instead, and the Job goes straight to Failed)
          status.conditions = jobCondition(status.conditions, { type: 'FailureTarget', status: 'True', reason: failJob.reason, message: failJob.message }, now);
        } else if (complete && active.length === 0 && pendingSucceeded + pendingFailed === 0) {
          status.conditions = jobCondition(status.conditions, { type: 'Complete', status: 'True' } as Condition, now);
          status.completionTime = now;
          ctx.recorder.event(job, 'Normal', 'Completed', 'Job completed');
        }
      }
      if (!status.uncountedTerminatedPods?.succeeded && !status.uncountedTerminatedPods?.failed) status.uncountedTerminatedPods = {};
      status.active = Math.max(0, status.active);
      // the reference's counts are plain omitempty integers: a zero is left out (ready, a pointer, stays)
      for (const k of ['active', 'succeeded', 'failed'] as const) if (status[k] === 0) delete status[k];

      // 4. write the status (recording uncounted pods before their finalizers go), then release finished pods
      if (JSON.stringify(status) !== JSON.stringify(job.status ?? {})) {
        try {
          const written = await ctx.client.resource(ctx.refs.jobs, namespace).status.update({ ...job, status });
          job.metadata = written.metadata;
        } catch (e) {
          if (isConflict(e) || isNotFound(e)) return;   // a newer version brings another sync
          throw e;
        }
      }
      if (isFinished(job)) decidedFailures.delete(job.metadata.uid!);
      // a Job being deleted lets go of all its pods, finished or not, so none is held once the Job is gone
      const release = all.filter((p) => p.metadata.finalizers?.includes(trackingFinalizer)
        && (recorded.has(p.metadata.uid!) || ignored.has(p.metadata.uid!) || (isFinished(job) && terminated(p)) || deleting));
      await Promise.all(release.map((p) => podClient.patch(p.metadata.name!, {
        metadata: { resourceVersion: p.metadata.resourceVersion, finalizers: p.metadata.finalizers!.filter((x) => x !== trackingFinalizer) },
      }, 'merge').catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; })));
      if (createError) throw createError;
      if (release.length) return { requeueAfterMs: 0 };
      return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;

      /** how long new pods wait after recent failures */
      function backoffRemaining(list: Pod[]): number {
        const failures = list.filter((p) => hasFailed(p) && !ignored.has(p.metadata.uid!) && inRange(p))
          .map((p) => Date.parse(finishTime(p) ?? '') || 0).sort((a, b) => a - b);
        const lastSuccess = Math.max(0, ...list.filter(succeeded).map((p) => Date.parse(finishTime(p) ?? '') || 0));
        const recent = failures.filter((t) => t >= lastSuccess);
        if (!recent.length) return 0;
        const delay = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (recent.length - 1));
        return recent.at(-1)! + delay - Date.now();
      }

      async function createPods(count: number, current: Pod[], done: Set<number>) {
        const ref = controllerRef(job, 'Job', 'batch/v1');
        const busy = new Set(current.map(indexOf));
        const indexes = indexed
          ? Array.from({ length: completions! }, (_, i) => i).filter((i) => !done.has(i) && !busy.has(i)).slice(0, count)
          : [];
        const n = indexed ? indexes.length : count;
        const { error } = await slowStartCreations(expectations, key, n, async (i) => {
          const index = indexes[i];
          const pod = podFromTemplate(job.spec.template, namespace, ref, {
            generateName: index !== undefined ? indexedGenerateName(job.metadata.name!, index) : `${job.metadata.name}-`,
            ...(index !== undefined ? { annotations: { [indexAnnotation]: String(index) } } : {}),
          });
          pod.metadata.finalizers = [...(pod.metadata.finalizers ?? []), trackingFinalizer];
          if (index !== undefined) {
            pod.spec.hostname = `${job.metadata.name}-${index}`;
            const withIndex = withIndexEnv(indexAnnotation);
            pod.spec.containers = pod.spec.containers.map(withIndex);
            if (pod.spec.initContainers) pod.spec.initContainers = pod.spec.initContainers.map(withIndex);
          }
          const created = await podClient.create(pod);
          ctx.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        });
        if (error) ctx.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${serverMessage(error)}`);
        return error;
      }

      async function deletePods(victims: Pod[]) {
        if (!victims.length) return;
        expectations.expectDeletions(key, victims.map(keyOf));
        await Promise.all(victims.map(async (p) => {
          try {
            await podClient.delete(p.metadata.name!, { preconditions: { uid: p.metadata.uid } });
            ctx.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
          } catch (e) {
            expectations.deletionFailed(key, keyOf(p));
            if (!isNotFound(e)) throw e;
          }
        }));
      }
    }
  },
};

const validIndex = (index: number, completions: number) => Number.isInteger(index) && index >= 0 && index < completions;

/** the active pods of an Indexed Job that must go whatever the parallelism: those without an index below completions,
 *  and all but the most advanced pod (the last in deletion order) of an index held by several */
export function surplusIndexPods(active: Pod[], indexOf: (p: Pod) => number, completions: number): Pod[] {
  const byIndex = new Map<number, Pod[]>();
  const surplus: Pod[] = [];
  for (const p of active) {
    const index = indexOf(p);
    if (!validIndex(index, completions)) surplus.push(p);
    else byIndex.set(index, [...(byIndex.get(index) ?? []), p]);
  }
  for (const pods of byIndex.values()) surplus.push(...[...pods].sort(deletionRank).slice(0, -1));
  return surplus;
}

/** longest generateName the server keeps whole (it appends 5 random characters to at most 58) */
const maxGenerateNameLength = 58;
/** `<job>-<index>-`, the job's name shortened when needed so that the index survives the server's cut */
export function indexedGenerateName(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  return `${jobName.slice(0, maxGenerateNameLength - suffix.length)}${suffix}`;
}
/** adds JOB_COMPLETION_INDEX (from the index annotation) to a container that does not set it itself */
function withIndexEnv(indexAnnotation: string) {
  return <C extends { env?: Array<{ name: string }> }>(c: C): C => (c.env ?? []).some((e) => e.name === 'JOB_COMPLETION_INDEX') ? c
    : { ...c, env: [...(c.env ?? []), { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${indexAnnotation}']` } } }] };
}

/**
 * When a finished pod finished, for the back-off: its last container's finish, else when it stopped being Ready,
 * else when its deletion was asked for, else its creation. A pod the node refused at admission ran no container,
 * and without the fallbacks its failure would have no time and cause no back-off.
 */
function finishTime(p: Pod): string | undefined {
  const times = (p.status?.containerStatuses ?? []).map((c) => c.state?.terminated?.finishedAt).filter((t): t is string => !!t)
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  if (times.length) return times.at(-1);
  const notReady = (p.status?.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'False' && c.lastTransitionTime);
  if (notReady) return notReady.lastTransitionTime ?? undefined;
  if (p.metadata.deletionTimestamp) {
    // the deletion timestamp is the end of the grace period; the request came that much earlier
    const graceMs = (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
    return new Date(Date.parse(p.metadata.deletionTimestamp) - graceMs).toISOString();
  }
  return p.metadata.creationTimestamp ?? undefined;
}
