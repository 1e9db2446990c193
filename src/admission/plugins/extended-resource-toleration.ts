// ExtendedResourceToleration: a pod that requests an extended resource (a qualified name outside the vendor's
// domains, such as example.com/gpu) tolerates the NoSchedule taint named after it, so nodes that carry that
// resource can keep other pods off with a taint of the same name.
import { isDeepStrictEqual } from 'node:util';
import { definePlugin } from '../types.js';
import type { Toleration } from '../../api/types/core-v1.js';
import { qualifiedNameErrors } from '../../api/selectors.js';
import { isWriteOf, podContainers, podSpec } from '../util.js';
import type { Naming } from '../../api/naming.js';

/** a resource name that is neither native (unqualified, or under the vendor's domain) nor a quota name */
export function isExtendedResource(name: string, names: Naming): boolean {
  if (!name.includes('/') || name.includes(`${names.labelDomain}/`) || name.startsWith('requests.')) return false;
  return qualifiedNameErrors(`requests.${name}`).length === 0;
}

/** adds the toleration unless one with the same key, operator, value and effect is there (which it replaces) */
function addOrUpdate(tolerations: Toleration[], t: Toleration): Toleration[] {
  const same = (x: Toleration) => x?.key === t.key && (x.operator || 'Equal') === t.operator && (x.value ?? '') === (t.value ?? '') && x.effect === t.effect;
  const i = tolerations.findIndex(same);
  if (i < 0) return [...tolerations, t];
  if (isDeepStrictEqual(tolerations[i], t)) return tolerations;
  return tolerations.map((x, j) => (j === i ? t : x));
}

export default definePlugin({
  name: 'ExtendedResourceToleration',
  defaultOn: false,
  create: ({ names }) => ({
    name: 'ExtendedResourceToleration',
    operations: ['CREATE', 'UPDATE'],
    admit(a) {
      if (!isWriteOf(a, '', 'pods')) return;
      const spec = podSpec(a.object);
      const extended = new Set<string>();
      for (const c of podContainers(spec))
        for (const r of Object.keys(c?.resources?.requests ?? {})) if (isExtendedResource(r, names)) extended.add(r);
      if (!extended.size) return;
      let tolerations: Toleration[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      for (const key of [...extended].sort()) tolerations = addOrUpdate(tolerations, { key, operator: 'Exists', effect: 'NoSchedule' });
      spec.tolerations = tolerations;
    },
  }),
});
