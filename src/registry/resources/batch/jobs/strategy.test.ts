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
  // shown as the reference prints the selector (Go's %#v), as kubectl then shows it
  assert.deepEqual(moved, ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable']);
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

test('Job podFailurePolicy: rules validated as the reference does, with restartPolicy Never only, and immutable', async () => {
  const jobs = strategyOf('batch', 'jobs');
  const spec = (rules: unknown[], restartPolicy = 'Never') => ({ spec: { podFailurePolicy: { rules }, template: template(podSpec({ restartPolicy })) } });
  const ok = await create<Job>(jobs, spec([
    { action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 2] } },
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
  ]));
  assert.deepEqual(ok.causes, []);
  assert.deepEqual((await create<Job>(jobs, spec([{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }], 'OnFailure'))).causes,
    ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified']);
  const bad = await create<Job>(jobs, spec([
    { action: 'Count', onExitCodes: { operator: 'In', values: [0, 3, 3, 2], containerName: 'other' } },
    { action: 'Retry', onExitCodes: { operator: 'Over', values: [] }, onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] },
    { action: 'Ignore' },
  ]));
  assert.deepEqual(bad.causes, [
    'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "other": must be one of the container or initContainer names in the pod template',
    'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
    'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3',
    'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 3, 2}: must be ordered',
    'spec.podFailurePolicy.rules[1].action: Unsupported value: "Retry": supported values: "Count", "FailJob", "Ignore"',
    'spec.podFailurePolicy.rules[1].onExitCodes.operator: Unsupported value: "Over": supported values: "In", "NotIn"',
    'spec.podFailurePolicy.rules[1].onExitCodes.values: Invalid value: []int32{}: at least one value is required',
    'spec.podFailurePolicy.rules[1].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    'spec.podFailurePolicy.rules[1]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
    'spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
  ]);
  const changed = await update<Job>(jobs, ok.obj, o => { o.spec!.podFailurePolicy!.rules[0]!.action = 'Count'; });
  assert.equal(changed.length, 1);
  assert.match(changed[0]!, /^spec\.podFailurePolicy: Invalid value: .*: field is immutable$/);
});
