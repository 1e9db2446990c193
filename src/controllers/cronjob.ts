// The CronJob controller: at each time of the schedule (five cron fields or a descriptor such as @hourly, in
// spec.timeZone or the controller's local zone) it starts a Job named `<cronjob>-<minutes since the epoch>`,
// unless suspended, too late for startingDeadlineSeconds, or an earlier run is still active and the
// concurrency policy forbids it (Forbid) or replaces it (Replace). It keeps status.active and the last
// schedule and success times, and deletes finished Jobs beyond the history limits.
import { CronExpressionParser } from 'cron-parser';
import { nowTimestamp } from '../api/meta.js';
import { ownerUidIndex } from '../client/informer.js';
import { isAlreadyExists, isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import { controllerOf, controllerRef, keyOf, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { CronJob, CronJobStatus, Job } from './types.js';

const descriptorAliases: Record<string, string> = { '@midnight': '@daily', '@annually': '@yearly' };

/** the schedule times in (after, until], oldest first (at most `limit` + 1 of them), and the next one after `until` */
export function scheduleTimes(schedule: string, timeZone: string | undefined, after: Date, until: Date, limit = 100): { times: Date[]; next: Date } {
  const every = /^@every\s+(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(schedule.trim());
  if (every) {
    const step = Number(every[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as Record<string, number>)[every[2]!]!;
    const times: Date[] = [];
    let t = after.getTime() + step;
    for (; t <= until.getTime() && times.length <= limit; t += step) times.push(new Date(t));
    while (t <= until.getTime()) t += step;
    return { times, next: new Date(t) };
  }
  const expression = descriptorAliases[schedule.trim()] ?? schedule.trim();
  const it = CronExpressionParser.parse(expression, { currentDate: after, tz: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone });
  const times: Date[] = [];
  for (;;) {
    const t = it.next().toDate();
    if (t.getTime() > until.getTime()) return { times, next: t };
    times.push(t);
    if (times.length > limit) {
      // too many missed: keep the most recent only
      const last = CronExpressionParser.parse(expression, { currentDate: until, tz: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone });
      const recent = last.prev().toDate();
      const next = CronExpressionParser.parse(expression, { currentDate: until, tz: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone }).next().toDate();
      return { times: [...times, recent], next };
    }
  }
}

const finished = (j: Job) => (j.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

export const cronJobController: Controller = {
  name: 'cronjob',
  component: 'cronjob-controller',
  start(ctx) {
    const cronJobs = ctx.informers.informer(ctx.refs.cronJobs);
    const jobs = ctx.informers.informer(ctx.refs.jobs);
    jobs.addIndex('owner', ownerUidIndex);
    const replaced: ReplacedJobs = new Map();
    const queue = startQueue(ctx, (key) => {
      const cj = cronJobs.get(key);
      // only the Jobs it controls: a Job that merely names it as an owner (`kubectl create job --from=cronjob/...`)
      // neither counts as an active run nor falls under the history limits, as with the reference
      const controlled = cj ? jobs.byIndex('owner', cj.metadata.uid!).filter((j) => controllerOf(j)?.uid === cj.metadata.uid) : [];
      return cj ? syncCronJob(ctx, structuredClone(cj), controlled, replaced) : Promise.resolve();
    });
    const ownerOf = (j: Job) => {
      const ref = controllerOf(j);
      if (ref?.kind === 'CronJob') queue.add(`${j.metadata.namespace}/${ref.name}`);
    };
    cronJobs.addHandler({ added: (c) => queue.add(keyOf(c)), updated: (_, c) => queue.add(keyOf(c)) });
    jobs.addHandler({ added: ownerOf, updated: (_, j) => ownerOf(j), deleted: ownerOf });
  },
};

/** Jobs the controller deleted itself under concurrencyPolicy Replace (uid to when): a cached CronJob that still lists
 *  one as active is behind, and the Job is not missing */
type ReplacedJobs = Map<string, number>;
const replacedMemoryMs = 10 * 60_000;

async function syncCronJob(ctx: ControllerContext, cj: CronJob, owned: Job[], replaced: ReplacedJobs): Promise<SyncResult | void> {
  for (const [uid, at] of replaced) if (Date.now() - at > replacedMemoryMs) replaced.delete(uid);
  const [namespace] = splitKey(keyOf(cj));
  const jobClient = ctx.client.resource(ctx.refs.jobs, namespace);
  const status: CronJobStatus = structuredClone(cj.status ?? {});
  const byUid = new Map(owned.map((j) => [j.metadata.uid!, j]));
  const jobRef = (j: Job) => ({ apiVersion: 'batch/v1', kind: 'Job', name: j.metadata.name, namespace, uid: j.metadata.uid, resourceVersion: j.metadata.resourceVersion });

  // the active list follows the Jobs
  const active = [];
  let fresh: CronJob | undefined;
  for (const a of status.active ?? []) {
    const j = byUid.get(a.uid ?? '');
    if (!j) {
      // gone, or not yet in the cache: the live object decides
      const live = await jobClient.get(a.name ?? '').catch((e) => { if (isNotFound(e)) return undefined; throw e; });
      if (live && live.metadata.uid === a.uid && !finished(live)) { active.push(a); continue; }
      if ((!live || live.metadata.uid !== a.uid) && !replaced.has(a.uid ?? '')) ctx.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${a.name}`);
      continue;
    }
    if (finished(j)) continue;
    active.push(a);
  }
  for (const j of owned) {
    const done = finished(j);
    if (done) {
      if ((status.active ?? []).some((a) => a.uid === j.metadata.uid)) {
        ctx.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name}, status: ${done.type}`);
      }
      if (done.type === 'Complete' && j.status?.completionTime && (!status.lastSuccessfulTime || Date.parse(j.status.completionTime) > Date.parse(status.lastSuccessfulTime))) {
        status.lastSuccessfulTime = j.status.completionTime;
      }
    } else if (!active.some((a) => a.uid === j.metadata.uid)) {
      // a running Job it controls that its active list lacks: the cached CronJob may be behind its own last status
      // write, so the live one decides; otherwise, as the reference, it is reported and not adopted
      fresh ??= await ctx.client.resource(ctx.refs.cronJobs, namespace).get(cj.metadata.name!).catch((e) => { if (isNotFound(e)) return cj; throw e; });
      const listed = (fresh!.status?.active ?? []).find((a) => a.uid === j.metadata.uid);
      if (listed) active.push(listed);
      else ctx.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
    }
  }
  status.active = active;
  let requeueAfterMs: number | undefined;

  if (!cj.metadata.deletionTimestamp && !cj.spec.suspend) {
    const now = new Date();
    let earliest = new Date(Date.parse(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '') || now.getTime());
    const deadline = cj.spec.startingDeadlineSeconds;
    if (deadline !== undefined && earliest.getTime() < now.getTime() - deadline * 1000) earliest = new Date(now.getTime() - deadline * 1000);
    let times: Date[] = [];
    let next: Date | undefined;
    try {
      ({ times, next } = scheduleTimes(cj.spec.schedule, cj.spec.timeZone, earliest, now));
    } catch (e) {
      ctx.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${cj.spec.schedule}" : ${(e as Error).message}`);
      return writeStatus();
    }
    if (times.length > 100) ctx.recorder.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    const scheduled = times.at(-1);
    requeueAfterMs = next.getTime() - Date.now() + 100;
    if (scheduled) await start(scheduled, now);
  }
  await cleanupHistory();
  await writeStatus();
  return requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, requeueAfterMs) } : undefined;

  async function start(scheduled: Date, now: Date) {
    const deadline = cj.spec.startingDeadlineSeconds;
    if (deadline !== undefined && scheduled.getTime() + deadline * 1000 < now.getTime()) {
      ctx.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${scheduled.toISOString()}`);
      return;
    }
    const name = `${cj.metadata.name}-${Math.floor(scheduled.getTime() / 60_000)}`;
    if (status.active!.some((a) => a.name === name)) return;
    const earlier = owned.find((j) => j.metadata.name === name);
    if (earlier) {
      // made by an earlier sync whose status write was lost: the name is the lock, and the Job joins the active list here
      if (!finished(earlier)) status.active!.push(jobRef(earlier));
      status.lastScheduleTime = nowTimestamp(scheduled);
      return;
    }
    const policy = cj.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && status.active!.length) {
      ctx.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return;
    }
    if (policy === 'Replace') {
      for (const a of status.active!) {
        if (a.uid) replaced.set(a.uid, Date.now());
        await jobClient.delete(a.name!, { propagationPolicy: 'Background', preconditions: { uid: a.uid } }).catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
        ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${a.name}`);
      }
      status.active = [];
    }
    const template = cj.spec.jobTemplate;
    const job: Job = {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        name, namespace,
        labels: { ...(template.metadata?.labels ?? {}) },
        annotations: { ...(template.metadata?.annotations ?? {}), [`batch.${ctx.names.labelDomain}/cronjob-scheduled-timestamp`]: scheduled.toISOString().replace(/\.\d+Z$/, 'Z') },
        ownerReferences: [controllerRef(cj, 'CronJob', 'batch/v1')],
      },
      spec: structuredClone(template.spec),
    };
    let made: Job;
    try {
      made = await jobClient.create(job);
      ctx.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        ctx.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${serverMessage(e)}`);
        throw e;
      }
      made = await jobClient.get(name);
      if (controllerOf(made)?.uid !== cj.metadata.uid) return;
    }
    if (!finished(made) && !status.active!.some((a) => a.uid === made.metadata.uid)) status.active!.push(jobRef(made));
    status.lastScheduleTime = nowTimestamp(scheduled);
  }

  async function cleanupHistory() {
    const limits: Array<[string, number | undefined]> = [['Complete', cj.spec.successfulJobsHistoryLimit], ['Failed', cj.spec.failedJobsHistoryLimit]];
    for (const [type, limit] of limits) {
      if (limit === undefined) continue;
      const done = owned.filter((j) => finished(j)?.type === type && !j.metadata.deletionTimestamp)
        .sort((a, b) => (Date.parse(a.status?.startTime ?? a.metadata.creationTimestamp ?? '') || 0) - (Date.parse(b.status?.startTime ?? b.metadata.creationTimestamp ?? '') || 0));
      for (const j of done.slice(0, Math.max(0, done.length - limit))) {
        await jobClient.delete(j.metadata.name!, { propagationPolicy: 'Background', preconditions: { uid: j.metadata.uid } }).catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
        ctx.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`);
      }
    }
  }

  async function writeStatus() {
    const prev = cj.status ?? {};
    const same = JSON.stringify({ ...prev, active: (prev.active ?? []).map((a) => a.uid) }) === JSON.stringify({ ...status, active: (status.active ?? []).map((a) => a.uid) });
    if (same) return;
    if (!status.active?.length) delete status.active;
    await ctx.client.resource(ctx.refs.cronJobs, namespace).status.update({ ...cj, status }).catch((e) => {
      if (!isConflict(e) && !isNotFound(e)) throw e;
    });
  }
}
