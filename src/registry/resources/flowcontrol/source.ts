// The flow-control filter's view of the flowcontrol objects (the watch cache's, at the stored version) and of
// object counts, and the few writes that keep the default objects in place.
import type { Naming } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/meta.js';
import type { ResourceCaches } from '../../../api/cache.js';
import type { FlowControlSource, FlowControlWriter, FlowSchema, PriorityLevelConfiguration, FlowControlConfig } from '../../../api/flowcontrol.js';
import type { ApiResources } from '../../resources.js';
import type { Backends } from '../../backends.js';
import { noAdmission } from '../../store.js';

export function flowControlSource(caches: ResourceCaches, resources: ApiResources, names: Naming): FlowControlSource {
  const group = names.group('flowcontrol.apiserver');
  const cacheOf = (resource: string) => {
    const info = resources.preferred(group, resource);
    if (!info) throw new Error(`the ${resource} resource of ${group} is not served`);
    return { cache: caches.cache(info.keyPrefix), prefix: info.keyPrefix };
  };
  const schemas = cacheOf('flowschemas'), levels = cacheOf('prioritylevelconfigurations');
  const listeners = new Set<() => void>();
  let generation = 0;
  let current: FlowControlConfig | undefined;
  const changed = () => { generation++; current = undefined; for (const l of listeners) l(); };
  for (const c of [schemas, levels]) c.cache.subscribe({ send: changed, end: changed });
  const ready = Promise.all([schemas.cache.ready, levels.cache.ready]).then(changed);
  return {
    ready,
    config: () => (current ??= {
      generation,
      flowSchemas: schemas.cache.snapshot(schemas.prefix).map(s => s.obj as FlowSchema),
      priorityLevels: levels.cache.snapshot(levels.prefix).map(s => s.obj as PriorityLevelConfiguration),
    }),
    onChange(listener) { listeners.add(listener); return () => { listeners.delete(listener); }; },
    objectCount(apiGroup, resource) {
      const info = resources.preferred(apiGroup, resource);
      return info ? caches.cache(info.keyPrefix).count() : undefined;
    },
  };
}

export function flowControlWriter(backends: Backends, names: Naming): FlowControlWriter {
  const group = names.group('flowcontrol.apiserver');
  const store = (resource: string) => {
    const b = backends.preferred(group, resource);
    if (!b) throw new Error(`the ${resource} resource of ${group} is not served`);
    return b.store;
  };
  // the reference's names for the writer of the default objects and the writer of their status, in managedFields
  const manager = (subresource = '') => ({
    name: subresource === 'status' ? 'api-priority-and-fairness-config-consumer-v1' : 'api-priority-and-fairness-config-producer-v1',
    apiVersion: `${group}/v1beta3`,
  });
  return {
    async create(resource, obj) {
      await store(resource).create('', obj as ApiObject, noAdmission, { dryRun: false, manager: manager() });
    },
    async update(resource, name, subresource, change) {
      await store(resource).guaranteedUpdate('', name, subresource,
        cur => (cur && (change(cur as never) as ApiObject | undefined)) ?? cur!, noAdmission, { dryRun: false, manager: manager(subresource) });
    },
  };
}
