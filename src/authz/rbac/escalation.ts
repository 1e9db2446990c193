// Escalation prevention: a role or binding may only be written by someone who already holds every permission
// it grants, or who may `escalate` (roles) or `bind` (bindings) the role in question. Runs as a validating
// admission step on the four RBAC resources, so dry runs are checked too.
import type { ApiObject } from '../../api/meta.js';
import type { RbacAuthorizer } from './authorizer.js';
import { describeRule, uncovered } from './rules.js';
import { forbidden, qualifiedResource } from '../../api/status.js';
import { type Authorizer, type PolicyRule, type UserInfo, privilegedGroup } from '../../api/auth.js';
import type { AdmissionPlugin, AdmissionAttributes } from '../../api/admission.js';

const everything: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };

export function escalationCheck(rbacGroup: string, rbac: RbacAuthorizer, authorizer: Authorizer): AdmissionPlugin {
  const refuse = (a: Readonly<AdmissionAttributes>, user: UserInfo, detail: string) =>
    forbidden(`${qualifiedResource(a.group, a.resource)} "${a.name}" is forbidden: user "${user.username}" (groups=${JSON.stringify(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${detail}`,
      { name: a.name, group: a.group, kind: a.resource });
  const may = async (user: UserInfo, verb: string, resource: string, namespace: string, name: string) =>
    (await authorizer.authorize({ user, verb, isResourceRequest: true, path: '', apiGroup: rbacGroup, apiVersion: '', namespace, resource, subresource: '', name })).decision === 'Allow';

  return {
    name: 'RBACEscalationPrevention',
    operations: ['CREATE', 'UPDATE'],
    async validate(a) {
      if (a.group !== rbacGroup || a.subresource || !a.user || !a.object || a.user.groups.includes(privilegedGroup)) return;
      const user = a.user;
      const obj = a.object as ApiObject & { rules?: PolicyRule[]; aggregationRule?: unknown; roleRef?: { kind: string; name: string }; subjects?: unknown };
      const old = a.oldObject as typeof obj | undefined;
      if (a.resource === 'roles' || a.resource === 'clusterroles') {
        if (old && JSON.stringify(old.rules ?? []) === JSON.stringify(obj.rules ?? []) && JSON.stringify(old.aggregationRule) === JSON.stringify(obj.aggregationRule)) return;
        if (await may(user, 'escalate', a.resource, a.namespace, a.name)) return;
        const wanted = [...(obj.rules ?? []), ...(obj.aggregationRule ? [everything] : [])];
        const missing = uncovered(rbac.rulesOf(user, a.namespace), wanted);
        if (missing.length) throw refuse(a, user, missing.map(describeRule).join('\n'));
        return;
      }
      if (a.resource === 'rolebindings' || a.resource === 'clusterrolebindings') {
        const ref = obj.roleRef;
        if (!ref) return;
        if (old && JSON.stringify(old.roleRef) === JSON.stringify(ref) && JSON.stringify(old.subjects ?? []) === JSON.stringify(obj.subjects ?? [])) return;
        const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
        if (await may(user, 'bind', roleResource, ref.kind === 'ClusterRole' && a.resource === 'clusterrolebindings' ? '' : a.namespace, ref.name)) return;
        const role = ref.kind === 'ClusterRole' ? rbac.clusterRole(ref.name) : rbac.role(a.namespace, ref.name);
        if (!role) throw refuse(a, user, `${ref.kind.toLowerCase()}s.${rbacGroup} "${ref.name}" not found`);
        const missing = uncovered(rbac.rulesOf(user, a.namespace), role.rules ?? []);
        if (missing.length) throw refuse(a, user, missing.map(describeRule).join('\n'));
      }
    },
  };
}
