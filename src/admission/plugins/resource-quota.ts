// ResourceQuota: what a new object adds to its namespace's usage (object counts, compute requests and limits,
// storage) must fit every ResourceQuota there; admitted usage is recorded in the quota's status at once, so
// the next request counts it. Without a quota controller here, a quota whose status is not yet filled counts
// from zero against its spec.
import { definePlugin } from '../types.js';
import type { Naming } from '../../api/naming.js';
import type { Stored } from '../../api/meta.js';
import type { PersistentVolumeClaim, ResourceQuota, Service } from '../../api/types/core-v1.js';
import type { Quantity } from '../../api/types/meta-v1.js';
import { formatQuantity, isWriteOf, podContainers, podSpec, quantity, refuse, type AdmittedPodSpec } from '../util.js';
import type { AdmissionAttributes, Writers } from '../../api/admission.js';

type Usage = Record<string, number>;

/** requests or limits of a pod: its containers together, at least its largest init container, plus overhead */
function podAmounts(spec: AdmittedPodSpec, which: 'requests' | 'limits'): Usage {
  const total: Usage = {};
  for (const c of spec.containers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) total[r] = (total[r] ?? 0) + quantity(q);
  for (const c of spec.initContainers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) total[r] = Math.max(total[r] ?? 0, quantity(q));
  for (const [r, q] of Object.entries(spec.overhead ?? {})) if (r in total) total[r]! += quantity(q);
  return total;
}

const isBestEffort = (spec: AdmittedPodSpec) => podContainers(spec).every(c => !Object.keys(c?.resources?.requests ?? {}).length && !Object.keys(c?.resources?.limits ?? {}).length);

/** what creating (or growing) this object adds, by quota resource name */
export function usageOf(a: Readonly<AdmissionAttributes>, names: Naming): Usage {
  const countKey = `count/${a.group ? `${a.resource}.${a.group}` : a.resource}`;
  const creating = a.operation === 'CREATE';
  const u: Usage = creating ? { [countKey]: 1 } : {};
  if (a.group !== '') return u;
  const legacyCounted = ['pods', 'services', 'configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas', 'persistentvolumeclaims'];
  if (creating && legacyCounted.includes(a.resource)) u[a.resource] = 1;
  if (a.resource === 'pods' && creating) {
    const spec = podSpec(a.object);
    for (const [r, n] of Object.entries(podAmounts(spec, 'requests'))) { u[`requests.${r}`] = n; if (r === 'cpu' || r === 'memory' || r === 'ephemeral-storage') u[r] = n; }
    for (const [r, n] of Object.entries(podAmounts(spec, 'limits'))) u[`limits.${r}`] = n;
  }
  if (a.resource === 'services' && creating) {
    const service = a.object as Service;
    const type = service.spec?.type;
    if (type === 'NodePort' || type === 'LoadBalancer') u['services.nodeports'] = (service.spec?.ports ?? []).filter(p => p?.nodePort !== 0).length;
    if (type === 'LoadBalancer') u['services.loadbalancers'] = 1;
  }
  if (a.resource === 'persistentvolumeclaims') {
    const claim = a.object as PersistentVolumeClaim;
    const storage = quantity(claim.spec?.resources?.requests?.storage) - quantity((a.oldObject as PersistentVolumeClaim | undefined)?.spec?.resources?.requests?.storage);
    const cls = claim.spec?.storageClassName;
    const perClass = (r: string) => `${cls}.storageclass.${names.group('storage')}/${r}`;
    if (storage > 0) { u['requests.storage'] = storage; if (cls) u[perClass('requests.storage')] = storage; }
    if (creating && cls) u[perClass('persistentvolumeclaims')] = 1;
  }
  return u;
}

/** quota scopes decide which pods a quota counts */
function inScope(quota: ResourceQuota, a: Readonly<AdmissionAttributes>): boolean {
  const scopes: string[] = quota.spec?.scopes ?? [];
  if (!scopes.length) return true;
  if (a.resource !== 'pods' || a.group !== '') return false;
  const spec = podSpec(a.object);
  return scopes.every(s => ({
    Terminating: spec.activeDeadlineSeconds != null, NotTerminating: spec.activeDeadlineSeconds == null,
    BestEffort: isBestEffort(spec), NotBestEffort: !isBestEffort(spec),
  } as Record<string, boolean>)[s] ?? true);
}

const listOf = (u: Record<string, Quantity>) => Object.keys(u).sort().map(k => `${k}=${u[k]}`).join(',');

/** the reason a quota refuses the usage, or undefined when it fits */
function exceeded(quota: Stored<ResourceQuota>, delta: Usage): string | undefined {
  const hard: Record<string, Quantity> = quota.status?.hard ?? quota.spec?.hard ?? {};
  const used: Record<string, Quantity> = quota.status?.used ?? {};
  const over = Object.keys(delta).filter(r => r in hard && quantity(used[r] ?? '0') + delta[r]! > quantity(hard[r]));
  if (!over.length) return undefined;
  const pick = (f: (r: string) => Quantity) => Object.fromEntries(over.map(r => [r, f(r)]));
  return `exceeded quota: ${quota.metadata.name}, requested: ${listOf(pick(r => formatQuantity(delta[r]!, hard[r])))}, `
    + `used: ${listOf(pick(r => used[r] ?? '0'))}, limited: ${listOf(pick(r => hard[r]!))}`;
}

/** a pod under a compute quota must say how much of each constrained resource it needs */
function missing(quota: ResourceQuota, a: Readonly<AdmissionAttributes>): string[] {
  if (a.resource !== 'pods' || a.group !== '' || a.operation !== 'CREATE') return [];
  const hard = Object.keys(quota.status?.hard ?? quota.spec?.hard ?? {});
  const spec = podSpec(a.object);
  const out: string[] = [];
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const wantsRequest = hard.includes(`requests.${r}`) || hard.includes(r);
    const wantsLimit = hard.includes(`limits.${r}`);
    for (const c of podContainers(spec)) {
      if (wantsRequest && c?.resources?.requests?.[r] === undefined && !out.includes(`requests.${r}`)) out.push(`requests.${r}`);
      if (wantsLimit && c?.resources?.limits?.[r] === undefined && !out.includes(`limits.${r}`)) out.push(`limits.${r}`);
    }
  }
  return out;
}

function record(writers: Writers, quota: Stored<ResourceQuota>, delta: Usage, a: Readonly<AdmissionAttributes>) {
  return writers.updateStatus('', 'resourcequotas', quota.metadata.namespace!, quota.metadata.name!, cur => {
    const q = cur as Stored<ResourceQuota>;
    const why = exceeded(q, delta);
    if (why) throw refuse(a, why);
    const hard: Record<string, Quantity> = q.status?.hard ?? q.spec?.hard ?? {};
    const used: Record<string, Quantity> = { ...(q.status?.used ?? {}) };
    const relevant = Object.keys(delta).filter(r => r in hard);
    if (!relevant.length) return undefined;
    for (const r of Object.keys(hard)) used[r] ??= '0';
    for (const r of relevant) used[r] = formatQuantity(quantity(used[r]) + delta[r]!, hard[r]);
    q.status = { hard: q.status?.hard ?? { ...hard }, used };
    return cur;
  });
}

export default definePlugin({
  name: 'ResourceQuota',
  defaultOn: true,
  create: ({ listers, writers, names }) => ({
    name: 'ResourceQuota',
    operations: ['CREATE', 'UPDATE'],
    async validate(a) {
      if (!a.namespace || !a.object || a.subresource !== '') return;
      if (a.operation === 'UPDATE' && !isWriteOf(a, '', 'persistentvolumeclaims')) return;
      const quotas = (await listers.list('', 'resourcequotas', a.namespace) as Stored<ResourceQuota>[]).filter(q => inScope(q, a));
      if (!quotas.length) return;
      const delta = usageOf(a, names);
      // the stored quotas, not the cache: usage recorded a moment ago must count
      const current = (await Promise.all(quotas.map(q => listers.get('', 'resourcequotas', a.namespace, q.metadata.name!, true))))
        .filter(Boolean) as Stored<ResourceQuota>[];
      for (const q of current) {
        const need = missing(q, a);
        if (need.length) throw refuse(a, `failed quota: ${q.metadata.name}: must specify ${need.join(',')}`);
        const why = exceeded(q, delta);
        if (why) throw refuse(a, why);
      }
      if (a.dryRun) return;
      for (const q of current) await record(writers, q, delta, a);
    },
  }),
});
