import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiServerFeatureGates, describeFeatureGates, enabled, FeatureGateError, parseFeatureGates, type FeatureTable } from './feature-gates.js';

describe('feature gates', () => {
  test('defaults follow the stages of release 1.27', () => {
    const { gates, warnings } = parseFeatureGates({});
    assert.deepEqual(warnings, []);
    const expected: [string, string, boolean][] = [
      ['APIListChunking', 'BETA', true], ['APIResponseCompression', 'BETA', true], ['WatchList', 'ALPHA', false],
      ['ServerSideApply', 'GA', true], ['ServerSideFieldValidation', 'GA', true], ['AggregatedDiscoveryEndpoint', 'BETA', true],
      ['ValidatingAdmissionPolicy', 'ALPHA', false], ['CustomResourceValidationExpressions', 'BETA', true], ['OpenAPIV3', 'GA', true],
      ['KMSv2', 'BETA', true], ['ComponentSLIs', 'BETA', true], ['APIPriorityAndFairness', 'BETA', true],
      ['RemainingItemCount', 'BETA', true], ['StorageVersionAPI', 'ALPHA', false], ['EfficientWatchResumption', 'GA', true],
      ['AdmissionWebhookMatchConditions', 'ALPHA', false], ['CrossNamespaceVolumeDataSource', 'ALPHA', false],
    ];
    for (const [name, stage, on] of expected) {
      assert.equal(apiServerFeatureGates[name]?.stage, stage, name);
      assert.equal(enabled(gates, name), on, name);
    }
    assert.equal(apiServerFeatureGates.ConsistentListFromCache, undefined);
    for (const [name, f] of Object.entries(apiServerFeatureGates)) {
      if (f.stage === 'ALPHA') assert.equal(f.default, false, name);
      if (f.stage === 'GA') assert.ok(f.default && f.locked, name);
    }
  });

  test('string and map forms set gates', () => {
    const a = parseFeatureGates('WatchList=true, APIListChunking=false');
    assert.equal(enabled(a.gates, 'WatchList'), true);
    assert.equal(enabled(a.gates, 'APIListChunking'), false);
    const b = parseFeatureGates({ WatchList: 'true', KMSv2: false });
    assert.equal(enabled(b.gates, 'WatchList'), true);
    assert.equal(enabled(b.gates, 'KMSv2'), false);
  });

  test('unknown gates and bad values are refused, naming them', () => {
    assert.throws(() => parseFeatureGates('NoSuchGate=true'), (e: Error) => e instanceof FeatureGateError && /NoSuchGate/.test(e.message));
    assert.throws(() => parseFeatureGates('ConsistentListFromCache=true'), /unrecognized feature gate: ConsistentListFromCache/);
    assert.throws(() => parseFeatureGates('WatchList=yes'), /WatchList=yes.*true or false/);
    assert.throws(() => parseFeatureGates('WatchList'), /missing bool value for feature gate WatchList/);
  });

  test('a locked GA gate cannot be disabled; enabling it warns', () => {
    assert.throws(() => parseFeatureGates('ServerSideApply=false'), /ServerSideApply.*locked to true/);
    const { gates, warnings } = parseFeatureGates('ServerSideApply=true');
    assert.equal(gates.ServerSideApply, true);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /GA feature gate ServerSideApply=true; it will be removed/);
  });

  test('deprecated gates warn; AllAlpha and AllBeta set every unlocked gate of their stage, explicit names win', () => {
    const table: FeatureTable = {
      Old: { stage: 'DEPRECATED', default: true },
      A1: { stage: 'ALPHA', default: false },
      A2: { stage: 'ALPHA', default: false },
      B1: { stage: 'BETA', default: true },
      G: { stage: 'GA', default: true, locked: true },
    };
    const r = parseFeatureGates('Old=false,AllAlpha=true,A2=false,AllBeta=false', table);
    assert.deepEqual(r.gates, { Old: false, A1: true, A2: false, B1: false, G: true });
    assert.deepEqual(r.warnings, ['setting deprecated feature gate Old=false; it will be removed in a future release']);
  });

  test('enabled() refuses an unknown name, and help lists the changeable gates', () => {
    const { gates } = parseFeatureGates('');
    assert.throws(() => enabled(gates, 'Nope'), /unknown feature gate Nope/);
    const text = describeFeatureGates();
    assert.match(text, /WatchList=true\|false \(ALPHA - default=false\)/);
    assert.doesNotMatch(text, /ServerSideApply/);
  });
});
