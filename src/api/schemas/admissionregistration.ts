// admissionregistration/v1 webhook configurations and the v1alpha1 CEL admission policies.
import { apiRef, arr, atomicList, atomicObj, bytes, int32, int64, mapList, mergeList, obj, oneOf, patch, setList, str } from './build.js';
import { condition, kind, labelSelector } from './meta.js';

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

// v1alpha1 CEL policies (feature gate ValidatingAdmissionPolicy)
const alpha = (k: string) => apiRef('admissionregistration.v1alpha1', k);

const namedRuleWithOperations = atomicObj(alpha('NamedRuleWithOperations'), {
  resourceNames: atomicList(str()),
  ...ruleWithOperations.properties,
});
const matchResources = atomicObj(alpha('MatchResources'), {
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  resourceRules: atomicList(namedRuleWithOperations),
  excludeResourceRules: atomicList(namedRuleWithOperations),
  matchPolicy: oneOf('Equivalent', 'Exact'),
});

export const validatingAdmissionPolicy = kind(alpha('ValidatingAdmissionPolicy'), {
  spec: obj(alpha('ValidatingAdmissionPolicySpec'), {
    paramKind: atomicObj(alpha('ParamKind'), { apiVersion: str(), kind: str() }),
    matchConstraints: matchResources,
    validations: atomicList(obj(alpha('Validation'), {
      expression: str(), message: str(), reason: str(), messageExpression: str(),
    }, { required: ['expression'] })),
    failurePolicy: oneOf('Fail', 'Ignore'),
    auditAnnotations: atomicList(obj(alpha('AuditAnnotation'), {
      key: str(), valueExpression: str(),
    }, { required: ['key', 'valueExpression'] })),
    matchConditions: mapList(obj(alpha('MatchCondition'), {
      name: str(), expression: str(),
    }, { required: ['name', 'expression'] }), ['name'], patch('name')),
  }),
  status: obj(alpha('ValidatingAdmissionPolicyStatus'), {
    observedGeneration: int64(),
    typeChecking: obj(alpha('TypeChecking'), {
      expressionWarnings: atomicList(obj(alpha('ExpressionWarning'), {
        fieldRef: str(), warning: str(),
      }, { required: ['fieldRef', 'warning'] })),
    }),
    conditions: mapList(condition, ['type']),
  }),
});

export const validatingAdmissionPolicyBinding = kind(alpha('ValidatingAdmissionPolicyBinding'), {
  spec: obj(alpha('ValidatingAdmissionPolicyBindingSpec'), {
    policyName: str(),
    paramRef: atomicObj(alpha('ParamRef'), { name: str(), namespace: str() }),
    matchResources,
    validationActions: setList(oneOf('Audit', 'Deny', 'Warn')),
  }),
});
