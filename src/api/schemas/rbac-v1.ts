// rbac.authorization/v1 definitions.
import { apiRef, arr, atomicObj, obj, str } from './build.js';
import { kind, labelSelector } from './meta.js';

const ref = (k: string) => apiRef('rbac.v1', k);

export const policyRule = obj(ref('PolicyRule'), {
  verbs: arr(str()),
  apiGroups: arr(str()),
  resources: arr(str()),
  resourceNames: arr(str()),
  nonResourceURLs: arr(str()),
}, { required: ['verbs'] });
export const subject = atomicObj(ref('Subject'), {
  kind: str(), apiGroup: str(), name: str(), namespace: str(),
}, { required: ['kind', 'name'] });
export const roleRef = atomicObj(ref('RoleRef'), {
  apiGroup: str(), kind: str(), name: str(),
}, { required: ['apiGroup', 'kind', 'name'] });

export const role = kind(ref('Role'), { rules: arr(policyRule) });
export const clusterRole = kind(ref('ClusterRole'), {
  rules: arr(policyRule),
  aggregationRule: obj(ref('AggregationRule'), { clusterRoleSelectors: arr(labelSelector) }),
});
export const roleBinding = kind(ref('RoleBinding'), { subjects: arr(subject), roleRef }, { required: ['roleRef'] });
export const clusterRoleBinding = kind(ref('ClusterRoleBinding'), { subjects: arr(subject), roleRef }, { required: ['roleRef'] });
