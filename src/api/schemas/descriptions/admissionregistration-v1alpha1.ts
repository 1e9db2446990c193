// admissionregistration/v1alpha1: validating admission policies written in CEL.
import { kind, type DescriptionTable } from './common.js';

const operations = {
  operations: 'The operations: "CREATE", "UPDATE", "DELETE", "CONNECT", or "*" for all.',
  apiGroups: 'The API groups; "" is the core group and "*" all groups.',
  apiVersions: 'The API versions; "*" is all versions.',
  resources: 'The resources, such as "pods"; "pods/status" names a subresource, "*" all resources, "*/*" all resources and subresources.',
  scope: 'Which objects match by scope: "Cluster", "Namespaced" or "*" (both, the default).',
};

export default {
  ValidatingAdmissionPolicy: kind('A ValidatingAdmissionPolicy checks admission requests with CEL expressions, without a webhook. It applies to the requests its bindings select.', {
    spec: 'What the policy checks and which requests it can apply to.',
    status: 'The result of checking the policy\'s expressions.',
  }),
  ValidatingAdmissionPolicySpec: {
    '': 'What a validating admission policy checks.',
    paramKind: 'The kind of object that parameterises the policy; a binding names the object. Without it the policy takes no parameters.',
    matchConstraints: 'The requests the policy can apply to; a binding can only narrow them. Required.',
    validations: 'The CEL expressions that must hold for a request to be accepted.',
    failurePolicy: 'What happens when an expression fails to evaluate or the policy is misconfigured: "Fail" (the default) rejects the request, "Ignore" skips the policy.',
    auditAnnotations: 'Annotations added to the request\'s audit event, computed by CEL expressions.',
    matchConditions: 'CEL expressions that must all be true for the policy to apply to a request; up to 64.',
  },
  ValidatingAdmissionPolicyStatus: {
    '': 'The observed state of a validating admission policy.',
    observedGeneration: 'The generation of the policy the status was computed for.',
    typeChecking: 'Warnings from checking the expressions\' types against the matched kinds.',
    conditions: 'The current conditions of the policy.',
  },
  Validation: {
    '': 'One CEL expression a request must satisfy.',
    expression: 'A CEL expression over object, oldObject, request, params and authorizer that must evaluate to true; false rejects the request. Required.',
    message: 'The message returned when the expression is false; a generic one is made when empty.',
    reason: 'The reason returned when the expression is false: "Unauthorized", "Forbidden", "Invalid" or "RequestEntityTooLarge". Defaults to Invalid.',
    messageExpression: 'A CEL expression whose string result is the message when the expression is false; message is used if it fails.',
  },
  AuditAnnotation: {
    '': 'An annotation added to the audit event of a request the policy applies to.',
    key: 'The annotation\'s key, prefixed with "<policy name>/" in the event; a qualified name of at most 63 characters.',
    valueExpression: 'A CEL expression whose string result is the annotation\'s value; null leaves the annotation out.',
  },
  MatchResources: {
    '': 'The requests a policy or binding applies to, by resource, namespace and object; excluded resources win over included ones.',
    namespaceSelector: 'Which namespaces\' objects are matched, by the namespace\'s labels. Matches every namespace when empty.',
    objectSelector: 'Which objects are matched, by their labels. Matches every object when empty.',
    resourceRules: 'The operations on resources that are matched.',
    excludeResourceRules: 'Operations on resources that are never matched, even when resourceRules match.',
    matchPolicy: 'How requests for other versions of a matched resource are handled: "Equivalent" (the default) matches them too; "Exact" only matches the versions named.',
  },
  NamedRuleWithOperations: {
    '': 'Operations on resources, optionally narrowed to some object names.',
    resourceNames: 'The names of the objects matched; every object when empty.',
    ...operations,
  },
  ParamKind: {
    '': 'The kind of the objects that parameterise a policy.',
    apiVersion: 'The group and version of the kind, such as "example.com/v1".',
    kind: 'The kind, such as "ReplicaLimit".',
  },
  ParamRef: {
    '': 'The object whose contents are the params of a binding\'s policy.',
    name: 'The name of the object.',
    namespace: 'The namespace of the object; empty for a cluster-scoped kind.',
  },
  TypeChecking: {
    '': 'The results of type-checking a policy\'s expressions.',
    expressionWarnings: 'A warning for each expression that failed the check.',
  },
  ExpressionWarning: {
    '': 'A type-checking warning about one expression.',
    fieldRef: 'The path of the expression\'s field, such as "spec.validations[0].expression".',
    warning: 'What is wrong with the expression\'s types.',
  },
  MatchCondition: {
    '': 'A condition a request must meet for the policy to apply.',
    name: 'The condition\'s name, unique in the list; a qualified name.',
    expression: 'A CEL expression over object, oldObject, request, params and authorizer that must evaluate to a boolean.',
  },
  ValidatingAdmissionPolicyBinding: kind('A ValidatingAdmissionPolicyBinding applies a validating admission policy to requests, with parameters and actions of its own.', {
    spec: 'Which policy, with which parameters, for which requests, and what to do when it fails.',
  }),
  ValidatingAdmissionPolicyBindingSpec: {
    '': 'What a policy binding applies and how.',
    policyName: 'The name of the ValidatingAdmissionPolicy applied.',
    paramRef: 'The object the policy\'s params come from; required when the policy has a paramKind.',
    matchResources: 'Narrows the requests the policy applies to; the policy\'s matchConstraints when empty.',
    validationActions: 'What a failed validation does: "Deny" rejects the request, "Warn" returns a warning, "Audit" records it in the audit event. Deny and Warn cannot be combined. Required.',
  },
} satisfies DescriptionTable;
