// A job's Table row: completions and how long it ran.
import type { Job } from '../../../../api/types/batch-v1.js';
import type { TableColumn } from '../../../types.js';
import { age, column, formatLabelSelector, humanDuration, n, workloadWide } from '../../columns.js';

export function jobCompletions(job: Job): string {
  const succeeded = n(job.status?.succeeded);
  const completions = job.spec?.completions;
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = n(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function jobDuration(job: Job, now = Date.now()): string {
  const start = Date.parse(job.status?.startTime ?? '');
  if (Number.isNaN(start)) return '';
  const end = Date.parse(job.status?.completionTime ?? '');
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const columns: TableColumn<Job>[] = [
  column('Completions', 'string', jobCompletions, 'The desired number of successfully finished pods the job should be run with.'),
  column('Duration', 'string', o => jobDuration(o), 'Time required to complete the job.'),
  age,
  ...workloadWide<Job>(o => o.spec?.template?.spec, o => formatLabelSelector(o.spec?.selector)),
];
