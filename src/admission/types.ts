// Admission: plugins that mutate, then validate, every write before it is persisted.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { UserInfo } from '../server/context.js';
import type { Authorizer } from '../authz/types.js';
import type { WebhookSource } from './webhook/source.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: string;
  namespace: string;
  name: string;
  /** the object being written (CREATE, UPDATE); mutating plugins may change it */
  object?: ApiObject;
  oldObject?: ApiObject;
  dryRun: boolean;
  user?: UserInfo;
  /** adds a Warning header to the response */
  warn?(message: string): void;
  /** adds an annotation to the request's audit record (webhook mutations, webhook auditAnnotations) */
  annotate?(key: string, value: string): void;
}

/** read-only access to stored objects for plugins, never the registry itself */
export interface Listers {
  get(group: string, resource: string, namespace: string, name: string): Promise<ApiObject | undefined>;
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

export interface AdmissionDeps {
  listers: Listers;
  names: Naming;
  authorizer: Authorizer;
  writers: Writers;
  /** the plugin's entry of the AdmissionConfiguration file, when it has one */
  config?: unknown;
  /** webhook configurations and served versions, for the two webhook plugins */
  webhooks?: WebhookSource;
}

export interface AdmissionPlugin {
  name: string;
  operations?: Operation[];
  /** mutating phase */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  /** validating phase: sees the final object and must not change it */
  validate?(a: Readonly<AdmissionAttributes>): Promise<void> | void;
}

export interface AdmissionPluginSpec {
  name: string;
  defaultOn: boolean;
  create(deps: AdmissionDeps): AdmissionPlugin;
}

export const definePlugin = (spec: AdmissionPluginSpec) => spec;
