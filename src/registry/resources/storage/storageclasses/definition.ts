// storage/v1 storage classes.
import type { StorageClass } from '../../../../api/types/storage-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

export const definition = define<StorageClass>({
  group: 'storage', domainGroup: true, resource: 'storageclasses', kind: 'StorageClass', shortNames: ['sc'], namespaced: false,
  versions: only('v1', s.storageClass),
  columns: [
    column('Provisioner', 'string', o => o.provisioner ?? '', 'Indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', o => o.reclaimPolicy ?? 'Delete', 'Indicates the type of the reclaim policy.'),
    column('VolumeBindingMode', 'string', o => o.volumeBindingMode ?? 'Immediate', 'Indicates how PersistentVolumeClaims should be bound.'),
    column('AllowVolumeExpansion', 'string', o => o.allowVolumeExpansion ?? false, 'Indicates whether the storage class allow volume expand.'),
    age,
  ],
});
