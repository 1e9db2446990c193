// Resource clients typed per kind from the generated types of the catalog: `kindClient(client, 'apps/v1',
// 'Deployment')` is a ResourceClient of `appsV1.Deployment`. The resource's path comes from the server's discovery
// (learnt once per client), so the same call works in either API domain when the apiVersion is built with
// `names.group(...)`.

import type { KindMap } from '../api/types/index.js';
import type { ApiObject } from '../api/meta.js';
import { discover, type Discovery } from './discovery.js';
import type { Client, ResourceClient, ResourceRef, SubresourceClient, WatchEvent } from './rest-client.js';

/** the generated type of `<apiVersion>/<kind>`, or a plain object for kinds the catalog does not know (custom resources) */
export type KindOf<ApiVersion extends string, Kind extends string> =
  `${ApiVersion}/${Kind}` extends keyof KindMap ? KindMap[`${ApiVersion}/${Kind}`] : ApiObject;

const discoveries = new WeakMap<Client, Promise<Discovery>>();

/** the client's discovery, learnt on first use and kept; `refresh` learns it again (after CRDs were added) */
export function discoveryOf(client: Client, refresh = false): Promise<Discovery> {
  let d = discoveries.get(client);
  if (!d || refresh) {
    d = discover(client);
    d.catch(() => discoveries.delete(client));
    discoveries.set(client, d);
  }
  return d;
}

async function refFor(client: Client, apiVersion: string, kind: string): Promise<ResourceRef> {
  const info = (await discoveryOf(client)).forKind(apiVersion, kind) ?? (await discoveryOf(client, true)).forKind(apiVersion, kind);
  if (!info) throw new Error(`the server serves no resource of kind ${kind} in ${apiVersion}`);
  return info;
}

/** A resource client for objects of one kind, typed from the catalog's generated types. */
export function kindClient<ApiVersion extends string, Kind extends string>(
  client: Client, apiVersion: ApiVersion, kind: Kind, namespace?: string,
): ResourceClient<KindOf<ApiVersion, Kind>> {
  type T = KindOf<ApiVersion, Kind>;
  let resolved: Promise<ResourceClient<T>> | undefined;
  const inner = () => (resolved ??= refFor(client, apiVersion, kind).then((ref) => client.resource<T>(ref, namespace)));
  const sub = <S>(name: string): SubresourceClient<S> => ({
    get: async (n) => (await inner()).subresource<S>(name).get(n),
    create: async (n, obj, o) => (await inner()).subresource<S>(name).create(n, obj, o),
    update: async (obj, o) => (await inner()).subresource<S>(name).update(obj, o),
    patch: async (n, p, t, o) => (await inner()).subresource<S>(name).patch(n, p, t, o),
    apply: async (obj, o) => (await inner()).subresource<S>(name).apply(obj, o),
  });
  return {
    get: async (name, o) => (await inner()).get(name, o),
    list: async (o) => (await inner()).list(o),
    listAll: async (o) => (await inner()).listAll(o),
    create: async (obj, o) => (await inner()).create(obj, o),
    update: async (obj, o) => (await inner()).update(obj, o),
    patch: async (name, p, t, o) => (await inner()).patch(name, p, t, o),
    apply: async (obj, o) => (await inner()).apply(obj, o),
    delete: async (name, o) => (await inner()).delete(name, o),
    deleteCollection: async (o) => (await inner()).deleteCollection(o),
    modify: async (name, change, o) => (await inner()).modify(name, change, o),
    async *watch(o): AsyncIterable<WatchEvent<T>> { yield* (await inner()).watch(o); },
    status: sub<T>('status'),
    subresource: <S>(name: string) => sub<S>(name),
  };
}
