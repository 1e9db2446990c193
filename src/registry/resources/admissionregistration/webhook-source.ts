// The webhook configurations as the webhook admission plugins read them: from the watch cache, with the served
// versions of the resources they name and conversion between them.
import type { Naming } from '../../../api/naming.js';
import type { WebhookSource } from '../../../api/admission.js';
import type { WatchCache } from '../../../watch/cache.js';
import type { ApiResources } from '../../resources.js';

export function webhookSource(watchCache: WatchCache, resources: ApiResources, names: Naming): WebhookSource {
  const group = names.group('admissionregistration');
  return {
    async configurations(kind) {
      const info = resources.preferred(group, kind);
      if (!info) return [];
      const cache = watchCache.cache(info.keyPrefix);
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
