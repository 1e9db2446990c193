// core/v1 namespaces.
import type { Namespace } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only, statusSubresource } from '../../define.js';
import { age, column } from '../../columns.js';
import { strategy } from './strategy.js';

const columns: TableColumn<Namespace>[] = [
  column('Status', 'string', o => o.status?.phase ?? '', 'The status of the namespace'),
  age,
];

export const definition = define<Namespace>({
  group: '', resource: 'namespaces', kind: 'Namespace', shortNames: ['ns'], namespaced: false,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  versions: only('v1', s.namespace),
  subresources: { finalize: { verbs: ['update'], changes: [['spec', 'finalizers']] }, status: statusSubresource },
  strategy, columns,
});
