// rbac.authorization/v1 role bindings.
import type { RoleBinding } from '../../../../api/types/rbac-v1.js';
import * as s from '../../../../api/schemas/rbac-v1.js';
import { define, only } from '../../define.js';
import { bindingColumns, bindingStrategy } from './strategy.js';

export const definition = define<RoleBinding>({
  group: 'rbac.authorization', domainGroup: true, resource: 'rolebindings', kind: 'RoleBinding', namespaced: true,
  versions: only('v1', s.roleBinding), strategy: bindingStrategy(true), columns: bindingColumns,
});
