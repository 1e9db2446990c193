import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../../../api/types/batch-v1.js';
import { create, podSpec, selector, strategyOf, template, update } from '../../testing/strategy.js';

test('Job: restart policy, indexed completions, immutable selector', async () => {
  const jobs = strategyOf('batch', 'jobs');
  const bad = await create<Job>(jobs, { spec: { completionMode: 'Indexed', parallelism: 2, backoffLimit: -1, template: template(podSpec({ restartPolicy: 'Never' })) } });
  assert.equal(bad.obj.spec?.completions, undefined);
  assert.deepEqual(bad.causes, ['spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0', 'spec.completions: Required value: when completion mode is Indexed']);
  const ok = await create<Job>(jobs, { spec: { template: template(podSpec({ restartPolicy: 'OnFailure' })) } });
  assert.deepEqual(ok.causes, []);
  assert.deepEqual(ok.obj.metadata.labels, { app: 'a' });
  const moved = await update<Job>(jobs, ok.obj, o => { o.spec!.selector = { matchLabels: { app: 'a' } }; });
  assert.deepEqual(moved, ['spec.selector: Invalid value: {"matchLabels":{"app":"a"}}: field is immutable']);
  const manual = await create<Job>(jobs, { spec: { manualSelector: true, selector, template: template(podSpec({ restartPolicy: 'Never' })) } });
  assert.deepEqual(manual.obj.spec?.selector, selector);
  assert.deepEqual(manual.obj.spec?.template.metadata?.labels, { app: 'a' });
});

test('Job: one without labels of its own takes its template\'s, the generated ones included, as the reference shows it', async () => {
  const jobs = strategyOf('batch', 'jobs');
  const made = await create<Job>(jobs, { metadata: { name: 'pi', namespace: 'ns', uid: 'u-pi' }, spec: { template: { spec: podSpec({ restartPolicy: 'Never' }) } } });
  assert.deepEqual(made.causes, []);
  const uid = made.obj.metadata.uid!;
  assert.ok(uid);
  const labels = Object.fromEntries(Object.entries(made.obj.metadata.labels ?? {}).filter(([k]) => k.endsWith('controller-uid') || k.endsWith('job-name')));
  assert.equal(Object.keys(labels).length, 4, JSON.stringify(made.obj.metadata.labels));
  assert.deepEqual(made.obj.metadata.labels, made.obj.spec?.template.metadata?.labels);
  assert.equal(made.obj.metadata.labels?.['controller-uid'], uid);
  assert.equal(made.obj.metadata.labels?.['job-name'], 'pi');
});
