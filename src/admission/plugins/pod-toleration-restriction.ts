// PodTolerationRestriction (alpha): a new pod takes its namespace's default tolerations (annotation
// scheduler.alpha.<domain>/defaultTolerations, else the configured cluster default), and a pod that is not
// best-effort tolerates memory pressure; then every toleration of the pod must fall within the namespace's
// allow-list (annotation scheduler.alpha.<domain>/tolerationsWhitelist, else the configured cluster one).
import { definePlugin } from '../types.js';
import { configError, typedConfig } from '../config.js';
import { isWriteOf, mergeTolerations, podContainers, podSpec, quantity, refuse, toleratesSuperset } from '../util.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { Toleration } from '../../api/types/core-v1.js';
import { notFound } from '../../api/status.js';

interface Configuration { default?: Toleration[]; whitelist?: Toleration[] }

const isTolerationList = (v: unknown): v is Toleration[] => Array.isArray(v) && v.every(t => t && typeof t === 'object');

export default definePlugin({
  name: 'PodTolerationRestriction',
  defaultOn: false,
  create: ({ config, listers, names }) => {
    const plugin = 'PodTolerationRestriction';
    const c = typedConfig<Configuration>(plugin, config, names, { kind: 'Configuration', group: 'podtolerationrestriction.admission', versions: ['v1alpha1'] }) ?? {};
    for (const k of ['default', 'whitelist'] as const)
      if (c[k] !== undefined && !isTolerationList(c[k])) throw configError(plugin, `${k} must be a list of tolerations`);
    const defaultsKey = `scheduler.alpha.${names.labelDomain}/defaultTolerations`;
    const allowKey = `scheduler.alpha.${names.labelDomain}/tolerationsWhitelist`;
    const memoryPressure: Toleration = { key: `node.${names.labelDomain}/memory-pressure`, operator: 'Exists', effect: 'NoSchedule' };

    /** the namespace's tolerations under an annotation, undefined when it sets none */
    async function namespaceTolerations(a: Readonly<AdmissionAttributes>, key: string): Promise<Toleration[] | undefined> {
      const ns = await listers.get('', 'namespaces', '', a.namespace);
      if (!ns) throw notFound('', 'namespaces', a.namespace);
      const text = ns.metadata.annotations?.[key];
      if (!text) return undefined;
      let parsed: unknown;
      try { parsed = JSON.parse(text); } catch (e) { throw refuse(a, `namespace ${a.namespace} annotation ${key}: ${(e as Error).message}`); }
      if (!isTolerationList(parsed)) throw refuse(a, `namespace ${a.namespace} annotation ${key}: must be a list of tolerations`);
      return parsed;
    }

    return {
      name: plugin,
      operations: ['CREATE', 'UPDATE'],
      async admit(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        const extra: Toleration[] = a.operation === 'CREATE' ? [...(await namespaceTolerations(a, defaultsKey) ?? c.default ?? [])] : [];
        // a pod with any CPU or memory request or limit is not best-effort, and may stay on a node short of memory
        const bestEffort = podContainers(spec).every(ct => ['cpu', 'memory'].every(r =>
          !(quantity(ct?.resources?.requests?.[r]) > 0) && !(quantity(ct?.resources?.limits?.[r]) > 0)));
        if (!bestEffort) extra.push(memoryPressure);
        if (extra.length) spec.tolerations = mergeTolerations(Array.isArray(spec.tolerations) ? spec.tolerations : [], extra);
      },
      async validate(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const tolerations = podSpec(a.object).tolerations ?? [];
        if (!tolerations.length) return;
        const own = await namespaceTolerations(a, allowKey);
        const allowList = own ?? c.whitelist ?? [];
        if (allowList.length && !tolerations.every(t => allowList.some(w => toleratesSuperset(w, t))))
          throw refuse(a, `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${own ? 'namespace' : 'cluster'} whitelist`);
      },
    };
  },
});
