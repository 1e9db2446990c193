// The objects the controllers read and write, with the fields they use, and typed references to their
// collections. (Hand-written until the generated types of every kind are in src/api/types.)

import type { ObjectMeta, OwnerReference } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { resourceRef, type ResourceRef } from '../client/rest-client.js';

export type { ObjectMeta, OwnerReference };

export interface Obj { apiVersion?: string; kind?: string; metadata: ObjectMeta }

export interface LabelSelectorRequirement { key: string; operator: string; values?: string[] }
export interface LabelSelector { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] }

export interface Condition {
  type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string;
  lastTransitionTime?: string; lastUpdateTime?: string; lastProbeTime?: string | null;
}

export interface Toleration { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }
export interface Taint { key: string; value?: string; effect: string; timeAdded?: string }

export interface Container { name: string; image?: string; [field: string]: unknown }
export interface Volume { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean }; ephemeral?: unknown; [field: string]: unknown }

export interface PodSpec {
  nodeName?: string; hostname?: string; subdomain?: string; restartPolicy?: string; schedulerName?: string;
  containers: Container[]; initContainers?: Container[]; volumes?: Volume[]; tolerations?: Toleration[];
  nodeSelector?: Record<string, string>; affinity?: any; activeDeadlineSeconds?: number;
  [field: string]: unknown;
}
export interface ContainerStatus {
  name: string; ready?: boolean; restartCount?: number;
  state?: { running?: { startedAt?: string }; terminated?: { exitCode: number; reason?: string; finishedAt?: string }; waiting?: { reason?: string } };
}
export interface PodStatus {
  phase?: string; conditions?: Condition[]; reason?: string; message?: string; startTime?: string;
  containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[];
}
export interface Pod extends Obj { spec: PodSpec; status?: PodStatus }
export interface PodTemplateSpec { metadata?: ObjectMeta; spec: PodSpec }

export interface Node extends Obj {
  spec?: { unschedulable?: boolean; taints?: Taint[]; podCIDR?: string };
  status?: { conditions?: Condition[]; allocatable?: Record<string, string>; capacity?: Record<string, string> };
}

export type IntOrString = number | string;

export interface ReplicaSetSpec { replicas?: number; minReadySeconds?: number; selector: LabelSelector; template: PodTemplateSpec }
export interface ReplicaSetStatus {
  replicas: number; fullyLabeledReplicas?: number; readyReplicas?: number; availableReplicas?: number;
  observedGeneration?: number; conditions?: Condition[];
}
export interface ReplicaSet extends Obj { spec: ReplicaSetSpec; status?: ReplicaSetStatus }

export interface ReplicationController extends Obj {
  spec: { replicas?: number; minReadySeconds?: number; selector?: Record<string, string>; template?: PodTemplateSpec };
  status?: ReplicaSetStatus;
}

export interface DeploymentSpec {
  replicas?: number; selector: LabelSelector; template: PodTemplateSpec;
  strategy?: { type?: 'Recreate' | 'RollingUpdate'; rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString } };
  minReadySeconds?: number; revisionHistoryLimit?: number; paused?: boolean; progressDeadlineSeconds?: number;
}
export interface DeploymentStatus {
  observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number;
  availableReplicas?: number; unavailableReplicas?: number; conditions?: Condition[]; collisionCount?: number;
}
export interface Deployment extends Obj { spec: DeploymentSpec; status?: DeploymentStatus }

export interface PersistentVolumeClaim extends Obj {
  spec?: { accessModes?: string[]; resources?: unknown; storageClassName?: string; volumeName?: string; [field: string]: unknown };
  status?: { phase?: string };
}
export interface PersistentVolume extends Obj { spec?: { claimRef?: { name?: string; namespace?: string; uid?: string } }; status?: { phase?: string } }

export interface StatefulSetSpec {
  replicas?: number; selector: LabelSelector; template: PodTemplateSpec; serviceName?: string;
  volumeClaimTemplates?: PersistentVolumeClaim[]; podManagementPolicy?: 'OrderedReady' | 'Parallel';
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number; maxUnavailable?: IntOrString } };
  revisionHistoryLimit?: number; minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: 'Retain' | 'Delete'; whenScaled?: 'Retain' | 'Delete' };
  ordinals?: { start?: number };
}
export interface StatefulSetStatus {
  observedGeneration?: number; replicas: number; readyReplicas?: number; currentReplicas?: number; updatedReplicas?: number;
  currentRevision?: string; updateRevision?: string; collisionCount?: number; conditions?: Condition[]; availableReplicas?: number;
}
export interface StatefulSet extends Obj { spec: StatefulSetSpec; status?: StatefulSetStatus }

export interface DaemonSetSpec {
  selector: LabelSelector; template: PodTemplateSpec; minReadySeconds?: number; revisionHistoryLimit?: number;
  updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { maxUnavailable?: IntOrString; maxSurge?: IntOrString } };
}
export interface DaemonSetStatus {
  currentNumberScheduled: number; numberMisscheduled: number; desiredNumberScheduled: number; numberReady: number;
  observedGeneration?: number; updatedNumberScheduled?: number; numberAvailable?: number; numberUnavailable?: number;
  collisionCount?: number; conditions?: Condition[];
}
export interface DaemonSet extends Obj { spec: DaemonSetSpec; status?: DaemonSetStatus }

export interface ControllerRevision extends Obj { data?: unknown; revision: number }

export interface PodFailurePolicyRule {
  action: 'FailJob' | 'Ignore' | 'Count';
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: Array<{ type: string; status: string }>;
}
export interface JobSpec {
  parallelism?: number; completions?: number; activeDeadlineSeconds?: number; backoffLimit?: number;
  selector?: LabelSelector; manualSelector?: boolean; template: PodTemplateSpec; ttlSecondsAfterFinished?: number;
  completionMode?: 'NonIndexed' | 'Indexed'; suspend?: boolean; podFailurePolicy?: { rules: PodFailurePolicyRule[] };
}
export interface JobStatus {
  conditions?: Condition[]; startTime?: string; completionTime?: string; active?: number; succeeded?: number; failed?: number;
  completedIndexes?: string; uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] }; ready?: number;
}
export interface Job extends Obj { spec: JobSpec; status?: JobStatus }

export interface CronJobSpec {
  schedule: string; timeZone?: string; startingDeadlineSeconds?: number; concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean; jobTemplate: { metadata?: ObjectMeta; spec: JobSpec };
  successfulJobsHistoryLimit?: number; failedJobsHistoryLimit?: number;
}
export interface CronJobStatus {
  active?: Array<{ apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string }>;
  lastScheduleTime?: string; lastSuccessfulTime?: string;
}
export interface CronJob extends Obj { spec: CronJobSpec; status?: CronJobStatus }

export interface PodDisruptionBudget extends Obj {
  spec?: { minAvailable?: IntOrString; maxUnavailable?: IntOrString; selector?: LabelSelector; unhealthyPodEvictionPolicy?: string };
  status?: {
    observedGeneration?: number; disruptedPods?: Record<string, string>; disruptionsAllowed: number;
    currentHealthy: number; desiredHealthy: number; expectedPods: number; conditions?: Condition[];
  };
}

export interface Namespace extends Obj { spec?: { finalizers?: string[] }; status?: { phase?: string; conditions?: Condition[] } }
export interface ServiceAccount extends Obj { secrets?: unknown[] }

/** Typed references to the collections the controllers use; the groups named by the API domain come from `names`. */
export function refs(names: Naming) {
  return {
    pods: resourceRef<Pod>('', 'v1', 'pods', 'Pod'),
    nodes: resourceRef<Node>('', 'v1', 'nodes', 'Node', false),
    namespaces: resourceRef<Namespace>('', 'v1', 'namespaces', 'Namespace', false),
    serviceAccounts: resourceRef<ServiceAccount>('', 'v1', 'serviceaccounts', 'ServiceAccount'),
    persistentVolumeClaims: resourceRef<PersistentVolumeClaim>('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
    persistentVolumes: resourceRef<PersistentVolume>('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
    replicationControllers: resourceRef<ReplicationController>('', 'v1', 'replicationcontrollers', 'ReplicationController'),
    deployments: resourceRef<Deployment>('apps', 'v1', 'deployments', 'Deployment'),
    replicaSets: resourceRef<ReplicaSet>('apps', 'v1', 'replicasets', 'ReplicaSet'),
    statefulSets: resourceRef<StatefulSet>('apps', 'v1', 'statefulsets', 'StatefulSet'),
    daemonSets: resourceRef<DaemonSet>('apps', 'v1', 'daemonsets', 'DaemonSet'),
    controllerRevisions: resourceRef<ControllerRevision>('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
    jobs: resourceRef<Job>('batch', 'v1', 'jobs', 'Job'),
    cronJobs: resourceRef<CronJob>('batch', 'v1', 'cronjobs', 'CronJob'),
    podDisruptionBudgets: resourceRef<PodDisruptionBudget>('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
    leases: resourceRef<import('../client/leader-election.js').Lease>(names.group('coordination'), 'v1', 'leases', 'Lease'),
  };
}
export type Refs = ReturnType<typeof refs>;

export type { ResourceRef };
