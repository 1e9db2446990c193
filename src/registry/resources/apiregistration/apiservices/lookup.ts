// The APIServices as the aggregation proxy, discovery and the availability check read them: from the watch cache,
// with the Service and Endpoints behind each remote one resolved to a backend address. Also the local APIServices
// of the built-in group versions, registered on start as the reference registers them.
import type { Naming } from '../../../../api/naming.js';
import type { ApiObject } from '../../../../api/meta.js';
import type { ResourceCache } from '../../../../api/cache.js';
import type { APIService, APIServiceCondition } from '../../../../api/types/apiregistration-v1.js';
import type { Endpoints, Service } from '../../../../api/types/core-v1.js';
import { apiServiceName, backendAddress, builtinPriority, customResourcePriority, type BackendAddress, type Priority } from '../../../../api/apiservices.js';
import type { WatchCache } from '../../../../watch/cache.js';
import type { ApiResources } from '../../../resources.js';
import type { Backends } from '../../../backends.js';
import { noAdmission } from '../../../store.js';

export interface ApiServiceLookup {
  /** resolves once the caches hold the stored state */
  readonly ready: Promise<void>;
  /** every APIService */
  all(): APIService[];
  /** the APIService with a Service backend that serves a group version, if one does */
  remote(group: string, version: string): APIService | undefined;
  /** where the backend of a remote APIService is reached now */
  address(apiService: APIService): BackendAddress;
  /** the discovery priority of a group version: its APIService's, or the built-in table's */
  priority(group: string, version: string): Priority;
  /** the Available condition of an APIService */
  available(apiService: APIService): APIServiceCondition | undefined;
  /** called when an APIService, a Service or an Endpoints object changes */
  onChange(fn: () => void): () => void;
}

/** the label of the APIServices this server registers itself (`kube-aggregator.<label domain>/automanaged`) */
export const automanagedLabel = (names: Naming) => `kube-aggregator.${names.labelDomain}/automanaged`;

export function apiServiceLookup(watchCache: WatchCache, resources: ApiResources, names: Naming): ApiServiceLookup {
  const prefix = (group: string, resource: string) => resources.preferred(group, resource)?.keyPrefix;
  const open = (p: string | undefined) => (p ? watchCache.cache(p) : undefined);
  const apiServicesPrefix = prefix(names.group('apiregistration'), 'apiservices');
  const apiServices = open(apiServicesPrefix), services = open(prefix('', 'services')), endpoints = open(prefix('', 'endpoints'));
  const caches = [apiServices, services, endpoints].filter((c): c is ResourceCache => !!c);
  const listeners = new Set<() => void>();
  let byGroupVersion: Map<string, APIService> | undefined;
  const changed = () => { byGroupVersion = undefined; for (const l of listeners) l(); };
  for (const c of caches) c.subscribe({ send: changed, end() {} });
  const read = <T>(cache: ResourceCache | undefined, namespace: string, name: string) =>
    cache?.get(`${cache.prefix}${namespace}/${name}`)?.obj as T | undefined;
  const all = () => (apiServices && apiServicesPrefix ? apiServices.snapshot(apiServicesPrefix).map(s => s.obj as APIService) : []);
  const index = () => (byGroupVersion ??= new Map(all().map(a => [`${a.spec?.group ?? ''}/${a.spec?.version ?? ''}`, a])));

  return {
    ready: Promise.all(caches.map(c => c.ready)).then(() => {}),
    all,
    remote(group, version) {
      const a = index().get(`${group}/${version}`);
      return a?.spec?.service ? a : undefined;
    },
    address(a) {
      const ref = a.spec?.service;
      if (!ref) return backendAddress(a, undefined, undefined);
      return backendAddress(a, read<Service>(services, ref.namespace ?? '', ref.name ?? ''), read<Endpoints>(endpoints, ref.namespace ?? '', ref.name ?? ''));
    },
    priority(group, version) {
      const a = index().get(`${group}/${version}`);
      if (a?.spec) return { group: a.spec.groupPriorityMinimum, version: a.spec.versionPriority };
      return builtinPriority(names, group, version) ?? customResourcePriority;
    },
    available: a => a.status?.conditions?.find(c => c.type === 'Available'),
    onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  };
}

/**
 * Registers a local APIService for every group version this server serves itself, with the reference's priorities,
 * and removes the automanaged ones of group versions no longer served (switched off with --runtime-config).
 */
export async function registerLocalApiServices(lookup: ApiServiceLookup, backends: Backends, resources: ApiResources, names: Naming): Promise<void> {
  const backend = backends.preferred(names.group('apiregistration'), 'apiservices');
  if (!backend) return;
  const apiVersion = `${names.group('apiregistration')}/v1`;
  const served = new Set<string>();
  const writes: Array<Promise<unknown>> = [];
  for (const g of resources.groups()) {
    for (const version of g.versions) {
      const builtin = builtinPriority(names, g.name, version);
      if (!builtin) continue;   // custom resources' group versions are not registered here
      const name = apiServiceName(g.name, version);
      served.add(name);
      const spec = { group: g.name, version, groupPriorityMinimum: builtin.group, versionPriority: builtin.version };
      const wanted = (current: ApiObject | undefined): ApiObject => ({
        apiVersion, kind: 'APIService',
        metadata: { ...(current?.metadata ?? {}), name, labels: { ...(current?.metadata?.labels ?? {}), [automanagedLabel(names)]: 'onstart' } },
        spec,
      });
      // all at once: their writes share a commit
      writes.push(backend.store.guaranteedUpdate('', name, '', wanted, noAdmission, { dryRun: false, allowCreate: true })
        .catch(e => { if ((e as { code?: number }).code !== 409) throw e; }));
    }
  }
  await Promise.all(writes);
  await lookup.ready;
  await Promise.all(lookup.all()
    .filter(a => a.metadata?.labels?.[automanagedLabel(names)] === 'onstart' && !served.has(a.metadata?.name ?? ''))
    .map(a => backend.store.delete('', a.metadata!.name!, {}, noAdmission).catch(e => { if ((e as { code?: number }).code !== 404) throw e; })));
}
