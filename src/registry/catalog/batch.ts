// batch/v1: run-to-completion workloads.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/batch-v1.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

export const batchResources: ResourceDefinition[] = [
  define({
    group: 'batch', resource: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], namespaced: true,
    versions: only('v1', s.cronJob), subresources: status, columns: c.cronJobColumns,
  }),
  define({
    group: 'batch', resource: 'jobs', kind: 'Job', categories: ['all'], namespaced: true,
    versions: only('v1', s.job), subresources: status, columns: c.jobColumns,
  }),
];
