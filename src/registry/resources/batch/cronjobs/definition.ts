// batch/v1 cron jobs: jobs made on a schedule.
import type { Stored } from '../../../../api/meta.js';
import type { CronJob, CronJobSpec } from '../../../../api/types/batch-v1.js';
import * as s from '../../../../api/schemas/batch-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { defaultEmbeddedMetadata, defaultTemplate } from '../../../defaults/pod-spec.js';
import { type Causes, invalid, labels, nonNegative, oneOf, required } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column, formatLabelSelector, since, workloadWide } from '../../columns.js';
import { validateJobSpec } from '../jobs/strategy.js';

function defaultCronJob(cj: CronJob) {
  const s = specOf(cj);
  fill(s, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  if (s.jobTemplate && typeof s.jobTemplate === 'object') defaultEmbeddedMetadata(s.jobTemplate);
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

function validateCronJob(cj: CronJob): Causes {
  const s: Partial<CronJobSpec> = cj.spec ?? {};
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

export const strategy = defineStrategy<Stored<CronJob>>({
  defaults: defaultCronJob,
  podSpecs: cj => [['spec.jobTemplate.spec.template.spec', cj.spec?.jobTemplate?.spec?.template?.spec]],
  prepareForCreate(cj) { cj.status = {}; },
  validate: validateCronJob,
  validateUpdate: validateCronJob,
});

const columns: TableColumn<CronJob>[] = [
  column('Schedule', 'string', o => o.spec?.schedule ?? '', 'The schedule in Cron format.'),
  column('Suspend', 'boolean', o => o.spec?.suspend ?? false, 'Whether subsequent executions are suspended.'),
  column('Active', 'integer', o => (o.status?.active ?? []).length, 'The number of currently running jobs.'),
  column('Last Schedule', 'string', o => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime) : '<none>'), 'Information when was the last time the job was successfully scheduled.'),
  age,
  ...workloadWide<CronJob>(o => o.spec?.jobTemplate?.spec?.template?.spec, o => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector)),
];

export const definition = define<CronJob>({
  group: 'batch', resource: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], namespaced: true,
  versions: only('v1', s.cronJob), subresources: status, strategy, columns,
});
