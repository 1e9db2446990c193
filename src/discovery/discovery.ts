// Discovery: /api, /apis, /apis/<group>, the per-version resource lists, and aggregated discovery
// (v2 and v2beta1), all read from the installed resources and rebuilt when they change.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { SubresourceDefinition } from '../registry/types.js';
import type { RequestContext } from '../api/request.js';
import { negotiate, offeredTypes, parseAccept } from '../endpoints/negotiation.js';
import { sendObject } from '../endpoints/respond.js';
import { notAcceptable, pathNotFound } from '../api/status.js';

const storageVersionHash = (r: ResourceInfo) =>
  createHash('sha256').update(`${r.group}/${r.storageVersion}/${r.kind}`).digest().subarray(0, 8).toString('base64');

const subGroup = (names: Naming, s: SubresourceDefinition) =>
  s.group === undefined ? undefined : s.domainGroup ? names.group(s.group) : s.group;

function resourceList(names: Naming, group: string, version: string, entries: ResourceInfo[]) {
  const resources: Record<string, unknown>[] = [];
  for (const r of entries) {
    const main: Record<string, unknown> = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
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
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function aggregatedResource(names: Naming, r: ResourceInfo) {
  const out: Record<string, unknown> = {
    resource: r.resource, responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster', singularResource: r.singular, verbs: r.verbs,
  };
  if (r.def.shortNames?.length) out.shortNames = r.def.shortNames;
  if (r.def.categories?.length) out.categories = r.def.categories;
  const subs = Object.entries(r.subresources).map(([sub, s]) => ({
    subresource: sub, responseKind: { group: subGroup(names, s) ?? r.group, version: s.version ?? r.version, kind: s.kind ?? r.kind }, verbs: s.verbs,
  }));
  if (subs.length) out.subresources = subs;
  return out;
}

export function discoveryEndpoints(resources: ApiResources, names: Naming, serverAddress: () => string) {
  let cache: Map<string, unknown> | undefined;
  resources.onChange(() => { cache = undefined; });
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
    items: resources.groups().filter(g => (g.name === '') === core).map(g => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map(v => ({
        version: v, freshness: 'Current',
        resources: resources.byGroupVersion(g.name, v).map(r => aggregatedResource(names, r)),
      })),
    })),
  }));

  return {
    /** answers discovery paths; false when the path is not one */
    handle(ctx: RequestContext): boolean {
      const parts = ctx.path.split('/').filter(Boolean);
      if (parts[0] !== 'api' && parts[0] !== 'apis') return false;
      const core = parts[0] === 'api';
      if (parts.length === 1) {
        const target = { discovery: true };
        const rep = negotiate(parseAccept(ctx.headers.accept), names, target);
        if (!rep) throw notAcceptable(offeredTypes(names, target));
        if (rep.kind === 'discovery') {
          sendObject(ctx, 200, aggregated(core, rep.version), rep.contentType);
          return true;
        }
        if (core) {
          sendObject(ctx, 200, {
            kind: 'APIVersions', versions: ['v1'],
            serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: serverAddress() }],
          });
        } else {
          sendObject(ctx, 200, memo('groups', () => ({
            kind: 'APIGroupList', apiVersion: 'v1', groups: resources.groups().filter(g => g.name !== '').map(groupEntry),
          })));
        }
        return true;
      }
      const group = core ? '' : parts[1];
      const rest = core ? parts.slice(1) : parts.slice(2);
      if (rest.length === 0) {
        const g = resources.groups().find(x => x.name === group && group !== '');
        if (!g) throw pathNotFound(ctx.path);
        sendObject(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g) });
        return true;
      }
      if (rest.length === 1) {
        const entries = resources.byGroupVersion(group, rest[0]);
        if (!entries.length) throw pathNotFound(ctx.path);
        sendObject(ctx, 200, memo(`gv/${group}/${rest[0]}`, () => resourceList(names, group, rest[0], entries)));
        return true;
      }
      return false;
    },
  };
}
