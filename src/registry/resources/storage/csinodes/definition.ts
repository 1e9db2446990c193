// storage/v1 CSI nodes: the drivers registered on each node.
import type { CSINode } from '../../../../api/types/storage-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

export const definition = define<CSINode>({
  group: 'storage', domainGroup: true, resource: 'csinodes', kind: 'CSINode', namespaced: false, versions: only('v1', s.csiNode),
  strategy: defineStrategy({ generation: false }),
  columns: [column('Drivers', 'integer', o => (o.spec?.drivers ?? []).length, 'Drivers indicates the number of CSI drivers registered on the node'), age],
});
