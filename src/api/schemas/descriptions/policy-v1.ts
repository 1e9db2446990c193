// policy/v1: disruption budgets and evictions.
import { kind, type DescriptionTable } from './common.js';

export default {
  PodDisruptionBudget: kind('A PodDisruptionBudget limits how many pods of an application voluntary disruptions, such as evictions during a node drain, may take down at once.', {
    spec: 'The pods and the budget.',
    status: 'The current state of the budget.',
  }),
  PodDisruptionBudgetSpec: {
    '': 'The pods of a PodDisruptionBudget and how many must stay up. At most one of minAvailable and maxUnavailable.',
    minAvailable: 'How many of the pods must stay available after an eviction, as a number or a percentage.',
    selector: 'The pods the budget covers. An empty selector covers every pod of the namespace.',
    maxUnavailable: 'How many of the pods may be unavailable after an eviction, as a number or a percentage.',
    unhealthyPodEvictionPolicy: 'When running pods that are not ready may be evicted: "IfHealthyBudget" (the default), only while the budget holds, or "AlwaysAllow". Beta.',
  },
  PodDisruptionBudgetStatus: {
    '': 'The state of a PodDisruptionBudget.',
    observedGeneration: 'The most recent generation of the budget acted on.',
    disruptedPods: 'Pods whose eviction was granted but that have not been deleted yet, with when it was granted. Cleaned up after two minutes.',
    disruptionsAllowed: 'How many more pods may be disrupted now.',
    currentHealthy: 'How many of the pods are healthy now.',
    desiredHealthy: 'How many of the pods should be healthy.',
    expectedPods: 'How many pods the budget covers.',
    conditions: 'The current conditions, such as DisruptionAllowed.',
  },
  Eviction: kind('An Eviction asks to delete a pod while honouring its disruption budgets; it is posted to the pod\'s eviction subresource, and refused with 429 when a budget would be broken.', {
    metadata: 'The name and namespace of the pod to evict.',
    deleteOptions: 'Options of the deletion that follows.',
  }),
} satisfies DescriptionTable;
