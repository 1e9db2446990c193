// rbac.authorization/v1 cluster role bindings.
import type { ClusterRoleBinding } from '../../../../api/types/rbac-v1.js';
import * as s from '../../../../api/schemas/rbac-v1.js';
import { define, only } from '../../define.js';
import { bindingColumns, bindingStrategy } from '../rolebindings/strategy.js';

export const definition = define<ClusterRoleBinding>({
  group: 'rbac.authorization', domainGroup: true, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false,
  versions: only('v1', s.clusterRoleBinding), strategy: bindingStrategy(false), columns: bindingColumns,
});
