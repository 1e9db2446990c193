// apps/v1: the workload controllers.
import { conditionFields, kind, type DescriptionTable } from './common.js';

const selector = 'Label selector for the pods this controller owns. It must match the labels of the pod template and cannot be changed after creation.';
const template = 'The pod template: every pod this controller creates is made from it.';
const minReadySeconds = 'How many seconds a new pod must stay ready, with no container crashing, before it counts as available. Defaults to 0: available as soon as it is ready.';
const revisionHistoryLimit = 'How many old revisions to keep so that a rollback is possible. Defaults to 10.';
const observedGeneration = 'The most recent generation of the object the controller has acted on; when it equals metadata.generation, the status reflects the current spec.';
const collisionCount = 'How many times a name collision occurred when the controller named a new revision; it is added to the hash so the next name differs.';
const podCondition = (of: string) => ({ '': `A condition of a ${of}, reported by its controller.`, ...conditionFields(of, '') });

export default {
  Deployment: kind('A Deployment keeps a number of identical pods running from one pod template and rolls out changes to the template declaratively, through ReplicaSets it owns.', {
    spec: 'The desired state: how many pods, from which template, and how changes roll out.',
    status: 'The most recently observed state of the rollout, written by the deployment controller.',
  }),
  DeploymentSpec: {
    '': 'The desired state of a Deployment.',
    replicas: 'How many pods should run. Defaults to 1; a HorizontalPodAutoscaler may manage this field instead.',
    selector,
    template: `${template} Its restartPolicy must be Always.`,
    strategy: 'How pods of an old template are replaced by pods of a new one.',
    minReadySeconds,
    revisionHistoryLimit,
    paused: 'While true, changes to the template start no rollout; the controller keeps the current pods as they are.',
    progressDeadlineSeconds: 'Seconds a rollout may go without making progress before the Progressing condition reports ProgressDeadlineExceeded. Defaults to 600; must be greater than minReadySeconds.',
  },
  DeploymentStrategy: {
    '': 'How a Deployment replaces old pods with new ones.',
    type: 'The kind of replacement: "RollingUpdate" (the default) replaces pods gradually; "Recreate" deletes every old pod before creating new ones.',
    rollingUpdate: 'Limits for a rolling update; only used when type is RollingUpdate.',
  },
  RollingUpdateDeployment: {
    '': 'How fast a rolling update of a Deployment may go.',
    maxUnavailable: 'How many of the desired pods may be unavailable during the update, as a number or a percentage of replicas (rounded down). Defaults to 25%; cannot be 0 when maxSurge is 0.',
    maxSurge: 'How many pods may be created above the desired count during the update, as a number or a percentage of replicas (rounded up). Defaults to 25%; cannot be 0 when maxUnavailable is 0.',
  },
  DeploymentStatus: {
    '': 'The observed state of a Deployment.',
    observedGeneration,
    replicas: 'How many pods the Deployment\'s ReplicaSets target in total, old and new template together.',
    updatedReplicas: 'How many pods run the current template.',
    readyReplicas: 'How many pods are ready.',
    availableReplicas: 'How many pods have been ready for at least minReadySeconds.',
    unavailableReplicas: 'How many more pods are needed before all desired pods are available.',
    conditions: 'The latest observations of the rollout, such as Available and Progressing.',
    collisionCount,
  },
  DeploymentCondition: {
    '': 'A condition of a Deployment, such as Available, Progressing or ReplicaFailure.',
    ...conditionFields('Deployment', '"Available" or "Progressing"'),
    lastUpdateTime: 'When the controller last updated this condition, even if its status did not change.',
  },
  ReplicaSet: kind('A ReplicaSet keeps a given number of pods matching its selector running, creating pods from its template and deleting extra ones. Deployments manage ReplicaSets; they are rarely used directly.', {
    spec: 'The desired state: how many pods, selected how, made from which template.',
    status: 'The most recently observed state, written by the replica set controller.',
  }),
  ReplicaSetSpec: {
    '': 'The desired state of a ReplicaSet.',
    replicas: 'How many pods should run. Defaults to 1.',
    minReadySeconds,
    selector,
    template: `${template} Pods matching the selector count towards replicas whether or not this template made them.`,
  },
  ReplicaSetStatus: {
    '': 'The observed state of a ReplicaSet.',
    replicas: 'How many pods currently match the selector.',
    fullyLabeledReplicas: 'How many pods carry all the labels of the pod template.',
    readyReplicas: 'How many pods are ready.',
    availableReplicas: 'How many pods have been ready for at least minReadySeconds.',
    observedGeneration,
    conditions: 'The latest observations of the ReplicaSet, such as a failure to create pods.',
  },
  ReplicaSetCondition: podCondition('ReplicaSet'),
  StatefulSet: kind('A StatefulSet runs pods with stable identities: each pod has a fixed ordinal name, its own persistent volume claims and a stable network name through a headless Service, and pods are created, updated and removed in order.', {
    spec: 'The desired state: how many pods, from which template, with which volume claims.',
    status: 'The most recently observed state, written by the stateful set controller.',
  }),
  StatefulSetSpec: {
    '': 'The desired state of a StatefulSet.',
    replicas: 'How many pods should run. Defaults to 1.',
    selector,
    template: `${template} Each pod is named <statefulset name>-<ordinal>.`,
    volumeClaimTemplates: 'Claims each pod gets a persistent volume claim of its own from, named <template name>-<pod name>; a container mounts one through a volume of the same name.',
    serviceName: 'The headless Service that gives the pods their network identities (<pod>.<service>.<namespace>); it must exist before the pods can be reached.',
    podManagementPolicy: 'How pods are created and removed when scaling: "OrderedReady" (the default) one at a time in ordinal order, each waiting for the one before to be ready; "Parallel" all at once.',
    updateStrategy: 'How pods are replaced when the template changes.',
    revisionHistoryLimit,
    minReadySeconds,
    persistentVolumeClaimRetentionPolicy: 'What happens to the claims made from volumeClaimTemplates when the StatefulSet is deleted or scaled down. By default they are kept.',
    ordinals: 'Where the numbering of pod ordinals starts.',
  },
  StatefulSetUpdateStrategy: {
    '': 'How a StatefulSet replaces pods when its template changes.',
    type: 'The kind of update: "RollingUpdate" (the default) replaces pods in reverse ordinal order; "OnDelete" only replaces a pod after someone deletes it.',
    rollingUpdate: 'Parameters of a rolling update; only used when type is RollingUpdate.',
  },
  RollingUpdateStatefulSetStrategy: {
    '': 'Parameters of a rolling update of a StatefulSet.',
    partition: 'Only pods with an ordinal at or above this number are updated; the others keep the old template. Defaults to 0, which updates all of them.',
    maxUnavailable: 'How many pods may be unavailable during the update, as a number or a percentage of replicas. Defaults to 1. Only honoured when the MaxUnavailableStatefulSet feature is on.',
  },
  StatefulSetPersistentVolumeClaimRetentionPolicy: {
    '': 'Whether the claims a StatefulSet made from its volume claim templates are kept or deleted.',
    whenDeleted: 'What happens to the claims when the StatefulSet is deleted: "Retain" (the default) keeps them, "Delete" deletes them.',
    whenScaled: 'What happens to the claims of pods removed by scaling down: "Retain" (the default) keeps them, "Delete" deletes them.',
  },
  StatefulSetOrdinals: {
    '': 'The numbering of a StatefulSet\'s pods.',
    start: 'The ordinal of the first pod; pods are numbered from start to start + replicas - 1. Defaults to 0.',
  },
  StatefulSetStatus: {
    '': 'The observed state of a StatefulSet.',
    observedGeneration,
    replicas: 'How many pods the controller has created.',
    readyReplicas: 'How many pods are ready.',
    currentReplicas: 'How many pods run the revision named by currentRevision.',
    updatedReplicas: 'How many pods run the revision named by updateRevision.',
    currentRevision: 'The revision (a ControllerRevision name) of the pods in the ordinals before the update partition.',
    updateRevision: 'The revision (a ControllerRevision name) new and updated pods are made from.',
    collisionCount,
    conditions: 'The latest observations of the StatefulSet.',
    availableReplicas: 'How many pods have been ready for at least minReadySeconds.',
  },
  StatefulSetCondition: podCondition('StatefulSet'),
  DaemonSet: kind('A DaemonSet runs one copy of a pod on every node that matches its template\'s node selection, adding pods as nodes join and removing them as nodes leave.', {
    spec: 'The desired state: which pod to run on each node and how to update it.',
    status: 'The most recently observed state, written by the daemon set controller.',
  }),
  DaemonSetSpec: {
    '': 'The desired state of a DaemonSet.',
    selector,
    template: `${template} It runs on every node its node selector, affinity and tolerations allow.`,
    updateStrategy: 'How pods are replaced when the template changes.',
    minReadySeconds,
    revisionHistoryLimit,
  },
  DaemonSetUpdateStrategy: {
    '': 'How a DaemonSet replaces pods when its template changes.',
    type: 'The kind of update: "RollingUpdate" (the default) replaces pods node by node; "OnDelete" only replaces a pod after someone deletes it.',
    rollingUpdate: 'Parameters of a rolling update; only used when type is RollingUpdate.',
  },
  RollingUpdateDaemonSet: {
    '': 'How fast a rolling update of a DaemonSet may go.',
    maxUnavailable: 'How many nodes may be without an available pod during the update, as a number or a percentage of the nodes that should run one. Defaults to 1; cannot be 0 when maxSurge is 0.',
    maxSurge: 'How many nodes may run an old and a new pod at once during the update, as a number or a percentage. Defaults to 0; cannot be 0 when maxUnavailable is 0.',
  },
  DaemonSetStatus: {
    '': 'The observed state of a DaemonSet.',
    currentNumberScheduled: 'How many nodes run at least one pod of the daemon set and should.',
    numberMisscheduled: 'How many nodes run a pod of the daemon set but should not.',
    desiredNumberScheduled: 'How many nodes should run a pod of the daemon set.',
    numberReady: 'How many nodes run a pod of the daemon set that is ready.',
    observedGeneration,
    updatedNumberScheduled: 'How many nodes run a pod of the current template.',
    numberAvailable: 'How many nodes run a pod of the daemon set that has been ready for at least minReadySeconds.',
    numberUnavailable: 'How many nodes should run an available pod of the daemon set but do not.',
    collisionCount,
    conditions: 'The latest observations of the DaemonSet.',
  },
  DaemonSetCondition: podCondition('DaemonSet'),
  ControllerRevision: kind('A ControllerRevision records one version of the state a controller rolls out, such as a StatefulSet\'s or DaemonSet\'s pod template, so it can roll back to it. Its data never changes once written.', {
    data: 'The recorded state, as the controller serialized it.',
    revision: 'The number of this revision; each new revision of the same owner gets a higher one.',
  }),
} satisfies DescriptionTable;
