// The resource quota controller: each ResourceQuota's `status.hard` is its spec's and `status.used` the usage
// recomputed from what its namespace holds (admission only adds what it admits; this also takes back what was
// deleted or finished): object counts (`pods`, `services`, ..., `count/<resource>[.<group>]`), the compute
// requests and limits of pods that have not finished (nor are stuck being deleted past their grace period), NodePorts and load balancers, and claimed storage (also
// per storage class). Scopes and scope selectors (Terminating, BestEffort, PriorityClass, ...) narrow a quota to pods.
// Recomputed when a quota's spec changes, when a counted object goes (kinds counted by listing, such as custom
// resources, are watched from their first count on) or its usage shrinks, and every --resource-quota-sync-period.
import { formatQuantity, quantityValue } from '../api/quantity.js';
import { podInQuotaScope, quotaScoped } from '../api/quota-scopes.js';
import type { SharedInformer } from '../client/informer.js';
import { isConflict, isNotFound, type ResourceRef } from '../client/rest-client.js';
import { keyOf, podFinished, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Obj, PersistentVolumeClaim, Pod, ResourceQuota, Service } from './types.js';

type Usage = Record<string, number>;
const q = (v: unknown) => quantityValue(v) ?? 0;

/** what one pod still charged counts (`pods`): requests and limits of its containers, at least its largest init container, and overhead */
function podUsage(p: Pod): Usage {
  const u: Usage = { pods: 1 };
  for (const which of ['requests', 'limits'] as const) {
    const total: Usage = {};
    for (const c of p.spec.containers ?? []) for (const [r, v] of Object.entries(c.resources?.[which] ?? {})) total[r] = (total[r] ?? 0) + q(v);
    for (const c of p.spec.initContainers ?? []) for (const [r, v] of Object.entries(c.resources?.[which] ?? {})) total[r] = Math.max(total[r] ?? 0, q(v));
    for (const [r, v] of Object.entries(p.spec.overhead ?? {})) if (r in total) total[r]! += q(v);
    for (const [r, n] of Object.entries(total)) {
      u[`${which}.${r}`] = n;
      if (which === 'requests' && (['cpu', 'memory', 'ephemeral-storage'].includes(r) || r.startsWith('hugepages-'))) u[r] = n;
    }
  }
  return u;
}

/** when a pod being deleted stops counting, as the reference's: its deletion time plus its grace period once more
 *  (a pod stuck terminating, on a lost node say, is not charged for ever); undefined when it is not being deleted */
const chargedUntil = (p: Pod): number | undefined => (p.metadata.deletionTimestamp && p.metadata.deletionGracePeriodSeconds !== undefined
  ? Date.parse(p.metadata.deletionTimestamp) + p.metadata.deletionGracePeriodSeconds * 1000 : undefined);
const podCharged = (p: Pod, now: number) => !podFinished(p) && !((chargedUntil(p) ?? Infinity) < now);

/** what of an object its usage depends on beyond its existence: a pod's end, a Service's type and ports, a claim's request */
const usageShapes: Record<string, (o: Obj) => string> = {
  pods: (o) => `${podFinished(o as Pod)} ${o.metadata.deletionTimestamp ?? ''}`,
  services: (o) => JSON.stringify([(o as Service).spec?.type, (o as Service).spec?.ports?.map((p) => p.nodePort)]),
  persistentvolumeclaims: (o) => JSON.stringify([(o as PersistentVolumeClaim).spec?.resources?.requests?.storage, (o as PersistentVolumeClaim).spec?.storageClassName]),
};

export const resourceQuotaController: Controller = {
  name: 'resourcequota',
  component: 'resourcequota-controller',
  start(ctx) {
    const quotas = ctx.informers.informer(ctx.refs.resourceQuotas);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const services = ctx.informers.informer(ctx.refs.services);
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    const counted: Array<[string, SharedInformer<Obj>]> = [
      ['services', services], ['persistentvolumeclaims', claims],
      ['configmaps', ctx.informers.informer(ctx.refs.configMaps)], ['secrets', ctx.informers.informer(ctx.refs.secrets)],
      ['replicationcontrollers', ctx.informers.informer(ctx.refs.replicationControllers)], ['resourcequotas', quotas],
    ];
    const storageGroup = ctx.names.group('storage');

    const usage = async (quota: ResourceQuota, namespace: string): Promise<Usage> => {
      const hard = Object.keys(quota.spec?.hard ?? {});
      const u: Usage = Object.fromEntries(hard.map((r) => [r, 0]));
      const add = (more: Usage) => { for (const [r, n] of Object.entries(more)) if (r in u) u[r]! += n; };
      const now = Date.now();
      for (const p of pods.list(namespace)) {
        if (!podInQuotaScope(p.spec, quota.spec)) continue;
        // count/pods counts every pod stored, finished or not, as the reference's; the rest only pods still charged
        add({ 'count/pods': 1 });
        if (podCharged(p, now)) add(podUsage(p));
      }
      if (quotaScoped(quota.spec)) return u;
      for (const [resource, informer] of counted) {
        const n = informer.list(namespace).length;
        add({ [resource]: n, [`count/${resource}`]: n });
      }
      for (const s of services.list(namespace) as Service[]) {
        const type = s.spec?.type;
        if (type === 'NodePort' || type === 'LoadBalancer') add({ 'services.nodeports': (s.spec?.ports ?? []).filter((p) => p.nodePort).length });
        if (type === 'LoadBalancer') add({ 'services.loadbalancers': 1 });
      }
      for (const c of claims.list(namespace) as PersistentVolumeClaim[]) {
        const storage = q(c.spec?.resources?.requests?.storage);
        const cls = c.spec?.storageClassName;
        add({ 'requests.storage': storage });
        if (cls) add({ [`${cls}.storageclass.${storageGroup}/requests.storage`]: storage, [`${cls}.storageclass.${storageGroup}/persistentvolumeclaims`]: 1 });
      }
      // count/<resource>.<group> of kinds not watched here: listed once per pass
      const watched = new Set(['count/pods', ...counted.map(([r]) => `count/${r}`)]);
      const others = hard.filter((r) => r.startsWith('count/') && !watched.has(r));
      if (others.length) {
        const all = await ctx.discover();
        for (const r of others) {
          const [resource, ...group] = r.slice('count/'.length).split('.');
          const found = all.find((d) => d.resource === resource && d.group === group.join('.') && d.namespaced && d.verbs.includes('list'));
          if (!found) continue;
          u[r] = (await ctx.client.resource(found as ResourceRef, namespace).list()).items.length;
          replenishOnDelete(found as ResourceRef);
        }
      }
      return u;
    };

    // a kind counted by listing is watched from its first count on, so that what is deleted is given back at once
    const watchedForDeletes = new Set<string>();
    const replenishOnDelete = (ref: ResourceRef) => {
      const id = `${ref.group}/${ref.resource}`;
      if (watchedForDeletes.has(id)) return;
      watchedForDeletes.add(id);
      ctx.informers.informer(ref).addHandler({ deleted: (o: Obj) => inNamespace(o) });
      ctx.informers.start();
    };

    const queue = startQueue(ctx, async (key) => {
      const quota = quotas.get(key);
      if (!quota || quota.metadata.deletionTimestamp) return;
      const [namespace] = splitKey(key);
      // counted again when the next pod being deleted stops counting
      const now = Date.now();
      const next = Math.min(...pods.list(namespace).map(chargedUntil).filter((t): t is number => t !== undefined && t >= now));
      const recheck = Number.isFinite(next) ? { requeueAfterMs: next - now + 100 } : undefined;
      const hard = quota.spec?.hard ?? {};
      const used = Object.fromEntries(Object.entries(await usage(quota, namespace)).map(([r, n]) => [r, formatQuantity(n, String(hard[r] ?? ''))]));
      const same = (a: Record<string, unknown> | undefined, b: Record<string, unknown>) => JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort());
      if (same(quota.status?.hard, hard) && same(quota.status?.used, used)) return recheck;
      await ctx.client.resource(ctx.refs.resourceQuotas, namespace).status.update({ ...quota, status: { hard, used } } as ResourceQuota)
        .catch((e) => { if (isConflict(e)) queue.addAfter(key, 100); else if (!isNotFound(e)) throw e; });
      return recheck;
    });
    // As in the reference, what is created is counted by admission, which records it in the quota at once; this
    // controller gives back what goes (deleted, finished, made smaller) and counts afresh when a quota's spec changes.
    // Recounting on every creation or usage write would race admission: a recount from a cache that does not show
    // the pod just admitted would lower `used` and let one more through.
    const inNamespace = (o: Obj) => { for (const quota of quotas.list(o.metadata.namespace)) queue.add(keyOf(quota)); };
    const specChanged = (old: ResourceQuota, cur: ResourceQuota) => JSON.stringify(old.spec) !== JSON.stringify(cur.spec)
      || JSON.stringify(cur.status?.hard ?? {}) !== JSON.stringify(cur.spec?.hard ?? {});
    quotas.addHandler({ added: (x) => queue.add(keyOf(x)), updated: (old, cur) => { if (specChanged(old, cur)) queue.add(keyOf(cur)); } });
    for (const [resource, informer] of [['pods', pods as unknown as SharedInformer<Obj>] as const, ...counted.filter(([r]) => r !== 'resourcequotas')]) {
      const shape = usageShapes[resource];
      informer.addHandler({
        deleted: inNamespace,
        updated: (old, cur) => { if (shape && shape(old) !== shape(cur)) inNamespace(cur); },
      });
    }
    // every quota again now and then, for what no event told (the kinds counted by listing)
    const every = ctx.settings.resourceQuotaSyncPeriodMs;
    const timer = setInterval(() => { for (const quota of quotas.list()) queue.add(keyOf(quota)); }, every);
    timer.unref();
    ctx.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  },
};
