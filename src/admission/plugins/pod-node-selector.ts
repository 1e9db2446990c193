// PodNodeSelector (alpha): a namespace's node selector (annotation scheduler.alpha.<domain>/node-selector, or
// else the configured clusterDefaultNodeSelector) is merged into the node selector of each new pod in it; a pod
// whose selector contradicts it is refused, and so is one whose selector goes outside the selectors configured
// for its namespace (podNodeSelectorPluginConfig: { clusterDefaultNodeSelector, <namespace>: <allowed> }).
import { definePlugin } from '../types.js';
import { configError, keyedConfig } from '../config.js';
import { isWriteOf, labelConflicts, labelMap, podSpec, refuse } from '../util.js';
import type { AdmissionAttributes, Listers } from '../../api/admission.js';
import { notFound } from '../../api/status.js';

type Selectors = Record<string, string>;

export default definePlugin({
  name: 'PodNodeSelector',
  defaultOn: false,
  create: ({ config, listers, names }) => {
    const plugin = 'PodNodeSelector';
    const configured = keyedConfig<Selectors>(plugin, config, 'podNodeSelectorPluginConfig') ?? {};
    const allowed = new Map<string, Record<string, string>>();
    for (const [k, v] of Object.entries(configured)) {
      try { allowed.set(k, labelMap(String(v))); } catch (e) { throw configError(plugin, `podNodeSelectorPluginConfig.${k}: ${(e as Error).message}`); }
    }
    const annotation = `scheduler.alpha.${names.labelDomain}/node-selector`;

    /** the namespace's selector: its annotation, else the cluster default */
    async function namespaceSelector(listers: Listers, a: Readonly<AdmissionAttributes>) {
      const ns = await listers.get('', 'namespaces', '', a.namespace);
      if (!ns) throw notFound('', 'namespaces', a.namespace);
      const own = ns.metadata.annotations?.[annotation];
      if (own === undefined) return allowed.get('clusterDefaultNodeSelector') ?? {};
      try { return labelMap(own); } catch (e) { throw refuse(a, `${a.namespace} annotation ${annotation}: ${(e as Error).message}`); }
    }

    const checked = async (a: Readonly<AdmissionAttributes>) => {
      const selector = await namespaceSelector(listers, a);
      if (labelConflicts(selector, podSpec(a.object).nodeSelector ?? {})) throw refuse(a, 'pod node label selector conflicts with its namespace node label selector');
      return selector;
    };

    return {
      name: plugin,
      operations: ['CREATE'],
      async admit(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        const selector = await checked(a);
        const spec = podSpec(a.object);
        const merged = { ...selector, ...spec.nodeSelector };
        if (Object.keys(merged).length) spec.nodeSelector = merged;
      },
      async validate(a) {
        if (!isWriteOf(a, '', 'pods')) return;
        await checked(a);
        const whitelist = allowed.get(a.namespace) ?? {};
        const own = podSpec(a.object).nodeSelector ?? {};
        if (Object.keys(whitelist).length && Object.entries(own).some(([k, v]) => whitelist[k] !== v))
          throw refuse(a, 'pod node label selector labels conflict with its namespace whitelist');
      },
    };
  },
});
