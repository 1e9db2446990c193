// DefaultStorageClass: a new claim that names no class gets the default StorageClass; when several classes are
// marked default, the newest of them (the first by name among those made in the same second), as the reference.
import { definePlugin } from '../types.js';
import type { Stored } from '../../api/meta.js';
import type { PersistentVolumeClaim } from '../../api/types/core-v1.js';
import { claimNamesClass, defaultClass, volumeAnnotations, type StorageClass } from '../../api/volumes.js';
import { isWriteOf } from '../util.js';

export default definePlugin({
  name: 'DefaultStorageClass',
  defaultOn: true,
  create: ({ listers, names }) => {
    const annotations = volumeAnnotations(names);
    return {
      name: 'DefaultStorageClass',
      operations: ['CREATE'],
      resources: [['', 'persistentvolumeclaims']],
      async admit(a) {
        if (!isWriteOf(a, '', 'persistentvolumeclaims')) return;
        const pvc = a.object as Stored<PersistentVolumeClaim>;
        pvc.spec ??= {};
        if (claimNamesClass(pvc, annotations)) return;
        const classes = await listers.list(names.group('storage'), 'storageclasses', '') as unknown as StorageClass[];
        const chosen = defaultClass(classes, annotations);
        if (chosen) pvc.spec.storageClassName = chosen.metadata.name;
      },
    };
  },
});
