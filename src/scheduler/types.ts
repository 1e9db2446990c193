// The API kinds the scheduler reads and writes, from the generated types. Objects the server returns
// always carry their metadata (and pods their spec), so the scheduler's Pod and Node say so.
import type { Stored } from '../api/meta.js';
import type * as core from '../api/types/core-v1.js';
import type { LabelSelector, ObjectMeta, Quantity } from '../api/types/meta-v1.js';
import type { PodDisruptionBudget as Budget } from '../api/types/policy-v1.js';
import type { CSINode as Drivers } from '../api/types/storage-v1.js';

export type {
  Affinity, Container, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm, PodCondition,
  PreferredSchedulingTerm, Taint, Toleration, TopologySpreadConstraint, WeightedPodAffinityTerm,
} from '../api/types/core-v1.js';
export type { LabelSelector, ObjectMeta, Quantity } from '../api/types/meta-v1.js';

export type ResourceList = Record<string, Quantity>;

export type Pod = Stored<core.Pod> & { spec: core.PodSpec };
export type Node = Stored<core.Node>;
export type Namespace = Stored<core.Namespace>;
export type PodDisruptionBudget = Stored<Budget>;
export type CSINode = Stored<Drivers>;
export type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../api/volumes.js';

/**
 * What selects pods for default spreading: a Service or ReplicationController (a map of labels) or a
 * ReplicaSet or StatefulSet (a label selector).
 */
export interface SelectingObject {
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelector | Record<string, string> | null };
}
