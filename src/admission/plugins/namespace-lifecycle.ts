// NamespaceLifecycle: no new content in a namespace that does not exist or is being deleted, and the
// namespaces the system needs cannot be deleted.
import { definePlugin } from '../types.js';
import { forbidden, notFound } from '../../api/status.js';
import type { Namespace } from '../../api/types/core-v1.js';
import { refuse } from '../util.js';

/** how long after admitting a namespace's delete creates in it read storage, and how many such namespaces are kept
 *  (the reference's figures) */
const LIVE_LOOKUP_MS = 30_000;
const LIVE_LOOKUP_LIMIT = 100;

export default definePlugin({
  name: 'NamespaceLifecycle',
  defaultOn: true,
  create: ({ listers, names }) => {
    const immortal = new Set(['default', names.systemNamespace, names.publicNamespace]);
    /** namespaces whose delete this server admitted lately, by when: the watch cache may not show the delete yet (on
     *  etcd its event arrives a moment after the write is acknowledged), so a create in one reads storage */
    const deletedLately = new Map<string, number>();
    const remember = (name: string) => {
      deletedLately.delete(name);
      deletedLately.set(name, Date.now() + LIVE_LOOKUP_MS);
      for (const [oldest] of deletedLately) { if (deletedLately.size <= LIVE_LOOKUP_LIMIT) break; deletedLately.delete(oldest); }
    };
    const readFresh = (name: string) => {
      if ((deletedLately.get(name) ?? 0) > Date.now()) return true;
      deletedLately.delete(name);
      return false;
    };
    return {
      name: 'NamespaceLifecycle',
      operations: ['CREATE', 'DELETE'],
      async validate(a) {
        if (a.group === '' && a.resource === 'namespaces') {
          if (a.operation === 'DELETE' && immortal.has(a.name))
            throw forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, { name: a.name, kind: 'namespaces' });
          if (a.operation === 'DELETE') remember(a.name);
          return;
        }
        if (a.operation !== 'CREATE' || !a.namespace) return;
        // from the watch cache, as the reference reads its informer; storage when the cache does not hold it (created
        // a moment ago) or when this server deleted it lately
        const ns = await listers.get('', 'namespaces', '', a.namespace, readFresh(a.namespace));
        if (!ns) throw notFound('', 'namespaces', a.namespace);
        if (ns.metadata.deletionTimestamp || (ns as Namespace).status?.phase === 'Terminating') {
          const e = refuse(a, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
          // controllers recognise this refusal by its cause and stay quiet about it, as with the reference
          e.status.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }];
          throw e;
        }
      },
    };
  },
});
