// What a server serves, read from its discovery documents: every resource of every group's preferred
// version (subresources left out), and the API domain its groups are named in.

import { apiDomains, naming, type Naming } from '../api/naming.js';
import type { Client, ResourceRef } from './rest-client.js';

export interface DiscoveredResource extends ResourceRef {
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface ApiResourceList { groupVersion: string; resources: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }> }
interface ApiGroupList { groups: Array<{ name: string; preferredVersion?: { version: string }; versions: Array<{ version: string }> }> }

/** the resources of every group, each in its group's preferred version */
export async function discoverResources(client: Client): Promise<DiscoveredResource[]> {
  const core = await client.request<{ versions: string[] }>({ method: 'GET', path: '/api' });
  const groups = await client.request<ApiGroupList>({ method: 'GET', path: '/apis' });
  const lists: Array<{ group: string; version: string; path: string }> = [
    ...core.versions.slice(0, 1).map((v) => ({ group: '', version: v, path: `/api/${v}` })),
    ...groups.groups.map((g) => {
      const version = g.preferredVersion?.version ?? g.versions[0]!.version;
      return { group: g.name, version, path: `/apis/${g.name}/${version}` };
    }),
  ];
  const out: DiscoveredResource[] = [];
  await Promise.all(lists.map(async (l) => {
    // a group that went away meanwhile (a custom resource deleted) is skipped
    const list = await client.request<ApiResourceList>({ method: 'GET', path: l.path }).catch(() => undefined);
    for (const r of list?.resources ?? []) {
      if (r.name.includes('/')) continue;
      out.push({ group: l.group, version: l.version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
  }));
  return out;
}

/** The naming of the server's API domain, read from the name of its coordination group. */
export async function discoverNaming(client: Client): Promise<Naming> {
  const groups = await client.request<ApiGroupList>({ method: 'GET', path: '/apis' });
  const served = new Set(groups.groups.map((g) => g.name));
  for (const domain of apiDomains) {
    const names = naming(domain);
    if (served.has(names.group('coordination'))) return names;
  }
  throw new Error(`the server serves no coordination group of a known API domain (${apiDomains.join(', ')})`);
}
