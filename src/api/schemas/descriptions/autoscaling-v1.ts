// autoscaling/v1: the CPU-based HorizontalPodAutoscaler and the Scale subresource.
import { kind, type DescriptionTable } from './common.js';

export default {
  HorizontalPodAutoscaler: kind('A HorizontalPodAutoscaler scales a workload, such as a Deployment, between a least and a most number of replicas to keep its pods\' CPU use near a target.', {
    spec: 'What to scale, between which bounds, towards which CPU use.',
    status: 'The most recently observed state of the autoscaler.',
  }),
  HorizontalPodAutoscalerSpec: {
    '': 'What a HorizontalPodAutoscaler scales and how.',
    scaleTargetRef: 'The object to scale; it must have a scale subresource.',
    minReplicas: 'The fewest replicas to scale down to. Defaults to 1.',
    maxReplicas: 'The most replicas to scale up to; not less than minReplicas.',
    targetCPUUtilizationPercentage: 'The target average CPU use of the pods, as a percentage of their CPU request. A default policy applies when unset.',
  },
  HorizontalPodAutoscalerStatus: {
    '': 'The observed state of a HorizontalPodAutoscaler.',
    observedGeneration: 'The most recent generation of the autoscaler acted on.',
    lastScaleTime: 'When the autoscaler last changed the number of replicas.',
    currentReplicas: 'How many replicas the target has now.',
    desiredReplicas: 'How many replicas the autoscaler wants.',
    currentCPUUtilizationPercentage: 'The pods\' average CPU use now, as a percentage of their CPU request.',
  },
  CrossVersionObjectReference: {
    '': 'An object to scale, by kind and name, in the autoscaler\'s namespace.',
    kind: 'The kind of the object, such as "Deployment".',
    name: 'The name of the object.',
    apiVersion: 'The API version of the object, such as "apps/v1".',
  },
  Scale: kind('A Scale is the replica count of a scalable object, read and written through its scale subresource.', {
    spec: 'The desired number of replicas.',
    status: 'The current number of replicas.',
  }),
  ScaleSpec: { '': 'The desired scale of an object.', replicas: 'The desired number of replicas.' },
  ScaleStatus: {
    '': 'The current scale of an object.',
    replicas: 'The number of replicas now.',
    selector: 'The label selector of the object\'s pods, in its string form, such as "app=web,tier in (front)".',
  },
} satisfies DescriptionTable;
