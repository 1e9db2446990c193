// NamespaceAutoProvision: creating an object in a namespace that does not exist creates the namespace first.
import { definePlugin } from '../types.js';
import { refuse } from '../util.js';

export default definePlugin({
  name: 'NamespaceAutoProvision',
  defaultOn: false,
  create: ({ listers, writers }) => ({
    name: 'NamespaceAutoProvision',
    operations: ['CREATE'],
    async admit(a) {
      // a dry run must leave nothing behind, the namespace included
      if (!a.namespace || (a.group === '' && a.resource === 'namespaces') || a.dryRun) return;
      if (await listers.get('', 'namespaces', '', a.namespace)) return;
      try {
        await writers.create('', 'namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } });
      } catch (e) {
        if ((e as { code?: number }).code !== 409) throw refuse(a, (e as Error).message);
      }
    },
  }),
});
