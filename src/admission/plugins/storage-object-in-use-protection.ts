// StorageObjectInUseProtection: new claims and volumes carry a finalizer, so one in use by a pod is not
// removed until the protection controller sees it is free.
import { definePlugin } from '../types.js';
import { isWriteOf } from '../util.js';

export default definePlugin({
  name: 'StorageObjectInUseProtection',
  defaultOn: true,
  create: ({ names }) => {
    const finalizers: Record<string, string> = {
      persistentvolumeclaims: names.label('pvc-protection'), persistentvolumes: names.label('pv-protection'),
    };
    return {
      name: 'StorageObjectInUseProtection',
      operations: ['CREATE'],
      resources: Object.keys(finalizers).map(r => ['', r] as const),
      admit(a) {
        const finalizer = finalizers[a.resource];
        if (!finalizer || !isWriteOf(a, '', a.resource)) return;
        const m = a.object!.metadata;
        if (!(m.finalizers ?? []).includes(finalizer)) m.finalizers = [...(m.finalizers ?? []), finalizer];
      },
    };
  },
});
