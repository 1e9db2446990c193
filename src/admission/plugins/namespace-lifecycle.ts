// NamespaceLifecycle: no new content in a namespace that does not exist or is being deleted, and the
// namespaces the system needs cannot be deleted.
import { definePlugin } from '../types.js';
import { forbidden, notFound } from '../../api/status.js';
import type { Namespace } from '../../api/types/core-v1.js';

export default definePlugin({
  name: 'NamespaceLifecycle',
  defaultOn: true,
  create: ({ listers, names }) => {
    const immortal = new Set(['default', names.systemNamespace, names.publicNamespace]);
    return {
      name: 'NamespaceLifecycle',
      operations: ['CREATE', 'DELETE'],
      async validate(a) {
        if (a.group === '' && a.resource === 'namespaces') {
          if (a.operation === 'DELETE' && immortal.has(a.name))
            throw forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, { name: a.name, kind: 'namespaces' });
          return;
        }
        if (a.operation !== 'CREATE' || !a.namespace) return;
        // read fresh: a create just after the namespace's delete must be refused, and the watch cache may not have
        // seen that delete yet (on etcd its events arrive a moment after the write is acknowledged)
        const ns = await listers.get('', 'namespaces', '', a.namespace, true);
        if (!ns) throw notFound('', 'namespaces', a.namespace);
        if (ns.metadata.deletionTimestamp || (ns as Namespace).status?.phase === 'Terminating')
          throw forbidden(`${a.resource} "${a.name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`,
            { name: a.name, group: a.group || undefined, kind: a.resource });
      },
    };
  },
});
