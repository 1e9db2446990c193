// DefaultIngressClass: a new Ingress that names no class gets the default IngressClass; several defaults
// are a misconfiguration the reference refuses to guess around.
import { definePlugin } from '../types.js';
import type { Stored } from '../../api/meta.js';
import type { Ingress } from '../../api/types/networking-v1.js';
import { isWriteOf, refuse } from '../util.js';

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
        if (defaults.length > 1) throw refuse(a, `${defaults.length} default IngressClasses were found, only 1 allowed`);
        if (defaults.length === 1) ing.spec.ingressClassName = defaults[0]!.metadata.name;
      },
    };
  },
});
