// rbac.authorization/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/rbac-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

const group = { group: 'rbac.authorization', domainGroup: true };

export const rbacResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false,
    versions: only('v1', s.clusterRoleBinding), columns: c.bindingColumns,
  }),
  define({
    ...group, resource: 'clusterroles', kind: 'ClusterRole', namespaced: false,
    versions: only('v1', s.clusterRole), columns: c.roleColumns,
  }),
  define({
    ...group, resource: 'rolebindings', kind: 'RoleBinding', namespaced: true,
    versions: only('v1', s.roleBinding), columns: c.bindingColumns,
  }),
  define({
    ...group, resource: 'roles', kind: 'Role', namespaced: true, versions: only('v1', s.role), columns: c.roleColumns,
  }),
];
