// batch/v1 definitions.
import { apiRef, atomicList, bool, int32, int64, mergeList, obj, oneOf, setList, str, time } from './build.js';
import { kind, labelSelector, objectMeta } from './meta.js';
import { objectReference, podTemplateSpec } from './core-v1.js';

const ref = (k: string) => apiRef('batch.v1', k);

export const jobSpec = obj(ref('JobSpec'), {
  parallelism: int32(),
  completions: int32(),
  activeDeadlineSeconds: int64(),
  podFailurePolicy: obj(ref('PodFailurePolicy'), {
    rules: atomicList(obj(ref('PodFailurePolicyRule'), {
      action: oneOf('Count', 'FailJob', 'Ignore'),
      onExitCodes: obj(ref('PodFailurePolicyOnExitCodesRequirement'), {
        containerName: str(),
        operator: oneOf('In', 'NotIn'),
        values: setList(int32()),
      }, { required: ['operator', 'values'] }),
      onPodConditions: atomicList(obj(ref('PodFailurePolicyOnPodConditionsPattern'), {
        type: str(), status: str(),
      }, { required: ['type', 'status'] })),
    }, { required: ['action', 'onPodConditions'] })),
  }, { required: ['rules'] }),
  backoffLimit: int32(),
  selector: labelSelector,
  manualSelector: bool(),
  template: podTemplateSpec,
  ttlSecondsAfterFinished: int32(),
  completionMode: oneOf('Indexed', 'NonIndexed'),
  suspend: bool(),
}, { required: ['template'] });

export const job = kind(ref('Job'), {
  spec: jobSpec,
  status: obj(ref('JobStatus'), {
    conditions: mergeList(obj(ref('JobCondition'), {
      type: str(), status: str(), lastProbeTime: time, lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), 'type', 'merge', { 'x-kubernetes-list-type': 'atomic' }),
    startTime: time,
    completionTime: time,
    active: int32(),
    succeeded: int32(),
    failed: int32(),
    completedIndexes: str(),
    uncountedTerminatedPods: obj(ref('UncountedTerminatedPods'), { succeeded: setList(str()), failed: setList(str()) }),
    ready: int32(),
  }),
});

export const cronJob = kind(ref('CronJob'), {
  spec: obj(ref('CronJobSpec'), {
    schedule: str(),
    timeZone: str(),
    startingDeadlineSeconds: int64(),
    concurrencyPolicy: oneOf('Allow', 'Forbid', 'Replace'),
    suspend: bool(),
    jobTemplate: obj(ref('JobTemplateSpec'), { metadata: objectMeta, spec: jobSpec }),
    successfulJobsHistoryLimit: int32(),
    failedJobsHistoryLimit: int32(),
  }, { required: ['schedule', 'jobTemplate'] }),
  status: obj(ref('CronJobStatus'), {
    active: atomicList(objectReference),
    lastScheduleTime: time,
    lastSuccessfulTime: time,
  }),
});

