import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, podSpec, strategyOf, template } from '../../testing/strategy.js';

test('CronJob schedules', async () => {
  const cj = strategyOf('batch', 'cronjobs');
  const job = { spec: { template: template(podSpec({ restartPolicy: 'Never' })) } };
  for (const schedule of ['@hourly', '0 0 * * MON-FRI', '*/15 1,2 ? * *', '@every 1h'])
    assert.deepEqual((await create(cj, { spec: { schedule, jobTemplate: job } })).causes, [], schedule);
  assert.deepEqual((await create(cj, { spec: { schedule: 'TZ=UTC 0 0 * * *', jobTemplate: job, concurrencyPolicy: 'Sometimes' } })).causes, [
    'spec.schedule: Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
  ]);
});
