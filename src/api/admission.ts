// Admission as the rest of the server sees it: the attributes of a write, a plugin's two phases, the hooks the
// store calls inside its write loop, and the read-only listers and few writers plugins are given.
import type { ApiObject } from './meta.js';
import type { UserInfo } from './auth.js';
import type { AuditLevel } from './audit.js';
import type { Schema } from './schema.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** a kind with its own group and version (a subresource's kind may be another group's than its resource) */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionAttributes {
  operation: Operation;
  /** the resource written: group, version, resource and subresource as the request names them */
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** the kind of `object` and `oldObject`: the resource's, or the subresource's own (autoscaling/v1 Scale for
   *  apps/v1 deployments/scale, authentication/v1 TokenRequest for serviceaccounts/token) */
  kind: GroupVersionKind;
  namespace: string;
  name: string;
  /** the object being written (CREATE, UPDATE); mutating plugins may change it */
  object?: ApiObject;
  oldObject?: ApiObject;
  dryRun: boolean;
  /** the options the client gave the write, as the review's `options` carries them beside their kind: a create's,
   *  update's or patch's fieldManager and fieldValidation; a delete's gracePeriodSeconds, preconditions,
   *  orphanDependents and propagationPolicy (dryRun is `dryRun`) */
  options?: Record<string, unknown>;
  user?: UserInfo;
  /** adds a Warning header to the response */
  warn?(message: string): void;
  /** adds an annotation to the request's audit record, kept when the record's level is at least `level` (default Metadata) */
  annotate?(key: string, value: string, level?: AuditLevel): void;
  /**
   * reads an object a webhook changed as a request body is read (the fields the kind does not have dropped,
   * quantities made canonical) and defaults it; throws, saying which fields, when a field has the wrong type
   */
  decode?(obj: ApiObject): void;
}

/** read-only access to stored objects for plugins, never the registry itself; the objects may be the watch cache's own,
 *  which a plugin must not change */
export interface Listers {
  /** `fresh`: read from storage, for what must count a write made a moment ago (quota usage) */
  get(group: string, resource: string, namespace: string, name: string, fresh?: boolean): Promise<ApiObject | undefined>;
  /** the objects of a namespace ('' for all, or for cluster-scoped resources), served from the watch cache */
  list(group: string, resource: string, namespace: string): Promise<ApiObject[]>;
}

/** the few writes plugins make themselves (quota usage, auto-provisioned namespaces), without admission */
export interface Writers {
  create(group: string, resource: string, namespace: string, obj: ApiObject): Promise<ApiObject>;
  /** read-modify-write of the status subresource, retried on conflict; `change` returns undefined to write nothing */
  updateStatus(group: string, resource: string, namespace: string, name: string,
    change: (current: ApiObject) => ApiObject | undefined): Promise<void>;
}

export interface AdmissionPlugin {
  name: string;
  operations?: Operation[];
  /**
   * the resources (group, resource) the plugin acts on, at any subresource; unset: every resource. The chain calls a
   * plugin only for those: most plugins concern a resource or two, and awaiting each of them on every write of every
   * other resource cost a ConfigMap create a sixth of its time
   */
  resources?: ReadonlyArray<readonly [group: string, resource: string]>;
  /** mutating phase */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  /** validating phase: sees the final object and must not change it */
  validate?(a: Readonly<AdmissionAttributes>): Promise<void> | void;
}

export interface AdmissionHooks {
  /** mutating admission: may change obj */
  mutate(op: Operation, obj: ApiObject | undefined, old: ApiObject | undefined): Promise<void>;
  /** validating admission: sees the final object, must not change it */
  validate(op: Operation, obj: ApiObject | undefined, old: ApiObject | undefined): Promise<void>;
}

/** the AdmissionReview versions this server sends to webhooks */
export const admissionReviewVersions = ['v1', 'v1beta1'] as const;

/** what the webhook and policy plugins read from the server: configurations as the watch cache holds them, and served versions */
export type WebhookKind = 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations'
  | 'validatingadmissionpolicies' | 'validatingadmissionpolicybindings';

export interface WebhookSource {
  /** the stored configurations (or policies, or bindings) of one kind, sorted by name: the same list (not to be changed)
   *  while none of them changed, so what is derived from it can be kept with it */
  configurations(kind: WebhookKind): Promise<ApiObject[]>;
  /** the versions a group's resource is served at (empty when unknown) */
  servedVersions(group: string, resource: string): string[];
  /** the kind a resource's subresource ('' for the resource itself) reads and writes at a served version; undefined when
   *  not served */
  kindFor(group: string, version: string, resource: string, subresource: string): GroupVersionKind | undefined;
  /** an object of that resource as another version has it */
  convert(group: string, resource: string, obj: ApiObject, version: string): Promise<ApiObject>;
}

/** a resource the server serves at one version */
export interface ServedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** the schema of its objects, when the server has one */
  schema?: Schema;
}

/** the served API as admission sees it: which resource a kind is (owner references, policy parameters), and schemas */
export interface ResourceCatalog {
  /** the resources (not subresources) a group's kind is served as at a version ('' or '*' for any version) */
  byKind(group: string, version: string, kind: string): ServedResource[];
  /** a group's resource at a version */
  get(group: string, version: string, resource: string): ServedResource | undefined;
}
