// The facts of the aggregation layer that the proxy, discovery and the availability check share: the priorities of
// the built-in group versions, the order of versions, and how an APIService's Service reaches a backend address.
import type { Naming } from './naming.js';
import type { APIService } from './types/apiregistration-v1.js';
import type { Endpoints, Service } from './types/core-v1.js';

export interface Priority { group: number; version: number }

/** the reference's discovery priorities of its own group versions, keyed by group (less its API domain suffix) and version */
const builtinPriorities: Record<string, Priority> = {
  'v1': { group: 18000, version: 1 },
  'apiregistration/v1': { group: 18000, version: 15 },
  'apps/v1': { group: 17800, version: 15 },
  'events/v1': { group: 17750, version: 15 },
  'authentication/v1': { group: 17700, version: 15 },
  'authentication/v1beta1': { group: 17700, version: 9 },
  'authentication/v1alpha1': { group: 17700, version: 1 },
  'authorization/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v2beta1': { group: 17500, version: 9 },
  'autoscaling/v2beta2': { group: 17500, version: 1 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates/v1': { group: 17300, version: 15 },
  'certificates/v1alpha1': { group: 17300, version: 1 },
  'networking/v1': { group: 17200, version: 15 },
  'networking/v1alpha1': { group: 17200, version: 1 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization/v1': { group: 17000, version: 15 },
  'storage/v1': { group: 16800, version: 15 },
  'storage/v1beta1': { group: 16800, version: 9 },
  'apiextensions/v1': { group: 16700, version: 15 },
  'admissionregistration/v1': { group: 16700, version: 15 },
  'admissionregistration/v1alpha1': { group: 16700, version: 9 },
  'scheduling/v1': { group: 16600, version: 15 },
  'coordination/v1': { group: 16500, version: 15 },
  'node/v1': { group: 16300, version: 15 },
  'discovery/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver/v1beta3': { group: 16100, version: 18 },
  'flowcontrol.apiserver/v1beta2': { group: 16100, version: 15 },
  'flowcontrol.apiserver/v1beta1': { group: 16100, version: 12 },
  'internal.apiserver/v1alpha1': { group: 16000, version: 9 },
  'resource/v1alpha2': { group: 15900, version: 9 },
};

/** what a group version of custom resources gets (the reference registers them at this group priority) */
export const customResourcePriority: Priority = { group: 1000, version: 100 };

/** the priority the reference gives one of its own group versions (in either domain), if it has one */
export function builtinPriority(names: Naming, group: string, version: string): Priority | undefined {
  const suffix = `.${names.domain}`;
  const base = group.endsWith(suffix) ? group.slice(0, -suffix.length) : group;
  return builtinPriorities[base ? `${base}/${version}` : version];
}

/** the name of a group version's APIService: `<version>.<group>` (`v1.` for the core group) */
export const apiServiceName = (group: string, version: string) => `${version}.${group}`;

/**
 * The reference's order of version names: GA before beta before alpha, higher major then higher minor first, and
 * names not of the v<major>[alpha|beta<minor>] form last, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), track: m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, minor: Number(m[3] ?? 0) };
  };
  const x = parse(a), y = parse(b);
  if (!x || !y) return x ? -1 : y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  return y.track - x.track || y.major - x.major || y.minor - x.minor;
}

/** where a backend is reached, or why it cannot be */
export type BackendAddress =
  | { ok: true; host: string; port: number }
  | { ok: false; reason: string; message: string };

/** a port of a Service, as APIServices, admission webhooks and conversion webhooks name their backend */
export interface ServiceRef { namespace?: string; name?: string; port?: number }

/** the Service's DNS name: a backend's serving certificate is checked against it, as the reference does */
export const serviceHostName = (ref: ServiceRef) => `${ref.name ?? ''}.${ref.namespace ?? ''}.svc`;

/**
 * The address behind a Service reference, read from the Service and its Endpoints: the Service port the reference
 * names (443 when it names none), then a ready address of the endpoints with that port's name. An ExternalName
 * Service is reached at its external name. This server has no cluster network to route a cluster IP, so it goes to
 * an endpoint, as the reference's aggregator does with --enable-aggregator-routing. The reasons are the reference's
 * condition reasons.
 */
export function serviceAddress(ref: ServiceRef, service: Service | undefined, endpoints: Endpoints | undefined): BackendAddress {
  const where = `service/${ref.name} in "${ref.namespace}"`;
  const port = ref.port ?? 443;
  if (!service) return { ok: false, reason: 'ServiceNotFound', message: `${where} is not present` };
  if (service.spec?.type === 'ExternalName') {
    const host = service.spec.externalName;
    return host ? { ok: true, host, port } : { ok: false, reason: 'ServiceNotFound', message: `${where} has no external name` };
  }
  const servicePort = (service.spec?.ports ?? []).find(p => p.port === port);
  if (!servicePort) return { ok: false, reason: 'ServicePortError', message: `${where} is not listening on port ${port}` };
  if (!endpoints) return { ok: false, reason: 'EndpointsNotFound', message: `cannot find endpoints for ${where}` };
  const portName = servicePort.name ?? '';
  for (const subset of endpoints.subsets ?? []) {
    const target = (subset.ports ?? []).find(p => (p.name ?? '') === portName);
    const address = subset.addresses?.[0];
    if (target && address?.ip) return { ok: true, host: address.ip, port: target.port };
  }
  return { ok: false, reason: 'MissingEndpoints', message: `endpoints for ${where} have no addresses with port name "${portName}"` };
}

/** the address of the backend behind an APIService: its Service's, or none for a local one */
export function backendAddress(apiService: APIService, service: Service | undefined, endpoints: Endpoints | undefined): BackendAddress {
  const ref = apiService.spec?.service;
  if (!ref) return { ok: false, reason: 'Local', message: 'Local APIServices are always available' };
  return serviceAddress(ref, service, endpoints);
}

/** where a Service reference is reached now */
export type ServiceResolver = (ref: ServiceRef) => Promise<BackendAddress>;

/** a resolver that reads Services and Endpoints (core group) with `get`: a lister or a cache */
export function serviceResolver(get: (resource: 'services' | 'endpoints', namespace: string, name: string) => unknown): ServiceResolver {
  return async ref => {
    const [service, endpoints] = await Promise.all([get('services', ref.namespace ?? '', ref.name ?? ''), get('endpoints', ref.namespace ?? '', ref.name ?? '')]);
    return serviceAddress(ref, service as Service | undefined, endpoints as Endpoints | undefined);
  };
}

/** a Service reference's URL as the reference shows it in messages: https://<name>.<namespace>.svc:<port><path> */
export const serviceUrl = (ref: ServiceRef & { path?: string }) => `https://${serviceHostName(ref)}:${ref.port ?? 443}${ref.path ?? ''}`;

/** where a call to a Service reference goes now: its URL at an endpoint, and the name its certificate must carry */
export async function serviceTarget(ref: ServiceRef & { path?: string }, resolve: ServiceResolver | undefined):
  Promise<{ ok: true; url: URL; servername: string } | { ok: false; message: string }> {
  const address = resolve ? await resolve(ref) : { ok: false as const, message: 'this server resolves no service references here' };
  if (!address.ok) return address;
  const url = new URL(serviceUrl(ref));
  url.hostname = address.host.includes(':') ? `[${address.host}]` : address.host;
  url.port = String(address.port);
  return { ok: true, url, servername: serviceHostName(ref) };
}
