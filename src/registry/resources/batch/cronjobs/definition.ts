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
import { age, boolText, column, formatLabelSelector, since, workloadWide } from '../../columns.js';
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
  if (bad !== undefined) return `failed to parse int from ${bad}`;
  for (const [i, f] of fields.entries()) {
    const p = fieldRangeProblem(f, fieldBounds[i]!);
    if (p) return p;
  }
  return undefined;
}

interface Bounds { min: number; max: number; names?: string[] }
const fieldBounds: Bounds[] = [
  { min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/** each comma-separated part of a field within its bounds, with the reference's (robfig/cron's) messages */
function fieldRangeProblem(field: string, b: Bounds): string | undefined {
  const value = (v: string) => {
    const i = b.names?.indexOf(v.toLowerCase()) ?? -1;
    return i >= 0 ? i + b.min : /^\d+$/.test(v) ? Number(v) : undefined;
  };
  for (const part of field.split(',')) {
    const [range, step] = part.split('/');
    if (range === '*' || range === '?') {
      if (step !== undefined && Number(step) === 0) return `step of range should be a positive number: ${part}`;
      continue;
    }
    const [a, z] = range!.split('-');
    const start = value(a!);
    const end = z === undefined ? (step !== undefined ? b.max : start) : value(z);
    if (start === undefined || end === undefined) return `failed to parse int from ${z !== undefined && start !== undefined ? z : a}`;
    if (start < b.min) return `beginning of range (${start}) below minimum (${b.min}): ${part}`;
    if (end > b.max) return `end of range (${end}) above maximum (${b.max}): ${part}`;
    if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${part}`;
    if (step !== undefined && Number(step) === 0) return `step of range should be a positive number: ${part}`;
  }
  return undefined;
}

/** the parts of an IANA zone name the reference accepts before loading it */
const timeZonePart = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** spec.timeZone as the reference validates it: a known IANA zone, named explicitly */
function timeZoneProblems(tz: string | undefined): Causes {
  if (tz === undefined || tz === null) return [];
  if (tz === '') return [invalid('spec.timeZone', tz, 'timeZone must be nil or non-empty string')];
  if (tz.split('/').some(p => p === '.' || p === '..' || p.startsWith('-') || !timeZonePart.test(p)))
    return [invalid('spec.timeZone', tz, `unknown time zone ${tz}`)];
  if (tz.toLowerCase() === 'local')
    return [invalid('spec.timeZone', tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  if (!knownTimeZone(tz)) return [invalid('spec.timeZone', tz, `unknown time zone ${tz}`)];
  return [];
}

/** a zone the runtime knows under this exact name: its database matches names without regard to case, the
 *  reference's (files of the zone database) does not, so a canonical name in other letters (`europe/paris`, `utc`) is
 *  unknown; an alias (`US/Pacific`) resolves to another name and is taken as given */
function knownTimeZone(tz: string): boolean {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved === tz || resolved.toLowerCase() !== tz.toLowerCase();
  } catch {
    return false;
  }
}

function validateCronJob(cj: CronJob, old?: CronJob): Causes {
  const s: Partial<CronJobSpec> = cj.spec ?? {};
  const out: Causes = [];
  // its jobs are named `<name>-<minutes since the epoch>` (11 more characters) within 63: checked at creation only,
  // so that an older, longer one may still be changed and deleted
  const name = cj.metadata?.name ?? '';
  if (!old && name.length > 52) out.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  if (!s.schedule) out.push(required('spec.schedule'));
  else if (/^\s*(CRON_)?TZ=/.test(s.schedule)) out.push(invalid('spec.schedule', s.schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  else {
    const p = scheduleProblem(s.schedule);
    if (p) out.push(invalid('spec.schedule', s.schedule, p));
  }
  // an unchanged zone is not looked at again, as the reference does (the zone database may have lost it)
  if (!old || old.spec?.timeZone !== s.timeZone) out.push(...timeZoneProblems(s.timeZone));
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
  validate: cj => validateCronJob(cj),
  validateUpdate: (cj, old) => validateCronJob(cj, old),
});

const columns: TableColumn<CronJob>[] = [
  column('Schedule', 'string', o => o.spec?.schedule ?? '', 'The schedule in Cron format.'),
  // a boolean column whose cell is the reference's text: True, False, or <unset> when the field is absent
  column('Suspend', 'boolean', o => boolText(o.spec?.suspend), 'Whether subsequent executions are suspended.'),
  column('Active', 'integer', o => (o.status?.active ?? []).length, 'The number of currently running jobs.'),
  column('Last Schedule', 'string', o => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime) : '<none>'), 'Information when was the last time the job was successfully scheduled.'),
  age,
  ...workloadWide<CronJob>(o => o.spec?.jobTemplate?.spec?.template?.spec, o => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector)),
];

export const definition = define<CronJob>({
  group: 'batch', resource: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], namespaced: true,
  versions: only('v1', s.cronJob), subresources: status, strategy, columns,
});
