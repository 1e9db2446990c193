// PersistentVolumeClaimResize: a claim may grow only when bound and when its storage class allows expansion.
import { definePlugin } from '../types.js';
import { isWriteOf, quantity, refuse } from '../util.js';

const requested = (o: any) => quantity(o?.spec?.resources?.requests?.storage);

export default definePlugin({
  name: 'PersistentVolumeClaimResize',
  defaultOn: true,
  create: ({ listers, names }) => ({
    name: 'PersistentVolumeClaimResize',
    operations: ['UPDATE'],
    async validate(a) {
      if (!isWriteOf(a, '', 'persistentvolumeclaims') || !a.oldObject) return;
      const pvc = a.object as any;
      if (requested(pvc) <= requested(a.oldObject)) return;
      if ((a.oldObject as any).status?.phase !== 'Bound') throw refuse(a, 'Only bound persistent volume claims can be expanded');
      const className = pvc.spec?.storageClassName;
      const sc = className ? await listers.get(names.group('storage'), 'storageclasses', '', className) : undefined;
      if ((sc as any)?.allowVolumeExpansion !== true)
        throw refuse(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    },
  }),
});
