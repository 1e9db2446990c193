// ResourceQuota: what a new object adds to its namespace's usage (object counts, compute requests and limits,
// storage) must fit every ResourceQuota there; admitted usage is recorded in the quota's status at once, so
// the next request counts it. The plugin's configuration (limitedResources) names resources, and pod scopes, that
// may be consumed only where a quota covers them. As the reference, only a quota's status counts: one whose status.hard is not
// yet filled in (by the quota controller) limits nothing, and one that lacks the usage of a resource it limits for this kind
// refuses the request until the controller has counted it.
import { definePlugin } from '../types.js';
import type { Naming } from '../../api/naming.js';
import type { ApiObject, Stored } from '../../api/meta.js';
import type { Container, PersistentVolumeClaim, ResourceQuota, Service } from '../../api/types/core-v1.js';
import type { Quantity } from '../../api/types/meta-v1.js';
import { formatQuantity, isWriteOf, podContainers, podSpec, quantity, refuse, type AdmittedPodSpec } from '../util.js';
import type { AdmissionAttributes, Writers } from '../../api/admission.js';
import { podInQuotaScope, podMatchesScope, quotaScopeRequirements, quotaScoped } from '../../api/quota-scopes.js';
import type { ScopedResourceSelectorRequirement } from '../../api/types/core-v1.js';
import { configError, typedConfig } from '../config.js';
import { isExtendedResource } from './extended-resource-toleration.js';

type Usage = Record<string, number>;

/** requests or limits of a pod: its containers together, at least its largest init container, plus overhead */
function podAmounts(spec: AdmittedPodSpec, which: 'requests' | 'limits'): Usage {
  const total: Usage = {};
  for (const c of spec.containers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) total[r] = (total[r] ?? 0) + quantity(q);
  for (const c of spec.initContainers ?? []) for (const [r, q] of Object.entries(c?.resources?.[which] ?? {})) total[r] = Math.max(total[r] ?? 0, quantity(q));
  for (const [r, q] of Object.entries(spec.overhead ?? {})) if (r in total) total[r]! += quantity(q);
  return total;
}

const legacyCounted = ['pods', 'services', 'configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas', 'persistentvolumeclaims'];
const objectCountName = (group: string, resource: string) => `count/${group ? `${resource}.${group}` : resource}`;

/** what one object counts against quotas, by quota resource name */
function objectUsage(group: string, resource: string, obj: ApiObject | undefined, names: Naming): Usage {
  const u: Usage = { [objectCountName(group, resource)]: 1 };
  if (group !== '' || !obj) return u;
  if (legacyCounted.includes(resource)) u[resource] = 1;
  if (resource === 'pods') {
    const spec = podSpec(obj);
    for (const [r, n] of Object.entries(podAmounts(spec, 'requests'))) { u[`requests.${r}`] = n; if (r === 'cpu' || r === 'memory' || r === 'ephemeral-storage' || r.startsWith('hugepages-')) u[r] = n; }
    for (const [r, n] of Object.entries(podAmounts(spec, 'limits'))) u[`limits.${r}`] = n;
  }
  if (resource === 'services') {
    const service = obj as Service;
    const type = service.spec?.type;
    if (type === 'NodePort' || type === 'LoadBalancer') u['services.nodeports'] = (service.spec?.ports ?? []).filter(p => p?.nodePort !== 0).length;
    if (type === 'LoadBalancer') u['services.loadbalancers'] = 1;
  }
  if (resource === 'persistentvolumeclaims') {
    const claim = obj as PersistentVolumeClaim;
    const storage = quantity(claim.spec?.resources?.requests?.storage);
    const cls = claim.spec?.storageClassName;
    const perClass = (r: string) => `${cls}.storageclass.${names.group('storage')}/${r}`;
    if (storage > 0) { u['requests.storage'] = storage; if (cls) u[perClass('requests.storage')] = storage; }
    if (cls) u[perClass('persistentvolumeclaims')] = 1;
  }
  return u;
}

const podResourceNames = ['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods'];
/** `requests.<extended resource>`, as the reference's pod evaluator matches extended resources */
const extendedForQuota = (r: string, names: Naming) => r.startsWith('requests.') && isExtendedResource(r.slice('requests.'.length), names);

/** the names of a quota's list that a kind can use, as the reference's evaluator for that kind matches them */
function matchingResources(group: string, resource: string, hard: string[], names: Naming): string[] {
  const count = objectCountName(group, resource);
  if (group !== '') return hard.filter(r => r === count);
  if (resource === 'pods') return hard.filter(r => r === count || podResourceNames.includes(r) || r.startsWith('hugepages-') || r.startsWith('requests.hugepages-') || extendedForQuota(r, names));
  if (resource === 'services') return hard.filter(r => [count, 'services', 'services.nodeports', 'services.loadbalancers'].includes(r));
  if (resource === 'persistentvolumeclaims') {
    const byClass = `.storageclass.${names.group('storage')}/`;
    return hard.filter(r => [count, 'persistentvolumeclaims', 'requests.storage'].includes(r) || r.endsWith(`${byClass}persistentvolumeclaims`) || r.endsWith(`${byClass}requests.storage`));
  }
  return hard.filter(r => r === count || (legacyCounted.includes(resource) && r === resource));
}

/** the refusal of a quota that limits resources of this kind whose usage it has not counted yet, or undefined */
function statusUnknown(quota: Stored<ResourceQuota>, a: Readonly<AdmissionAttributes>, names: Naming): string | undefined {
  const restricted = matchingResources(a.group, a.resource, Object.keys(quota.status?.hard ?? {}), names);
  if (restricted.every(r => quota.status?.used?.[r] !== undefined)) return undefined;
  return `status unknown for quota: ${quota.metadata.name}, resources: ${restricted.sort().join(',')}`;
}

/** the kinds whose usage can grow on update, as the reference charges them: a Service's type and ports, a claim's size */
const chargedOnUpdate = (a: Readonly<AdmissionAttributes>) => isWriteOf(a, '', 'services') || isWriteOf(a, '', 'persistentvolumeclaims');

/** what this request adds, by quota resource name: a new object's usage, or what an update grows beyond the old one's */
export function usageOf(a: Readonly<AdmissionAttributes>, names: Naming): Usage {
  const now = objectUsage(a.group, a.resource, a.object, names);
  if (a.operation === 'CREATE') return now;
  const before = objectUsage(a.group, a.resource, a.oldObject, names);
  return Object.fromEntries(Object.entries(now).map(([r, n]) => [r, n - (before[r] ?? 0)] as const).filter(([, n]) => n > 0));
}

/** quota scopes (and scope selectors) decide which pods a quota counts; a scoped quota counts nothing else */
function inScope(quota: ResourceQuota, a: Readonly<AdmissionAttributes>): boolean {
  if (!quotaScoped(quota.spec)) return true;
  return a.resource === 'pods' && a.group === '' && podInQuotaScope(podSpec(a.object), quota.spec);
}

const listOf = (u: Record<string, Quantity>) => Object.keys(u).sort().map(k => `${k}=${u[k]}`).join(',');

/** the reason a quota refuses the usage, or undefined when it fits */
function exceeded(quota: Stored<ResourceQuota>, delta: Usage): string | undefined {
  const hard: Record<string, Quantity> = quota.status?.hard ?? {};
  const used: Record<string, Quantity> = quota.status?.used ?? {};
  const over = Object.keys(delta).filter(r => r in hard && quantity(used[r] ?? '0') + delta[r]! > quantity(hard[r]));
  if (!over.length) return undefined;
  const pick = (f: (r: string) => Quantity) => Object.fromEntries(over.map(r => [r, f(r)]));
  return `exceeded quota: ${quota.metadata.name}, requested: ${listOf(pick(r => formatQuantity(delta[r]!, hard[r])))}, `
    + `used: ${listOf(pick(r => used[r] ?? '0'))}, limited: ${listOf(pick(r => hard[r]!))}`;
}

/** the quota names a container's own requests and limits of cpu and memory give it */
function containerQuotaNames(c: Container | undefined): Set<string> {
  const out = new Set<string>();
  for (const r of ['cpu', 'memory']) {
    if (c?.resources?.requests?.[r] !== undefined) { out.add(r); out.add(`requests.${r}`); }
    if (c?.resources?.limits?.[r] !== undefined) out.add(`limits.${r}`);
  }
  return out;
}

/**
 * a pod under a quota of cpu or memory must say, in every container, how much of each it needs (only cpu and
 * memory, as the reference); the answer names each missing quota resource with the containers that miss it:
 * `cpu for: a,b; limits.memory for: a`
 */
function missing(quota: ResourceQuota, a: Readonly<AdmissionAttributes>): string | undefined {
  if (a.resource !== 'pods' || a.group !== '' || a.operation !== 'CREATE') return undefined;
  const required = Object.keys(quota.status?.hard ?? {})
    .filter(r => ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'].includes(r));
  if (!required.length) return undefined;
  const byResource = new Map<string, Set<string>>();
  for (const c of podContainers(podSpec(a.object))) {
    const has = containerQuotaNames(c);
    for (const r of required.filter(r => !has.has(r))) byResource.set(r, (byResource.get(r) ?? new Set()).add(String(c?.name ?? '')));
  }
  if (!byResource.size) return undefined;
  return [...byResource.keys()].sort().map(r => `${r} for: ${[...byResource.get(r)!].sort().join(',')}`).join('; ');
}

function record(writers: Writers, quota: Stored<ResourceQuota>, delta: Usage, a: Readonly<AdmissionAttributes>) {
  return writers.updateStatus('', 'resourcequotas', quota.metadata.namespace!, quota.metadata.name!, cur => {
    const q = cur as Stored<ResourceQuota>;
    const why = exceeded(q, delta);
    if (why) throw refuse(a, why);
    const hard: Record<string, Quantity> = q.status?.hard ?? {};
    const used: Record<string, Quantity> = { ...(q.status?.used ?? {}) };
    const relevant = Object.keys(delta).filter(r => r in hard);
    if (!relevant.length) return undefined;
    for (const r of relevant) used[r] = formatQuantity(quantity(used[r] ?? '0') + delta[r]!, hard[r]);
    q.status = { ...q.status, used };
    return cur;
  });
}

/** a resource that may be consumed only where a quota covers it: usage names containing one of matchContains,
 *  and (for pods) the scopes of matchScopes the pod falls in */
interface LimitedResource { apiGroup?: string; resource: string; matchContains?: string[]; matchScopes?: ScopedResourceSelectorRequirement[] }
interface QuotaConfiguration { limitedResources?: LimitedResource[] }

function limitedResourcesOf(config: unknown, names: Naming): LimitedResource[] {
  if (config === undefined || config === null) return [];
  const c = (config as { kind?: unknown }).kind === 'Configuration'
    ? typedConfig<QuotaConfiguration>('ResourceQuota', config, names, { kind: 'Configuration', group: 'resourcequota.admission', versions: ['v1beta1', 'v1alpha1'] })
    : typedConfig<QuotaConfiguration>('ResourceQuota', config, names, { kind: 'ResourceQuotaConfiguration', group: 'apiserver.config', versions: ['v1'] });
  const list = c?.limitedResources ?? [];
  if (!Array.isArray(list)) throw configError('ResourceQuota', 'limitedResources must be a list');
  list.forEach((l, i) => {
    if (!l || typeof l.resource !== 'string' || !l.resource) throw configError('ResourceQuota', `limitedResources[${i}].resource: Required value`);
    if (l.matchContains !== undefined && !(Array.isArray(l.matchContains) && l.matchContains.every(x => typeof x === 'string')))
      throw configError('ResourceQuota', `limitedResources[${i}].matchContains must be a list of strings`);
    if (l.matchScopes !== undefined && !(Array.isArray(l.matchScopes) && l.matchScopes.every(x => typeof x?.scopeName === 'string' && typeof x?.operator === 'string')))
      throw configError('ResourceQuota', `limitedResources[${i}].matchScopes must be a list of scope requirements (scopeName, operator, values)`);
  });
  return list;
}

/** a scope requirement as the reference prints a list of them: `{PriorityClass In [a b]}` */
const shownScope = (r: ScopedResourceSelectorRequirement) => `{${r.scopeName} ${r.operator} [${(r.values ?? []).join(' ')}]}`;

/** the refusal when a limited resource or scope is consumed with no quota covering it, or undefined */
function uncovered(a: Readonly<AdmissionAttributes>, limited: LimitedResource[], quotas: Stored<ResourceQuota>[], names: Naming): string | undefined {
  const usage = objectUsage(a.group, a.resource, a.object, names);
  const limitedNames = Object.keys(usage).filter(r => usage[r]! > 0 && limited.some(l => (l.matchContains ?? []).some(m => r.includes(m))));
  const covered = new Set(quotas.filter(q => inScope(q, a)).flatMap(q => Object.keys(q.status?.hard ?? {})));
  const missingNames = limitedNames.filter(r => !covered.has(r)).sort();
  if (missingNames.length) return `insufficient quota to consume: ${missingNames.join(',')}`;
  if (a.resource !== 'pods' || a.group !== '') return undefined;
  const spec = podSpec(a.object);
  const limitedScopes = limited.flatMap(l => l.matchScopes ?? []).filter(r => podMatchesScope(spec, r));
  const restricted = quotas.flatMap(q => quotaScopeRequirements(q.spec).filter(r => podMatchesScope(spec, r)));
  const missingScopes = limitedScopes.filter(l => !restricted.some(r => r.scopeName === l.scopeName));
  return missingScopes.length ? `insufficient quota to match these scopes: [${missingScopes.map(shownScope).join(' ')}]` : undefined;
}

export default definePlugin({
  name: 'ResourceQuota',
  defaultOn: true,
  create: ({ listers, writers, names, config }) => {
    const limitedResources = limitedResourcesOf(config, names);
    return {
      name: 'ResourceQuota',
      operations: ['CREATE', 'UPDATE'],
      async validate(a) {
        if (!a.namespace || !a.object || a.subresource !== '') return;
        if (a.operation === 'UPDATE' && !chargedOnUpdate(a)) return;
        const all = await listers.list('', 'resourcequotas', a.namespace) as Stored<ResourceQuota>[];
        const limited = limitedResources.filter(l => (l.apiGroup ?? '') === a.group && l.resource === a.resource);
        const notCovered = limited.length && a.operation === 'CREATE' ? uncovered(a, limited, all, names) : undefined;
        if (notCovered) throw refuse(a, notCovered);
        const quotas = all.filter(q => inScope(q, a));
        if (!quotas.length) return;
        // the stored quotas, not the cache: usage recorded a moment ago must count
        const current = (await Promise.all(quotas.map(q => listers.get('', 'resourcequotas', a.namespace, q.metadata.name!, true))))
          .filter(Boolean) as Stored<ResourceQuota>[];
        // checked before the usage, as the reference does: an update that grows nothing is refused too while a quota
        // it falls under has no usage recorded yet
        for (const q of current) {
          const need = missing(q, a);
          if (need) throw refuse(a, `failed quota: ${q.metadata.name}: must specify ${need}`);
          const unknown = statusUnknown(q, a, names);
          if (unknown) throw refuse(a, unknown);
        }
        const delta = usageOf(a, names);
        if (!Object.keys(delta).length) return;
        for (const q of current) {
          const why = exceeded(q, delta);
          if (why) throw refuse(a, why);
        }
        if (a.dryRun) return;
        for (const q of current) await record(writers, q, delta, a);
      },
    };
  },
});
