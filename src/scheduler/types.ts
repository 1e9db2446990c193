// The fields of the API kinds the scheduler reads and writes. Local until the generated types of
// every built-in kind land in `api/types`; the names and shapes are the reference's.
import type { ObjectMeta } from '../api/meta.js';
import type { LabelSelectorObject } from '../api/selectors.js';

export type { ObjectMeta, LabelSelectorObject };

export type Quantity = string | number;
export type ResourceList = Record<string, Quantity>;

export interface ContainerPort { containerPort: number; hostPort?: number; hostIP?: string; protocol?: string; name?: string }

export interface Container {
  name: string;
  image?: string;
  ports?: ContainerPort[];
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export interface Toleration { key?: string; operator?: 'Exists' | 'Equal'; value?: string; effect?: TaintEffect | ''; tolerationSeconds?: number }
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
export interface Taint { key: string; value?: string; effect: TaintEffect; timeAdded?: string }

export interface NodeSelectorRequirement { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt'; values?: string[] }
export interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }
export interface NodeSelector { nodeSelectorTerms: NodeSelectorTerm[] }
export interface PreferredSchedulingTerm { weight: number; preference: NodeSelectorTerm }

export interface PodAffinityTerm {
  labelSelector?: LabelSelectorObject | null;
  namespaces?: string[];
  namespaceSelector?: LabelSelectorObject | null;
  topologyKey: string;
}
export interface WeightedPodAffinityTerm { weight: number; podAffinityTerm: PodAffinityTerm }
export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}
export interface Affinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
    preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
  };
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAffinity;
}

export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelectorObject | null;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  matchLabelKeys?: string[];
}

export interface PodCondition { type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string; lastProbeTime?: string | null; lastTransitionTime?: string | null }

export interface PodSpec {
  nodeName?: string;
  schedulerName?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  containers: Container[];
  initContainers?: Container[];
  overhead?: ResourceList;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  topologySpreadConstraints?: TopologySpreadConstraint[];
  schedulingGates?: { name: string }[];
  hostNetwork?: boolean;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  nominatedNodeName?: string;
  startTime?: string;
}

export interface Pod { apiVersion?: string; kind?: string; metadata: ObjectMeta; spec: PodSpec; status?: PodStatus }

export interface NodeCondition { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string; lastTransitionTime?: string }
export interface Node {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[]; podCIDR?: string };
  status?: { capacity?: ResourceList; allocatable?: ResourceList; conditions?: NodeCondition[]; images?: { names?: string[]; sizeBytes?: number }[] };
}

export interface Namespace { metadata: ObjectMeta }

/** the kinds whose selectors spread a controller's pods: Services, ReplicaSets, StatefulSets, ReplicationControllers */
export interface SelectingObject {
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelectorObject | Record<string, string> | null };
}

export interface PodDisruptionBudget {
  metadata: ObjectMeta;
  spec?: { selector?: LabelSelectorObject | null };
  status?: { disruptionsAllowed?: number; disruptedPods?: Record<string, string> };
}
