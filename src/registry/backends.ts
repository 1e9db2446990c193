// One store and one reader per installed resource, shared by every served version (a converting resource has one
// per version), and the narrow facades other layers get instead of the stores: listers and writers for admission.
import type { Listers, Writers } from '../api/admission.js';
import type { WatchCache } from '../watch/cache.js';
import type { ApiResources, ResourceInfo } from './resources.js';
import { createStore, noAdmission, objectKey, type Store, type StoreDeps } from './store.js';
import { createReads, type Reads, type ReadDeps } from './reads.js';
import { defaultStrategy, type Strategy } from './strategy.js';

export interface Backend { store: Store; reads: Reads; strategy: Strategy }

export interface Backends {
  backendFor(info: ResourceInfo): Backend;
  /** the backend of a group's resource at its preferred version */
  preferred(group: string, resource: string): Backend | undefined;
  listers: Listers;
  /** the listers admission plugins read through */
  admissionListers: Listers;
  writers: Writers;
}

export function createBackends(resources: ApiResources, deps: StoreDeps & ReadDeps & { objects: WatchCache }): Backends {
  const backends = new Map<string, Backend>();
  const backendKey = (info: ResourceInfo) => `${info.group}/${info.resource}${info.def.convert ? `/${info.version}` : ''}`;
  function backendFor(info: ResourceInfo): Backend {
    const key = backendKey(info);
    let b = backends.get(key);
    if (!b) {
      const strategy = info.versionDef.strategy ?? info.def.strategy ?? defaultStrategy;
      b = { store: createStore(info, strategy, deps), reads: createReads(info, deps), strategy };
      backends.set(key, b);
    }
    return b;
  }
  resources.onChange(() => {
    const live = new Set(resources.all().map(backendKey));
    for (const k of backends.keys()) if (!live.has(k)) backends.delete(k);
  });
  const preferred = (group: string, resource: string) => {
    const info = resources.preferred(group, resource);
    return info && backendFor(info);
  };
  const required = (group: string, resource: string) => {
    const b = preferred(group, resource);
    if (!b) throw new Error(`no resource ${resource} in group "${group}"`);
    return b;
  };

  const listers: Listers = {
    async get(group, resource, namespace, name) {
      const store = preferred(group, resource)?.store;
      if (!store) return undefined;
      // the callers only read, so the stored object needs no copy; a storage failure reaches the client as one, never
      // as a missing object
      const found = await store.findStored(namespace, name, undefined, true);
      return found && store.fromStored(found.obj);
    },
    async list(group, resource, namespace) {
      const b = preferred(group, resource);
      if (!b) return [];
      const { items } = await b.reads.list({ namespace, selective: false, resourceVersion: '0' });
      return items.map(i => i.obj);
    },
  };
  /** admission's: an object from the watch cache when it holds it, as the reference's admission reads its informers (a
   *  write reads a namespace or an account on every request), and from storage when it does not (what was created a
   *  moment ago is found) or when asked for a fresh read */
  const admissionListers: Listers = {
    async get(group, resource, namespace, name, fresh = false) {
      const info = resources.preferred(group, resource);
      const cached = info && !fresh && !info.def.convert ? deps.objects.cache(info.keyPrefix).get(objectKey(info, namespace, name)) : undefined;
      return cached ? cached.obj : listers.get(group, resource, namespace, name);
    },
    list: listers.list,
  };
  const writers: Writers = {
    create: (group, resource, namespace, obj) => required(group, resource).store.create(namespace, obj, noAdmission, { dryRun: false }),
    async updateStatus(group, resource, namespace, name, change) {
      await required(group, resource).store.guaranteedUpdate(namespace, name, 'status',
        cur => (cur && change(cur)) ?? cur!, noAdmission, { dryRun: false });
    },
  };
  return { backendFor, preferred, listers, admissionListers, writers };
}
