// DefaultStorageClass: a new claim that names no class gets the default one; with several defaults the
// newest wins (the reference's behaviour since it stopped refusing such claims).
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
      async admit(a) {
        if (!isWriteOf(a, '', 'persistentvolumeclaims')) return;
        const pvc = a.object as Stored<PersistentVolumeClaim>;
        pvc.spec ??= {};
        if (pvc.spec.storageClassName != null || pvc.metadata.annotations?.[betaClass] !== undefined) return;
        const defaults = (await listers.list(names.group('storage'), 'storageclasses', ''))
          .filter(c => isDefault.some(k => c.metadata.annotations?.[k] === 'true'))
          .sort((x, y) => String(y.metadata.creationTimestamp).localeCompare(String(x.metadata.creationTimestamp))
            || String(x.metadata.name).localeCompare(String(y.metadata.name)));
        if (defaults.length) pvc.spec.storageClassName = defaults[0]!.metadata.name;
      },
    };
  },
});
