// DefaultIngressClass: a new Ingress that names no class gets the default IngressClass; when several classes are
// marked default, the newest of them (the first by name among those made in the same second), as the reference
// does since 1.25.
import { definePlugin } from '../types.js';
import type { ApiObject, Stored } from '../../api/meta.js';
import type { Ingress } from '../../api/types/networking-v1.js';
import { isWriteOf } from '../util.js';

export default definePlugin({
  name: 'DefaultIngressClass',
  defaultOn: true,
  create: ({ listers, names }) => {
    const group = names.group('networking');
    const isDefault = `ingressclass.${names.labelDomain}/is-default-class`;
    const legacyClass = `${names.labelDomain}/ingress.class`;
    return {
      name: 'DefaultIngressClass',
      operations: ['CREATE'],
      resources: [[group, 'ingresses']],
      async admit(a) {
        if (!isWriteOf(a, group, 'ingresses')) return;
        const ing = a.object as Stored<Ingress>;
        ing.spec ??= {};
        if (ing.spec.ingressClassName != null || ing.metadata.annotations?.[legacyClass] !== undefined) return;
        const defaults = (await listers.list(group, 'ingressclasses', '')).filter(c => c.metadata.annotations?.[isDefault] === 'true');
        const created = (c: ApiObject) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
        const newest = defaults.sort((x, y) => created(y) - created(x) || (x.metadata.name ?? '').localeCompare(y.metadata.name ?? ''))[0];
        if (newest) ing.spec.ingressClassName = newest.metadata.name;
      },
    };
  },
});
