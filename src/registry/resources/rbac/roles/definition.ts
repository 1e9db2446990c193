// rbac.authorization/v1 roles.
import type { Role } from '../../../../api/types/rbac-v1.js';
import * as s from '../../../../api/schemas/rbac-v1.js';
import { define, only } from '../../define.js';
import { createdAt } from '../../columns.js';
import { roleStrategy } from './strategy.js';

export const definition = define<Role>({
  group: 'rbac.authorization', domainGroup: true, resource: 'roles', kind: 'Role', namespaced: true,
  versions: only('v1', s.role), strategy: roleStrategy(true), columns: [createdAt],
});
