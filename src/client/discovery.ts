// What the server serves, learnt from it: its API domain (from the group of its aggregated discovery answer,
// or of its authorization group in the legacy answer), the groups and versions, and every resource with its
// kind, scope, verbs, short names and categories. Nothing about the domain is assumed: the request offers the
// discovery media type of every domain the naming module knows and the server's answer tells which it speaks.

import { apiDomains, naming, type ApiDomain, type Naming } from '../api/naming.js';
import { ApiError, type Client, type ResourceRef } from './rest-client.js';

export interface ApiResourceInfo extends ResourceRef {
  kind: string;
  namespaced: boolean;
  /** '' for core */
  group: string;
  version: string;
  resource: string;
  singular: string;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  subresources: string[];
  /** the group's preferred version */
  preferred: boolean;
}

export interface ApiGroupInfo { name: string; versions: string[]; preferredVersion: string }

export interface Discovery {
  /** the server's vendor names */
  names: Naming;
  groups: ApiGroupInfo[];
  /** every resource of every served version, preferred versions first within a group */
  resources: ApiResourceInfo[];
  /**
   * `pods`, `pod`, `po`, `Pod`, `deployments.apps`, `deployments.v1.apps`, `deploy.apps`: the resource
   * (preferred version unless one is named), or undefined
   */
  find(arg: string): ApiResourceInfo | undefined;
  /** the resource serving objects of this apiVersion and kind */
  forKind(apiVersion: string, kind: string): ApiResourceInfo | undefined;
  /** group versions whose resources could not be learnt (an aggregated API the server cannot reach: its discovery is
   *  stale), each with why, as the reference's client says it; their resources are left out of `resources` */
  failed: DiscoveryFailure[];
}

export interface DiscoveryFailure { groupVersion: string; message: string }

const discoveryVersions = ['v2', 'v2beta1'];

/** the Accept header that asks for aggregated discovery in any known domain, JSON otherwise */
export const aggregatedAccept = () => [
  ...apiDomains.flatMap((d) => discoveryVersions.map((v) => `application/json;g=${naming(d).group('apidiscovery')};v=${v};as=APIGroupDiscoveryList`)),
  'application/json',
].join(',');

function domainOfGroup(group: string, base: string): ApiDomain | undefined {
  return apiDomains.find((d) => naming(d).group(base) === group);
}

export async function discover(client: Client): Promise<Discovery> {
  const accept = aggregatedAccept();
  const [core, named] = await Promise.all([
    client.request<any>({ method: 'GET', path: '/api', accept }),
    client.request<any>({ method: 'GET', path: '/apis', accept }),
  ]);
  if (named?.kind === 'APIGroupDiscoveryList') {
    const domain = domainOfGroup(String(named.apiVersion ?? '').split('/')[0] ?? '', 'apidiscovery');
    if (!domain) throw new Error(`the server's discovery answer names an unknown API domain (${named.apiVersion})`);
    const items = [...(core?.kind === 'APIGroupDiscoveryList' ? core.items ?? [] : []), ...(named.items ?? [])];
    return build(naming(domain), items.map(fromAggregated));
  }
  return legacyDiscovery(client, core, named);
}

interface GroupResources { group: ApiGroupInfo; byVersion: Map<string, Omit<ApiResourceInfo, 'preferred'>[]>; stale?: Set<string> }

function fromAggregated(item: any): GroupResources {
  const name = item?.metadata?.name ?? '';
  const versions: string[] = (item.versions ?? []).map((v: any) => v.version);
  const byVersion = new Map<string, Omit<ApiResourceInfo, 'preferred'>[]>();
  for (const v of item.versions ?? []) {
    byVersion.set(v.version, (v.resources ?? []).map((r: any) => ({
      group: name, version: v.version, resource: r.resource, kind: r.responseKind?.kind ?? '',
      namespaced: r.scope === 'Namespaced', singular: r.singularResource ?? '', verbs: r.verbs ?? [],
      shortNames: r.shortNames ?? [], categories: r.categories ?? [],
      subresources: (r.subresources ?? []).map((s: any) => s.subresource),
    })));
  }
  const stale = new Set<string>((item.versions ?? []).filter((v: any) => v.freshness === 'Stale').map((v: any) => v.version));
  return { group: { name, versions, preferredVersion: versions[0] ?? '' }, byVersion, stale };
}

/** a server without aggregated discovery: the group list, then one request per group version */
async function legacyDiscovery(client: Client, core: any, named: any): Promise<Discovery> {
  const groups: ApiGroupInfo[] = [
    { name: '', versions: core?.versions ?? ['v1'], preferredVersion: core?.versions?.[0] ?? 'v1' },
    ...(named?.groups ?? []).map((g: any) => ({
      name: g.name, versions: (g.versions ?? []).map((v: any) => v.version), preferredVersion: g.preferredVersion?.version ?? g.versions?.[0]?.version,
    })),
  ];
  const domain = groups.map((g) => domainOfGroup(g.name, 'authorization')).find(Boolean);
  if (!domain) throw new Error(`the server serves no authorization group of a known API domain (${apiDomains.join(', ')})`);
  const all = await Promise.all(groups.map(async (group) => {
    const byVersion = new Map<string, Omit<ApiResourceInfo, 'preferred'>[]>();
    await Promise.all(group.versions.map(async (version) => {
      const list = await client.request<any>({ method: 'GET', path: group.name ? `/apis/${group.name}/${version}` : `/api/${version}` })
        .catch((e) => { if (e instanceof ApiError && e.code === 404) return { resources: [] }; throw e; });
      const entries = list.resources ?? [];
      byVersion.set(version, entries.filter((r: any) => !r.name.includes('/')).map((r: any) => ({
        group: group.name, version, resource: r.name, kind: r.kind, namespaced: r.namespaced === true, singular: r.singularName || r.kind.toLowerCase(),
        verbs: r.verbs ?? [], shortNames: r.shortNames ?? [], categories: r.categories ?? [],
        subresources: entries.filter((s: any) => s.name.startsWith(`${r.name}/`)).map((s: any) => s.name.slice(r.name.length + 1)),
      })));
    }));
    return { group, byVersion };
  }));
  return build(naming(domain), all);
}

function build(names: Naming, all: GroupResources[]): Discovery {
  const groups = all.map((g) => g.group);
  const resources: ApiResourceInfo[] = [];
  const failed: DiscoveryFailure[] = [];
  for (const { group, byVersion, stale } of all) {
    const order = [group.preferredVersion, ...group.versions.filter((v) => v !== group.preferredVersion)];
    for (const v of order) {
      const groupVersion = group.name ? `${group.name}/${v}` : v;
      if (stale?.has(v)) failed.push({ groupVersion, message: `stale GroupVersion discovery: ${groupVersion}` });
      else for (const r of byVersion.get(v) ?? []) resources.push({ ...r, preferred: v === group.preferredVersion });
    }
  }
  const find = (arg: string): ApiResourceInfo | undefined => {
    const lower = arg.toLowerCase();
    // `resource`, `resource.group` or `resource.version.group`
    const candidates: { name: string; version?: string; group?: string }[] = [{ name: lower }];
    const dot = lower.indexOf('.');
    if (dot > 0) {
      candidates.push({ name: lower.slice(0, dot), group: lower.slice(dot + 1) });
      const parts = lower.split('.');
      if (parts.length >= 3) candidates.push({ name: parts[0]!, version: parts[1], group: parts.slice(2).join('.') });
    }
    for (const c of candidates) {
      const matches = resources.filter((r) => (c.group === undefined || r.group === c.group || (c.group === '' && r.group === ''))
        && (c.version === undefined || r.version === c.version)
        && (r.resource === c.name || r.singular === c.name || r.kind.toLowerCase() === c.name || r.shortNames.includes(c.name)));
      // the exact plural beats a kind or short name; a preferred version beats another; core beats the rest
      const best = matches.sort((a, b) => rank(a, c.name) - rank(b, c.name))[0];
      if (best) return best;
    }
    return undefined;
  };
  const rank = (r: ApiResourceInfo, name: string) =>
    (r.resource === name ? 0 : r.singular === name ? 1 : r.shortNames.includes(name) ? 2 : 3) * 10 + (r.preferred ? 0 : 1) * 4 + (r.group === '' ? 0 : 1);
  return {
    names, groups, resources, find, failed,
    forKind(apiVersion, kind) {
      const i = apiVersion.lastIndexOf('/');
      const group = i < 0 ? '' : apiVersion.slice(0, i);
      const version = i < 0 ? apiVersion : apiVersion.slice(i + 1);
      return resources.find((r) => r.group === group && r.version === version && r.kind === kind);
    },
  };
}

/** a resource as the controllers use it: one of the preferred version of its group */
export type DiscoveredResource = ApiResourceInfo;

/** the resources of every group, each in its group's preferred version (subresources left out), and the group
 *  versions that could not be learnt */
export async function discoverResources(client: Client): Promise<{ resources: DiscoveredResource[]; failed: DiscoveryFailure[] }> {
  const d = await discover(client);
  return { resources: d.resources.filter((r) => r.preferred), failed: d.failed };
}

/** the naming of the server's API domain, as its discovery answer tells */
export async function discoverNaming(client: Client): Promise<Naming> {
  return (await discover(client)).names;
}
