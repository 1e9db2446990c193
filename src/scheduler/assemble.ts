// The scheduler put together from its parts, without I/O: profiles built into frameworks, the cache,
// the queue, the scheduling loop, and the handlers that keep them in step with the cluster (the
// reference's event handlers). The caller feeds it watch events and gives it the writes it makes.
import type { Naming } from '../api/naming.js';
import { createSchedulerCache, type SchedulerCache } from './cache.js';
import type { ClusterEvent, EventRecorder, Handle, SchedulerMetrics, SchedulerWrites, VolumeListers } from './framework.js';
import { buildFramework, defaultSchedulerName, ProfileError, type ProfileConfig } from './profiles.js';
import { decodeProfile } from './plugin-args.js';
import { createSchedulingQueue, type SchedulingQueue } from './queue.js';
import type { Framework } from './runtime.js';
import { scheduler, type ScheduleOne } from './schedule-one.js';
import type { Node, Pod, PodDisruptionBudget, SelectingObject } from './types.js';

/** what the scheduler reads besides nodes and pods */
export interface SchedulerListers {
  pod(key: string): Pod | undefined;
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  selectingObjects(namespace: string): SelectingObject[];
  disruptionBudgets(namespace: string): PodDisruptionBudget[];
  volumes: VolumeListers;
}

export interface SchedulerParts {
  names: Naming;
  profiles: ProfileConfig[];
  writes: SchedulerWrites;
  recorder: EventRecorder;
  listers: SchedulerListers;
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  metrics?: SchedulerMetrics;
  log: { info(m: string): void; warn(m: string): void };
}

export interface AssembledScheduler {
  cache: SchedulerCache;
  queue: SchedulingQueue;
  frameworks: ReadonlyMap<string, Framework>;
  loop: ScheduleOne;
  /** whether a profile of this scheduler is named by the pod's schedulerName */
  responsibleFor(pod: Pod): boolean;
  nodeAdded(node: Node): void;
  nodeUpdated(old: Node, node: Node): void;
  nodeDeleted(node: Node): void;
  podAdded(pod: Pod): void;
  podUpdated(old: Pod, pod: Pod): void;
  podDeleted(pod: Pod): void;
  /** a volume, claim, class or CSINode changed: pods waiting on volumes may fit */
  volumeObjectChanged(event: ClusterEvent): void;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** the kinds of change between two versions of a node that may let waiting pods fit */
export function nodeChanges(old: Node, node: Node): ClusterEvent[] {
  const events: ClusterEvent[] = [];
  if (!same(old.metadata.labels, node.metadata.labels)) events.push('Node/UpdateNodeLabel');
  if (!same(old.spec?.taints, node.spec?.taints) || !!old.spec?.unschedulable !== !!node.spec?.unschedulable) events.push('Node/UpdateNodeTaint');
  if (!same(old.status?.allocatable, node.status?.allocatable)) events.push('Node/UpdateNodeAllocatable');
  // heartbeats change every condition's times; only a changed status counts
  const conditions = (n: Node) => (n.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
  if (!same(conditions(old), conditions(node))) events.push('Node/UpdateNodeCondition');
  return events;
}

export function assembleScheduler(p: SchedulerParts): AssembledScheduler {
  const names = p.names;
  let queue: SchedulingQueue | undefined;
  const cache = createSchedulerCache([`topology.${names.labelDomain}/zone`, `failure-domain.beta.${names.labelDomain}/zone`]);
  const frameworks = new Map<string, Framework>();
  for (const [index, raw] of p.profiles.entries()) {
    const decoded = decodeProfile(raw, index);
    if ('error' in decoded) throw new ProfileError(decoded.error);
    const profile = decoded.profile as ProfileConfig;
    // only a lone profile is named default-scheduler when it names itself nothing, as the reference defaults it
    if (p.profiles.length > 1 && !profile.schedulerName) throw new ProfileError(`profiles[${index}].schedulerName: Required value`);
    const fw = buildFramework(profile, (fwk): Handle => ({
      names,
      schedulerName: profile.schedulerName || defaultSchedulerName,
      nodes: () => cache.nodes(),
      node: (name) => cache.node(name),
      namespaceLabels: (ns) => p.listers.namespaceLabels(ns),
      selectingObjects: (ns) => p.listers.selectingObjects(ns),
      disruptionBudgets: (ns) => p.listers.disruptionBudgets(ns),
      volumes: p.listers.volumes,
      nominatedPods: (node) => queue!.nominatedPods(node),
      writes: p.writes,
      recorder: p.recorder,
      runFilters: (state, pod, node) => fwk().filterWithNominated(state, pod, node, queue!.nominatedPods(node.name)),
      runPreFilterAddPod: (state, pod, added, node) => fwk().addPod(state, pod, added, node),
      runPreFilterRemovePod: (state, pod, removed, node) => fwk().removePod(state, pod, removed, node),
    }), index);
    if (frameworks.has(fw.schedulerName)) throw new Error(`two profiles are named ${fw.schedulerName}`);
    frameworks.set(fw.schedulerName, fw);
  }
  const first = [...frameworks.values()][0];
  if (!first) throw new Error('no scheduling profile');
  const sorts = new Set([...frameworks.values()].map((f) => f.points.queueSort[0]!.name));
  if (sorts.size > 1) throw new Error(`every profile must use the same queueSort plugin, not ${[...sorts].join(' and ')}`);

  queue = createSchedulingQueue({
    less: first.less,
    preEnqueue: (pod) => frameworks.get(pod.spec.schedulerName ?? '')?.preEnqueue(pod),
    eventsOf: (plugin) => {
      for (const f of frameworks.values()) {
        const events = f.plugins.get(plugin)?.events;
        if (events) return events;
      }
      return [];
    },
    namespaceLabels: p.listers.namespaceLabels,
    initialBackoffMs: (p.podInitialBackoffSeconds ?? 1) * 1000,
    maxBackoffMs: (p.podMaxBackoffSeconds ?? 10) * 1000,
  });
  const loop = scheduler({
    cache, queue, frameworks, writes: p.writes, recorder: p.recorder, currentPod: p.listers.pod,
    percentageOfNodesToScore: p.percentageOfNodesToScore, log: p.log, metrics: p.metrics,
  });
  const pendingQueue = queue;
  p.metrics?.pendingPods(() => {
    const counts = pendingQueue.counts();
    const gated = pendingQueue.gated();
    return { active: counts.active, backoff: counts.backoff, unschedulable: counts.unschedulable - gated, gated };
  });

  const responsibleFor = (pod: Pod) => frameworks.has(pod.spec.schedulerName ?? '');
  const terminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
  const q = queue;

  return {
    cache, queue: q, frameworks, loop, responsibleFor,
    nodeAdded(node) {
      cache.addNode(node);
      q.moveOnEvent('Node/Add');
    },
    nodeUpdated(old, node) {
      cache.updateNode(node);
      for (const e of nodeChanges(old, node)) q.moveOnEvent(e);
    },
    nodeDeleted(node) {
      cache.removeNode(node);
    },
    podAdded(pod) {
      if (terminal(pod)) return;
      if (pod.spec.nodeName) {
        cache.addPod(pod);
        q.assignedPodAdded(pod);
      } else if (responsibleFor(pod)) q.add(pod);
    },
    podUpdated(old, pod) {
      if (terminal(pod)) return this.podDeleted(pod);
      if (pod.spec.nodeName) {
        // bound (by this scheduler or another): it waits no more
        if (!old.spec.nodeName) q.delete(pod);
        cache.updatePod(pod);
        q.assignedPodAdded(pod);
        return;
      }
      if (!responsibleFor(pod)) return q.delete(pod);
      // an assumed pod's own status writes change nothing
      if (cache.isAssumed(pod)) return;
      q.update(old, pod);
    },
    volumeObjectChanged(event) {
      q.moveOnEvent(event);
    },
    podDeleted(pod) {
      q.delete(pod);
      if (cache.nodeOf(pod) === undefined) return;
      cache.removePod(pod);
      q.moveOnEvent('Pod/Delete');
    },
  };
}
