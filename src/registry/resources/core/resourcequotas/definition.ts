// core/v1 resource quotas (enforced by the ResourceQuota admission plugin, which keeps their status).
import type { ResourceQuota } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';

function quotaUsage(q: ResourceQuota, limits: boolean): string {
  const hard = q.status?.hard ?? {};
  const used = q.status?.used ?? {};
  return Object.keys(hard).sort()
    .filter(k => k.startsWith('limits.') === limits)
    .map(k => `${k}: ${used[k] ?? '0'}/${hard[k]}`).join(', ');
}

const columns: TableColumn<ResourceQuota>[] = [
  age,
  column('Request', 'string', o => quotaUsage(o, false), 'Request represents a minimum amount of cpu/memory that a container may consume.'),
  column('Limit', 'string', o => quotaUsage(o, true), 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
];

export const definition = define<ResourceQuota>({
  group: '', resource: 'resourcequotas', kind: 'ResourceQuota', shortNames: ['quota'], namespaced: true,
  versions: only('v1', s.resourceQuota), subresources: status, columns,
});
