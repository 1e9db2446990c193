// Admission: plugins that mutate, then validate, every write before it is persisted.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { UserInfo } from '../server/context.js';

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
}

/** read-only access to stored objects for plugins, never the registry itself */
export interface Listers {
  get(group: string, resource: string, namespace: string, name: string): Promise<ApiObject | undefined>;
}

export interface AdmissionDeps { listers: Listers; names: Naming }

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
