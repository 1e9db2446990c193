// Profiles: the reference's default plugin set, a configured set merged into it, and the errors a bad
// profile gets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildFramework, defaultPlugins, mergePluginSet, type ProfileConfig } from './profiles.js';
import { checkProfiles } from './scheduler.js';
import type { Handle } from './framework.js';
import { names } from './testing/cluster.js';

const handle = { names } as Handle;
const build = (p: ProfileConfig) => buildFramework(p, () => handle);
const namesAt = (p: ProfileConfig, point: 'filter' | 'score' | 'preFilter' | 'postFilter' | 'bind' | 'queueSort' | 'preScore' | 'reserve' | 'preBind') =>
  build(p).points[point].map((x) => x.name);

describe('scheduling profiles', () => {
  test('the default profile has the reference\'s plugins at each extension point, in its order, with its weights', () => {
    assert.deepEqual(namesAt({}, 'queueSort'), ['PrioritySort']);
    assert.deepEqual(namesAt({}, 'preFilter'), ['NodeAffinity', 'NodePorts', 'VolumeRestrictions', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity']);
    assert.deepEqual(namesAt({}, 'filter'), ['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit',
      'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone', 'PodTopologySpread', 'InterPodAffinity']);
    assert.deepEqual(namesAt({}, 'reserve'), ['VolumeBinding']);
    assert.deepEqual(namesAt({}, 'preBind'), ['VolumeBinding']);
    assert.deepEqual(namesAt({}, 'postFilter'), ['DefaultPreemption']);
    assert.deepEqual(namesAt({}, 'score'),
      ['TaintToleration', 'NodeAffinity', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity', 'NodeResourcesBalancedAllocation', 'ImageLocality']);
    assert.deepEqual(namesAt({}, 'bind'), ['DefaultBinder']);
    const fw = build({});
    assert.deepEqual(Object.fromEntries(fw.weights), {
      TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, PodTopologySpread: 2, InterPodAffinity: 2, NodeResourcesBalancedAllocation: 1, ImageLocality: 1,
    });
    assert.equal(fw.schedulerName, 'default-scheduler');
  });

  test('merging: disabled defaults leave, `*` disables all, re-enabled defaults keep their place, new ones follow', () => {
    const defaults = [{ name: 'A' }, { name: 'B', weight: 2 }, { name: 'C' }];
    assert.deepEqual(mergePluginSet(defaults, { disabled: [{ name: 'B' }] }), [{ name: 'A' }, { name: 'C' }]);
    assert.deepEqual(mergePluginSet(defaults, { disabled: [{ name: '*' }], enabled: [{ name: 'C' }] }), [{ name: 'C' }]);
    assert.deepEqual(mergePluginSet(defaults, { enabled: [{ name: 'D' }, { name: 'B', weight: 5 }] }),
      [{ name: 'A' }, { name: 'B', weight: 5 }, { name: 'C' }, { name: 'D' }]);
    assert.equal(mergePluginSet(defaultPlugins, undefined).length, defaultPlugins.length);
  });

  test('an extension point\'s own settings: disabled there only, weights, and the order of explicitly enabled plugins', () => {
    assert.deepEqual(namesAt({ plugins: { filter: { disabled: [{ name: 'TaintToleration' }] } } }, 'filter'),
      ['NodeUnschedulable', 'NodeName', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone',
        'PodTopologySpread', 'InterPodAffinity']);
    // still scoring
    assert.ok(namesAt({ plugins: { filter: { disabled: [{ name: 'TaintToleration' }] } } }, 'score').includes('TaintToleration'));
    const fw = build({ plugins: { score: { disabled: [{ name: '*' }], enabled: [{ name: 'NodeResourcesFit', weight: 7 }] } } });
    assert.deepEqual(fw.points.score.map((p) => p.name), ['NodeResourcesFit']);
    assert.equal(fw.weights.get('NodeResourcesFit'), 7);
    assert.deepEqual(namesAt({ plugins: { multiPoint: { disabled: [{ name: 'DefaultPreemption' }] } } }, 'postFilter'), []);
  });

  test('plugin arguments reach the plugins; the reference\'s in-tree cloud volume limits may be disabled', () => {
    const fw = build({
      pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } }],
      plugins: { multiPoint: { disabled: [{ name: 'EBSLimits' }, { name: 'GCEPDLimits' }, { name: 'AzureDiskLimits' }] } },
    });
    assert.ok(fw.plugins.has('NodeResourcesFit'));
  });

  test('VolumeZone, NodeVolumeLimits and ImageLocality are disabled and enabled as the other plugins', () => {
    const off = build({ plugins: { multiPoint: { disabled: [{ name: 'VolumeZone' }, { name: 'NodeVolumeLimits' }, { name: 'ImageLocality' }] } } });
    for (const name of ['VolumeZone', 'NodeVolumeLimits', 'ImageLocality']) assert.equal(off.plugins.has(name), false, name);
    assert.ok(!off.points.filter.some((p) => p.name === 'VolumeZone' || p.name === 'NodeVolumeLimits'));
    // only scoring off: still filtering; re-enabled with another weight
    const scoreOnly = build({ plugins: { score: { disabled: [{ name: 'ImageLocality' }] }, filter: { disabled: [{ name: 'NodeVolumeLimits' }] } } });
    assert.ok(!scoreOnly.points.score.some((p) => p.name === 'ImageLocality'));
    assert.ok(!scoreOnly.points.filter.some((p) => p.name === 'NodeVolumeLimits'));
    assert.ok(scoreOnly.points.filter.some((p) => p.name === 'VolumeZone'));
    const weighted = build({ plugins: { multiPoint: { enabled: [{ name: 'ImageLocality', weight: 4 }] } } });
    assert.equal(weighted.weights.get('ImageLocality'), 4);
    assert.throws(() => build({ plugins: { score: { enabled: [{ name: 'VolumeZone' }] } } }), /plugin VolumeZone does not implement the score extension point/);
  });

  test('bad profiles are refused, naming the problem', () => {
    assert.throws(() => build({ schedulerName: 'p', plugins: { filter: { enabled: [{ name: 'Nope' }] } } }), /profile p: plugin "Nope" does not exist; known: /);
    assert.throws(() => build({ plugins: { score: { enabled: [{ name: 'DefaultBinder' }] } } }), /plugin DefaultBinder does not implement the score extension point/);
    assert.throws(() => build({ plugins: { queueSort: { disabled: [{ name: '*' }] } } }), /exactly one queueSort plugin must be enabled, not 0/);
    assert.throws(() => build({ plugins: { bind: { disabled: [{ name: '*' }] } } }), /at least one bind plugin must be enabled/);
    assert.throws(() => build({ pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'Random' } } }] }),
      { message: 'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Random": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"' });
    assert.throws(() => build({ pluginConfig: [{ name: 'PodTopologySpread', args: { defaultingType: 'System', defaultConstraints: [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule' }] } }] }),
      { message: 'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty' });
    assert.throws(() => build({ percentageOfNodesToScore: 101 }), { message: 'profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]' });
    assert.throws(() => checkProfiles([{ schedulerName: 'x' }, { schedulerName: 'x' }]), /two profiles are named x/);
    // only a lone profile is default-scheduler without a name; among several each needs one
    assert.throws(() => checkProfiles([{ schedulerName: 'x' }, {}]), { message: 'profiles[1].schedulerName: Required value' });
    checkProfiles([{}]);
  });

  test('pluginConfig arguments are decoded strictly and validated as the reference does, whether the plugin runs or not', () => {
    const refused = (pluginConfig: ProfileConfig['pluginConfig'], message: string, profile: ProfileConfig = {}) =>
      assert.throws(() => checkProfiles([{ schedulerName: 'first' }, { schedulerName: 'second', ...profile, pluginConfig }]), { message });
    const at = 'profiles[1].pluginConfig[0]';
    refused([{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: 200 } }], `${at}.args.hardPodAffinityWeight: Invalid value: 200: not in valid range [0, 100]`);
    // the plugin is off in this profile: its arguments are checked all the same
    refused([{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: -1 } }], `${at}.args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]`,
      { plugins: { multiPoint: { disabled: [{ name: 'InterPodAffinity' }] } } });
    refused([{ name: 'InterPodAffinity', args: { hardPodAffinityWeigth: 2 } }], `decoding .${at}: strict decoding error: unknown field "hardPodAffinityWeigth"`);
    refused([{ name: 'NodeResourcesFit', args: { scoringStrategy: { resources: [{ name: 'cpu', wieght: 2 }] } } }],
      `decoding .${at}: strict decoding error: unknown field "scoringStrategy.resources[0].wieght"`);
    refused([{ name: 'InterPodAffinity', args: { hardPodAffinityWeight: 'x' } }],
      `decoding .${at}: json: cannot unmarshal string into Go struct field InterPodAffinityArgs.hardPodAffinityWeight of type int32`);
    refused([{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 101 }] } } }],
      `${at}.args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]`);
    refused([{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: [{ utilization: 50, score: 11 }, { utilization: 10, score: 1 }] } } } }],
      `[${at}.args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order, `
      + `${at}.args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]]`);
    refused([{ name: 'NodeResourcesBalancedAllocation', args: { resources: [{ name: 'cpu', weight: 2 }] } }], `${at}.args.resources[0].weight: Invalid value: 2: must be 1`);
    refused([{ name: 'DefaultPreemption', args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 } }],
      `[${at}.args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, `
      + `${at}.args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]`);
    refused([{ name: 'PodTopologySpread', args: { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: {} }] } }],
      `${at}.args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`);
    refused([{ name: 'NodeAffinity', args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] } } } }],
      `${at}.args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
    refused([{ name: 'NodeAffinity', args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerm: [] } } } }],
      `decoding .${at}: strict decoding error: unknown field "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerm"`);
    refused([{ name: 'VolumeBinding', args: { bindTimeoutSeconds: 1 } }, { name: 'VolumeBinding', args: { bindTimeoutSeconds: 2 } }], 'profiles[1].pluginConfig[1]: Duplicate value: "VolumeBinding"');
    // null list items are their type's zero value, as Go decodes them, and are validated as such (no TypeError)
    refused([{ name: 'PodTopologySpread', args: { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' }, null] } }],
      `[${at}.args.defaultConstraints[1].maxSkew: Invalid value: 0: not in valid range (0, inf), ${at}.args.defaultConstraints[1].topologyKey: Required value: can not be empty, `
      + `${at}.args.defaultConstraints[1].whenUnsatisfiable: Required value: can not be empty]`);
    // valid arguments, with their type named as the reference's files do; a resource weight of 0 is the default 1
    checkProfiles([{ pluginConfig: [
      { name: 'InterPodAffinity', args: { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'InterPodAffinityArgs', hardPodAffinityWeight: 100 } },
      { name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 0 }, { name: 'memory' }] } } },
      { name: 'PodTopologySpread', args: { defaultingType: 'List', defaultConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' }] } },
      { name: 'NodeAffinity', args: { addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } }],
      } } },
    ] }]);
  });

  test('profiles are decoded strictly, as the reference decodes its file: an unknown or mistyped field is named', () => {
    const refused = (profile: unknown, message: string) => assert.throws(() => checkProfiles([{ schedulerName: 'first' }, profile as ProfileConfig]), { message });
    refused({ schedulerName: 'x', pluginConfigs: [] }, 'strict decoding error: unknown field "profiles[1].pluginConfigs"');
    refused({ schedulerName: 'x', plugins: { filters: {} } }, 'strict decoding error: unknown field "profiles[1].plugins.filters"');
    refused({ schedulerName: 'x', plugins: { score: { enabled: [{ name: 'NodeAffinity', wieght: 2 }] } } }, 'strict decoding error: unknown field "profiles[1].plugins.score.enabled[0].wieght"');
    refused({ schedulerName: 'x', pluginConfig: 5 },
      'decoding .profiles[1]: json: cannot unmarshal number into Go struct field KubeSchedulerProfile.profiles[1].pluginConfig of type list');
    refused({ schedulerName: 5 }, 'decoding .profiles[1]: json: cannot unmarshal number into Go struct field KubeSchedulerProfile.profiles[1].schedulerName of type string');
    checkProfiles([{ schedulerName: 'x', percentageOfNodesToScore: 50, plugins: { multiPoint: { enabled: [{ name: 'ImageLocality', weight: 3 }] }, preEnqueue: {} },
      pluginConfig: [{ name: 'TaintToleration', args: {} }] }]);
  });
});
