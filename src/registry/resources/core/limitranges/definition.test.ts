import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitRange } from '../../../../api/types/core-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('a Container item gets its default request from its default limit, else its min, and its default limit from its max', async () => {
  const { obj } = await create<LimitRange>(strategyOf('', 'limitranges'), {
    spec: { limits: [
      { type: 'Container', default: { cpu: '300m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } },
      { type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } },
      { type: 'Container', min: { cpu: '10m' }, max: { cpu: '1' }, default: { cpu: '500m' } },
      { type: 'Pod', max: { cpu: '4' } },
    ] },
  });
  assert.deepEqual(obj.spec?.limits, [
    { type: 'Container', default: { cpu: '300m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '256Mi' } },
    { type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '64Mi' } },
    { type: 'Container', min: { cpu: '10m' }, max: { cpu: '1' }, default: { cpu: '500m' }, defaultRequest: { cpu: '500m' } },
    { type: 'Pod', max: { cpu: '4' } },
  ]);
});

test('the bounds of a resource must agree, as the reference validates a limit range after filling in its defaults', async () => {
  const causes = async (limits: unknown[]) => (await create<LimitRange>(strategyOf('', 'limitranges'), { spec: { limits } } as Partial<LimitRange>)).causes.join('\n');
  assert.deepEqual(await causes([{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, default: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '4' } }]), '');
  assert.match(await causes([{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }]), /spec.limits\[0\].min\[cpu\]: Invalid value: "2": min value 2 is greater than max value 1/);
  assert.match(await causes([{ type: 'Container', max: { cpu: '1' }, default: { cpu: '2' } }]), /spec.limits\[0\].default\[cpu\]: Invalid value: "1": default value 2 is greater than max value 1/);
  assert.match(await causes([{ type: 'Container', default: { cpu: '200m' }, defaultRequest: { cpu: '500m' } }]),
    /spec.limits\[0\].defaultRequest\[cpu\]: Invalid value: "500m": default request value 500m is greater than default limit value 200m/);
  assert.match(await causes([{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }]), /ratio 500m is less than 1/);
  assert.match(await causes([{ type: 'Container', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }]), /ratio 3 is greater than max\/min = 2.000000/);
  assert.match(await causes([{ type: 'Pod', max: { cpu: '1' }, default: { cpu: '1' } }]), /spec.limits\[0\].default: Forbidden: may not be specified when `type` is 'Pod'/);
  assert.match(await causes([{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }]), /spec.limits\[0\].limits: Required value: either minimum or maximum storage value is required/);
  assert.match(await causes([{ type: 'Container', max: { cpu: '1' } }, { type: 'Container', max: { memory: '1Gi' } }]), /spec.limits\[1\].type: Duplicate value: "Container"/);
  assert.match(await causes([{ type: 'Node', max: { cpu: '1' } }]), /spec.limits\[0\].type: Invalid value: "Node": must be a standard limit type or fully qualified/);
  assert.match(await causes([{ type: 'Container', default: { 'example.com/gpu': '2' }, defaultRequest: { 'example.com/gpu': '1' } }]),
    /default value 2 must equal to defaultRequest value 1 in example.com\/gpu/);
});
