// Lifts the protection finalizers of volume claims and volumes once they are free, as the reference's controller
// manager does: a claim being deleted goes when no live pod in its namespace uses it; a volume when no claim is bound to it.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Store } from '../registry/store.js';
import type { Reads } from '../registry/reads.js';
import { noAdmission } from '../registry/store.js';
import type { ResourceCaches } from '../api/cache.js';

export interface StorageProtectionDeps {
  resources: ApiResources;
  names: Naming;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store; reads: Reads };
}

const finished = (pod: any) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
const usesClaim = (pod: any, claim: string) =>
  (pod.spec?.volumes ?? []).some((v: any) => v?.persistentVolumeClaim?.claimName === claim || v?.ephemeral && `${pod.metadata.name}-${v.name}` === claim);

export function startStorageProtection(deps: StorageProtectionDeps, log: { warn(m: string): void }) {
  const { resources, names } = deps;
  const pvcs = resources.lookup('', 'v1', 'persistentvolumeclaims');
  const pvs = resources.lookup('', 'v1', 'persistentvolumes');
  const pods = resources.lookup('', 'v1', 'pods');
  if (!pvcs || !pvs || !pods) return { stop() {} };
  const kinds = [
    { info: pvcs, finalizer: names.label('pvc-protection'),
      async free(claim: ApiObject) {
        const { items } = await deps.backendFor(pods).reads.list({ namespace: claim.metadata.namespace!, selective: false, resourceVersion: '0' });
        return !items.some(i => !finished(i.obj) && usesClaim(i.obj, claim.metadata.name!));
      } },
    { info: pvs, finalizer: names.label('pv-protection'),
      async free(volume: ApiObject) { return (volume as any).status?.phase !== 'Bound'; } },
  ];

  async function release(kind: typeof kinds[number], obj: ApiObject) {
    if (!obj.metadata.deletionTimestamp || !obj.metadata.finalizers?.includes(kind.finalizer)) return;
    if (!await kind.free(obj)) return;
    await deps.backendFor(kind.info).store.guaranteedUpdate(obj.metadata.namespace ?? '', obj.metadata.name!, '', cur => {
      if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter(f => f !== kind.finalizer);
      return cur;
    }, noAdmission, { dryRun: false }).catch(e => {
      if ((e as { code?: number }).code !== 404) log.warn(`releasing ${kind.info.resource}/${obj.metadata.name}: ${(e as Error).message}`);
    });
  }

  const stops: Array<() => void> = [];
  for (const kind of kinds) {
    const cache = deps.caches.cache(kind.info.keyPrefix);
    stops.push(cache.subscribe({ send(ev) { if (ev.type !== 'DELETED') void release(kind, ev.cur.obj); }, end() {} }));
    void cache.ready.then(() => { for (const i of cache.snapshot(kind.info.keyPrefix)) void release(kind, i.obj); });
  }
  // a pod that goes or finishes may free the claims of its namespace
  const podCache = deps.caches.cache(pods.keyPrefix);
  const claimCache = deps.caches.cache(pvcs.keyPrefix);
  stops.push(podCache.subscribe({
    send(ev) {
      if (ev.type !== 'DELETED' && !finished(ev.cur.obj)) return;
      for (const i of claimCache.snapshot(`${pvcs.keyPrefix}${ev.cur.obj.metadata.namespace}/`)) void release(kinds[0], i.obj);
    },
    end() {},
  }));
  return { stop() { for (const s of stops) s(); } };
}
