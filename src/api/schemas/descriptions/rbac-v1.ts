// rbac.authorization/v1: roles and role bindings.
import { kind, type DescriptionTable } from './common.js';

const subjects = 'The users, groups and service accounts granted the role.';
const roleRef = 'The role granted: a Role in the binding\'s namespace or a ClusterRole. Cannot change; delete and recreate the binding instead.';

export default {
  Role: kind('A Role is a set of permissions within one namespace, granted by RoleBindings.', {
    rules: 'The permissions.',
  }),
  ClusterRole: kind('A ClusterRole is a set of permissions across the cluster, or within a namespace when a RoleBinding grants it.', {
    rules: 'The permissions. With an aggregation rule, the controller fills them in.',
    aggregationRule: 'Makes the role the union of other ClusterRoles, chosen by labels.',
  }),
  RoleBinding: kind('A RoleBinding grants a Role, or a ClusterRole limited to the binding\'s namespace, to subjects.', {
    subjects,
    roleRef,
  }),
  ClusterRoleBinding: kind('A ClusterRoleBinding grants a ClusterRole to subjects across the cluster.', {
    subjects,
    roleRef: 'The ClusterRole granted. Cannot change; delete and recreate the binding instead.',
  }),
  PolicyRule: {
    '': 'Permissions: the verbs allowed on some resources or paths.',
    verbs: 'The verbs allowed, such as "get", "list", "watch", "create", "update", "patch" or "delete"; "*" allows all.',
    apiGroups: 'The API groups of the resources; "" is the core group and "*" every group.',
    resources: 'The resources, such as "pods" or "pods/log"; "*" is every resource.',
    resourceNames: 'The names of the objects allowed; every object when empty.',
    nonResourceURLs: 'Paths that are not resources, such as "/healthz"; a trailing "*" matches a prefix. Only in ClusterRoles granted by ClusterRoleBindings, and not together with resources.',
  },
  AggregationRule: {
    '': 'How a ClusterRole is made from others.',
    clusterRoleSelectors: 'Label selectors; the rules of every ClusterRole matching any of them are added.',
  },
  RoleRef: {
    '': 'The role a binding grants.',
    apiGroup: 'The API group of the role: "rbac.authorization.{domain}".',
    kind: 'The kind of the role: "Role" or "ClusterRole".',
    name: 'The name of the role.',
  },
  Subject: {
    '': 'Who a binding grants a role to.',
    kind: 'The kind of subject: "User", "Group" or "ServiceAccount".',
    apiGroup: 'The API group of the subject: "" for ServiceAccount, "rbac.authorization.{domain}" for User and Group.',
    name: 'The name of the subject.',
    namespace: 'The namespace of a ServiceAccount; must be empty for users and groups.',
  },
} satisfies DescriptionTable;
