// PersistentVolumeClaimResize: a claim may grow only when bound and when its storage class allows expansion.
import { definePlugin } from '../types.js';
import type { ApiObject } from '../../api/meta.js';
import type { PersistentVolumeClaim } from '../../api/types/core-v1.js';
import type { StorageClass } from '../../api/types/storage-v1.js';
import { isWriteOf, quantity, refuse } from '../util.js';

const requested = (o: ApiObject | undefined) => quantity((o as PersistentVolumeClaim | undefined)?.spec?.resources?.requests?.storage);

export default definePlugin({
  name: 'PersistentVolumeClaimResize',
  defaultOn: true,
  create: ({ listers, names }) => ({
    name: 'PersistentVolumeClaimResize',
    operations: ['UPDATE'],
    resources: [['', 'persistentvolumeclaims']],
    async validate(a) {
      if (!isWriteOf(a, '', 'persistentvolumeclaims') || !a.oldObject) return;
      const pvc = a.object as PersistentVolumeClaim;
      if (requested(a.object) <= requested(a.oldObject)) return;
      if ((a.oldObject as PersistentVolumeClaim).status?.phase !== 'Bound') throw refuse(a, 'Only bound persistent volume claims can be expanded');
      const className = pvc.spec?.storageClassName;
      const sc = className ? await listers.get(names.group('storage'), 'storageclasses', '', className) : undefined;
      if ((sc as StorageClass | undefined)?.allowVolumeExpansion !== true)
        throw refuse(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    },
  }),
});
