// admissionregistration/v1: admission webhooks.
import { kind, type DescriptionTable } from './common.js';

/** the parts of MutatingWebhook and ValidatingWebhook that mean the same */
const webhook = {
  name: 'The webhook\'s name, a fully qualified name such as "policy.example.com", unique within the configuration.',
  clientConfig: 'How to reach the webhook.',
  rules: 'The operations on resources the webhook is called for; it is called when any rule matches. Changes to webhook configurations themselves are never sent to webhooks.',
  failurePolicy: 'What happens when the webhook cannot be called or answers with an error: "Fail" (the default) rejects the request, "Ignore" lets it through.',
  matchPolicy: 'How requests for other versions of a matched resource are handled: "Equivalent" (the default) also sends them, converted to a version the rules name; "Exact" only sends requests that match a rule as written.',
  namespaceSelector: 'Which namespaces\' objects the webhook is called for, by the namespace\'s labels; for a Namespace object, by its own labels. Matches every namespace when empty.',
  objectSelector: 'Which objects the webhook is called for, by their labels (old or new). Matches every object when empty.',
  sideEffects: 'Whether calling the webhook changes anything elsewhere: "None" or "NoneOnDryRun" (it has side effects but skips them for dry-run requests). Dry-run requests are refused when the webhook has side effects.',
  timeoutSeconds: 'Seconds to wait for the webhook\'s answer, from 1 to 30; after that the call counts as failed. Defaults to 10.',
  admissionReviewVersions: 'The AdmissionReview versions the webhook accepts, in order of preference; the server sends the first it supports and fails the call if there is none.',
  matchConditions: 'CEL expressions that must all be true for the webhook to be called; up to 64. A condition that fails to evaluate is handled by failurePolicy. Needs the AdmissionWebhookMatchConditions feature (alpha).',
};

export default {
  MutatingWebhookConfiguration: kind('A MutatingWebhookConfiguration lists admission webhooks that may change objects before they are stored.', {
    webhooks: 'The webhooks, called one after another.',
  }),
  ValidatingWebhookConfiguration: kind('A ValidatingWebhookConfiguration lists admission webhooks that may accept or reject requests but not change them.', {
    webhooks: 'The webhooks, called in parallel.',
  }),
  MutatingWebhook: {
    '': 'An admission webhook that may change the objects of the requests it is called for.',
    ...webhook,
    reinvocationPolicy: 'Whether the webhook is called again when a later mutating webhook changed the object: "Never" (the default) or "IfNeeded" (at most once more).',
  },
  ValidatingWebhook: { '': 'An admission webhook that accepts or rejects the requests it is called for.', ...webhook },
  RuleWithOperations: {
    '': 'Operations on resources an admission webhook is called for: a request matches when it matches every list.',
    operations: 'The operations: "CREATE", "UPDATE", "DELETE", "CONNECT", or "*" for all.',
    apiGroups: 'The API groups; "" is the core group and "*" all groups.',
    apiVersions: 'The API versions; "*" is all versions.',
    resources: 'The resources, such as "pods"; "pods/status" names a subresource, "*" all resources, "*/*" all resources and subresources, "pods/*" all subresources of pods.',
    scope: 'Which objects match by scope: "Cluster" (cluster-scoped only), "Namespaced" (namespaced only) or "*" (both, the default).',
  },
  MatchCondition: {
    '': 'A condition an admission request must meet for the webhook to be called.',
    name: 'The condition\'s name, unique in the list; a qualified name, used in logs and metrics.',
    expression: 'A CEL expression over object, oldObject, request and authorizer that must evaluate to a boolean.',
  },
  WebhookClientConfig: {
    '': 'How to reach a webhook: exactly one of url and service.',
    url: 'The webhook\'s URL, such as "https://hook.example.com/check". It must use https and carry no user, query or fragment.',
    service: 'A Service in the cluster the webhook runs behind.',
    caBundle: 'PEM-encoded certificate authorities to verify the webhook\'s serving certificate with; the server\'s system roots when empty.',
  },
  ServiceReference: {
    '': 'A Service a webhook is reached through.',
    namespace: 'The namespace of the Service.',
    name: 'The name of the Service.',
    path: 'The URL path requests are sent to.',
    port: 'The port of the Service, between 1 and 65535. Defaults to 443.',
  },
} satisfies DescriptionTable;
