// NamespaceExists: a namespaced write names a namespace that exists.
import { definePlugin } from '../types.js';
import { notFound } from '../../api/status.js';

export default definePlugin({
  name: 'NamespaceExists',
  defaultOn: false,
  create: ({ listers }) => ({
    name: 'NamespaceExists',
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    async validate(a) {
      if (!a.namespace || (a.group === '' && a.resource === 'namespaces')) return;
      if (!await listers.get('', 'namespaces', '', a.namespace, { cached: true })) throw notFound('', 'namespaces', a.namespace);
    },
  }),
});
