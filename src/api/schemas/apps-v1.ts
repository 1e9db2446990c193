// apps/v1 definitions.
import { apiRef, arr, bool, int32, int64, intOrString, mergeList, obj, oneOf, rawExtension, str, time } from './build.js';
import { kind, labelSelector } from './meta.js';
import { persistentVolumeClaim, podTemplateSpec } from './core-v1.js';

const ref = (k: string) => apiRef('apps.v1', k);

/** the condition shape shared by the workload kinds (DeploymentCondition adds lastUpdateTime) */
const workloadConditions = (k: string, extra = {}) => mergeList(obj(ref(k), {
  type: str(), status: str(), ...extra, lastTransitionTime: time, reason: str(), message: str(),
}, { required: ['type', 'status'] }), 'type');

export const deployment = kind(ref('Deployment'), {
  spec: obj(ref('DeploymentSpec'), {
    replicas: int32(),
    selector: labelSelector,
    template: podTemplateSpec,
    strategy: obj(ref('DeploymentStrategy'), {
      type: oneOf('Recreate', 'RollingUpdate'),
      rollingUpdate: obj(ref('RollingUpdateDeployment'), { maxUnavailable: intOrString, maxSurge: intOrString }),
    }),
    minReadySeconds: int32(),
    revisionHistoryLimit: int32(),
    paused: bool(),
    progressDeadlineSeconds: int32(),
  }, { required: ['selector', 'template'] }),
  status: obj(ref('DeploymentStatus'), {
    observedGeneration: int64(),
    replicas: int32(),
    updatedReplicas: int32(),
    readyReplicas: int32(),
    availableReplicas: int32(),
    unavailableReplicas: int32(),
    conditions: workloadConditions('DeploymentCondition', { lastUpdateTime: time }),
    collisionCount: int32(),
  }),
});

export const replicaSet = kind(ref('ReplicaSet'), {
  spec: obj(ref('ReplicaSetSpec'), {
    replicas: int32(),
    minReadySeconds: int32(),
    selector: labelSelector,
    template: podTemplateSpec,
  }, { required: ['selector'] }),
  status: obj(ref('ReplicaSetStatus'), {
    replicas: int32(),
    fullyLabeledReplicas: int32(),
    readyReplicas: int32(),
    availableReplicas: int32(),
    observedGeneration: int64(),
    conditions: workloadConditions('ReplicaSetCondition'),
  }, { required: ['replicas'] }),
});

export const statefulSet = kind(ref('StatefulSet'), {
  spec: obj(ref('StatefulSetSpec'), {
    replicas: int32(),
    selector: labelSelector,
    template: podTemplateSpec,
    volumeClaimTemplates: arr(persistentVolumeClaim),
    serviceName: str(),
    podManagementPolicy: oneOf('OrderedReady', 'Parallel'),
    updateStrategy: obj(ref('StatefulSetUpdateStrategy'), {
      type: oneOf('OnDelete', 'RollingUpdate'),
      rollingUpdate: obj(ref('RollingUpdateStatefulSetStrategy'), { partition: int32(), maxUnavailable: intOrString }),
    }),
    revisionHistoryLimit: int32(),
    minReadySeconds: int32(),
    persistentVolumeClaimRetentionPolicy: obj(ref('StatefulSetPersistentVolumeClaimRetentionPolicy'), {
      whenDeleted: str(), whenScaled: str(),
    }),
    ordinals: obj(ref('StatefulSetOrdinals'), { start: int32() }),
  }, { required: ['selector', 'template', 'serviceName'] }),
  status: obj(ref('StatefulSetStatus'), {
    observedGeneration: int64(),
    replicas: int32(),
    readyReplicas: int32(),
    currentReplicas: int32(),
    updatedReplicas: int32(),
    currentRevision: str(),
    updateRevision: str(),
    collisionCount: int32(),
    conditions: workloadConditions('StatefulSetCondition'),
    availableReplicas: int32(),
  }, { required: ['replicas'] }),
});

export const daemonSet = kind(ref('DaemonSet'), {
  spec: obj(ref('DaemonSetSpec'), {
    selector: labelSelector,
    template: podTemplateSpec,
    updateStrategy: obj(ref('DaemonSetUpdateStrategy'), {
      type: oneOf('OnDelete', 'RollingUpdate'),
      rollingUpdate: obj(ref('RollingUpdateDaemonSet'), { maxUnavailable: intOrString, maxSurge: intOrString }),
    }),
    minReadySeconds: int32(),
    revisionHistoryLimit: int32(),
  }, { required: ['selector', 'template'] }),
  status: obj(ref('DaemonSetStatus'), {
    currentNumberScheduled: int32(),
    numberMisscheduled: int32(),
    desiredNumberScheduled: int32(),
    numberReady: int32(),
    observedGeneration: int64(),
    updatedNumberScheduled: int32(),
    numberAvailable: int32(),
    numberUnavailable: int32(),
    collisionCount: int32(),
    conditions: workloadConditions('DaemonSetCondition'),
  }, { required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'] }),
});

export const controllerRevision = kind(ref('ControllerRevision'), {
  data: rawExtension,
  revision: int64(),
}, { required: ['revision'] });
