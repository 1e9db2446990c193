// Admission: plugins that mutate, then validate, every write before it is persisted.
import type { Naming } from '../api/naming.js';
import type { Authorizer } from '../api/auth.js';
import type { AdmissionPlugin, Listers, Writers, WebhookSource } from '../api/admission.js';

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

export interface AdmissionPluginSpec {
  name: string;
  defaultOn: boolean;
  create(deps: AdmissionDeps): AdmissionPlugin;
}

export const definePlugin = (spec: AdmissionPluginSpec) => spec;
