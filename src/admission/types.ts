// Admission: plugins that mutate, then validate, every write before it is persisted.
import type { Naming } from '../api/naming.js';
import type { Authorizer } from '../api/auth.js';
import type { AdmissionPlugin, Listers, ResourceCatalog, Writers, WebhookSource } from '../api/admission.js';

export interface AdmissionDeps {
  listers: Listers;
  names: Naming;
  authorizer: Authorizer;
  writers: Writers;
  /** the plugin's entry of the AdmissionConfiguration file (or the server's flags for it), when it has one */
  config?: unknown;
  /** the file the configuration was read from: relative file names in it are read beside it */
  configPath?: string;
  /** webhook configurations, policies and served versions, for the webhook and policy plugins */
  webhooks?: WebhookSource;
  /** the served resources and their schemas */
  catalog?: ResourceCatalog;
  /** the server's feature gates (absent: every gate at its default) */
  featureGates?: Readonly<Record<string, boolean>>;
  log?: { warn(message: string): void };
}

export interface AdmissionPluginSpec {
  name: string;
  defaultOn: boolean;
  /** builds the plugin at start-up (reading any file its configuration names); throws when the configuration is wrong */
  create(deps: AdmissionDeps): AdmissionPlugin;
}

export const definePlugin = (spec: AdmissionPluginSpec) => spec;
