// The webhook configurations as the webhook admission plugins read them: from the watch cache, with the served
// versions of the resources they name and conversion between them. Every write asks for them, so what can be kept
// is: the resources (until the served resources change) and, while no configuration changed, the very same list,
// which lets the plugins keep what they derive from it.
import type { ApiObject } from '../../../api/meta.js';
import type { Naming } from '../../../api/naming.js';
import type { WebhookKind, WebhookSource } from '../../../api/admission.js';
import type { StoredObject } from '../../../api/cache.js';
import type { WatchCache } from '../../../watch/cache.js';
import { kindAt, type ApiResources, type ResourceInfo } from '../../resources.js';

export function webhookSource(watchCache: WatchCache, resources: ApiResources, names: Naming): WebhookSource {
  const group = names.group('admissionregistration');
  const infos = new Map<WebhookKind, ResourceInfo | undefined>();
  const versions = new Map<string, string[]>();
  resources.onChange(() => { infos.clear(); versions.clear(); });
  const lastSeen = new Map<WebhookKind, { stored: StoredObject[]; objects: ApiObject[] }>();
  return {
    async configurations(kind) {
      if (!infos.has(kind)) infos.set(kind, resources.preferred(group, kind));
      const info = infos.get(kind);
      if (!info) return [];
      const cache = watchCache.cache(info.keyPrefix);
      await cache.ready;
      const stored = cache.snapshot(info.keyPrefix);
      const last = lastSeen.get(kind);
      if (last && last.stored.length === stored.length && last.stored.every((s, i) => s === stored[i])) return last.objects;
      const objects = stored.map(c => c.obj);
      lastSeen.set(kind, { stored, objects });
      return objects;
    },
    servedVersions(g, resource) {
      const key = `${g}/${resource}`;
      let served = versions.get(key);
      if (!served) versions.set(key, served = resources.all().filter(i => i.group === g && i.resource === resource).map(i => i.version));
      return served;
    },
    kindFor(g, version, resource, subresource) {
      const info = resources.lookup(g, version, resource);
      return info && kindAt(info, subresource, names);
    },
    async convert(g, resource, obj, version) {
      const info = resources.lookup(g, version, resource);
      if (!info) return obj;
      const converted = info.def.convert ? (await info.def.convert([obj], info.apiVersion, names))[0] : obj;
      return { ...converted, apiVersion: info.apiVersion, kind: info.kind };
    },
  };
}
