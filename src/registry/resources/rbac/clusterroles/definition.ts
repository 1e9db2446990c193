// rbac.authorization/v1 cluster roles.
import type { ClusterRole } from '../../../../api/types/rbac-v1.js';
import * as s from '../../../../api/schemas/rbac-v1.js';
import { define, only } from '../../define.js';
import { createdAt } from '../../columns.js';
import { roleStrategy } from '../roles/strategy.js';

export const definition = define<ClusterRole>({
  group: 'rbac.authorization', domainGroup: true, resource: 'clusterroles', kind: 'ClusterRole', namespaced: false,
  versions: only('v1', s.clusterRole), strategy: roleStrategy(false), columns: [createdAt],
});
