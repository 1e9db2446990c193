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

interface AggregatedList {
  kind?: string;
  items?: Array<{ metadata: { name?: string }; versions: Array<{ version: string; resources?: Array<{ resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[] }> }> }>;
}

/**
 * The resources of every group, each in its group's preferred version. With the naming of the server's
 * domain, aggregated discovery answers in two requests; otherwise (or from a server without it) each group
 * version is read on its own.
 */
export async function discoverResources(client: Client, names?: Naming): Promise<DiscoveredResource[]> {
  const groups = await client.request<ApiGroupList>({ method: 'GET', path: '/apis' });
  const preferred = new Map<string, string>([['', 'v1'], ...groups.groups.map((g): [string, string] => [g.name, g.preferredVersion?.version ?? g.versions[0]!.version])]);
  if (names) {
    const accept = `application/json;g=${names.group('apidiscovery')};v=v2beta1;as=APIGroupDiscoveryList, application/json`;
    const [core, rest] = await Promise.all(['/api', '/apis'].map((path) =>
      client.request<AggregatedList>({ method: 'GET', path, headers: { accept } }).catch(() => undefined)));
    if (core?.kind === 'APIGroupDiscoveryList' && rest?.kind === 'APIGroupDiscoveryList') {
      const out: DiscoveredResource[] = [];
      for (const g of [...(core.items ?? []), ...(rest.items ?? [])]) {
        const group = g.metadata.name ?? '';
        const v = g.versions.find((x) => x.version === preferred.get(group)) ?? g.versions[0];
        for (const r of v?.resources ?? []) {
          out.push({ group, version: v!.version, resource: r.resource, kind: r.responseKind?.kind ?? '', namespaced: r.scope === 'Namespaced', verbs: r.verbs ?? [] });
        }
      }
      return out;
    }
  }
  const lists = [...preferred].map(([group, version]) => ({ group, version, path: group ? `/apis/${group}/${version}` : `/api/${version}` }));
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
