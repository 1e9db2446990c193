// A resource is a definition (names, scope, verbs, versions, schema) plus a strategy (hooks).
// Nothing resource-specific lives in the generic store.
import type { Schema } from '../api/schema.js';
import type { Strategy } from './strategy.js';
import type { ApiObject } from '../api/meta.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
export const allVerbs: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface VersionDefinition {
  name: string;
  served: boolean;
  storage: boolean;
  /** the kind's schema at this version (the whole object, apiVersion/kind/metadata included) */
  schema?: Schema;
  deprecated?: boolean;
  /** release that deprecated the version, e.g. '1.26' (for the warning clients get) */
  deprecatedIn?: string;
  /** release that no longer serves the version, e.g. '1.29' */
  removedIn?: string;
  deprecationWarning?: string;
  /** the version's own strategy when its schema differs from the others' (custom resources) */
  strategy?: Strategy;
  /** the version's own Table columns (custom resources' printer columns) */
  columns?: TableColumn[];
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** JSONPath-like path into the object, e.g. .status.phase */
  jsonPath?: string;
  /** or a function computing the cell */
  cell?: (obj: any) => unknown;
}

/** where a resource keeps what its scale subresource shows (JSON paths such as .spec.replicas) */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface SubresourceDefinition {
  /** scale: the paths of the replica counts and selector, when not .spec.replicas, .status.replicas and .spec.selector */
  scale?: ScalePaths;
  verbs: Verb[];
  /** kind served at the subresource when it differs from the parent's (e.g. Scale) */
  kind?: string;
  group?: string;
  /** true when `group` is a base that naming.group() completes (as ResourceDefinition.domainGroup) */
  domainGroup?: boolean;
  version?: string;
}

export interface ResourceDefinition {
  /** API group as the catalog spells it: '' for core, 'apps', or a base such as 'rbac.authorization'
   *  that naming.group() completes with the API domain; custom resources give the full group */
  group: string;
  /** true for groups whose full name carries the API domain suffix */
  domainGroup?: boolean;
  resource: string;
  singular: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  verbs: Verb[];
  versions: VersionDefinition[];
  subresources?: Record<string, SubresourceDefinition>;
  /** columns of the Table form beyond Name (defaults: Name and Created At) */
  columns?: TableColumn[];
  /** the resource's own strategy (custom resources); built-in ones are found by strategyFor */
  strategy?: Strategy;
  /** defined at run time by a CustomResourceDefinition: its schema validates, but strategic merge patch and
   *  typed decoding do not apply */
  custom?: boolean;
  /**
   * Converts objects (each at its own version) to one version of this resource, in order; objects already at it come
   * back unchanged. Resources that have it take and return objects at the requested version and are stored at the
   * storage version; the others are handled at the storage version and only renamed on the way out.
   */
  convert?(objects: ApiObject[], toVersion: string): Promise<ApiObject[]>;
}
