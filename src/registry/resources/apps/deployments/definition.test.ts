import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from '../../../../api/types/apps-v1.js';
import { create, podSpec, selector, strategyOf, template, text, update } from '../../testing/strategy.js';

test('Deployment: Recreate keeps no rolling update; zero surge and unavailability is refused', async () => {
  const d = strategyOf('apps', 'deployments');
  const recreate = await create<Deployment>(d, { spec: { selector, template: template(), strategy: { type: 'Recreate' } } });
  assert.deepEqual(recreate.obj.spec?.strategy, { type: 'Recreate' });
  assert.deepEqual(recreate.causes, []);
  const zero = await create(d, { spec: { selector, template: template(), strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }, minReadySeconds: 700 } });
  assert.deepEqual(zero.causes, [
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
    'spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds',
  ]);
  // no selector selects nothing, so the template's labels do not match it either (as kubectl shows the reference's answer)
  const none = await create(d, { spec: { template: template() } });
  assert.deepEqual(none.causes, [
    'spec.selector: Required value',
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
  ]);
  // a template without labels shows them as Go prints a nil map
  const unlabelled = await create(d, { spec: { selector, template: { spec: podSpec() } } });
  assert.deepEqual(unlabelled.causes, ['spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`']);
  const deadline = await create(d, { spec: { selector, template: template(podSpec({ activeDeadlineSeconds: 5 })) } });
  assert.deepEqual(deadline.causes, ['spec.template.spec.activeDeadlineSeconds: Invalid value: 5: activeDeadlineSeconds in ReplicaSet is not Supported']);
});

test('Deployment status through /status: counts not below 0, none above status.replicas, available not above ready', async () => {
  const d = strategyOf('apps', 'deployments');
  const { obj } = await create<Deployment>(d, { spec: { selector, template: template() } });
  const status = (st: object) => text(d.validateStatusUpdate!({ ...obj, status: st } as never, obj as never));
  assert.deepEqual(status({ replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 1, unavailableReplicas: 1 }), []);
  assert.deepEqual(status({ replicas: 1, unavailableReplicas: -1 }), ['status.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(status({ replicas: 1, readyReplicas: 2, availableReplicas: 2 }), [
    'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
  ]);
  assert.deepEqual(status({ replicas: 3, readyReplicas: 1, availableReplicas: 2 }), ['status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas']);
});

test('rolling update bounds: a Deployment may surge past 100%; a DaemonSet keeps both within 100%, exactly one above zero', async () => {
  const d = strategyOf('apps', 'deployments');
  const surge = await create(d, { spec: { selector, template: template(), strategy: { rollingUpdate: { maxSurge: '150%', maxUnavailable: '110%' } } } });
  assert.deepEqual(surge.causes, ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%']);
  const ds = strategyOf('apps', 'daemonsets');
  const rolling = (rollingUpdate: object) => create(ds, { spec: { selector, template: template(), updateStrategy: { type: 'RollingUpdate', rollingUpdate } } });
  assert.deepEqual((await rolling({ maxSurge: 1, maxUnavailable: 0 })).causes, []);
  assert.deepEqual((await rolling({ maxSurge: '150%', maxUnavailable: 0 })).causes, ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "150%": must not be greater than 100%']);
  assert.deepEqual((await rolling({ maxSurge: 1 })).causes, ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero']);
  assert.deepEqual((await rolling({ maxSurge: 0, maxUnavailable: '0%' })).causes, ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
});

test('a changed Deployment selector is shown as the reference prints it', async () => {
  const d = strategyOf('apps', 'deployments');
  const { obj } = await create<Deployment>(d, { spec: { selector, template: template() } });
  const moved = await update<Deployment>(d, obj, o => {
    o.spec!.selector = { matchLabels: { b: '2', app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }, { key: 'x', operator: 'Exists' }] };
    o.spec!.template!.metadata!.labels = { app: 'a', b: '2', tier: 'web', x: '' };
  });
  assert.deepEqual(moved, ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"a", "b":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"tier", Operator:"In", Values:[]string{"web"}}, v1.LabelSelectorRequirement{Key:"x", Operator:"Exists", Values:[]string(nil)}}}: field is immutable']);
});
