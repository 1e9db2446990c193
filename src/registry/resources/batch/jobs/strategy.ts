// Jobs: run-to-completion pods; the server labels a job's pods with its name and uid and selects them by the uid.
import type { Stored } from '../../../../api/meta.js';
import type { Job, JobSpec, PodFailurePolicyRule } from '../../../../api/types/batch-v1.js';
import type { PodTemplateSpec } from '../../../../api/types/core-v1.js';
import { selectorMatches } from '../../../../api/selectors.js';
import { defineStrategy, type StrategyContext } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultTemplate } from '../../../defaults/pod-spec.js';
import {
  type Causes, duplicate, immutable, invalid, isSet, labelSelector, nonNegative, notSupported, oneOf, positive, qualifiedName, required,
  sameJson, tooMany,
} from '../../../validation/fields.js';
import { validateTemplate } from '../../../validation/pod-spec.js';
import { immutableSelector, statusCounts } from '../../../validation/workload.js';

type StoredJob = Stored<Job>;

function defaultJob(job: StoredJob) {
  const s = specOf(job);
  if (!isSet(s.completions) && !isSet(s.parallelism)) { s.completions = 1; s.parallelism = 1; }
  fill(s, { parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
  for (const rule of s.podFailurePolicy?.rules ?? [])
    for (const c of rule?.onPodConditions ?? []) if (c) fill(c, { status: 'True' });
  labelsFromTemplate(job);
  defaultTemplate(s.template);
}

/** a job without labels of its own takes its template's */
function labelsFromTemplate(job: StoredJob) {
  const templateLabels = specOf(job).template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
}

/** the reference labels a job's pods with its name and uid and selects them by the uid */
function generateSelector(job: StoredJob, ctx: StrategyContext) {
  const s = specOf(job);
  if (s.manualSelector === true) return;
  const prefix = `batch.${ctx.names.labelDomain}/`;
  const uid = job.metadata.uid ?? '', name = job.metadata.name ?? '';
  if (s.template && typeof s.template === 'object') {
    const t = s.template.metadata ??= {};
    t.labels = { ...(t.labels ?? {}) };
    fill(t.labels, { [`${prefix}controller-uid`]: uid, [`${prefix}job-name`]: name, 'controller-uid': uid, 'job-name': name });
  }
  s.selector ??= { matchLabels: { [`${prefix}controller-uid`]: uid } };
}

const failurePolicyActions = ['Count', 'FailJob', 'Ignore'];
const exitCodeOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];
/** `valid values: ["A" "B"]`, as the reference prints a list of choices */
const validValues = (list: string[]) => `valid values: [${list.map(v => JSON.stringify(v)).join(' ')}]`;
/** an Invalid cause whose value is printed as given (the reference's Go syntax for lists, or no value at all) */
const invalidAs = (field: string, shown: string | undefined, detail: string) =>
  ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown !== undefined ? `${shown}: ` : ''}${detail}` });

/** a pod failure policy as the reference validates it: its rules, each with exactly one kind of requirement */
function validatePodFailurePolicy(at: string, s: Partial<JobSpec>): Causes {
  const rules = s.podFailurePolicy?.rules ?? [];
  const out: Causes = rules.length > 20 ? [tooMany(`${at}.rules`, rules.length, 20)] : [];
  const containers = new Set([...(s.template?.spec?.containers ?? []), ...(s.template?.spec?.initContainers ?? [])].map(c => c?.name));
  rules.forEach((rule: PodFailurePolicyRule, i: number) => {
    const r = `${at}.rules[${i}]`;
    if (!rule?.action) out.push(required(`${r}.action`, validValues(failurePolicyActions)));
    else if (!failurePolicyActions.includes(rule.action)) out.push(notSupported(`${r}.action`, rule.action, failurePolicyActions));
    const codes = rule?.onExitCodes;
    const conditions = rule?.onPodConditions ?? [];
    if (codes) {
      const c = `${r}.onExitCodes`;
      if (!codes.operator) out.push(required(`${c}.operator`, validValues(exitCodeOperators)));
      else if (!exitCodeOperators.includes(codes.operator)) out.push(notSupported(`${c}.operator`, codes.operator, exitCodeOperators));
      if (isSet(codes.containerName) && !containers.has(codes.containerName))
        out.push(invalid(`${c}.containerName`, codes.containerName, 'must be one of the container or initContainer names in the pod template'));
      const values = codes.values ?? [];
      const shown = `[]int32{${values.join(', ')}}`;
      if (values.length === 0) out.push(invalidAs(`${c}.values`, shown, 'at least one value is required'));
      else if (values.length > 255) out.push(tooMany(`${c}.values`, values.length, 255));
      const seen = new Set<number>();
      values.forEach((v, j) => {
        if (codes.operator === 'In' && v === 0) out.push(invalid(`${c}.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (seen.has(v)) out.push(duplicate(`${c}.values[${j}]`, v));
        seen.add(v);
      });
      if (values.some((v, j) => j > 0 && values[j - 1]! > v)) out.push(invalidAs(`${c}.values`, shown, 'must be ordered'));
    }
    if (conditions.length > 20) out.push(tooMany(`${r}.onPodConditions`, conditions.length, 20));
    conditions.forEach((pattern, j) => {
      const p = `${r}.onPodConditions[${j}]`;
      out.push(...qualifiedName(`${p}.type`, pattern?.type ?? ''));
      if (!pattern?.status) out.push(required(`${p}.status`, validValues(conditionStatuses)));
      else if (!conditionStatuses.includes(pattern.status)) out.push(notSupported(`${p}.status`, pattern.status, conditionStatuses));
    });
    if (codes && conditions.length) out.push(invalidAs(r, undefined, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (!codes && !conditions.length) out.push(invalidAs(r, undefined, 'specifying one of OnExitCodes and OnPodConditions is required'));
  });
  return out;
}

/** a job's spec, in a job or in a cron job's template; a job's own must have its (generated) selector */
export function validateJobSpec(at: string, s: Partial<JobSpec>, generatedSelector: boolean): Causes {
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
    const rp: string | undefined = s.template.spec?.restartPolicy;
    const templateCauses = validateTemplate(`${at}.template`, s.template, { restartPolicies: ['OnFailure', 'Never', 'Always'] });
    out.push(...templateCauses.filter(c => c.field !== `${at}.template.spec.restartPolicy`));
    if (!rp || rp === 'Always') out.push(required(`${at}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
    else if (rp !== 'OnFailure' && rp !== 'Never') out.push(notSupported(`${at}.template.spec.restartPolicy`, rp, ['OnFailure', 'Never']));
    else if (s.podFailurePolicy && rp !== 'Never')
      out.push(invalid(`${at}.template.spec.restartPolicy`, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  if (s.podFailurePolicy) out.push(...validatePodFailurePolicy(`${at}.podFailurePolicy`, s));
  return out;
}

const validateJob = (job: Job) => validateJobSpec('spec', job.spec ?? {}, true);

/** the template fields a suspended job that never started may still change */
const suspendedTemplateMutable = (t: PodTemplateSpec | undefined): PodTemplateSpec => {
  const c = structuredClone(t ?? {});
  if (c.metadata) { delete c.metadata.labels; delete c.metadata.annotations; }
  if (c.spec) for (const f of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates'] as const) delete c.spec[f];
  return c;
};

function validateJobUpdate(job: Job, old: Job): Causes {
  const s: Partial<JobSpec> = job.spec ?? {}, o: Partial<JobSpec> = old.spec ?? {};
  const out = validateJob(job);
  out.push(...immutableSelector('spec.selector', s.selector, o.selector), ...immutable('spec.completionMode', s.completionMode, o.completionMode),
    ...immutable('spec.podFailurePolicy', s.podFailurePolicy, o.podFailurePolicy));
  // an indexed job may scale when completions follows parallelism
  const elastic = s.completionMode === 'Indexed' && o.completions === o.parallelism && s.completions === s.parallelism;
  if (!elastic) out.push(...immutable('spec.completions', s.completions, o.completions));
  const mayChangeScheduling = o.suspend === true && !old.status?.startTime;
  const same = mayChangeScheduling ? sameJson(suspendedTemplateMutable(s.template), suspendedTemplateMutable(o.template)) : sameJson(s.template, o.template);
  if (!same) out.push(invalid('spec.template', s.template, 'field is immutable'));
  return out;
}

export const strategy = defineStrategy<StoredJob>({
  orphanDependentsByDefault: true,
  orphanByDefaultWarning: 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
  generation: true,
  defaults: defaultJob,
  podSpecs: job => [['spec.template.spec', job.spec?.template?.spec]],
  // the template's generated labels reach the job too, as the reference's defaulting gives them to every job it reads
  prepareForCreate(job, ctx) { job.status = {}; generateSelector(job, ctx); labelsFromTemplate(job); },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: job => statusCounts(job.status, ['active', 'succeeded', 'failed', 'ready']),
  selectableFields: { 'status.successful': job => String(job.status?.succeeded ?? 0) },
});
