// batch/v1 jobs.
import type { Job } from '../../../../api/types/batch-v1.js';
import * as s from '../../../../api/schemas/batch-v1.js';
import { define, only, status } from '../../define.js';
import { strategy } from './strategy.js';
import { columns } from './columns.js';

export const definition = define<Job>({
  group: 'batch', resource: 'jobs', kind: 'Job', categories: ['all'], namespaced: true,
  versions: only('v1', s.job), subresources: status, strategy, columns,
});
