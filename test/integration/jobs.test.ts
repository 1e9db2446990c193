// Jobs, CronJobs and the TTL controller against a real server with simulated nodes: simulated containers
// exit after a while with a chosen code (annotations of the agent's fake runtime; without them a Job's pods exit 0 at once).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, waitFor, type TestCluster } from '../support/cluster.js';
import { fakeAnnotation } from '../../src/agent/options.js';

const jobsRef = { group: 'batch', version: 'v1', resource: 'jobs' };
const podsRef = { group: '', version: 'v1', resource: 'pods' };

describe('job controllers', () => {
  let cluster: TestCluster;
  before(async () => { cluster = await startTestCluster({ nodes: 2 }); });
  after(async () => { await cluster?.close(); });

  const job = (name: string, spec: Record<string, unknown>, annotations: Record<string, string>) => ({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
    spec: { ...spec, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } },
  });
  const runFor = (ms: number, code = 0) => ({
    [fakeAnnotation(cluster.server.names, 'run-for')]: `${ms}ms`, [fakeAnnotation(cluster.server.names, 'exit-code')]: String(code),
  });
  const condition = (j: any, type: string) => (j.status?.conditions ?? []).find((c: any) => c.type === type && c.status === 'True');

  test('completions and parallelism: never more than parallelism at once; Complete with the counts', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('batch', { completions: 4, parallelism: 2 }, runFor(300)));
    let maxActive = 0;
    const done = await waitFor('complete', async () => {
      const j = await jobs.get('batch');
      maxActive = Math.max(maxActive, j.status?.active ?? 0);
      return condition(j, 'Complete') && j;
    });
    assert.ok(maxActive <= 2, `at most 2 active, saw ${maxActive}`);
    assert.equal(done.status.succeeded, 4);
    // zero counts are left out, as the reference's omitempty integers; ready (a pointer there) stays at 0
    assert.ok(!('failed' in done.status) && !('active' in done.status), JSON.stringify(done.status));
    assert.equal(done.status.ready, 0);
    assert.ok(done.status.completionTime);
    // probed and changed at the moment it was set, as the reference's controller writes it
    const complete = condition(done, 'Complete');
    assert.ok(complete.lastProbeTime && complete.lastProbeTime === complete.lastTransitionTime, JSON.stringify(complete));
    const pods = (await cluster.client.resource(podsRef, 'default').list({ labelSelector: `job-name=batch` })).items;
    assert.equal(pods.filter((p: any) => p.status.phase === 'Succeeded').length, 4);
    assert.ok(pods.every((p: any) => !(p.metadata.finalizers ?? []).length), 'the tracking finalizers are released');
  });

  test('Indexed: one pod per index, completedIndexes', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('indexed', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, runFor(200)));
    const done = await waitFor('complete', async () => { const j = await jobs.get('indexed'); return condition(j, 'Complete') && j; });
    assert.equal(done.status.completedIndexes, '0-2');
    const pods = (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'job-name=indexed' })).items;
    const indexes = pods.map((p: any) => p.metadata.annotations[`batch.${cluster.server.names.labelDomain}/job-completion-index`]).sort();
    assert.deepEqual(indexes, ['0', '1', '2']);
  });

  test('Indexed: init containers get JOB_COMPLETION_INDEX too, a container setting it keeps its own, a long name keeps the index', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const name = `indexed-${'x'.repeat(52)}`;   // 60 characters: `<name>-1-` would be cut by the server
    const spec = job(name, { completions: 2, parallelism: 2, completionMode: 'Indexed' }, runFor(100));
    spec.spec.template.spec = { ...spec.spec.template.spec, initContainers: [{ name: 'init', image: 'x' }],
      containers: [{ name: 'c', image: 'x' }, { name: 'own', image: 'x', env: [{ name: 'JOB_COMPLETION_INDEX', value: 'mine' }] }] } as any;
    await jobs.create(spec);
    const done = await waitFor('complete', async () => { const j = await jobs.get(name); return condition(j, 'Complete') && j; });
    assert.equal(done.status.completedIndexes, '0-1');
    const pods = (await cluster.client.resource(podsRef, 'default').list({ labelSelector: `job-name=${name}` })).items;
    assert.equal(pods.length, 2);
    const fieldPath = `metadata.annotations['batch.${cluster.server.names.labelDomain}/job-completion-index']`;
    for (const p of pods) {
      const index = p.metadata.annotations[`batch.${cluster.server.names.labelDomain}/job-completion-index`];
      assert.ok(p.metadata.name.startsWith(`${name.slice(0, 55)}-${index}-`), p.metadata.name);
      assert.equal(p.spec.hostname, `${name}-${index}`);
      const envOf = (c: any) => (c.env ?? []).filter((e: any) => e.name === 'JOB_COMPLETION_INDEX');
      assert.deepEqual(envOf(p.spec.initContainers[0]).map((e: any) => e.valueFrom?.fieldRef?.fieldPath), [fieldPath]);
      assert.deepEqual(envOf(p.spec.containers[0]).map((e: any) => e.valueFrom?.fieldRef?.fieldPath), [fieldPath]);
      assert.deepEqual(envOf(p.spec.containers[1]).map((e: any) => e.value), ['mine']);
    }
  });

  test('Indexed, elastic: scaled down, the pods of indexes beyond completions go and are not counted as failed', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const indexKey = `batch.${cluster.server.names.labelDomain}/job-completion-index`;
    const podsOf = async () => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'job-name=elastic' })).items;
    await jobs.create(job('elastic', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, runFor(600_000)));
    await waitFor('three pods running', async () => (await podsOf()).filter((p: any) => p.status?.phase === 'Running').length === 3);
    // completions and parallelism change together (ElasticIndexedJob, beta in 1.27)
    await jobs.patch('elastic', { spec: { completions: 1, parallelism: 1 } }, 'merge');
    const left = await waitFor('only index 0 left', async () => {
      const pods = (await podsOf()).filter((p: any) => !p.metadata.deletionTimestamp);
      return pods.length === 1 && pods[0].metadata.annotations[indexKey] === '0' && pods;
    });
    const j = await waitFor('one active pod counted', async () => { const j = await jobs.get('elastic'); return j.status?.active === 1 && j; });
    assert.ok(!('failed' in j.status), `pods beyond completions are no failures: ${JSON.stringify(j.status)}`);
    assert.equal(left[0].status.phase, 'Running');
    await jobs.delete('elastic', { propagationPolicy: 'Background' });
  });

  test('a suspended Job says so in events, and in its status with no empty completedIndexes', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('paused', { suspend: true, completions: 2, completionMode: 'Indexed' }, runFor(100)));
    const suspended = await waitFor('suspended', async () => { const j = await jobs.get('paused'); return condition(j, 'Suspended') && j; });
    assert.ok(!('completedIndexes' in suspended.status), JSON.stringify(suspended.status));
    await jobs.patch('paused', { spec: { suspend: false } }, 'merge');
    await waitFor('complete', async () => condition(await jobs.get('paused'), 'Complete'));
    const events = async () => (await cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
      .filter((e: any) => e.involvedObject?.kind === 'Job' && e.involvedObject?.name === 'paused');
    await waitFor('a Suspended event', async () => (await events()).some((e: any) => e.reason === 'Suspended' && e.message === 'Job suspended'));
    await waitFor('a Resumed event', async () => (await events()).some((e: any) => e.reason === 'Resumed' && e.message === 'Job resumed'));
  });

  test('suspending a running Job deletes its pods, each said in a SuccessfulDelete event as the reference words it', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('halted', {}, runFor(600_000)));
    const pod = await waitFor('its pod running', async () => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'job-name=halted' })).items
      .find((p: any) => p.status?.phase === 'Running'));
    await jobs.patch('halted', { spec: { suspend: true } }, 'merge');
    const event = await waitFor('a SuccessfulDelete event', async () => (await cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
      .find((e: any) => e.involvedObject?.name === 'halted' && e.reason === 'SuccessfulDelete'));
    assert.equal(event.message, `Deleted pod: ${pod.metadata.name}`);
    await jobs.delete('halted', { propagationPolicy: 'Background' });
  });

  test('backoffLimit: failed pods beyond it fail the Job', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('failing', { backoffLimit: 0 }, runFor(100, 3)));
    const failed = await waitFor('failed', async () => { const j = await jobs.get('failing'); return condition(j, 'Failed') && j; });
    assert.equal(condition(failed, 'Failed').reason, 'BackoffLimitExceeded');
    assert.equal(failed.status.failed, 1);
    // the backoff limit fails the Job directly: FailureTarget is only for a pod failure policy's FailJob rule
    assert.ok(!failed.status.conditions.some((c: any) => c.type === 'FailureTarget'), JSON.stringify(failed.status.conditions));
  });

  test('podFailurePolicy FailJob on an exit code fails at once', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('policy', { backoffLimit: 5, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] } }, runFor(100, 42)));
    const failed = await waitFor('failed', async () => { const j = await jobs.get('policy'); return condition(j, 'Failed') && j; });
    assert.equal(condition(failed, 'Failed').reason, 'PodFailurePolicy');
    assert.match(condition(failed, 'Failed').message, /exit code 42/);
    // the rule's decision was recorded first, until the pods were counted
    assert.equal(condition(failed, 'FailureTarget')?.reason, 'PodFailurePolicy');
  });

  test('an evicted pod is marked DisruptionTarget, which a podFailurePolicy Ignore rule leaves out of the failures', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const pods = cluster.client.resource(podsRef, 'default');
    await jobs.create(job('evicted', { backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }, runFor(600_000)));
    const first = await waitFor('a running pod', async () => (await pods.list({ labelSelector: 'job-name=evicted' })).items
      .find((p: any) => p.status?.phase === 'Running'));
    await cluster.client.request({
      method: 'POST', path: `/api/v1/namespaces/default/pods/${first.metadata.name}/eviction`,
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: first.metadata.name } },
    });
    // the pod's tracking finalizer keeps it until the Job has counted it
    const marked = await pods.get(first.metadata.name).catch(() => undefined);
    if (marked) {
      const c = marked.status.conditions.find((x: any) => x.type === 'DisruptionTarget');
      assert.deepEqual([c?.status, c?.reason, c?.message], ['True', 'EvictionByEvictionAPI', 'Eviction API: evicting']);
    }
    const replaced = await waitFor('a second pod', async () => (await pods.list({ labelSelector: 'job-name=evicted' })).items
      .find((p: any) => p.metadata.uid !== first.metadata.uid && p.status?.phase === 'Running'));
    assert.ok(replaced);
    const j = await jobs.get('evicted');
    assert.equal(condition(j, 'Failed'), undefined, JSON.stringify(j.status));
    assert.equal(j.status.failed ?? 0, 0);
    await jobs.delete('evicted', { propagationPolicy: 'Background' });
  });

  test('activeDeadlineSeconds stops a Job that runs too long', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    await jobs.create(job('slow', { activeDeadlineSeconds: 1 }, runFor(600_000)));
    const failed = await waitFor('failed', async () => { const j = await jobs.get('slow'); return condition(j, 'Failed') && j; });
    assert.equal(condition(failed, 'Failed').reason, 'DeadlineExceeded');
    assert.ok(!failed.status.conditions.some((c: any) => c.type === 'FailureTarget'), JSON.stringify(failed.status.conditions));
  });

  test('pods the node refuses at admission are replaced after a back-off', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const pods = cluster.client.resource(podsRef, 'default');
    // bound to a node that has nowhere near 100 CPUs: each pod ends Failed (OutOfcpu) without running a container
    await jobs.create({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'refused-by-node' },
      spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', nodeName: cluster.nodes[0],
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100' } } }] } } },
    });
    const created = (p: any) => Date.parse(p.metadata.creationTimestamp);
    const [first, second] = await waitFor('a second pod', async () => {
      const items = (await pods.list({ labelSelector: 'job-name=refused-by-node' })).items.sort((a: any, b: any) => created(a) - created(b));
      return items.length >= 2 && items;
    }, 90_000);
    assert.equal(first.status.phase, 'Failed');
    assert.equal(first.status.reason, 'OutOfcpu');
    // 10 s after the first failed; timestamps are whole seconds, hence a second of slack
    assert.ok(created(second) - created(first) >= 9_000, `the replacement came ${created(second) - created(first)} ms after the first pod`);
    const failed = await waitFor('failed', async () => { const j = await jobs.get('refused-by-node'); return condition(j, 'Failed') && j; }, 60_000);
    assert.equal(condition(failed, 'Failed').reason, 'BackoffLimitExceeded');
    assert.equal(failed.status.failed, 2);
  });

  for (const propagationPolicy of ['Background', 'Foreground'] as const) {
    test(`deleting a running Job (${propagationPolicy}) lets its pods go`, async () => {
      const jobs = cluster.client.resource(jobsRef, 'default');
      const pods = cluster.client.resource(podsRef, 'default');
      const name = `deleted-${propagationPolicy.toLowerCase()}`;
      await jobs.create(job(name, { parallelism: 2, completions: 2 }, runFor(600_000)));
      const finalizer = `batch.${cluster.server.names.labelDomain}/job-tracking`;
      await waitFor('running pods holding the finalizer', async () => {
        const items = (await pods.list({ labelSelector: `job-name=${name}` })).items;
        return items.length === 2 && items.every((p: any) => p.status?.phase === 'Running' && p.metadata.finalizers?.includes(finalizer));
      });
      await jobs.delete(name, { propagationPolicy });
      await waitFor('the Job gone', () => jobs.get(name).then(() => false, () => true));
      await waitFor('its pods gone', async () => (await pods.list({ labelSelector: `job-name=${name}` })).items.length === 0);
    });
  }

  test('a pod with the finalizer whose Job is already gone is let go', async () => {
    // as left behind by a Job deleted while the controller was not looking: the owner named no longer exists
    const pods = cluster.client.resource(podsRef, 'default');
    const finalizer = `batch.${cluster.server.names.labelDomain}/job-tracking`;
    await pods.create({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'left-behind', finalizers: [finalizer],
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'never-was', uid: '00000000-0000-0000-0000-00000000abcd', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    // (the garbage collector may delete the pod too: gone counts as let go)
    await waitFor('the finalizer removed', async () => {
      const pod = await pods.get('left-behind').catch(() => undefined);
      return !(pod?.metadata.finalizers ?? []).includes(finalizer);
    });
    await pods.delete('left-behind', { gracePeriodSeconds: 0 }).catch(() => undefined);
  });

  test('a refused pod create is tried again with back-off, with no other event to set it off', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    // a webhook that cannot be reached, failing closed, refuses the Job's pods with the same message every time
    const webhooks = cluster.client.resource({ group: cluster.server.names.group('admissionregistration'), version: 'v1', resource: 'validatingwebhookconfigurations' });
    await webhooks.create({
      metadata: { name: 'unreachable-jobs' },
      webhooks: [{
        name: 'unreachable.example.com', failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 1,
        clientConfig: { url: 'https://127.0.0.1:1/refuse' }, objectSelector: { matchLabels: { 'job-name': 'refused' } },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      }],
    });
    await jobs.create(job('refused', { completions: 1 }, runFor(100)));
    const events = cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default');
    await waitFor('FailedCreate', async () => (await events.list()).items
      .some((e: any) => e.involvedObject?.name === 'refused' && e.reason === 'FailedCreate' && /failed calling webhook/.test(e.message)));
    // nothing the Job controller watches changes: only its own retry brings the pod
    await webhooks.delete('unreachable-jobs');
    const done = await waitFor('complete', async () => { const j = await jobs.get('refused'); return condition(j, 'Complete') && j; });
    assert.equal(done.status.succeeded, 1);
  });

  test('ttlSecondsAfterFinished deletes a finished Job and its pods, in the foreground', async () => {
    const jobs = cluster.client.resource(jobsRef, 'default');
    const created = await jobs.create(job('short-lived', { ttlSecondsAfterFinished: 0 }, runFor(100)));
    // the reference's TTL controller deletes with propagationPolicy Foreground: the Job is first marked with
    // the foregroundDeletion finalizer, and goes once the collector has deleted its pods
    let foreground = false;
    const stop = new AbortController();
    for await (const e of jobs.watch({ fieldSelector: 'metadata.name=short-lived', resourceVersion: created.metadata.resourceVersion, signal: stop.signal })) {
      if ((e.object as any).metadata?.finalizers?.includes('foregroundDeletion')) foreground = true;
      if (e.type === 'DELETED') { stop.abort(); break; }
    }
    assert.ok(foreground, 'deleted in the foreground');
    await waitFor('pods collected', async () => (await cluster.client.resource(podsRef, 'default').list({ labelSelector: 'job-name=short-lived' })).items.length === 0);
  });

  test('a CronJob fires on its schedule and keeps its history', async () => {
    const cronJobs = cluster.client.resource({ group: 'batch', version: 'v1', resource: 'cronjobs' }, 'default');
    await cronJobs.create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick' }, spec: {
      schedule: '* * * * *', successfulJobsHistoryLimit: 1,
      jobTemplate: { spec: { template: { metadata: { annotations: runFor(100) }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } } } });
    const jobs = cluster.client.resource(jobsRef, 'default');
    const fired = await waitFor('a job', async () => (await jobs.list()).items.find((j: any) => j.metadata.ownerReferences?.[0]?.name === 'tick'), 90_000);
    assert.match(fired.metadata.name, /^tick-\d+$/);
    const cj = await waitFor('last schedule and success recorded', async () => { const c = await cronJobs.get('tick'); return c.status?.lastSuccessfulTime && c; }, 60_000);
    assert.ok(cj.status.lastScheduleTime);
  });

  test('a Job made from a CronJob by hand (kubectl create job --from) neither blocks a Forbid schedule nor falls under its history limit', async () => {
    const cronJobs = cluster.client.resource({ group: 'batch', version: 'v1', resource: 'cronjobs' }, 'default');
    const jobs = cluster.client.resource(jobsRef, 'default');
    const cj = await cronJobs.create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'forbidding' }, spec: {
      schedule: '* * * * *', concurrencyPolicy: 'Forbid', successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0,
      jobTemplate: { spec: { template: { metadata: { annotations: runFor(100) }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } } } });
    // what kubectl sends: an owner reference to the CronJob that does not make it the controller
    const fromCronJob = (name: string, ms: number) => {
      const j = job(name, {}, runFor(ms));
      return { ...j, metadata: { ...j.metadata, annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' },
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'forbidding', uid: cj.metadata.uid }] } };
    };
    await jobs.create(fromCronJob('forbidding-running', 600_000));
    await jobs.create(fromCronJob('forbidding-once', 100));
    await waitFor('the short manual job complete', async () => condition(await jobs.get('forbidding-once'), 'Complete'));
    const scheduled = await waitFor('a scheduled job', async () => (await jobs.list()).items
      .find((j: any) => /^forbidding-\d+$/.test(j.metadata.name)), 90_000);
    const c = await cronJobs.get('forbidding');
    assert.ok(!(c.status?.active ?? []).some((a: any) => a.name === 'forbidding-running'), JSON.stringify(c.status));
    // the finished scheduled job goes (no finished job is kept); the finished manual one stays
    await waitFor('the scheduled job cleaned away', () => jobs.get(scheduled.metadata.name).then(() => false, () => true));
    assert.ok(condition(await jobs.get('forbidding-once'), 'Complete'));
    await cronJobs.delete('forbidding', { propagationPolicy: 'Background' });
  });

  test('a running Job that names a CronJob as its controller but is missing from its active list is reported, not adopted', async () => {
    const cronJobs = cluster.client.resource({ group: 'batch', version: 'v1', resource: 'cronjobs' }, 'default');
    const jobs = cluster.client.resource(jobsRef, 'default');
    const cj = await cronJobs.create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'forgetful' }, spec: {
      schedule: '* * * * *', suspend: true,
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } } } });
    const j = job('forgetful-stray', {}, runFor(600_000));
    await jobs.create({ ...j, metadata: { ...j.metadata,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'forgetful', uid: cj.metadata.uid, controller: true }] } });
    const events = cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default');
    const seen = await waitFor('an UnexpectedJob warning', async () => (await events.list()).items.find((e: any) =>
      e.involvedObject?.name === 'forgetful' && e.reason === 'UnexpectedJob'));
    assert.equal(seen.type, 'Warning');
    assert.equal(seen.message, 'Saw a job that the controller did not create or forgot: forgetful-stray');
    assert.deepEqual((await cronJobs.get('forgetful')).status?.active ?? [], []);
    await jobs.delete('forgetful-stray', { propagationPolicy: 'Background' });
    await cronJobs.delete('forgetful', { propagationPolicy: 'Background' });
  });

  test('a CronJob with concurrencyPolicy Replace replaces a running Job, whose pods then go', async () => {
    const cronJobs = cluster.client.resource({ group: 'batch', version: 'v1', resource: 'cronjobs' }, 'default');
    const jobs = cluster.client.resource(jobsRef, 'default');
    const pods = cluster.client.resource(podsRef, 'default');
    await cronJobs.create({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'replacing' }, spec: {
      schedule: '* * * * *', concurrencyPolicy: 'Replace',
      jobTemplate: { spec: { template: { metadata: { annotations: runFor(600_000) }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } } } });
    const ownedJobs = async () => (await jobs.list()).items.filter((j: any) => j.metadata.ownerReferences?.[0]?.name === 'replacing');
    const first = await waitFor('a first job', async () => (await ownedJobs())[0], 90_000);
    await waitFor('its pod running', async () => (await pods.list({ labelSelector: `job-name=${first.metadata.name}` })).items.some((p: any) => p.status?.phase === 'Running'));
    const second = await waitFor('a job replacing it', async () => (await ownedJobs()).find((j: any) => j.metadata.name !== first.metadata.name), 90_000);
    await waitFor('the first job gone', () => jobs.get(first.metadata.name).then(() => false, () => true));
    await waitFor('its pods gone', async () => (await pods.list({ labelSelector: `job-name=${first.metadata.name}` })).items.length === 0);
    const cj = await waitFor('only the new job active', async () => {
      const c = await cronJobs.get('replacing');
      return c.status?.active?.length === 1 && c.status.active[0].uid === second.metadata.uid && c;
    });
    assert.ok(cj);
    const events = (await cluster.client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items
      .filter((e: any) => e.involvedObject?.kind === 'CronJob' && e.involvedObject?.name === 'replacing');
    assert.ok(events.some((e: any) => e.reason === 'SuccessfulDelete' && e.message === `Deleted job ${first.metadata.name}`), JSON.stringify(events.map((e: any) => e.reason)));
    // the controller deleted that job itself: it did not go missing
    assert.ok(!events.some((e: any) => e.reason === 'MissingJob'), JSON.stringify(events.map((e: any) => `${e.reason}: ${e.message}`)));
    await cronJobs.delete('replacing', { propagationPolicy: 'Background' });
  });
});
