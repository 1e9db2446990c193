// RuntimeClass: a pod that names a RuntimeClass takes the class's pod overhead and scheduling constraints
// (node selector and tolerations); a pod may not bring an overhead of its own.
import { isDeepStrictEqual } from 'node:util';
import { definePlugin } from '../types.js';
import type { Toleration } from '../../api/types/core-v1.js';
import type { RuntimeClass } from '../../api/types/node-v1.js';
import { isWriteOf, podSpec, refuse, type AdmittedPodSpec } from '../util.js';

export default definePlugin({
  name: 'RuntimeClass',
  defaultOn: true,
  create: ({ listers, names }) => {
    const group = names.group('node');
    const classOf = async (spec: AdmittedPodSpec) =>
      (spec.runtimeClassName ? await listers.get(group, 'runtimeclasses', '', spec.runtimeClassName) as Partial<RuntimeClass> | undefined : undefined);
    return {
      name: 'RuntimeClass',
      operations: ['CREATE'],
      resources: [['', 'pods']],
      async admit(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        const rc = await classOf(spec);
        if (!rc) return;
        if (rc.overhead?.podFixed) {
          if (spec.overhead && !isDeepStrictEqual(spec.overhead, rc.overhead.podFixed))
            throw refuse(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
          spec.overhead = structuredClone(rc.overhead.podFixed);
        }
        const scheduling = rc.scheduling;
        if (!scheduling) return;
        const selector = { ...(spec.nodeSelector ?? {}) };
        for (const [k, v] of Object.entries(scheduling.nodeSelector ?? {})) {
          if (k in selector && selector[k] !== v)
            throw refuse(a, `pod rejected: conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${selector[k]}`);
          selector[k] = v;
        }
        if (Object.keys(selector).length) spec.nodeSelector = selector;
        const tolerations: Toleration[] = [...(spec.tolerations ?? [])];
        for (const t of scheduling.tolerations ?? []) if (!tolerations.some(x => isDeepStrictEqual(x, t))) tolerations.push(structuredClone(t));
        if (tolerations.length) spec.tolerations = tolerations;
      },
      async validate(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        const rc = await classOf(spec);
        if (spec.runtimeClassName && !rc) throw refuse(a, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
        if (!rc?.overhead?.podFixed && spec.overhead) throw refuse(a, `pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`);
        if (rc?.overhead?.podFixed && !isDeepStrictEqual(spec.overhead, rc.overhead.podFixed))
          throw refuse(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      },
    };
  },
});
