// admissionregistration/v1 definitions; the v1alpha1 policy kinds are not catalogued yet.
import { apiRef, arr, atomicList, bytes, int32, mapList, mergeList, obj, oneOf, patch, str } from './build.js';
import { kind, labelSelector, permissive } from './meta.js';

const ref = (k: string) => apiRef('admissionregistration.v1', k);

const webhookClientConfig = obj(ref('WebhookClientConfig'), {
  url: str(),
  service: obj(ref('ServiceReference'), {
    namespace: str(), name: str(), path: str(), port: int32(),
  }, { required: ['namespace', 'name'] }),
  caBundle: bytes(),
});
const ruleWithOperations = obj(ref('RuleWithOperations'), {
  operations: atomicList(oneOf('*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE')),
  apiGroups: atomicList(str()),
  apiVersions: atomicList(str()),
  resources: atomicList(str()),
  scope: str(),
});
const matchCondition = obj(ref('MatchCondition'), { name: str(), expression: str() }, { required: ['name', 'expression'] });

const webhookFields = () => ({
  name: str(),
  clientConfig: webhookClientConfig,
  rules: arr(ruleWithOperations),
  failurePolicy: oneOf('Fail', 'Ignore'),
  matchPolicy: oneOf('Equivalent', 'Exact'),
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  sideEffects: oneOf('None', 'NoneOnDryRun', 'Some', 'Unknown'),
  timeoutSeconds: int32(),
  admissionReviewVersions: arr(str()),
  matchConditions: mapList(matchCondition, ['name'], patch('name')),
});
const required = { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] };

export const mutatingWebhookConfiguration = kind(ref('MutatingWebhookConfiguration'), {
  webhooks: mergeList(obj(ref('MutatingWebhook'), {
    ...webhookFields(), reinvocationPolicy: oneOf('IfNeeded', 'Never'),
  }, required), 'name'),
});
export const validatingWebhookConfiguration = kind(ref('ValidatingWebhookConfiguration'), {
  webhooks: mergeList(obj(ref('ValidatingWebhook'), webhookFields(), required), 'name'),
});

export const validatingAdmissionPolicy = permissive(apiRef('admissionregistration.v1alpha1', 'ValidatingAdmissionPolicy'));
export const validatingAdmissionPolicyBinding = permissive(apiRef('admissionregistration.v1alpha1', 'ValidatingAdmissionPolicyBinding'));
