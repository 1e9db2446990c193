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
