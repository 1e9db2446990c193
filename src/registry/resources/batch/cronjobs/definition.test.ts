import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, podSpec, strategyOf, template, update } from '../../testing/strategy.js';

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

test('CronJob schedule fields within their ranges, as the reference parses them', async () => {
  const cj = strategyOf('batch', 'cronjobs');
  const job = { spec: { template: template(podSpec({ restartPolicy: 'Never' })) } };
  for (const schedule of ['59 23 31 12 6', '0 0 * JAN-DEC SUN-SAT', '5/10 * * * *', '0 0 30 2 *'])
    assert.deepEqual((await create(cj, { spec: { schedule, jobTemplate: job } })).causes, [], schedule);
  const problems: Array<[string, string]> = [
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['0 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
    ['0 0 * * 1,5-3', 'beginning of range (5) beyond end of range (3): 5-3'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
  ];
  for (const [schedule, message] of problems)
    assert.deepEqual((await create(cj, { spec: { schedule, jobTemplate: job } })).causes, [`spec.schedule: Invalid value: "${schedule}": ${message}`]);
});

test('CronJob timeZone: a known IANA zone, named explicitly', async () => {
  const cj = strategyOf('batch', 'cronjobs');
  const job = { spec: { template: template(podSpec({ restartPolicy: 'Never' })) } };
  for (const timeZone of ['Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'US/Pacific'])
    assert.deepEqual((await create(cj, { spec: { schedule: '0 3 * * *', timeZone, jobTemplate: job } })).causes, [], timeZone);
  const problems: Array<[string, string]> = [
    ['Invalid/Zone', 'unknown time zone Invalid/Zone'],
    ['', 'timeZone must be nil or non-empty string'],
    [' Europe/Paris', 'unknown time zone  Europe/Paris'],
    ['../etc/passwd', 'unknown time zone ../etc/passwd'],
    ['europe/paris', 'unknown time zone europe/paris'],
    ['utc', 'unknown time zone utc'],
    ['Local', 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'],
  ];
  for (const [timeZone, message] of problems)
    assert.deepEqual((await create(cj, { spec: { schedule: '0 3 * * *', timeZone, jobTemplate: job } })).causes, [`spec.timeZone: Invalid value: "${timeZone}": ${message}`]);
});

test('CronJob name at most 52 characters at creation, for its jobs\' names', async () => {
  const cj = strategyOf('batch', 'cronjobs');
  const job = { spec: { template: template(podSpec({ restartPolicy: 'Never' })) } };
  const name = 'c'.repeat(53);
  assert.deepEqual((await create(cj, { metadata: { name }, spec: { schedule: '@hourly', jobTemplate: job } })).causes,
    [`metadata.name: Invalid value: "${name}": must be no more than 52 characters`]);
  assert.deepEqual((await create(cj, { metadata: { name: name.slice(1) }, spec: { schedule: '@hourly', jobTemplate: job } })).causes, []);
});

test('CronJob timeZone is looked at again only when it changes', async () => {
  const cj = strategyOf('batch', 'cronjobs');
  const job = { spec: { template: template(podSpec({ restartPolicy: 'Never' })) } };
  // as if stored while the zone database still knew it
  const { obj } = await create<any>(cj, { spec: { schedule: '@hourly', timeZone: 'Gone/Zone', jobTemplate: job } });
  assert.deepEqual(await update<any>(cj, obj, o => { o.spec.suspend = true; }), []);
  assert.deepEqual(await update<any>(cj, obj, o => { o.spec.timeZone = 'Other/Gone'; }), ['spec.timeZone: Invalid value: "Other/Gone": unknown time zone Other/Gone']);
});
