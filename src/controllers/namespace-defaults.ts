// What every namespace holds from its first moment, as the reference's controller manager provides it: the
// `default` service account. (The reference also publishes a ConfigMap with the cluster's CA certificate in every
// namespace, which pods' token volumes mount; that is not done yet.)
import type { ApiObject } from '../api/meta.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Store } from '../registry/store.js';
import { noAdmission } from '../registry/store.js';
import type { ResourceCaches } from '../api/cache.js';

export interface NamespaceDefaultsDeps {
  resources: ApiResources;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store };
}

export function startNamespaceDefaults(deps: NamespaceDefaultsDeps, log: { warn(m: string): void }) {
  const { resources } = deps;
  const nsInfo = resources.lookup('', 'v1', 'namespaces')!;
  const cache = deps.caches.cache(nsInfo.keyPrefix);
  const wanted = (namespace: string): Array<[string, ApiObject]> => [
    ['serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } }],
  ];

  async function ensure(ns: ApiObject) {
    const namespace = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp) return;
    for (const [resource, obj] of wanted(namespace)) {
      const info = resources.lookup('', 'v1', resource);
      if (!info) continue;
      const { store } = deps.backendFor(info);
      try {
        await store.get(namespace, obj.metadata.name!);
      } catch {
        await store.create(namespace, structuredClone(obj), noAdmission, { dryRun: false }).catch(e => {
          // created meanwhile, or the namespace went away: nothing to do
          const code = (e as { code?: number }).code;
          if (code !== 409 && code !== 404 && code !== 403) log.warn(`namespace ${namespace}: creating ${resource}/${obj.metadata.name} failed: ${(e as Error).message}`);
        });
      }
    }
  }

  const unsubscribe = cache.subscribe({ send(ev) { if (ev.type === 'ADDED') void ensure(ev.cur.obj); }, end() {} });
  const ready = cache.ready.then(() => Promise.all(cache.snapshot(nsInfo.keyPrefix).map(i => ensure(i.obj))));
  return { ready, stop: unsubscribe };
}
