// The installed API: resource definitions resolved against the API domain and the enabled versions,
// looked up by (group, version, resource). Routes and discovery read the same table.
import type { Naming } from '../api/naming.js';
import { compareVersions } from '../api/apiservices.js';
import type { GroupVersionKind } from '../api/admission.js';
import type { ResourceDefinition, ResourceInfo, VersionDefinition } from './types.js';

export type { ResourceInfo };

export interface GroupInfo { name: string; versions: string[]; preferredVersion: string }

export interface ApiResources {
  lookup(group: string, version: string, resource: string): ResourceInfo | undefined;
  /** every served (group, version, resource) entry */
  all(): ResourceInfo[];
  /** groups in discovery order, each with its served versions (preferred first) */
  groups(): GroupInfo[];
  byGroupVersion(group: string, version: string): ResourceInfo[];
  /** the entry at the preferred version for a group and resource */
  preferred(group: string, resource: string): ResourceInfo | undefined;
  add(def: ResourceDefinition): void;
  remove(group: string, resource: string): void;
  /** called after add/remove so caches (discovery documents) can be rebuilt; the answer unsubscribes */
  onChange(fn: () => void): () => void;
}

export function fullGroup(def: Pick<ResourceDefinition, 'group' | 'domainGroup'>, names: Naming): string {
  return def.domainGroup ? names.group(def.group) : def.group;
}

/**
 * The kind a request to a resource's subresource reads and writes: the subresource's own when its definition declares
 * one, at its own group and version (autoscaling/v1 Scale for apps/v1 deployments/scale, policy/v1 Eviction for
 * pods/eviction), else the resource's own kind at the requested version (status, ephemeralcontainers).
 */
export function kindAt(info: ResourceInfo, subresource: string, names: Naming): GroupVersionKind {
  const sub = subresource && Object.hasOwn(info.subresources, subresource) ? info.subresources[subresource] : undefined;
  if (!sub?.kind) return { group: info.group, version: info.version, kind: info.kind };
  const group = sub.group === undefined ? info.group : fullGroup({ group: sub.group, domainGroup: sub.domainGroup }, names);
  return { group, version: sub.version ?? info.version, kind: sub.kind };
}

const apiVersionOf = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** where and at which version a resource's objects are kept: its own storage version, or another resource's */
function storageOf(def: ResourceDefinition, group: string, names: Naming): Pick<ResourceInfo, 'keyPrefix' | 'storageVersion' | 'storageApiVersion'> {
  const at = def.storedAs
    ? { group: fullGroup(def.storedAs, names), resource: def.storedAs.resource, version: def.storedAs.version }
    : { group, resource: def.resource, version: (def.versions.find(v => v.storage) ?? def.versions[0]).name };
  return { keyPrefix: `/registry/${at.group || 'core'}/${at.resource}/`, storageVersion: at.version, storageApiVersion: apiVersionOf(at.group, at.version) };
}

/** versions sort as the reference does: GA before beta before alpha, higher numbers first */
export { compareVersions };

export function createApiResources(names: Naming, isServed: (group: string, version: string, resource: string, def: ResourceDefinition, v: VersionDefinition) => boolean): ApiResources {
  const entries = new Map<string, ResourceInfo>();
  const defs = new Map<string, ResourceDefinition>();
  const listeners = new Set<() => void>();
  let groupOrder: string[] = [];
  let groupsCache: GroupInfo[] | undefined;
  const changed = () => { groupsCache = undefined; for (const l of listeners) l(); };
  const k = (g: string, v: string, r: string) => `${g}/${v}/${r}`;

  const api: ApiResources = {
    lookup: (g, v, r) => entries.get(k(g, v, r)),
    all: () => [...entries.values()],
    byGroupVersion: (g, v) => [...entries.values()].filter(e => e.group === g && e.version === v),
    groups() {
      if (groupsCache) return groupsCache;
      const byGroup = new Map<string, Set<string>>();
      for (const e of entries.values()) {
        if (!byGroup.has(e.group)) byGroup.set(e.group, new Set());
        byGroup.get(e.group)!.add(e.version);
      }
      return (groupsCache = groupOrder.filter(g => byGroup.has(g)).map(name => {
        const versions = [...byGroup.get(name)!].sort(compareVersions);
        return { name, versions, preferredVersion: versions[0] };
      }));
    },
    preferred(g, r) {
      const group = api.groups().find(x => x.name === g);
      if (!group) return undefined;
      for (const v of group.versions) { const e = entries.get(k(g, v, r)); if (e) return e; }
      return undefined;
    },
    add(def) {
      const group = fullGroup(def, names);
      defs.set(`${group}/${def.resource}`, def);
      const stored = storageOf(def, group, names);
      for (const v of def.versions) {
        if (!v.served || !isServed(group, v.name, def.resource, def, v)) continue;
        entries.set(k(group, v.name, def.resource), {
          def, group, version: v.name, ...stored, resource: def.resource, kind: def.kind,
          listKind: def.listKind ?? `${def.kind}List`, singular: def.singular || def.kind.toLowerCase(),
          namespaced: def.namespaced, verbs: def.verbs, subresources: v.subresources ?? def.subresources ?? {}, schema: v.schema, versionDef: v,
          apiVersion: apiVersionOf(group, v.name),
        });
      }
      if (!groupOrder.includes(group)) groupOrder.push(group);
      changed();
    },
    remove(g, r) {
      defs.delete(`${g}/${r}`);
      for (const [key, e] of entries) if (e.group === g && e.resource === r) entries.delete(key);
      changed();
    },
    onChange: fn => { listeners.add(fn); return () => { listeners.delete(fn); }; },
  };
  return api;
}
