// Role bindings and cluster role bindings: a role and the subjects it is granted to; the role never changes.
import type { Stored } from '../../../../api/meta.js';
import type { ClusterRoleBinding, RoleBinding } from '../../../../api/types/rbac-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, dnsSubdomain, invalid, notSupported, required, sameJson } from '../../../validation/fields.js';
import { age, column, wide } from '../../columns.js';
import { nameProblems } from '../../../validation/object-meta.js';
import { rbacStrategy } from '../roles/strategy.js';

type Binding = RoleBinding | ClusterRoleBinding;

const subjectKinds = ['Group', 'ServiceAccount', 'User'];

function validateBinding(b: Binding, namespaced: boolean, rbacGroup: string): Causes {
  const out: Causes = [];
  const ref = b.roleRef;
  const kinds = namespaced ? ['ClusterRole', 'Role'] : ['ClusterRole'];
  // roles of other groups are not supported (the reference's restriction too)
  if (ref?.apiGroup !== rbacGroup) out.push(notSupported('roleRef.apiGroup', ref?.apiGroup ?? '', [rbacGroup]));
  if (!ref?.kind) out.push(required('roleRef.kind'));
  else if (!kinds.includes(ref.kind)) out.push(notSupported('roleRef.kind', ref.kind, kinds));
  if (!ref?.name) out.push(required('roleRef.name'));
  else for (const problem of nameProblems(ref.name, 'path-segment')) out.push(invalid('roleRef.name', ref.name, problem));
  for (const [i, s] of (b.subjects ?? []).entries()) {
    const at = `subjects[${i}]`;
    if (!s?.name) out.push(required(`${at}.name`));
    if (!subjectKinds.includes(s?.kind)) { out.push(notSupported(`${at}.kind`, s?.kind ?? '', subjectKinds)); continue; }
    if (s.kind === 'ServiceAccount') {
      if (s.name) out.push(...dnsSubdomain(`${at}.name`, s.name));
      if (s.apiGroup) out.push(notSupported(`${at}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) out.push(required(`${at}.namespace`));
    } else if (s.apiGroup !== rbacGroup) out.push(notSupported(`${at}.apiGroup`, s.apiGroup ?? '', [rbacGroup]));
  }
  return out;
}

/** the reference's defaults: the role's group, and the RBAC group for users and groups (service accounts are core) */
function defaultBinding(b: Binding, rbacGroup: string) {
  if (b.roleRef && typeof b.roleRef === 'object' && !b.roleRef.apiGroup) b.roleRef.apiGroup = rbacGroup;
  for (const s of Array.isArray(b.subjects) ? b.subjects : []) {
    if (s && typeof s === 'object' && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = rbacGroup;
  }
}

const roleRefFixed = (b: Binding, old: Binding): Causes => (sameJson(b.roleRef, old.roleRef) ? [] : [invalid('roleRef', b.roleRef, 'cannot change roleRef')]);

/** the strategy of role bindings (namespaced) and cluster role bindings */
export function bindingStrategy(namespaced: boolean) {
  return defineStrategy<Stored<Binding>>({
    ...rbacStrategy,
    defaults: (b, { names }) => defaultBinding(b, names.group('rbac.authorization')),
    validate: (b, { names }) => validateBinding(b, namespaced, names.group('rbac.authorization')),
    validateUpdate: (b, old, { names }) => [...validateBinding(b, namespaced, names.group('rbac.authorization')), ...roleRefFixed(b, old)],
  });
}

function subjectsOf(b: Binding, kind: string): string {
  return (b.subjects ?? []).filter(s => s.kind === kind)
    .map(s => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name)).join(', ');
}

export const bindingColumns: TableColumn<Binding>[] = [
  column('Role', 'string', o => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`, 'Role or ClusterRole of the binding.'),
  age,
  wide('Users', 'string', o => subjectsOf(o, 'User'), 'Users in the binding'),
  wide('Groups', 'string', o => subjectsOf(o, 'Group'), 'Groups in the binding'),
  wide('ServiceAccounts', 'string', o => subjectsOf(o, 'ServiceAccount'), 'ServiceAccounts in the binding'),
];
