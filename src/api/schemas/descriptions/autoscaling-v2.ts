// autoscaling/v2: the HorizontalPodAutoscaler with any metrics and scaling behaviour.
import { conditionFields, kind, pick, type DescriptionTable } from './common.js';
import v1 from './autoscaling-v1.js';

const target = 'The target value of the metric.';
const current = 'The current value of the metric.';
const metric = 'The metric: its name and an optional selector.';
const resourceName = 'The name of the resource, "cpu" or "memory".';

export default {
  HorizontalPodAutoscaler: kind('A HorizontalPodAutoscaler scales a workload, such as a Deployment, between a least and a most number of replicas to keep one or more metrics near their targets.', {
    spec: 'What to scale, between which bounds, on which metrics, and how fast.',
    status: 'The most recently observed state of the autoscaler.',
  }),
  HorizontalPodAutoscalerSpec: {
    ...pick(v1.HorizontalPodAutoscalerSpec, '', 'scaleTargetRef', 'maxReplicas'),
    minReplicas: 'The fewest replicas to scale down to. Defaults to 1; 0 is allowed only with the HPAScaleToZero feature and an object or external metric.',
    metrics: 'The metrics to scale on: for each, the replica count it calls for is computed, and the largest wins. Defaults to 80% average CPU use.',
    behavior: 'How fast to scale up and down; the defaults when unset.',
  },
  HorizontalPodAutoscalerStatus: {
    ...pick(v1.HorizontalPodAutoscalerStatus, '', 'observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas'),
    currentMetrics: 'The last values read of the metrics.',
    conditions: 'The current conditions of the autoscaler, such as AbleToScale, ScalingActive and ScalingLimited.',
  },
  HorizontalPodAutoscalerCondition: { '': 'A condition of a HorizontalPodAutoscaler.', ...conditionFields('autoscaler', '"AbleToScale" or "ScalingActive"') },
  CrossVersionObjectReference: v1.CrossVersionObjectReference,
  HorizontalPodAutoscalerBehavior: {
    '': 'How fast an autoscaler scales in each direction.',
    scaleUp: 'Rules for scaling up. By default the larger of doubling or adding 4 pods every 15 seconds, with no stabilization.',
    scaleDown: 'Rules for scaling down. By default down to the recommendation, after a 300-second stabilization window.',
  },
  HPAScalingRules: {
    '': 'Rules for scaling in one direction.',
    stabilizationWindowSeconds: 'Seconds of past recommendations considered, so the replica count does not flap: the most conservative one in the window is used. From 0 to 3600.',
    selectPolicy: 'Which policy wins when several apply: "Max" (the default, the largest change), "Min" (the smallest) or "Disabled" (no scaling in this direction).',
    policies: 'The limits on how much may change per period; the one selectPolicy picks applies.',
  },
  HPAScalingPolicy: {
    '': 'A limit on how much the replica count may change in a period.',
    type: 'How value is read: "Pods" (a number of pods) or "Percent" (a percentage of the current replicas).',
    value: 'The most change allowed in the period; greater than 0.',
    periodSeconds: 'The length of the period, from 1 to 1800 seconds.',
  },
  MetricSpec: {
    '': 'A metric to scale on and its target: type names the one field that is set.',
    type: 'The kind of metric: "ContainerResource", "External", "Object", "Pods" or "Resource".',
    object: 'A metric of one object in the namespace, such as the request rate of an Ingress.',
    pods: 'A metric of each pod of the target, averaged, such as requests per second.',
    resource: 'A resource of the pods (cpu or memory), as their requests and limits name it.',
    containerResource: 'A resource of one container of each pod.',
    external: 'A metric from outside the cluster, such as the length of a queue.',
  },
  MetricStatus: {
    '': 'The last value read of a metric: type names the one field that is set.',
    type: 'The kind of metric: "ContainerResource", "External", "Object", "Pods" or "Resource".',
    object: 'The value of an object metric.',
    pods: 'The value of a pods metric.',
    resource: 'The value of a resource metric.',
    containerResource: 'The value of a container resource metric.',
    external: 'The value of an external metric.',
  },
  MetricTarget: {
    '': 'The target of a metric.',
    type: 'How the target is given: "Utilization" (averageUtilization), "Value" (value) or "AverageValue" (averageValue).',
    value: 'The target value of the metric as a whole.',
    averageValue: 'The target value of the metric averaged over the pods.',
    averageUtilization: 'The target average use of the resource, as a percentage of the pods\' requests; only for resource metrics.',
  },
  MetricValueStatus: {
    '': 'The current value of a metric.',
    value: 'The value of the metric as a whole.',
    averageValue: 'The value averaged over the pods.',
    averageUtilization: 'The average use of the resource, as a percentage of the pods\' requests.',
  },
  MetricIdentifier: {
    '': 'A metric, by name and labels.',
    name: 'The name of the metric.',
    selector: 'Labels narrowing which series of the metric are read; the metrics server chooses when unset.',
  },
  ObjectMetricSource: {
    '': 'A metric of one object.',
    describedObject: 'The object the metric is about.',
    target,
    metric,
  },
  ObjectMetricStatus: {
    '': 'The current value of a metric of one object.',
    metric,
    current,
    describedObject: 'The object the metric is about.',
  },
  PodsMetricSource: { '': 'A metric of each pod of the target, averaged; only averageValue targets.', metric, target },
  PodsMetricStatus: { '': 'The current value of a pods metric.', metric, current },
  ResourceMetricSource: { '': 'A resource of the target\'s pods, such as CPU, from the resource metrics API.', name: resourceName, target },
  ResourceMetricStatus: { '': 'The current value of a resource metric.', name: resourceName, current },
  ContainerResourceMetricSource: {
    '': 'A resource of one container of each of the target\'s pods.',
    name: resourceName,
    target,
    container: 'The name of the container.',
  },
  ContainerResourceMetricStatus: {
    '': 'The current value of a container resource metric.',
    name: resourceName,
    current,
    container: 'The name of the container.',
  },
  ExternalMetricSource: { '': 'A metric from outside the cluster.', metric, target },
  ExternalMetricStatus: { '': 'The current value of an external metric.', metric, current },
} satisfies DescriptionTable;
