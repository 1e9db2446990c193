// The workload kinds: Deployment, ReplicaSet, StatefulSet, DaemonSet (apps), Job, CronJob (batch),
// ReplicationController and PodTemplate (core). Defaults fill what the reference fills; validation names every bad field.
import type { ApiObject } from '../../api/meta.js';
import { defineStrategy, type StrategyContext } from '../strategy.js';
import { defaultClaimSpec, defaultTemplate, fill } from '../defaults/pod.js';
import { type Causes, forbidden, immutable, intOrPercent, invalid, isSet, labelSelector, labels, nonNegative, notSupported, oneOf, positive, required } from '../validation/fields.js';
import { sameJson, validateTemplate } from '../validation/pod.js';
import { selectorIsEmpty, selectorMatches } from '../../api/selectors.js';

const always = ['Always'] as const;

/**
 * Defaults run on every write of the object, so an update reads back as complete as a create; a new object's status
 * starts empty, with the counters the reference always writes.
 */
function withDefaults(defaults: (obj: any, ctx: StrategyContext) => void, emptyStatus: Record<string, number> = {}) {
  return {
    prepareForCreate(obj: ApiObject, ctx: StrategyContext) { (obj as any).status = { ...emptyStatus }; defaults(obj, ctx); },
    prepareForUpdate(obj: ApiObject, _old: ApiObject, ctx: StrategyContext) { defaults(obj, ctx); },
  };
}

const spec = (obj: any) => (obj.spec && typeof obj.spec === 'object' ? obj.spec : (obj.spec = {}));


const isZero = (v: unknown) => v === 0 || v === '0%';

/** selector present, not empty, valid, and matching the template's labels */
function selectorAndTemplate(s: any, kind: string, rules: Parameters<typeof validateTemplate>[2]): Causes {
  const out: Causes = [];
  if (!s.selector) out.push(required('spec.selector'));
  else {
    out.push(...labelSelector('spec.selector', s.selector));
    if (selectorIsEmpty(s.selector)) out.push(invalid('spec.selector', s.selector, `empty selector is invalid for ${kind}`));
  }
  if (!s.template) out.push(required('spec.template'));
  else {
    if (s.selector && !selectorIsEmpty(s.selector) && !selectorMatches(s.selector, s.template.metadata?.labels))
      out.push(invalid('spec.template.metadata.labels', s.template.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    out.push(...validateTemplate('spec.template', s.template, rules));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Deployment

function defaultDeployment(d: any) {
  const s = spec(d);
  fill(s, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  s.strategy ??= {};
  fill(s.strategy, { type: 'RollingUpdate' });
  if (s.strategy.type === 'RollingUpdate') fill(s.strategy.rollingUpdate ??= {}, { maxUnavailable: '25%', maxSurge: '25%' });
  defaultTemplate(s.template);
}

function validateDeployment(d: any): Causes {
  const s = d.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas)];
  out.push(...selectorAndTemplate(s, 'deployment', { restartPolicies: always, noActiveDeadline: 'ReplicaSet' }));
  const st = s.strategy ?? {};
  out.push(...oneOf('spec.strategy.type', st.type, ['Recreate', 'RollingUpdate']));
  if (st.type === 'Recreate' && st.rollingUpdate)
    out.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  if (st.type === 'RollingUpdate' && st.rollingUpdate) out.push(...rollingUpdate('spec.strategy.rollingUpdate', st.rollingUpdate));
  out.push(...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit), ...nonNegative('spec.minReadySeconds', s.minReadySeconds));
  if (isSet(s.progressDeadlineSeconds)) {
    out.push(...nonNegative('spec.progressDeadlineSeconds', s.progressDeadlineSeconds));
    if (s.progressDeadlineSeconds <= (s.minReadySeconds ?? 0))
      out.push(invalid('spec.progressDeadlineSeconds', s.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return out;
}

function rollingUpdate(at: string, ru: any): Causes {
  const out = [...intOrPercent(`${at}.maxUnavailable`, ru.maxUnavailable), ...intOrPercent(`${at}.maxSurge`, ru.maxSurge)];
  if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge ?? 0))
    out.push(invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  return out;
}

const selectorImmutable = (obj: any, old: any) => immutable('spec.selector', obj.spec?.selector, old.spec?.selector);

export const deployments = defineStrategy({
  ...withDefaults(defaultDeployment),
  validate: validateDeployment,
  validateUpdate: (obj, old) => [...validateDeployment(obj), ...selectorImmutable(obj, old)],
});

// ---------------------------------------------------------------------------------------------
// ReplicaSet

function defaultReplicaSet(rs: any) {
  fill(spec(rs), { replicas: 1 });
  defaultTemplate(rs.spec.template);
}

function validateReplicaSet(rs: any): Causes {
  const s = rs.spec ?? {};
  return [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds),
    ...selectorAndTemplate(s, 'deployment', { restartPolicies: always, noActiveDeadline: 'ReplicaSet' })];
}

export const replicaSets = defineStrategy({
  ...withDefaults(defaultReplicaSet, { replicas: 0 }),
  validate: validateReplicaSet,
  validateUpdate: (obj, old) => [...validateReplicaSet(obj), ...selectorImmutable(obj, old)],
});

// ---------------------------------------------------------------------------------------------
// StatefulSet

function defaultStatefulSet(ss: any) {
  const s = spec(ss);
  fill(s, { replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10 });
  s.updateStrategy ??= {};
  fill(s.updateStrategy, { type: 'RollingUpdate' });
  if (s.updateStrategy.type === 'RollingUpdate') fill(s.updateStrategy.rollingUpdate ??= {}, { partition: 0 });
  fill(s.persistentVolumeClaimRetentionPolicy ??= {}, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  for (const claim of Array.isArray(s.volumeClaimTemplates) ? s.volumeClaimTemplates : []) {
    if (!claim || typeof claim !== 'object') continue;
    defaultClaimSpec(claim.spec ??= {});
    fill(claim.status ??= {}, { phase: 'Pending' });
  }
  defaultTemplate(s.template);
}

const retention = ['Retain', 'Delete'];

function validateStatefulSet(ss: any): Causes {
  const s = ss.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds)];
  out.push(...oneOf('spec.podManagementPolicy', s.podManagementPolicy, ['OrderedReady', 'Parallel']));
  const us = s.updateStrategy ?? {};
  out.push(...oneOf('spec.updateStrategy.type', us.type, ['RollingUpdate', 'OnDelete']));
  if (us.type === 'OnDelete' && us.rollingUpdate) out.push(invalid('spec.updateStrategy.rollingUpdate', us.rollingUpdate, 'only allowed for updateStrategy \'RollingUpdate\''));
  if (us.rollingUpdate) out.push(...nonNegative('spec.updateStrategy.rollingUpdate.partition', us.rollingUpdate.partition));
  const pr = s.persistentVolumeClaimRetentionPolicy ?? {};
  out.push(...oneOf('spec.persistentVolumeClaimRetentionPolicy.whenDeleted', pr.whenDeleted, retention));
  out.push(...oneOf('spec.persistentVolumeClaimRetentionPolicy.whenScaled', pr.whenScaled, retention));
  out.push(...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit));
  if (s.ordinals) out.push(...nonNegative('spec.ordinals.start', s.ordinals.start));
  const claimTemplates = (Array.isArray(s.volumeClaimTemplates) ? s.volumeClaimTemplates : []).map((t: any) => t?.metadata?.name).filter(Boolean);
  out.push(...selectorAndTemplate(s, 'statefulset', { restartPolicies: always, noActiveDeadline: 'StatefulSet', extraVolumes: claimTemplates }));
  return out;
}

/** a StatefulSet's spec may change only in these fields */
const statefulSetMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSetUpdate(ss: any, old: any): Causes {
  const out = validateStatefulSet(ss);
  const strip = (s: any) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !statefulSetMutable.includes(k)));
  if (!sameJson(strip(ss.spec), strip(old.spec)))
    out.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  return out;
}

export const statefulSets = defineStrategy({
  ...withDefaults(defaultStatefulSet, { replicas: 0, availableReplicas: 0 }),
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
});

// ---------------------------------------------------------------------------------------------
// DaemonSet

function defaultDaemonSet(ds: any) {
  const s = spec(ds);
  fill(s, { revisionHistoryLimit: 10 });
  s.updateStrategy ??= {};
  fill(s.updateStrategy, { type: 'RollingUpdate' });
  if (s.updateStrategy.type === 'RollingUpdate') fill(s.updateStrategy.rollingUpdate ??= {}, { maxUnavailable: 1, maxSurge: 0 });
  defaultTemplate(s.template);
}

function validateDaemonSet(ds: any): Causes {
  const s = ds.spec ?? {};
  const out = selectorAndTemplate(s, 'daemonset', { restartPolicies: always, noActiveDeadline: 'DaemonSet' });
  const us = s.updateStrategy ?? {};
  out.push(...oneOf('spec.updateStrategy.type', us.type, ['OnDelete', 'RollingUpdate']));
  if (us.type === 'RollingUpdate' && us.rollingUpdate) out.push(...rollingUpdate('spec.updateStrategy.rollingUpdate', us.rollingUpdate));
  out.push(...nonNegative('spec.minReadySeconds', s.minReadySeconds), ...nonNegative('spec.revisionHistoryLimit', s.revisionHistoryLimit));
  return out;
}

export const daemonSets = defineStrategy({
  ...withDefaults(defaultDaemonSet, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  validate: validateDaemonSet,
  validateUpdate: (obj, old) => [...validateDaemonSet(obj), ...selectorImmutable(obj, old)],
});

// ---------------------------------------------------------------------------------------------
// Job

function defaultJob(job: any, ctx: StrategyContext, creating: boolean) {
  const s = spec(job);
  if (!isSet(s.completions) && !isSet(s.parallelism)) { s.completions = 1; s.parallelism = 1; }
  fill(s, { parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
  for (const rule of s.podFailurePolicy?.rules ?? [])
    for (const c of rule?.onPodConditions ?? []) if (c) fill(c, { status: 'True' });
  const templateLabels = s.template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
  defaultTemplate(s.template);
  if (creating && s.manualSelector !== true) generateJobSelector(job, ctx);
}

/** the reference labels a job's pods with its name and uid and selects them by the uid */
function generateJobSelector(job: any, ctx: StrategyContext) {
  const s = job.spec;
  const prefix = `batch.${ctx.names.labelDomain}/`;
  const uid = job.metadata.uid as string, name = job.metadata.name as string;
  if (s.template && typeof s.template === 'object') {
    const t = s.template.metadata ??= {};
    t.labels = { ...(t.labels ?? {}) };
    fill(t.labels, { [`${prefix}controller-uid`]: uid, [`${prefix}job-name`]: name, 'controller-uid': uid, 'job-name': name });
  }
  s.selector ??= { matchLabels: { [`${prefix}controller-uid`]: uid } };
}

function validateJobSpec(at: string, s: any, generatedSelector: boolean): Causes {
  const out = [...nonNegative(`${at}.parallelism`, s.parallelism), ...nonNegative(`${at}.completions`, s.completions),
    ...nonNegative(`${at}.backoffLimit`, s.backoffLimit), ...nonNegative(`${at}.ttlSecondsAfterFinished`, s.ttlSecondsAfterFinished),
    ...positive(`${at}.activeDeadlineSeconds`, s.activeDeadlineSeconds)];
  if (isSet(s.completionMode)) out.push(...oneOf(`${at}.completionMode`, s.completionMode, ['NonIndexed', 'Indexed']));
  if (s.completionMode === 'Indexed' && !isSet(s.completions)) out.push(required(`${at}.completions`, 'when completion mode is Indexed'));
  if (s.selector) out.push(...labelSelector(`${at}.selector`, s.selector));
  else if (generatedSelector) out.push(required(`${at}.selector`));
  if (!s.template) out.push(required(`${at}.template`));
  else {
    if (s.selector && !selectorMatches(s.selector, s.template.metadata?.labels))
      out.push(invalid(`${at}.template.metadata.labels`, s.template.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    const rp = s.template.spec?.restartPolicy;
    const templateCauses = validateTemplate(`${at}.template`, s.template, { restartPolicies: ['OnFailure', 'Never', 'Always'] });
    out.push(...templateCauses.filter(c => c.field !== `${at}.template.spec.restartPolicy`));
    if (!rp || rp === 'Always') out.push(required(`${at}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
    else if (rp !== 'OnFailure' && rp !== 'Never') out.push(notSupported(`${at}.template.spec.restartPolicy`, rp, ['OnFailure', 'Never']));
  }
  return out;
}

const validateJob = (job: any) => validateJobSpec('spec', job.spec ?? {}, true);

/** the template fields a suspended job that never started may still change */
const suspendedTemplateMutable = (t: any) => {
  const c = structuredClone(t ?? {});
  if (c.metadata) { delete c.metadata.labels; delete c.metadata.annotations; }
  if (c.spec) for (const f of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates']) delete c.spec[f];
  return c;
};

function validateJobUpdate(job: any, old: any): Causes {
  const s = job.spec ?? {}, o = old.spec ?? {};
  const out = validateJob(job);
  out.push(...immutable('spec.selector', s.selector, o.selector), ...immutable('spec.completionMode', s.completionMode, o.completionMode));
  // an indexed job may scale when completions follows parallelism
  const elastic = s.completionMode === 'Indexed' && o.completions === o.parallelism && s.completions === s.parallelism;
  if (!elastic) out.push(...immutable('spec.completions', s.completions, o.completions));
  const mayChangeScheduling = o.suspend === true && !old.status?.startTime;
  const same = mayChangeScheduling ? sameJson(suspendedTemplateMutable(s.template), suspendedTemplateMutable(o.template)) : sameJson(s.template, o.template);
  if (!same) out.push(invalid('spec.template', s.template, 'field is immutable'));
  return out;
}

export const jobs = defineStrategy({
  generation: true,
  prepareForCreate(obj: any, ctx) { obj.status = {}; defaultJob(obj, ctx, true); },
  prepareForUpdate(obj: any, _old, ctx) { defaultJob(obj, ctx, false); },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  selectableFields: { 'status.successful': (o: any) => String(o.status?.succeeded ?? 0) },
});

// ---------------------------------------------------------------------------------------------
// CronJob

function defaultCronJob(cj: any) {
  const s = spec(cj);
  fill(s, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  defaultTemplate(s.jobTemplate?.spec?.template);
}

const descriptors = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const cronField = /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;

/** the standard five-field schedule or a descriptor; detail of the first problem, undefined when fine */
function scheduleProblem(schedule: string): string | undefined {
  const s = schedule.trim();
  if (s.startsWith('@')) {
    if (descriptors.includes(s) || /^@every\s+\S+$/.test(s)) return undefined;
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: ${s}`;
  const bad = fields.find(f => !cronField.test(f));
  return bad === undefined ? undefined : `failed to parse int from ${bad}`;
}

function validateCronJob(cj: any): Causes {
  const s = cj.spec ?? {};
  const out: Causes = [];
  if (!s.schedule) out.push(required('spec.schedule'));
  else if (/^\s*(CRON_)?TZ=/.test(s.schedule)) out.push(invalid('spec.schedule', s.schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  else {
    const p = scheduleProblem(s.schedule);
    if (p) out.push(invalid('spec.schedule', s.schedule, p));
  }
  out.push(...oneOf('spec.concurrencyPolicy', s.concurrencyPolicy, ['Allow', 'Forbid', 'Replace']));
  out.push(...nonNegative('spec.startingDeadlineSeconds', s.startingDeadlineSeconds),
    ...nonNegative('spec.successfulJobsHistoryLimit', s.successfulJobsHistoryLimit),
    ...nonNegative('spec.failedJobsHistoryLimit', s.failedJobsHistoryLimit));
  if (!s.jobTemplate) out.push(required('spec.jobTemplate'));
  else {
    out.push(...labels('spec.jobTemplate.metadata.labels', s.jobTemplate.metadata?.labels));
    out.push(...validateJobSpec('spec.jobTemplate.spec', s.jobTemplate.spec ?? {}, false));
  }
  return out;
}

export const cronJobs = defineStrategy({
  ...withDefaults(defaultCronJob),
  validate: validateCronJob,
  validateUpdate: validateCronJob,
});

// ---------------------------------------------------------------------------------------------
// ReplicationController and PodTemplate (core)

function defaultReplicationController(rc: any) {
  const s = spec(rc);
  const templateLabels = s.template?.metadata?.labels;
  if (templateLabels) {
    if (Object.keys(s.selector ?? {}).length === 0) s.selector = { ...templateLabels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...templateLabels };
  }
  fill(s, { replicas: 1 });
  defaultTemplate(s.template);
}

function validateReplicationController(rc: any): Causes {
  const s = rc.spec ?? {};
  const out = [...nonNegative('spec.replicas', s.replicas), ...nonNegative('spec.minReadySeconds', s.minReadySeconds)];
  const selector = s.selector ?? {};
  if (Object.keys(selector).length === 0) out.push(required('spec.selector'));
  else out.push(...labels('spec.selector', selector));
  if (!s.template) out.push(required('spec.template'));
  else {
    if (Object.keys(selector).length && !selectorMatches({ matchLabels: selector }, s.template.metadata?.labels))
      out.push(invalid('spec.template.metadata.labels', s.template.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
    out.push(...validateTemplate('spec.template', s.template, { restartPolicies: always, noActiveDeadline: 'ReplicationController' }));
  }
  return out;
}

export const replicationControllers = defineStrategy({
  ...withDefaults(defaultReplicationController, { replicas: 0 }),
  validate: validateReplicationController,
  validateUpdate: validateReplicationController,
});

export const podTemplates = defineStrategy({
  generation: false,
  prepareForCreate: (obj: any) => defaultTemplate(obj.template),
  prepareForUpdate: (obj: any) => defaultTemplate(obj.template),
  validate: (obj: any) => validateTemplate('template', obj.template, {}),
  validateUpdate: (obj: any) => validateTemplate('template', obj.template, {}),
});

