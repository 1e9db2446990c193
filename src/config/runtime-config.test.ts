import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRuntimeConfig, parseRuntimeConfig, RuntimeConfigError, versionTrack } from './runtime-config.js';

describe('runtime-config', () => {
  test('nothing given: every answer is the default', () => {
    const rc = parseRuntimeConfig();
    assert.equal(rc.isEnabled('apps', 'v1', undefined, true), true);
    assert.equal(rc.isEnabled('flowcontrol', 'v1alpha1', undefined, false), false);
    assert.equal(rc.isEnabled('apps', 'v1'), true);
  });

  test('a missing value means true; group version and resource keys', () => {
    const rc = parseRuntimeConfig('batch/v2alpha1,apps/v1=false,apps/v1/deployments=true,storage/v1beta1/csistoragecapacities');
    assert.equal(rc.isEnabled('batch', 'v2alpha1', undefined, false), true);
    assert.equal(rc.isEnabled('apps', 'v1', 'statefulsets', true), false);
    assert.equal(rc.isEnabled('apps', 'v1', 'deployments', true), true, 'resource entry beats its group version');
    assert.equal(rc.isEnabled('storage', 'v1beta1', 'csistoragecapacities', false), true);
    assert.equal(rc.isEnabled('storage', 'v1beta1', 'other', false), false);
  });

  test('tracks and api/all, most specific first', () => {
    const rc = parseRuntimeConfig(['api/all=false', 'api/beta=true', 'apps/v1']);
    assert.equal(rc.isEnabled('apps', 'v1', undefined, true), true);
    assert.equal(rc.isEnabled('batch', 'v1', undefined, true), false, 'api/all');
    assert.equal(rc.isEnabled('x.example', 'v2beta3', undefined, false), true, 'api/beta');
    assert.equal(rc.isEnabled('x.example', 'v1alpha1', undefined, true), false, 'alpha falls to api/all');
    const alphas = parseRuntimeConfig('api/alpha');
    assert.equal(alphas.isEnabled('x', 'v1alpha1', undefined, false), true);
    assert.equal(alphas.isEnabled('x', 'v1beta1', undefined, false), false);
    const ga = parseRuntimeConfig('api/ga=false');
    assert.equal(ga.isEnabled('x', 'v2', undefined, true), false);
    assert.equal(ga.isEnabled('x', 'v2beta1', undefined, true), true);
  });

  test('the core group: v1, api/v1, api/legacy, and core resources', () => {
    for (const key of ['v1', 'api/v1', 'api/legacy']) {
      const rc = parseRuntimeConfig(`api/all=false,${key}`);
      assert.equal(rc.isEnabled('', 'v1', 'pods', false), true, key);
      assert.equal(rc.isEnabled('apps', 'v1', undefined, true), false, key);
    }
    assert.match(parseRuntimeConfig('api/legacy').warnings[0]!, /api\/legacy is deprecated/);
    const rc = parseRuntimeConfig('v1/pods=false');
    assert.equal(rc.isEnabled('', 'v1', 'pods', true), false);
    assert.equal(rc.isEnabled('', 'v1', 'services', true), true);
    assert.deepEqual([...parseRuntimeConfig('api/v1/pods=false').entries], [['/v1/pods', false]]);
  });

  test('a key/value map works too', () => {
    const rc = parseRuntimeConfig({ 'apps/v1': 'false', 'api/alpha': '' });
    assert.equal(rc.isEnabled('apps', 'v1', undefined, true), false);
    assert.equal(rc.isEnabled('x', 'v1alpha1', undefined, false), true);
  });

  test('invalid keys and values are refused, naming them', () => {
    for (const key of ['apps', 'apps/version1', 'Apps/v1', 'a/v1/b/c', 'api/foo', 'apps/v1/Deployments', '/v1x']) {
      assert.throws(() => parseRuntimeConfig(`${key}=true`), (e: Error) => e instanceof RuntimeConfigError && e.message.includes(JSON.stringify(key)), key);
    }
    assert.throws(() => parseRuntimeConfig('apps/v1=maybe'), /invalid value "maybe" for runtime-config key apps\/v1/);
  });

  test('entries naming what is not served are refused by checkRuntimeConfig', () => {
    const served = [{ group: '', version: 'v1', resources: ['pods'] }, { group: 'apps', version: 'v1', resources: ['deployments'] }];
    checkRuntimeConfig(parseRuntimeConfig('api/all=false,v1,apps/v1/deployments'), served);
    assert.throws(() => checkRuntimeConfig(parseRuntimeConfig('apps/v1beta2,v1/widgets'), served), /runtime-config: apps\/v1beta2, v1\/widgets/);
  });

  test('version tracks', () => {
    assert.equal(versionTrack('v1'), 'ga');
    assert.equal(versionTrack('v2beta1'), 'beta');
    assert.equal(versionTrack('v1alpha3'), 'alpha');
    assert.equal(versionTrack('v1gamma'), undefined);
  });
});
