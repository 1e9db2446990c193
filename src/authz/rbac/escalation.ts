// Escalation prevention: a role or binding may only be written by someone who already holds every permission
// it grants, or who may `escalate` (roles) or `bind` (bindings) the role in question. Runs as a validating
// admission step on the four RBAC resources, so dry runs are checked too. As in the reference, every write is
// checked, updates included, unless it changes only what the garbage collector changes (owners, finalizers).
import type { ApiObject } from '../../api/meta.js';
import type { RbacAuthorizer } from './authorizer.js';
import { compactRules, describeRule, uncovered } from './rules.js';
import { forbidden, notFound, qualifiedResource } from '../../api/status.js';
import { type Authorizer, type PolicyRule, type UserInfo, privilegedGroup } from '../../api/auth.js';
import type { AdmissionPlugin, AdmissionAttributes } from '../../api/admission.js';
import { aggregateText } from '../types.js';

/** what an aggregationRule needs: it can gather anything */
const fullAuthority: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];

type RbacObject = ApiObject & { rules?: PolicyRule[]; aggregationRule?: { clusterRoleSelectors?: unknown[] }; roleRef?: { kind: string; name: string } };

/** Go's %q of a string list: ["a" "b"] */
const goQuoted = (list: readonly string[]) => `[${list.map(s => JSON.stringify(s)).join(' ')}]`;

/** true when the update changes nothing but the fields the garbage collector writes */
function onlyGarbageCollectorFields(obj: ApiObject, old: ApiObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: ApiObject) => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, selfLink: _s, ...meta } = o.metadata as Record<string, unknown>;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

const hasAggregationRule = (o: RbacObject | undefined) => !!o?.aggregationRule?.clusterRoleSelectors?.length;

export function escalationCheck(rbacGroup: string, rbac: RbacAuthorizer, authorizer: Authorizer): AdmissionPlugin {
  const refuse = (a: Readonly<AdmissionAttributes>, message: string) =>
    forbidden(`${qualifiedResource(a.group, a.resource)} "${a.name}" is forbidden: ${message}`, { name: a.name, group: a.group, kind: a.resource });
  /** the missing permissions, compacted and sorted as the reference lists them, or '' when the user holds them all */
  const notHeld = (user: UserInfo, namespace: string, wanted: readonly PolicyRule[]) => {
    const held = rbac.rulesOf(user, namespace);
    const missing = uncovered(held.rules, wanted);
    if (!missing.length) return '';
    const lines = [...new Set(compactRules(missing).map(describeRule))].sort();
    return `user ${JSON.stringify(user.username)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`
      // the roles are looked up in storage here, so the errors name the resources as storage does
      + (held.missing.length ? `; resolution errors: [${aggregateText(held.missing.map(m => `${m.kind.toLowerCase()}s.${rbacGroup} "${m.name}" not found`))}]` : '');
  };
  const may = async (user: UserInfo, verb: string, resource: string, namespace: string, name: string) =>
    (await authorizer.authorize({ user, verb, isResourceRequest: true, path: '', apiGroup: rbacGroup, apiVersion: '*', namespace, resource, subresource: '', name })).decision === 'Allow';
  return {
    name: 'RBACEscalationPrevention',
    operations: ['CREATE', 'UPDATE'],
    async validate(a) {
      if (a.group !== rbacGroup || a.subresource || !a.user || !a.object || a.user.groups.includes(privilegedGroup)) return;
      const user = a.user;
      const obj = a.object as RbacObject;
      const old = a.oldObject as RbacObject | undefined;
      if (a.operation === 'UPDATE' && onlyGarbageCollectorFields(obj, old)) return;
      if (a.resource === 'roles' || a.resource === 'clusterroles') {
        // the reference asks with the name of the request's path, which a create does not have
        if (await may(user, 'escalate', a.resource, a.namespace, a.operation === 'CREATE' ? '' : a.name)) return;
        const detail = notHeld(user, a.namespace, obj.rules ?? []);
        if (detail) throw refuse(a, detail);
        if ((hasAggregationRule(obj) || (a.operation === 'UPDATE' && hasAggregationRule(old))) && notHeld(user, a.namespace, fullAuthority))
          throw refuse(a, 'must have cluster-admin privileges to use the aggregationRule');
        return;
      }
      if (a.resource === 'rolebindings' || a.resource === 'clusterrolebindings') {
        const ref = obj.roleRef;
        if (!ref) return;
        const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
        if (await may(user, 'bind', roleResource, a.namespace, ref.name)) return;
        const role = ref.kind === 'ClusterRole' ? rbac.clusterRole(ref.name) : rbac.role(a.namespace, ref.name);
        // the reference passes the lookup's own error on: the referenced role is not found
        if (!role) throw notFound(rbacGroup, roleResource, ref.name);
        const detail = notHeld(user, a.namespace, role.rules ?? []);
        if (detail) throw refuse(a, detail);
      }
    },
  };
}
