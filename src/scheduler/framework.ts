// The scheduling framework's vocabulary, in the reference's shape: a plugin implements some of the
// extension points (PreEnqueue, QueueSort, PreFilter, Filter, PostFilter, PreScore, Score,
// NormalizeScore, Reserve, Permit, PreBind, Bind, PostBind); each returns a Status (undefined is
// success); a CycleState carries what a plugin computed for one pod's cycle; a Handle gives plugins
// the cluster as the scheduler sees it.
import type { Naming } from '../api/naming.js';
import type { NodeInfo, PodInfo } from './node-info.js';
import type { CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, SelectingObject, StorageClass } from './types.js';

export type Code = 'Error' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Wait' | 'Skip';

/** a plugin's answer other than success; success is `undefined` */
export interface Status {
  code: Code;
  /** what stops the pod, worded as the reference words it (counted per node in the failure message) */
  reasons: string[];
  /** the plugin that answered (filled in by the framework) */
  plugin?: string;
}

export const unschedulable = (...reasons: string[]): Status => ({ code: 'Unschedulable', reasons });
/** unschedulable, and removing pods (preemption) would not change that */
export const unresolvable = (...reasons: string[]): Status => ({ code: 'UnschedulableAndUnresolvable', reasons });
export const errorStatus = (message: string): Status => ({ code: 'Error', reasons: [message] });
export const skip: Status = Object.freeze({ code: 'Skip', reasons: [] }) as Status;

export const isUnschedulable = (s: Status | undefined) => !!s && (s.code === 'Unschedulable' || s.code === 'UnschedulableAndUnresolvable');
export const statusMessage = (s: Status | undefined) => s?.reasons.join(', ') ?? '';

/** what a plugin stored in one pod's cycle; values with `clone` are copied for preemption's what-ifs */
export interface CycleState {
  data: Map<string, unknown>;
  /** plugins whose PreFilter answered Skip: their Filter is not run */
  skipFilter: Set<string>;
  /** plugins whose PreScore answered Skip: their Score is not run */
  skipScore: Set<string>;
  /** the Filter plugins not skipped, worked out once per cycle */
  activeFilters?: readonly Plugin[];
}

export const newCycleState = (): CycleState => ({ data: new Map(), skipFilter: new Set(), skipScore: new Set() });

export function cloneCycleState(s: CycleState): CycleState {
  const data = new Map<string, unknown>();
  for (const [k, v] of s.data) data.set(k, typeof (v as { clone?: unknown })?.clone === 'function' ? (v as { clone(): unknown }).clone() : v);
  return { data, skipFilter: new Set(s.skipFilter), skipScore: new Set(s.skipScore), activeFilters: s.activeFilters };
}

/** the state a plugin stored, or an error naming the plugin when its PreFilter or PreScore did not run */
export function readState<T>(state: CycleState, key: string): T {
  const v = state.data.get(key);
  if (v === undefined) throw new Error(`reading "${key}" from the cycle state: not found`);
  return v as T;
}

/** kinds of change in the cluster that may make an unschedulable pod schedulable */
export type ClusterEvent =
  | 'Node/Add' | 'Node/Delete' | 'Node/UpdateNodeLabel' | 'Node/UpdateNodeTaint' | 'Node/UpdateNodeAllocatable' | 'Node/UpdateNodeCondition'
  | 'Pod/Add' | 'Pod/Update' | 'Pod/Delete'
  | 'Namespace/Add' | 'Namespace/Update'
  | 'Service/Add' | 'Service/Update' | 'Service/Delete'
  | 'PersistentVolumeClaim/Add' | 'PersistentVolumeClaim/Update' | 'PersistentVolume/Add' | 'PersistentVolume/Update'
  | 'StorageClass/Add' | 'StorageClass/Update'
  | 'CSINode/Add' | 'CSINode/Update';

export const nodeUpdates: readonly ClusterEvent[] = ['Node/UpdateNodeLabel', 'Node/UpdateNodeTaint', 'Node/UpdateNodeAllocatable', 'Node/UpdateNodeCondition'];
export const allPodEvents: readonly ClusterEvent[] = ['Pod/Add', 'Pod/Update', 'Pod/Delete'];

/** a pod waiting in the scheduling queue */
export interface QueuedPodInfo {
  info: PodInfo;
  /** when it was last added to the queue (ms) */
  timestamp: number;
  /** when it was first added (ms) */
  initialAttemptTimestamp: number;
  attempts: number;
  /** plugins that rejected it in its last attempt: only events they care about move it back */
  unschedulablePlugins: Set<string>;
  /** held back by a PreEnqueue plugin (scheduling gates) */
  gated: boolean;
}

export interface NodeScore { name: string; score: number }
export const maxNodeScore = 100;

export interface PreFilterResult {
  /** only these nodes can fit; the others are not evaluated */
  nodeNames?: ReadonlySet<string>;
}

export interface PostFilterResult {
  /** the node the pod is nominated to after preemption; '' clears an earlier nomination */
  nominatedNodeName?: string;
}

/** the scheduler's pods waiting in each part of its queue */
export interface PendingPods { active: number; backoff: number; unschedulable: number; gated: number }

/** what the scheduler tells its metrics (the reference's scheduler_* families) */
export interface SchedulerMetrics {
  /** an attempt to schedule a pod ended: bound, found unschedulable, or failed; seconds from its cycle's start */
  attempt(profile: string, result: 'scheduled' | 'unschedulable' | 'error', seconds: number): void;
  /** where pending pods are read from when scraped (the scheduler that runs now) */
  pendingPods(read: () => PendingPods): void;
}

export interface EventRecorder {
  /** an event about `regarding` (in the events API: type, reason, action, note) */
  event(regarding: Pod, related: Pod | undefined, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void;
}

/** the API writes plugins make */
export interface SchedulerWrites {
  bind(pod: Pod, nodeName: string): Promise<void>;
  deletePod(pod: Pod): Promise<void>;
  /** a strategic merge patch of the pod's status */
  patchPodStatus(pod: Pod, patch: object): Promise<void>;
  /** a change of a volume or a claim, written with the resourceVersion read and made again on a fresh read after a
   *  conflict; `change` returns undefined when nothing is to be written and throws when the change no longer holds */
  modifyPersistentVolume(name: string, change: (pv: PersistentVolume) => PersistentVolume | undefined): Promise<void>;
  modifyClaim(namespace: string, name: string, change: (claim: PersistentVolumeClaim) => PersistentVolumeClaim | undefined): Promise<void>;
}

/** the volumes, claims and classes as the scheduler's informers see them */
export interface VolumeListers {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  persistentVolume(name: string): PersistentVolume | undefined;
  persistentVolumes(): PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  /** the node's CSI drivers (named as the node) */
  csiNode(name: string): CSINode | undefined;
}

/** what plugins may read and do beyond their arguments */
export interface Handle {
  names: Naming;
  schedulerName: string;
  /** the nodes of this cycle, in a stable order */
  nodes(): NodeInfo[];
  node(name: string): NodeInfo | undefined;
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  /** Services, ReplicationControllers, ReplicaSets and StatefulSets of a namespace (their selectors spread pods) */
  selectingObjects(namespace: string): SelectingObject[];
  disruptionBudgets(namespace: string): PodDisruptionBudget[];
  volumes: VolumeListers;
  /** pods nominated to the node by earlier preemptions */
  nominatedPods(nodeName: string): readonly PodInfo[];
  writes: SchedulerWrites;
  recorder: EventRecorder;
  /** the Filter plugins of the profile, with the nominated pods of the node taken into account */
  runFilters(state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined;
  runPreFilterAddPod(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): Status | undefined;
  runPreFilterRemovePod(state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo): Status | undefined;
}

export interface Plugin {
  readonly name: string;
  /** cluster events after which a pod this plugin rejected may fit */
  readonly events?: readonly ClusterEvent[];
  /** QueueSort: whether a goes before b */
  less?(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
  preEnqueue?(pod: Pod): Status | undefined;
  preFilter?(state: CycleState, pod: PodInfo, nodes: NodeInfo[]): PreFilterResult | Status | undefined;
  /** PreFilter extensions: keep the stored state right when a pod is added to or removed from a node */
  addPod?(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): Status | undefined;
  removePod?(state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo): Status | undefined;
  filter?(state: CycleState, pod: PodInfo, node: NodeInfo): Status | undefined;
  postFilter?(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): Promise<{ result?: PostFilterResult; status?: Status }>;
  preScore?(state: CycleState, pod: PodInfo, nodes: NodeInfo[]): Status | undefined;
  score?(state: CycleState, pod: PodInfo, node: NodeInfo): number;
  normalizeScore?(state: CycleState, pod: PodInfo, scores: NodeScore[]): void;
  reserve?(state: CycleState, pod: PodInfo, nodeName: string): Status | undefined;
  unreserve?(state: CycleState, pod: PodInfo, nodeName: string): void;
  permit?(state: CycleState, pod: PodInfo, nodeName: string): Status | undefined;
  preBind?(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
  /** Skip hands the pod to the next binder */
  bind?(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status | undefined>;
  postBind?(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/** makes a plugin from its arguments (the profile's pluginConfig); bad arguments throw */
export type PluginFactory = (args: Record<string, unknown>, handle: Handle) => Plugin;

/** what a plugin file exports: its name and how to make it */
export interface PluginSpec { name: string; create: PluginFactory }

/** scales scores to 0..100 by the highest one; reversed, the lowest gets 100 */
export function defaultNormalizeScore(scores: NodeScore[], reverse: boolean) {
  let max = 0;
  for (const s of scores) if (s.score > max) max = s.score;
  if (max === 0) {
    if (reverse) for (const s of scores) s.score = maxNodeScore;
    return;
  }
  for (const s of scores) {
    const scaled = Math.trunc((maxNodeScore * s.score) / max);
    s.score = reverse ? maxNodeScore - scaled : scaled;
  }
}

/** the reference's system default priority for pods without one */
export const podPriority = (pod: Pod) => pod.spec.priority ?? 0;

export const nodeName = (n: Node) => n.metadata.name ?? '';
