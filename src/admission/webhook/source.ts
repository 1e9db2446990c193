// What the webhook plugins read from the server: the webhook configurations as the watch cache holds them
// (so a new configuration takes effect as soon as the cache has it), and the served versions of a resource
// for matchPolicy Equivalent.
import type { ApiObject } from '../../api/meta.js';
import type { Naming } from '../../api/naming.js';
import type { ApiResources } from '../../registry/resources.js';
import type { WatchHub } from '../../watch/cache.js';

export type WebhookKind = 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations';

export interface WebhookSource {
  /** the stored configurations of one kind, sorted by name */
  configurations(kind: WebhookKind): Promise<ApiObject[]>;
  /** the versions a group's resource is served at (empty when unknown) */
  servedVersions(group: string, resource: string): string[];
  /** an object of that resource as another version has it */
  convert(group: string, resource: string, obj: ApiObject, version: string): Promise<ApiObject>;
}

export function webhookSource(hub: WatchHub, resources: ApiResources, names: Naming): WebhookSource {
  const group = names.group('admissionregistration');
  return {
    async configurations(kind) {
      const info = resources.preferred(group, kind);
      if (!info) return [];
      const cache = hub.cache(info.keyPrefix);
      await cache.ready;
      return cache.snapshot(info.keyPrefix).map(c => c.obj);
    },
    servedVersions: (g, resource) => resources.all().filter(i => i.group === g && i.resource === resource).map(i => i.version),
    async convert(g, resource, obj, version) {
      const info = resources.all().find(i => i.group === g && i.resource === resource && i.version === version);
      if (!info) return obj;
      const converted = info.def.convert ? (await info.def.convert([obj], version))[0] : obj;
      return { ...converted, apiVersion: info.apiVersion, kind: info.kind };
    },
  };
}
