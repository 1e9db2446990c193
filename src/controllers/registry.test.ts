// The controllers the program knows by name are the ones it has, and --controllers selects them as the reference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllers } from './registry.js';
import { checkControllers, controllerEnabled, knownControllers } from '../config/controller-manager-options.js';
import { controllerManagerSettings } from '../main/embedded-controller-manager.js';
import { defaultControllerManagerOptions } from '../config/controller-manager-options.js';

test('every controller the flags name exists, and every one that exists is named', () => {
  assert.deepEqual(controllers.map((c) => c.name).sort(), [...knownControllers].sort());
});

test('--controllers: *, name and -name; tokencleaner and bootstrapsigner only when named', () => {
  assert.equal(controllerEnabled('deployment', ['*']), true);
  assert.equal(controllerEnabled('tokencleaner', ['*']), false);
  assert.equal(controllerEnabled('tokencleaner', ['*', 'tokencleaner']), true);
  assert.equal(controllerEnabled('deployment', ['*', '-deployment']), false);
  assert.equal(controllerEnabled('deployment', ['job']), false);
  assert.equal(controllerEnabled('job', ['job']), true);
  assert.match(checkControllers(['*', 'nosuch']) ?? '', /"nosuch" is not in the list of known controllers/);
  const settings = controllerManagerSettings({ ...defaultControllerManagerOptions(), controllers: ['*', '-job'], enableGarbageCollector: false });
  assert.ok(!settings.controllers.includes('job'));
  assert.ok(!settings.controllers.includes('garbagecollector'));
  assert.ok(settings.controllers.includes('deployment'));
});
