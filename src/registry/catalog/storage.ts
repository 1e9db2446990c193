// storage/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/storage-v1.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

const group = { group: 'storage', domainGroup: true };

export const storageResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'csidrivers', kind: 'CSIDriver', namespaced: false, versions: only('v1', s.csiDriver),
    columns: [
      c.column('AttachRequired', 'boolean', o => o.spec?.attachRequired ?? true, 'Indicates this CSI volume driver requires an attach operation.'),
      c.column('PodInfoOnMount', 'boolean', o => o.spec?.podInfoOnMount ?? false, 'Indicates this CSI volume driver requires additional pod information during mount operations.'),
      c.column('StorageCapacity', 'boolean', o => o.spec?.storageCapacity ?? false, 'Indicates this CSI volume driver exposes storage capacity.'),
      c.column('TokenRequests', 'string', o => (o.spec?.tokenRequests ?? []).map((t: any) => t.audience || '<api-server-default>').join(',') || '<unset>', 'Indicates the CSIDriver wants pods\' service account tokens.'),
      c.column('RequiresRepublish', 'boolean', o => o.spec?.requiresRepublish ?? false, 'Indicates this CSI volume driver requires periodic NodePublishVolume calls.'),
      c.column('Modes', 'string', o => (o.spec?.volumeLifecycleModes ?? ['Persistent']).join(','), 'Volume lifecycle modes supported by the driver.'),
      c.age,
    ],
  }),
  define({
    ...group, resource: 'csinodes', kind: 'CSINode', namespaced: false, versions: only('v1', s.csiNode),
    columns: [c.column('Drivers', 'integer', o => (o.spec?.drivers ?? []).length, 'Drivers indicates the number of CSI drivers registered on the node'), c.age],
  }),
  define({
    ...group, resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true,
    versions: only('v1', s.csiStorageCapacity),
    columns: [
      c.column('StorageClassName', 'string', o => o.storageClassName ?? '', 'Name of the StorageClass the capacity applies to.'),
      c.column('Capacity', 'string', o => (o.capacity === undefined ? '<unset>' : String(o.capacity)), 'The reported capacity.'),
    ],
  }),
  define({
    ...group, resource: 'storageclasses', kind: 'StorageClass', shortNames: ['sc'], namespaced: false,
    versions: only('v1', s.storageClass), columns: c.storageClassColumns,
  }),
  define({
    ...group, resource: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false,
    versions: only('v1', s.volumeAttachment), subresources: status, columns: c.volumeAttachmentColumns,
  }),
];
