// policy/v1 definitions.
import { apiRef, int32, int64, intOrString, mapList, mapOf, obj, oneOf, patch } from './build.js';
import { condition, deleteOptions, kind, labelSelector, objectMeta } from './meta.js';

const ref = (k: string) => apiRef('policy.v1', k);

export const podDisruptionBudget = kind(ref('PodDisruptionBudget'), {
  spec: obj(ref('PodDisruptionBudgetSpec'), {
    minAvailable: intOrString,
    selector: { ...labelSelector, ...patch(undefined, 'replace') },
    maxUnavailable: intOrString,
    unhealthyPodEvictionPolicy: oneOf('AlwaysAllow', 'IfHealthyBudget'),
  }),
  status: obj(ref('PodDisruptionBudgetStatus'), {
    observedGeneration: int64(),
    disruptedPods: mapOf({ type: 'string', format: 'date-time' }),
    disruptionsAllowed: int32(),
    currentHealthy: int32(),
    desiredHealthy: int32(),
    expectedPods: int32(),
    conditions: mapList(condition, ['type'], patch('type')),
  }, { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] }),
});

/** served at pods/eviction */
export const eviction = kind(ref('Eviction'), { metadata: objectMeta, deleteOptions });
