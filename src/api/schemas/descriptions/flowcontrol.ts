// flowcontrol.apiserver/v1beta2 and v1beta3: API priority and fairness. The two versions differ only in the
// name of one field of LimitedPriorityLevelConfiguration; both spellings are described here.
import { conditionFields, kind, type DescriptionTable } from './common.js';

const concurrencyShares = 'This level\'s share of the server\'s concurrency limit: its nominal limit is the server limit times its shares divided by the sum of all levels\' shares. Defaults to 30.';

export default {
  FlowSchema: kind('A FlowSchema sorts incoming requests into flows and assigns them to a priority level, for API priority and fairness.', {
    spec: 'Which requests match and where they go.',
    status: 'The current state of the schema.',
  }),
  FlowSchemaSpec: {
    '': 'Which requests a FlowSchema matches and how it treats them.',
    priorityLevelConfiguration: 'The priority level matched requests are assigned to. Required.',
    matchingPrecedence: 'The order schemas are tried in: the lowest number that matches wins. From 1 to 10000; defaults to 1000.',
    distinguisherMethod: 'How matched requests are split into flows for fair queuing; none when unset (one flow).',
    rules: 'The rules a request must match, any of them; when empty the schema matches nothing.',
  },
  FlowSchemaStatus: { '': 'The state of a FlowSchema.', conditions: 'The current conditions, such as Dangling when the priority level does not exist.' },
  FlowSchemaCondition: { '': 'A condition of a FlowSchema.', ...conditionFields('schema', '"Dangling"') },
  FlowDistinguisherMethod: {
    '': 'How requests are split into flows.',
    type: 'What distinguishes flows: "ByUser" (the requesting user) or "ByNamespace" (the namespace of the request).',
  },
  PriorityLevelConfigurationReference: { '': 'A priority level, by name.', name: 'The name of the PriorityLevelConfiguration. Required.' },
  PolicyRulesWithSubjects: {
    '': 'A rule of a FlowSchema: a request matches when its user is one of the subjects and the request matches a resource or non-resource rule.',
    subjects: 'The users, groups and service accounts the rule applies to; at least one.',
    resourceRules: 'Actions on resources that match.',
    nonResourceRules: 'Actions on other paths that match.',
  },
  Subject: {
    '': 'Who a rule applies to: kind names the one field that is set.',
    kind: 'The kind of subject: "User", "Group" or "ServiceAccount".',
    user: 'A user.',
    group: 'A group.',
    serviceAccount: 'A service account.',
  },
  UserSubject: { '': 'A user.', name: 'The user name; "*" matches every user.' },
  GroupSubject: { '': 'A group.', name: 'The group name, such as "system:authenticated"; "*" matches every group.' },
  ServiceAccountSubject: {
    '': 'A service account.',
    namespace: 'The namespace of the service account. Required.',
    name: 'The name of the service account; "*" matches every one in the namespace.',
  },
  ResourcePolicyRule: {
    '': 'Actions on resources a FlowSchema rule matches: a request matches when it matches each list.',
    verbs: 'The verbs; "*" matches all.',
    apiGroups: 'The API groups; "*" matches all.',
    resources: 'The resources, such as "pods" or "pods/status"; "*" matches all.',
    clusterScope: 'Whether requests that name no namespace (cluster-scoped resources, or lists across namespaces) match.',
    namespaces: 'The namespaces; "*" matches every namespace, but not requests that name none.',
  },
  NonResourcePolicyRule: {
    '': 'Actions on paths that are not resources a FlowSchema rule matches.',
    verbs: 'The verbs; "*" matches all.',
    nonResourceURLs: 'The paths, such as "/healthz"; a trailing "/*" matches a prefix, and "*" matches every path.',
  },
  PriorityLevelConfiguration: kind('A PriorityLevelConfiguration is a class of requests with its own share of the server\'s concurrency and its own queues, for API priority and fairness.', {
    spec: 'How the level limits and queues requests.',
    status: 'The current state of the level.',
  }),
  PriorityLevelConfigurationSpec: {
    '': 'How a priority level treats its requests.',
    type: 'Whether the level is limited: "Limited" or "Exempt" (its requests run at once, never queued).',
    limited: 'How requests of a Limited level are limited; required for Limited, forbidden for Exempt.',
  },
  LimitedPriorityLevelConfiguration: {
    '': 'The limits of a Limited priority level.',
    assuredConcurrencyShares: concurrencyShares,
    nominalConcurrencyShares: concurrencyShares,
    limitResponse: 'What happens to requests that cannot run at once.',
    lendablePercent: 'The percentage of the nominal limit other levels may borrow, from 0 to 100. Defaults to 0.',
    borrowingLimitPercent: 'How much this level may borrow from others, as a percentage of its nominal limit; unlimited when unset.',
  },
  LimitResponse: {
    '': 'What happens to requests that exceed a priority level\'s concurrency.',
    type: 'Whether they are queued ("Queue") or rejected at once with 429 ("Reject").',
    queuing: 'How requests are queued; only for type Queue.',
  },
  QueuingConfiguration: {
    '': 'The queues of a priority level.',
    queues: 'How many queues the level has. Defaults to 64.',
    handSize: 'How many queues each flow is shuffle-sharded over; a request joins the shortest of them. Defaults to 8; at most queues.',
    queueLengthLimit: 'How many requests a queue may hold; more are rejected with 429. Defaults to 50.',
  },
  PriorityLevelConfigurationStatus: { '': 'The state of a priority level.', conditions: 'The current conditions of the level.' },
  PriorityLevelConfigurationCondition: { '': 'A condition of a priority level.', ...conditionFields('level', '') },
} satisfies DescriptionTable;
