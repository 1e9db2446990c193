// core/v1 component statuses (deprecated upstream; listed, never written).
import type { ComponentStatus } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only } from '../../define.js';
import { column, conditionOf } from '../../columns.js';

const healthy = (o: ComponentStatus) => conditionOf(o.conditions, 'Healthy');

const columns: TableColumn<ComponentStatus>[] = [
  column('Status', 'string', o => {
    const c = healthy(o);
    return !c ? 'Unknown' : c.status === 'True' ? 'Healthy' : 'Unhealthy';
  }, 'Status of the component conditions'),
  column('Message', 'string', o => healthy(o)?.message ?? '', 'Message of the component conditions'),
  column('Error', 'string', o => healthy(o)?.error ?? '', 'Error of the component conditions'),
];

export const definition = define<ComponentStatus>({
  group: '', resource: 'componentstatuses', kind: 'ComponentStatus', shortNames: ['cs'], namespaced: false,
  verbs: ['get', 'list'], versions: only('v1', s.componentStatus), columns,
});
