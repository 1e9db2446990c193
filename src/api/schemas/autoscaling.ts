// autoscaling/v1 and autoscaling/v2 definitions.
import { apiRef, atomicList, int32, int64, mapList, obj, oneOf, patch, quantity, str, time } from './build.js';
import { kind, labelSelector } from './meta.js';

const v1 = (k: string) => apiRef('autoscaling.v1', k);
const v2 = (k: string) => apiRef('autoscaling.v2', k);

const crossVersionObjectReference = (ref: string) => obj(ref, {
  kind: str(), name: str(), apiVersion: str(),
}, { required: ['kind', 'name'] });

/** served at the scale subresources of workloads */
export const scale = kind(v1('Scale'), {
  spec: obj(v1('ScaleSpec'), { replicas: int32() }),
  status: obj(v1('ScaleStatus'), { replicas: int32(), selector: str() }, { required: ['replicas'] }),
});

export const horizontalPodAutoscalerV1 = kind(v1('HorizontalPodAutoscaler'), {
  spec: obj(v1('HorizontalPodAutoscalerSpec'), {
    scaleTargetRef: crossVersionObjectReference(v1('CrossVersionObjectReference')),
    minReplicas: int32(),
    maxReplicas: int32(),
    targetCPUUtilizationPercentage: int32(),
  }, { required: ['scaleTargetRef', 'maxReplicas'] }),
  status: obj(v1('HorizontalPodAutoscalerStatus'), {
    observedGeneration: int64(),
    lastScaleTime: time,
    currentReplicas: int32(),
    desiredReplicas: int32(),
    currentCPUUtilizationPercentage: int32(),
  }, { required: ['currentReplicas', 'desiredReplicas'] }),
});

const metricTarget = obj(v2('MetricTarget'), {
  type: oneOf('AverageValue', 'Utilization', 'Value'), value: quantity, averageValue: quantity, averageUtilization: int32(),
}, { required: ['type'] });
const metricValueStatus = obj(v2('MetricValueStatus'), { value: quantity, averageValue: quantity, averageUtilization: int32() });
const metricIdentifier = obj(v2('MetricIdentifier'), { name: str(), selector: labelSelector }, { required: ['name'] });
const v2Ref = crossVersionObjectReference(v2('CrossVersionObjectReference'));

export const metricSpec = obj(v2('MetricSpec'), {
  type: oneOf('ContainerResource', 'External', 'Object', 'Pods', 'Resource'),
  object: obj(v2('ObjectMetricSource'), { describedObject: v2Ref, target: metricTarget, metric: metricIdentifier },
    { required: ['describedObject', 'target', 'metric'] }),
  pods: obj(v2('PodsMetricSource'), { metric: metricIdentifier, target: metricTarget }, { required: ['metric', 'target'] }),
  resource: obj(v2('ResourceMetricSource'), { name: str(), target: metricTarget }, { required: ['name', 'target'] }),
  containerResource: obj(v2('ContainerResourceMetricSource'), { name: str(), target: metricTarget, container: str() },
    { required: ['name', 'target', 'container'] }),
  external: obj(v2('ExternalMetricSource'), { metric: metricIdentifier, target: metricTarget }, { required: ['metric', 'target'] }),
}, { required: ['type'] });

const metricStatus = obj(v2('MetricStatus'), {
  type: oneOf('ContainerResource', 'External', 'Object', 'Pods', 'Resource'),
  object: obj(v2('ObjectMetricStatus'), { metric: metricIdentifier, current: metricValueStatus, describedObject: v2Ref },
    { required: ['metric', 'current', 'describedObject'] }),
  pods: obj(v2('PodsMetricStatus'), { metric: metricIdentifier, current: metricValueStatus }, { required: ['metric', 'current'] }),
  resource: obj(v2('ResourceMetricStatus'), { name: str(), current: metricValueStatus }, { required: ['name', 'current'] }),
  containerResource: obj(v2('ContainerResourceMetricStatus'), { name: str(), current: metricValueStatus, container: str() },
    { required: ['name', 'current', 'container'] }),
  external: obj(v2('ExternalMetricStatus'), { metric: metricIdentifier, current: metricValueStatus }, { required: ['metric', 'current'] }),
}, { required: ['type'] });

const scalingRules = obj(v2('HPAScalingRules'), {
  stabilizationWindowSeconds: int32(),
  selectPolicy: oneOf('Disabled', 'Max', 'Min'),
  policies: atomicList(obj(v2('HPAScalingPolicy'), {
    type: oneOf('Percent', 'Pods'), value: int32(), periodSeconds: int32(),
  }, { required: ['type', 'value', 'periodSeconds'] })),
});

export const horizontalPodAutoscalerV2 = kind(v2('HorizontalPodAutoscaler'), {
  spec: obj(v2('HorizontalPodAutoscalerSpec'), {
    scaleTargetRef: v2Ref,
    minReplicas: int32(),
    maxReplicas: int32(),
    metrics: atomicList(metricSpec),
    behavior: obj(v2('HorizontalPodAutoscalerBehavior'), { scaleUp: scalingRules, scaleDown: scalingRules }),
  }, { required: ['scaleTargetRef', 'maxReplicas'] }),
  status: obj(v2('HorizontalPodAutoscalerStatus'), {
    observedGeneration: int64(),
    lastScaleTime: time,
    currentReplicas: int32(),
    desiredReplicas: int32(),
    currentMetrics: atomicList(metricStatus),
    conditions: mapList(obj(v2('HorizontalPodAutoscalerCondition'), {
      type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), ['type'], patch('type')),
  }, { required: ['desiredReplicas'] }),
});
