// storage/v1 CSI storage capacities: what a storage class has left, by topology.
import type { CSIStorageCapacity } from '../../../../api/types/storage-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { define, only } from '../../define.js';
import { column } from '../../columns.js';

export const definition = define<CSIStorageCapacity>({
  group: 'storage', domainGroup: true, resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true,
  versions: only('v1', s.csiStorageCapacity),
  strategy: defineStrategy({ generation: false }),
  columns: [
    column('StorageClassName', 'string', o => o.storageClassName ?? '', 'Name of the StorageClass the capacity applies to.'),
    column('Capacity', 'string', o => (o.capacity === undefined ? '<unset>' : String(o.capacity)), 'The reported capacity.'),
  ],
});
