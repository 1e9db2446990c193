// DefaultStorageClass: a new claim that names no class gets the default StorageClass; several defaults are a
// misconfiguration the server refuses to guess around, so claims that would need one are refused until it is fixed.
import { definePlugin } from '../types.js';
import type { Stored } from '../../api/meta.js';
import type { PersistentVolumeClaim } from '../../api/types/core-v1.js';
import { isWriteOf, refuse } from '../util.js';

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
        if (defaults.length > 1) throw refuse(a, `${defaults.length} default StorageClasses were found`);
        if (defaults.length === 1) pvc.spec.storageClassName = defaults[0]!.metadata.name;
      },
    };
  },
});
