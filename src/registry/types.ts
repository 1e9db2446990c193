// A resource is a definition (names, scope, verbs, versions, schema) with its strategy (hooks of the generic store),
// its Table columns and the handlers of what the store does not serve itself (scale, binding, eviction, token,
// the review kinds). Nothing resource-specific lives in the generic store or the endpoints.
import type { Schema } from '../api/schema.js';
import type { Strategy } from './strategy.js';
import type { ApiObject, Stored } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { AdmissionHooks, Listers } from '../api/admission.js';
import type { AuthnRequest, AuthnResult, Authorizer, ServiceAccountTokenSigner, UserInfo } from '../api/auth.js';
import type { ProxyTarget } from '../util/http-proxy.js';

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
  /** the version's own subresources where versions differ in them (custom resources); else the resource's */
  subresources?: Record<string, SubresourceDefinition>;
}

/** a condition of a Table row, as meta's TableRowCondition */
export interface TableRowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface TableColumn<T = ApiObject> {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  priority?: number;
  /** JSONPath-like path into the object, e.g. .status.phase */
  jsonPath?: string;
  /** or a function computing the cell */
  cell?(obj: T): unknown;
}

/** a field as a path of property names, e.g. ['status', 'conditions'] */
export type FieldPath = readonly string[];

export interface SubresourceDefinition {
  verbs: Verb[];
  /** kind served at the subresource when it differs from the parent's (e.g. Scale) */
  kind?: string;
  group?: string;
  /** true when `group` is a base that naming.group() completes (as ResourceDefinition.domainGroup) */
  domainGroup?: boolean;
  version?: string;
  /** a subresource the generic store serves (get, update, patch of the parent): the fields a write through it may
   *  change; everything else keeps its stored value */
  changes?: FieldPath[];
  /** a subresource served by its own handler */
  rest?: RestHandler;
  /** for a connect subresource (exec, proxy...): the fields of its options kind (`kind`) the request's query and the path
   *  after the subresource carry, as the reference decodes them; admission sees them as the CONNECT's object */
  connectOptions?(query: URLSearchParams, path: string): Record<string, unknown>;
  /** the schema of `kind`: a handler's request bodies are read by it as stored kinds' are (wrong types refused) */
  schema?: Schema;
  /** Table columns of the kind served at the subresource, when it has its own (Scale's); without them its reads are
   *  JSON only */
  columns?: TableColumn[];
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
  /** the conditions of an object's Table row (a finished pod's Completed), when it has any */
  rowConditions?(obj: ApiObject): TableRowCondition[];
  /** the hooks the generic store calls (defaults: the reference's common behaviour) */
  strategy?: Strategy;
  /** a resource that is never stored: its handler answers every request (the review kinds, bindings) */
  rest?: RestHandler;
  /** defined at run time by a CustomResourceDefinition: its schema validates, but strategic merge patch and
   *  typed decoding do not apply */
  custom?: boolean;
  /** what the resource's watches depend on (a CRD's uid, spec and accepted names): a definition put in place of one
   *  with the same key keeps its watches going, as the reference keeps a terminating CRD's storage; absent, any
   *  replacement ends them */
  servingKey?: string;
  /** why creates are refused for now (a terminating CustomResourceDefinition's): a create is a 405 with this message,
   *  while the objects there are can still be read, changed and deleted */
  createRefusal?: string;
  /** the verbs discovery lists when they are fewer than those served (a terminating CRD's objects can still be
   *  changed, so their finalizers can go, but discovery no longer offers it) */
  discoveryVerbs?: Verb[];
  /** an object as read from storage at revision rev, brought to what the definition writes now: a copy when it
   *  changes (a CRD's schema changed after the object was written: the pruning and defaults of the object's
   *  version apply, as the reference applies them on reading), undefined when the object is as stored */
  fromStorage?(obj: ApiObject, rev: number): ApiObject | undefined;
  /**
   * Converts objects (each at its own apiVersion) to one apiVersion, a served one of this resource or the one it is
   * stored at, in order; objects already at it come back unchanged. Resources that have it take and return objects at
   * the requested version and are stored at the storage version; the others are handled at the storage version and
   * only renamed on the way out.
   */
  convert?(objects: ApiObject[], toApiVersion: string, names: Naming): Promise<ApiObject[]>;
  /**
   * Objects of this resource are kept as those of another (the reference keeps events/v1 Events as core Events, so
   * both APIs read and write the same objects): its group (as `group` is spelt), resource and version. Requires
   * convert, between this resource's form and that one's.
   */
  storedAs?: { group: string; domainGroup?: boolean; resource: string; version: string };
}

/** a definition resolved against the API domain at one served version */
export interface ResourceInfo {
  def: ResourceDefinition;
  /** full group name ('' for core) */
  group: string;
  /** the served version this entry answers for */
  version: string;
  /** the version objects are stored at */
  storageVersion: string;
  /** the apiVersion objects are stored at (another resource's, with storedAs) */
  storageApiVersion: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  verbs: Verb[];
  subresources: Record<string, SubresourceDefinition>;
  schema?: Schema;
  versionDef: VersionDefinition;
  /** storage key prefix, ending in '/' */
  keyPrefix: string;
  apiVersion: string;
}

export interface WriteOptions {
  dryRun: boolean;
  /**
   * who writes, for metadata.managedFields; absent when the caller records ownership itself (server-side apply).
   * `subresource` names the path the manager wrote through when it is not the store's own (a Scale's writes)
   */
  manager?: { name: string; apiVersion: string; subresource?: string };
  /** who makes the request, handed to the strategy */
  user?: UserInfo;
  /** tells the client a warning (the Warning header), for what the strategy warns of in a valid write */
  warn?(message: string): void;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  /** the older form of propagationPolicy: Orphan (true) or Background (false) */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

// ── the REST surface of a resource's own handlers ────────────────────────────────────────────────
// Handlers are written against it without HTTP: the endpoints layer decodes the request body into a call and sends
// what the call returns.

/** the store operations a handler may use */
export interface RestStore {
  get(namespace: string, name: string): Promise<ApiObject>;
  /** read, change, write with compare-and-swap, retried on conflict (see the generic store) */
  guaranteedUpdate(namespace: string, name: string, subresource: string,
    transform: (current: ApiObject | undefined) => Promise<ApiObject> | ApiObject,
    admission: AdmissionHooks, opts: WriteOptions & UpdateOnlyOptions): Promise<{ obj: ApiObject; created: boolean }>;
  delete(namespace: string, name: string, options: DeleteOptions, admission: AdmissionHooks): Promise<{ obj: ApiObject; deleted: boolean }>;
}

/** one resource as a request reaches it */
export interface ResourceAccess {
  info: ResourceInfo;
  store: RestStore;
  /** the objects of a namespace ('' for all), read from storage */
  list(namespace: string): Promise<ApiObject[]>;
  /** admission bound to this request (by default the request's own name and dry run) */
  admission(opts?: { name?: string; dryRun?: boolean }): AdmissionHooks;
}

/** what handlers need beyond storage */
export interface RestServices {
  authorizer: Authorizer;
  authenticate(req: AuthnRequest): Promise<AuthnResult>;
  /** audiences tokens are meant for when a request names none */
  apiAudiences?: string[];
  /** issues service-account tokens; absent: serviceaccounts/<name>/token is not served */
  tokens?: ServiceAccountTokenSigner;
  /** the longest token lifetime in ms; 0 or absent: no limit */
  maxTokenExpirationMs?: number;
  /** pod-bound tokens asked for 3607 s are issued for a year, warning after the asked end (--service-account-extend-token-expiration) */
  extendTokenExpiration?: boolean;
  /** how the server reaches the node agents (logs, exec, attach, port-forward, nodes/proxy); absent: not at all */
  nodeClient?: NodeClientConfig;
  /** the health of the components the server knows of (its store, the controller manager, the scheduler), for
   *  componentstatuses; absent: none are listed */
  componentHealth?(): Promise<ComponentHealth[]>;
}

/** one component's health: healthy, not, or unknown (undefined) to this server */
export interface ComponentHealth {
  name: string;
  healthy: boolean | undefined;
  message: string;
  error?: string;
}

/** the server's client side towards the node agents' servers (--kubelet-* flags) */
export interface NodeClientConfig {
  /** the client certificate the server presents */
  certPem?: string;
  keyPem?: string;
  /** the CA the agents' serving certificates must chain to; absent: not checked, as the reference */
  caPem?: string;
  /** the node address types to connect to, first found wins */
  preferredAddressTypes: string[];
  /** how long connecting may take, in ms */
  timeoutMs: number;
}

/**
 * Where a connect subresource (log, exec, attach, portforward, proxy) leads: the endpoints stream the request there,
 * passing an upgraded connection through.
 */
export interface ConnectTarget extends ProxyTarget {
  /** exec, attach and port-forward: only an upgraded connection is served */
  upgradeRequired?: boolean;
  /** an answer outside 2xx becomes a Status error with that code and the answer's text (logs) */
  errorsAsStatus?: boolean;
}

export interface RestRequest extends ResourceAccess {
  /** the subresource addressed, '' for the resource itself */
  subresource: string;
  namespace: string;
  name: string;
  user?: UserInfo;
  /** the request's path, for reviews that describe a request */
  path: string;
  /** dryRun=All was asked for in the query */
  dryRun: boolean;
  /** who writes, for metadata.managedFields (PUT and PATCH: the fieldManager parameter, else the user agent) */
  manager?: { name: string; apiVersion: string };
  /** the request's query parameters (the options of connect subresources) */
  query: URLSearchParams;
  /** adds a Warning to the response */
  warn(message: string): void;
  names: Naming;
  listers: Listers;
  services: RestServices;
  /** another resource of this server (at its preferred version), for handlers that act on it */
  resource(group: string, resource: string, subresource?: string): ResourceAccess | undefined;
}

/**
 * A resource's own handler. Each call returns the object to send, or a Status (sent with its own code); creates
 * answer 201, the rest 200.
 */
export interface RestHandler {
  get?(req: RestRequest): Promise<object>;
  create?(req: RestRequest, body: unknown): Promise<object>;
  /** PUT and PATCH: `next` makes the object wanted from the current one (the body, or the patch applied to it) */
  update?(req: RestRequest, next: (current: object) => unknown | Promise<unknown>): Promise<object>;
  /** server-side apply (PATCH with an apply patch) of `applied` by `manager`, taking conflicting fields when `force` */
  apply?(req: RestRequest, applied: unknown, opts: { manager: string; force: boolean }): Promise<object>;
  /** connect subresources (any method): where the request goes; `path` is what follows the subresource ('/...' or '') */
  /** where the request goes; undefined when there is nowhere yet, answered with an empty body (a pod's log before it has a node) */
  connect?(req: RestRequest, path: string): Promise<ConnectTarget | undefined>;
}

/** an object of this resource as its kind's type: the store hands a resource's code only objects of that resource */
export const ofKind = <T extends { metadata?: object }>(obj: ApiObject): Stored<T> => obj as unknown as Stored<T>;

export interface UpdateOnlyOptions {
  /** the update may create the object when it is absent */
  allowCreate?: boolean;
  /** the transform replaces the object without reading the current one (a PUT), so it is given the current object
   *  itself rather than a private copy, which on an object of 100,000 keys costs as much as decoding it */
  replaces?: boolean;
}
