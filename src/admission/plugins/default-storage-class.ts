// DefaultStorageClass: a new claim that names no class gets the default StorageClass; when several classes are
// marked default, the newest of them (the first by name among those made in the same second), as the reference.
import { definePlugin } from '../types.js';
import type { Stored } from '../../api/meta.js';
import type { PersistentVolumeClaim } from '../../api/types/core-v1.js';
import { isWriteOf } from '../util.js';

export default definePlugin({
  name: 'DefaultStorageClass',
  defaultOn: true,
  create: ({ listers, names }) => {
    const isDefault = [`storageclass.${names.labelDomain}/is-default-class`, `storageclass.beta.${names.labelDomain}/is-default-class`];
    const betaClass = `volume.beta.${names.labelDomain}/storage-class`;
    return {
      name: 'DefaultStorageClass',
      operations: ['CREATE'],
      resources: [['', 'persistentvolumeclaims']],
      async admit(a) {
        if (!isWriteOf(a, '', 'persistentvolumeclaims')) return;
        const pvc = a.object as Stored<PersistentVolumeClaim>;
        pvc.spec ??= {};
        if (pvc.spec.storageClassName != null || pvc.metadata.annotations?.[betaClass] !== undefined) return;
        const defaults = (await listers.list(names.group('storage'), 'storageclasses', ''))
          .filter(c => isDefault.some(k => c.metadata.annotations?.[k] === 'true'));
        const newest = defaults.sort((x, y) => Date.parse(y.metadata.creationTimestamp ?? '') - Date.parse(x.metadata.creationTimestamp ?? '')
          || (x.metadata.name! < y.metadata.name! ? -1 : 1))[0];
        if (newest) pvc.spec.storageClassName = newest.metadata.name;
      },
    };
  },
});
