// Scheduling profiles: the plugins a profile runs at each extension point, built from the reference's
// default plugin set (every default plugin enabled at all its extension points through `multiPoint`)
// and a KubeSchedulerConfiguration profile's changes (plugins enabled, disabled, `*` for all defaults,
// per extension point or multiPoint; weights; pluginConfig arguments).
import type { Handle, Plugin, PluginSpec } from './framework.js';
import { createFramework, extensionPoints, pointMethod, type ExtensionPoint, type Framework } from './runtime.js';
import { balancedAllocation } from './plugins/balanced-allocation.js';
import { defaultBinder } from './plugins/default-binder.js';
import { defaultPreemption } from './plugins/default-preemption.js';
import { imageLocality } from './plugins/image-locality.js';
import { interPodAffinity } from './plugins/inter-pod-affinity.js';
import { nodeAffinity } from './plugins/node-affinity.js';
import { nodeName } from './plugins/node-name.js';
import { nodePorts } from './plugins/node-ports.js';
import { nodeResourcesFit } from './plugins/node-resources-fit.js';
import { nodeUnschedulable } from './plugins/node-unschedulable.js';
import { nodeVolumeLimits } from './plugins/node-volume-limits.js';
import { podTopologySpread } from './plugins/pod-topology-spread.js';
import { prioritySort } from './plugins/priority-sort.js';
import { schedulingGates } from './plugins/scheduling-gates.js';
import { taintToleration } from './plugins/taint-toleration.js';
import { volumeBinding } from './plugins/volume-binding.js';
import { volumeRestrictions } from './plugins/volume-restrictions.js';
import { volumeZone } from './plugins/volume-zone.js';
import { decodePluginArgs } from './plugin-args.js';

export const defaultSchedulerName = 'default-scheduler';

/** every plugin this scheduler has, by name */
export const registry: ReadonlyMap<string, PluginSpec> = new Map([
  schedulingGates, prioritySort, nodeUnschedulable, nodeName, taintToleration, nodeAffinity, nodePorts, nodeResourcesFit,
  podTopologySpread, interPodAffinity, defaultPreemption, balancedAllocation, defaultBinder, volumeRestrictions, volumeBinding,
  volumeZone, nodeVolumeLimits, imageLocality,
].map((p) => [p.name, p]));

/** plugins of the reference's default set that this scheduler does not have (the in-tree cloud volume limits); disabling them is accepted */
export const referenceOnlyPlugins: ReadonlySet<string> = new Set(['EBSLimits', 'GCEPDLimits', 'AzureDiskLimits']);

export interface PluginRef { name: string; weight?: number }
export interface PluginSet { enabled?: PluginRef[]; disabled?: PluginRef[] }
export type PluginsConfig = Partial<Record<ExtensionPoint | 'multiPoint', PluginSet>>;

export interface ProfileConfig {
  schedulerName?: string;
  percentageOfNodesToScore?: number;
  plugins?: PluginsConfig;
  pluginConfig?: { name: string; args?: Record<string, unknown> }[];
}

/** the reference's default plugins, in its order, with its score weights */
export const defaultPlugins: readonly PluginRef[] = [
  { name: 'SchedulingGates' }, { name: 'PrioritySort' }, { name: 'NodeUnschedulable' }, { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 }, { name: 'NodeAffinity', weight: 2 }, { name: 'NodePorts' }, { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' }, { name: 'NodeVolumeLimits' }, { name: 'VolumeBinding' }, { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 }, { name: 'InterPodAffinity', weight: 2 }, { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 }, { name: 'ImageLocality', weight: 1 }, { name: 'DefaultBinder' },
];

/**
 * The defaults with a configured set applied: disabled ones (or all, with `*`) leave, re-enabled
 * defaults keep their place with the new settings, other enabled plugins follow in their order.
 */
export function mergePluginSet(defaults: readonly PluginRef[], custom: PluginSet | undefined): PluginRef[] {
  const disabled = new Set((custom?.disabled ?? []).map((p) => p.name));
  const enabled = custom?.enabled ?? [];
  const replaced = new Set<number>();
  const out: PluginRef[] = [];
  if (!disabled.has('*')) {
    for (const d of defaults) {
      if (disabled.has(d.name)) continue;
      const i = enabled.findIndex((e) => e.name === d.name);
      if (i >= 0) replaced.add(i);
      out.push(i >= 0 ? enabled[i]! : d);
    }
  }
  enabled.forEach((e, i) => { if (!replaced.has(i)) out.push(e); });
  return out;
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

/** the profile's framework; `handle` gives plugins the cluster (it may call into the framework being built) */
export function buildFramework(profile: ProfileConfig, handleFor: (fwk: () => Framework) => Handle, index = 0): Framework {
  const schedulerName = profile.schedulerName || defaultSchedulerName;
  const fail = (msg: string) => new ProfileError(`profile ${schedulerName}: ${msg}`);
  const p = profile.plugins ?? {};
  const args = new Map<string, Record<string, unknown>>();
  // every entry's arguments are checked, whether its plugin runs or not, as the reference checks its configuration
  const problems: string[] = [];
  (profile.pluginConfig ?? []).forEach((c, i) => {
    if (args.has(c.name)) problems.push(`profiles[${index}].pluginConfig[${i}]: Duplicate value: ${JSON.stringify(c.name)}`);
    const decoded = decodePluginArgs(c.name, c.args, index, i);
    problems.push(...decoded.errors);
    args.set(c.name, decoded.args);
  });
  if (problems.length) throw new ProfileError(problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`);
  const multiPoint = mergePluginSet(defaultPlugins, p.multiPoint);
  let framework: Framework | undefined;
  const handle = handleFor(() => framework!);
  const instances = new Map<string, Plugin>();
  const instance = (name: string): Plugin | undefined => {
    if (instances.has(name)) return instances.get(name);
    const spec = registry.get(name);
    if (!spec) {
      if (referenceOnlyPlugins.has(name)) return undefined;
      throw fail(`plugin ${JSON.stringify(name)} does not exist; known: ${[...registry.keys()].join(', ')}`);
    }
    try {
      const plugin = spec.create(args.get(name) ?? {}, handle);
      instances.set(name, plugin);
      return plugin;
    } catch (e) {
      throw fail((e as Error).message);
    }
  };

  const weights = new Map<string, number>();
  const points = {} as Record<ExtensionPoint, Plugin[]>;
  for (const point of extensionPoints) {
    const set = p[point];
    const disabled = new Set((set?.disabled ?? []).map((x) => x.name));
    const chosen: PluginRef[] = [...(set?.enabled ?? [])];
    for (const ref of multiPoint) {
      if (disabled.has('*') || disabled.has(ref.name) || chosen.some((c) => c.name === ref.name)) continue;
      const spec = registry.get(ref.name);
      // multiPoint plugins join the extension points they implement
      if (spec && instance(ref.name)?.[pointMethod[point]] !== undefined) chosen.push(ref);
    }
    points[point] = [];
    for (const ref of chosen) {
      const plugin = instance(ref.name);
      if (!plugin) continue;
      if (plugin[pointMethod[point]] === undefined) throw fail(`plugin ${ref.name} does not implement the ${point} extension point`);
      points[point].push(plugin);
      if (point === 'score') {
        const weight = ref.weight || multiPoint.find((m) => m.name === ref.name)?.weight || 1;
        if (weight < 0) throw fail(`plugin ${ref.name}: the score weight must not be negative`);
        weights.set(ref.name, weight);
      }
    }
  }
  for (const name of args.keys()) if (!instances.has(name) && !referenceOnlyPlugins.has(name) && !registry.has(name)) throw fail(`pluginConfig names ${name}, which does not exist`);
  if (points.queueSort.length !== 1) throw fail(`exactly one queueSort plugin must be enabled, not ${points.queueSort.length}`);
  if (!points.bind.length) throw fail('at least one bind plugin must be enabled');
  const pct = profile.percentageOfNodesToScore;
  if (pct !== undefined && (pct < 0 || pct > 100)) throw new ProfileError(`profiles[${index}].percentageOfNodesToScore: Invalid value: ${pct}: not in valid range [0-100]`);
  // a profile's 0 is the adaptive share, as the global 0 is; only a profile that sets none follows the global setting
  framework = createFramework(schedulerName, points, weights, pct);
  return framework;
}
