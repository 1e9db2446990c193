// Finishes namespace deletion inside the server: once a namespace is terminating, every namespaced object
// in it is deleted, then the namespace's own finalizer is removed so the namespace goes.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Store } from '../registry/store.js';
import type { Reads } from '../registry/reads.js';
import { noAdmission } from '../registry/store.js';
import type { ResourceCaches } from '../api/cache.js';

export interface NamespaceFinalizerDeps {
  resources: ApiResources;
  names: Naming;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store; reads: Reads };
}

const retryMs = 1000;

export function startNamespaceFinalizer(deps: NamespaceFinalizerDeps, log: { warn(m: string): void }) {
  const { resources, names } = deps;
  const nsInfo = resources.lookup('', 'v1', 'namespaces')!;
  const cache = deps.caches.cache(nsInfo.keyPrefix);
  const working = new Set<string>();
  let stopped = false;

  const terminating = (ns: ApiObject) =>
    !!ns.metadata.deletionTimestamp && ((ns as any).spec?.finalizers ?? []).includes(names.vendor);

  async function finalize(name: string) {
    if (working.has(name) || stopped) return;
    working.add(name);
    try {
      let remaining = 0;
      const seen = new Set<string>();
      for (const info of resources.all()) {
        const key = `${info.group}/${info.resource}`;
        if (!info.namespaced || seen.has(key) || !info.verbs.includes('delete')) continue;
        seen.add(key);
        const { store, reads } = deps.backendFor(info);
        const { items } = await reads.list({ namespace: name, selective: false });
        for (const item of items) {
          // objects that go at once need no second look; ones held by finalizers are waited for
          const { deleted } = await store.delete(name, item.obj.metadata.name!, { gracePeriodSeconds: 0 }, noAdmission)
            .catch(() => ({ deleted: false }));
          if (!deleted) remaining++;
        }
      }
      if (remaining > 0) {
        // objects with finalizers of their own may take a while; look again
        setTimeout(() => { working.delete(name); void finalize(name); }, retryMs).unref();
        return;
      }
      const { store } = deps.backendFor(nsInfo);
      await store.guaranteedUpdate('', name, 'finalize', cur => {
        if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
        const spec = ((cur as any).spec ??= {});
        spec.finalizers = (spec.finalizers ?? []).filter((f: string) => f !== names.vendor);
        return cur;
      }, noAdmission, { dryRun: false });
      working.delete(name);
    } catch (e) {
      working.delete(name);
      if ((e as { code?: number }).code === 404) return;
      log.warn(`namespace ${name}: finalizing failed, retrying: ${(e as Error).message}`);
      setTimeout(() => void finalize(name), retryMs).unref();
    }
  }

  const unsubscribe = cache.subscribe({
    send(ev) { if (ev.type !== 'DELETED' && terminating(ev.cur.obj)) void finalize(ev.cur.obj.metadata.name!); },
    end() {},
  });
  void cache.ready.then(() => {
    for (const ns of cache.snapshot(nsInfo.keyPrefix)) if (terminating(ns.obj)) void finalize(ns.obj.metadata.name!);
  });
  return { stop() { stopped = true; unsubscribe(); } };
}
