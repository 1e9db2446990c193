// authorization/v1: questions about what a user may do.
import { kind, type DescriptionTable } from './common.js';

const verbs = 'The verbs, such as "get", "list" or "create"; "*" is every verb.';

export default {
  SubjectAccessReview: kind('A SubjectAccessReview asks whether a given user may perform an action. It is answered at once and never stored.', {
    spec: 'The user and the action.',
    status: 'The answer.',
  }),
  LocalSubjectAccessReview: kind('A LocalSubjectAccessReview asks whether a given user may perform an action in one namespace, the namespace it is posted to. It is never stored.', {
    spec: 'The user and the action; the namespace must be the review\'s own or empty.',
    status: 'The answer.',
  }),
  SelfSubjectAccessReview: kind('A SelfSubjectAccessReview asks whether the requesting user may perform an action. It is never stored.', {
    spec: 'The action.',
    status: 'The answer.',
  }),
  SelfSubjectRulesReview: kind('A SelfSubjectRulesReview lists the actions the requesting user may perform in a namespace. The list may be incomplete, depending on the authorizers; use it for display, not for decisions.', {
    spec: 'The namespace.',
    status: 'The actions allowed.',
  }),
  SubjectAccessReviewSpec: {
    '': 'The user and action a SubjectAccessReview asks about. Exactly one of resourceAttributes and nonResourceAttributes is set.',
    resourceAttributes: 'An action on a resource.',
    nonResourceAttributes: 'An action on a path that is not a resource, such as /healthz.',
    user: 'The user asked about.',
    groups: 'The groups of the user.',
    extra: 'More information about the user, as the authenticator gave it.',
    uid: 'The uid of the user.',
  },
  SelfSubjectAccessReviewSpec: {
    '': 'The action a SelfSubjectAccessReview asks about: exactly one of the fields.',
    resourceAttributes: 'An action on a resource.',
    nonResourceAttributes: 'An action on a path that is not a resource.',
  },
  SelfSubjectRulesReviewSpec: { '': 'What a SelfSubjectRulesReview asks about.', namespace: 'The namespace to list the allowed actions in.' },
  ResourceAttributes: {
    '': 'An action on a resource, as an authorizer sees it.',
    namespace: 'The namespace of the action; "" for a cluster-scoped resource or for every namespace.',
    verb: 'The verb, such as "get", "list", "watch", "create", "update", "patch" or "delete"; "*" is every verb.',
    group: 'The API group of the resource; "*" is every group.',
    version: 'The API version of the resource; "*" is every version.',
    resource: 'The resource, such as "pods"; "*" is every resource.',
    subresource: 'The subresource, such as "log"; "" is none.',
    name: 'The name of the object; "" is every object.',
  },
  NonResourceAttributes: {
    '': 'An action on a path that is not a resource.',
    path: 'The URL path.',
    verb: 'The HTTP verb in lower case, such as "get".',
  },
  SubjectAccessReviewStatus: {
    '': 'The answer to an access review.',
    allowed: 'Whether the action is allowed.',
    denied: 'Whether the action is explicitly denied; false with allowed false means no authorizer had an opinion. Always false when allowed is true.',
    reason: 'Why the action is allowed or denied.',
    evaluationError: 'An error one of the authorizers met; the answer may still be right, since another authorizer may have decided.',
  },
  SubjectRulesReviewStatus: {
    '': 'The actions a user may perform in a namespace.',
    resourceRules: 'The allowed actions on resources; their order means nothing.',
    nonResourceRules: 'The allowed actions on other paths; their order means nothing.',
    incomplete: 'True when an authorizer could not list its rules, so more actions may be allowed.',
    evaluationError: 'An error met while listing the rules; the lists may still hold something useful.',
  },
  ResourceRule: {
    '': 'Actions allowed on resources.',
    verbs,
    apiGroups: 'The API groups; "*" is every group.',
    resources: 'The resources; "*" is every resource and "*/<subresource>" a subresource of every resource.',
    resourceNames: 'The names of the objects; every object when empty.',
  },
  NonResourceRule: {
    '': 'Actions allowed on paths that are not resources.',
    verbs,
    nonResourceURLs: 'The paths; a trailing "*" matches every path with that prefix.',
  },
} satisfies DescriptionTable;
