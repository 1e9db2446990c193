// The root-CA publisher: every namespace that is not being deleted has the ConfigMap `<prefix>-root-ca.crt`
// holding the cluster's CA bundle under `ca.crt`, which every pod's projected service-account volume reads.
// A deleted or altered copy is put back.
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest-client.js';
import { readyWhen, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { ConfigMap } from './types.js';

const dataKey = 'ca.crt';

export const rootCaPublisher: Controller = {
  name: 'root-ca-cert-publisher',
  component: 'root-ca-cert-publisher',
  start(ctx) {
    const bundle = ctx.settings.rootCaPem;
    if (!bundle) { ctx.log.info('root-ca-cert-publisher: no CA bundle (--root-ca-file) to publish'); return; }
    const name = ctx.names.rootCAConfigMap;
    const description = `Contains a CA bundle that can be used to verify the ${ctx.names.vendor}-apiserver when using internal endpoints such as the internal service IP or ${ctx.names.vendor}.default.svc. No other usage is guaranteed across distributions of ${ctx.names.vendor} clusters.`;
    const descriptionKey = `${ctx.names.labelDomain}/description`;
    const namespaces = ctx.informers.informer(ctx.refs.namespaces);
    const configMaps = ctx.informers.informer(ctx.refs.configMaps, { fieldSelector: `metadata.name=${name}` });
    const queue = startQueue(ctx, async (namespace) => {
      const ns = namespaces.get(namespace);
      if (!ns || ns.metadata.deletionTimestamp) return;
      const current = configMaps.get(`${namespace}/${name}`);
      const client = ctx.client.resource(ctx.refs.configMaps, namespace);
      try {
        if (!current) {
          await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations: { [descriptionKey]: description } }, data: { [dataKey]: bundle } });
        } else if (current.data?.[dataKey] !== bundle || current.metadata.annotations?.[descriptionKey] !== description) {
          await client.update({
            ...current, data: { ...current.data, [dataKey]: bundle },
            metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [descriptionKey]: description } },
          } as ConfigMap);
        }
      } catch (e) {
        // a stale cache (the informer brings the newer state and another pass), or a namespace on its way out
        if (isConflict(e) || isAlreadyExists(e)) { queue.addAfter(namespace, 100); return; }
        if (!isNotFound(e) && (e as { code?: number }).code !== 403) throw e;
      }
    });
    namespaces.addHandler({ added: (ns) => queue.add(ns.metadata.name!), updated: (_, ns) => queue.add(ns.metadata.name!) });
    configMaps.addHandler({ updated: (_, cm) => queue.add(cm.metadata.namespace!), deleted: (cm) => queue.add(cm.metadata.namespace!) });
    // ready once every namespace known at start has its copy
    const ready = readyWhen(ctx, () => !namespaces.list().some((ns) => !ns.metadata.deletionTimestamp && !configMaps.get(`${ns.metadata.name}/${name}`)));
    return { ready };
  },
};
