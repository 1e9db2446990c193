// Discovery: /api, /apis, /apis/<group>, the per-version resource lists, and aggregated discovery
// (v2 and v2beta1), all read from the installed resources and rebuilt when they change.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import { kindAt, type ApiResources, type ResourceInfo } from '../registry/resources.js';
import type { SubresourceDefinition } from '../registry/types.js';
import { featureEnabled, type RequestContext } from '../api/request.js';
import { negotiate, offeredTypes, parseAccept } from '../endpoints/negotiation.js';
import { protobufOf, sendObject, sendText } from '../endpoints/respond.js';
import { loadedProtobufCodec } from '../api/protobuf/load.js';
import { notAcceptable, pathNotFound } from '../api/status.js';
import { compareVersions, type Priority } from '../api/apiservices.js';

/** an API resource as a backend's discovery lists it */
interface ListedResource { name: string; singularName?: string; namespaced?: boolean; kind?: string; verbs?: string[]; shortNames?: string[]; categories?: string[]; group?: string; version?: string }

/** the group versions APIServices hand to backends, and the priorities of every group version */
export interface RemoteGroups {
  priority(group: string, version: string): Priority;
  /** each remote group version with its resources as its backend last listed them (absent while never listed) */
  versions(): Array<{ group: string; version: string; available: boolean; resources?: ListedResource[] }>;
  onChange(fn: () => void): void;
}

/** a backend's resource list in the aggregated form: subresources under their resource */
function aggregatedFromList(group: string, version: string, list: ListedResource[]) {
  const out: Record<string, unknown>[] = [];
  const byName = new Map<string, Record<string, unknown>>();
  for (const r of list.filter(r => !r.name.includes('/'))) {
    const e: Record<string, unknown> = {
      resource: r.name, responseKind: { group, version, kind: r.kind ?? '' }, scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '', verbs: r.verbs ?? [],
    };
    if (r.shortNames?.length) e.shortNames = r.shortNames;
    if (r.categories?.length) e.categories = r.categories;
    byName.set(r.name, e);
    out.push(e);
  }
  for (const r of list.filter(r => r.name.includes('/'))) {
    const [parent, sub] = r.name.split('/');
    const p = byName.get(parent);
    if (!p) continue;
    ((p.subresources ??= []) as unknown[]).push({ subresource: sub, responseKind: { group: r.group ?? group, version: r.version ?? version, kind: r.kind ?? '' }, verbs: r.verbs ?? [] });
  }
  return out;
}

const storageVersionHash = (r: ResourceInfo) =>
  createHash('sha256').update(`${r.group}/${r.storageVersion}/${r.kind}`).digest().subarray(0, 8).toString('base64');

const subGroup = (names: Naming, s: SubresourceDefinition) =>
  s.group === undefined ? undefined : s.domainGroup ? names.group(s.group) : s.group;

/** the verbs discovery lists for a resource: fewer than it serves while it goes (a terminating CRD's) */
const listedVerbs = (r: ResourceInfo) => r.def.discoveryVerbs ?? r.verbs;

function resourceList(names: Naming, group: string, version: string, entries: ResourceInfo[]) {
  const resources: Record<string, unknown>[] = [];
  for (const r of entries) {
    const main: Record<string, unknown> = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: listedVerbs(r) };
    if (r.def.shortNames?.length) main.shortNames = r.def.shortNames;
    if (r.def.categories?.length) main.categories = r.def.categories;
    if (r.verbs.length) main.storageVersionHash = storageVersionHash(r);
    resources.push(main);
    for (const [sub, s] of Object.entries(r.subresources)) {
      const e: Record<string, unknown> = { name: `${r.resource}/${sub}`, singularName: '', namespaced: r.namespaced, kind: s.kind ?? r.kind, verbs: s.verbs };
      if (s.group !== undefined) e.group = subGroup(names, s);
      if (s.version !== undefined) e.version = s.version;
      resources.push(e);
    }
  }
  // the core group's list carries no apiVersion, as the reference's legacy discovery writes it; a named group's does
  return { kind: 'APIResourceList', ...(group ? { apiVersion: 'v1' } : {}), groupVersion: group ? `${group}/${version}` : version, resources };
}

function aggregatedResource(names: Naming, r: ResourceInfo) {
  const out: Record<string, unknown> = {
    resource: r.resource, responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singular, verbs: listedVerbs(r),
  };
  if (r.def.shortNames?.length) out.shortNames = r.def.shortNames;
  if (r.def.categories?.length) out.categories = r.def.categories;
  const subs = Object.entries(r.subresources).map(([sub, s]) => ({
    subresource: sub, responseKind: kindAt(r, sub, names), verbs: s.verbs,
  }));
  if (subs.length) out.subresources = subs;
  return out;
}

export function discoveryEndpoints(resources: ApiResources, names: Naming, serverAddress: () => string, remote?: RemoteGroups) {
  let cache: Map<string, unknown> | undefined;
  resources.onChange(() => { cache = undefined; });
  remote?.onChange(() => { cache = undefined; });

  /**
   * Every group with its versions, local and remote, in the reference's order: groups by the highest priority of
   * their versions, then by name; versions by their priority, then newest first.
   */
  const allGroups = () => memo('all', () => {
    const versions = new Map<string, Set<string>>();
    const add = (g: string, v: string) => { if (!versions.has(g)) versions.set(g, new Set()); versions.get(g)!.add(v); };
    for (const g of resources.groups()) for (const v of g.versions) add(g.name, v);
    for (const r of remote?.versions() ?? []) add(r.group, r.version);
    if (!remote) return resources.groups();
    const prio = (g: string, v: string) => remote.priority(g, v);
    return [...versions].map(([name, vs]) => {
      const sorted = [...vs].sort((a, b) => prio(name, b).version - prio(name, a).version || compareVersions(a, b));
      return { name, versions: sorted, preferredVersion: sorted[0], priority: Math.max(...sorted.map(v => prio(name, v).group)) };
    }).sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  });
  const remoteVersion = (group: string, version: string) => remote?.versions().find(r => r.group === group && r.version === version);
  const memo = <T>(key: string, make: () => T): T => {
    cache ??= new Map();
    if (!cache.has(key)) cache.set(key, make());
    return cache.get(key) as T;
  };

  const groupEntry = (g: { name: string; versions: string[]; preferredVersion: string }) => ({
    name: g.name,
    versions: g.versions.map(v => ({ groupVersion: `${g.name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.name}/${g.preferredVersion}`, version: g.preferredVersion },
  });

  const aggregated = (core: boolean, version: string) => memo(`agg/${core}/${version}`, () => ({
    kind: 'APIGroupDiscoveryList', apiVersion: `${names.group('apidiscovery')}/${version}`, metadata: {},
    items: allGroups().filter(g => (g.name === '') === core).map(g => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map(v => {
        const r = remoteVersion(g.name, v);
        if (!r) return { version: v, freshness: 'Current', resources: resources.byGroupVersion(g.name, v).map(e => aggregatedResource(names, e)) };
        return { version: v, freshness: r.available ? 'Current' : 'Stale', resources: aggregatedFromList(g.name, v, r.resources ?? []) };
      }),
    })),
  }));

  /**
   * a discovery document: in protobuf when the client prefers it, else JSON. The core group's documents (/api, /api/v1)
   * name no apiVersion, in JSON and in the protobuf envelope's TypeMeta alike, as the reference strips it from both
   */
  const sendDocument = (ctx: RequestContext, doc: { kind: string; apiVersion?: string; [field: string]: unknown }) => {
    const bytes = protobufOf(ctx, names, doc.apiVersion ? doc : { ...doc, apiVersion: '' });
    if (bytes) return sendText(ctx, 200, bytes, names.protobufMediaType);
    sendObject(ctx, 200, doc);
  };

  return {
    /** answers discovery paths; false when the path is not one */
    handle(ctx: RequestContext): boolean {
      const parts = ctx.path.split('/').filter(Boolean);
      if (parts[0] !== 'api' && parts[0] !== 'apis') return false;
      const core = parts[0] === 'api';
      if (parts.length === 1) {
        const target = { discovery: featureEnabled(ctx, 'AggregatedDiscoveryEndpoint', true), protobuf: loadedProtobufCodec() !== undefined };
        const rep = negotiate(parseAccept(ctx.headers.accept), names, target);
        if (!rep) throw notAcceptable(offeredTypes(names, target));
        if (rep.kind === 'discovery') {
          // tagged by its content, as the reference tags it, so a client's cache revalidates it with If-None-Match
          const doc = aggregated(core, rep.version);
          const etag = memo(`etag/${core}/${rep.version}`, () => `"${createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase()}"`);
          // the form depends on the Accept header, and a cached copy may be shared (as the reference marks it)
          const headers = { 'ETag': etag, 'Vary': 'Accept', 'Cache-Control': 'public' };
          if (ctx.headers['if-none-match'] === etag) {
            ctx.res.writeHead(304, headers);
            ctx.res.end();
          } else {
            sendObject(ctx, 200, doc, rep.contentType, headers);
          }
          return true;
        }
        if (core) {
          sendDocument(ctx, {
            kind: 'APIVersions', versions: ['v1'],
            serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: serverAddress() }],
          });
        } else {
          sendDocument(ctx, memo('groups', () => ({
            kind: 'APIGroupList', apiVersion: 'v1', groups: allGroups().filter(g => g.name !== '').map(groupEntry),
          })));
        }
        return true;
      }
      const group = core ? '' : parts[1];
      const rest = core ? parts.slice(1) : parts.slice(2);
      if (rest.length === 0) {
        const g = allGroups().find(x => x.name === group && group !== '');
        if (!g) throw pathNotFound(ctx.path);
        sendDocument(ctx, { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g) });
        return true;
      }
      if (rest.length === 1) {
        const entries = resources.byGroupVersion(group, rest[0]);
        if (!entries.length) throw pathNotFound(ctx.path);
        sendDocument(ctx, memo(`gv/${group}/${rest[0]}`, () => resourceList(names, group, rest[0], entries)));
        return true;
      }
      return false;
    },
  };
}
