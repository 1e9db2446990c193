// What each definition of the built-in API is and what each of its fields means, in the project's own words.
// The tables are data modules of their own, loaded only by what needs them (the OpenAPI documents, on their
// first request, and the type generator); nothing on the server's start-up path imports this module.
import { naming } from '../../naming.js';
import type { DescriptionTable } from './common.js';
import { objectFields } from './common.js';
import admissionregistrationV1 from './admissionregistration-v1.js';
import admissionregistrationV1alpha1 from './admissionregistration-v1alpha1.js';
import apiextensionsV1 from './apiextensions-v1.js';
import apiregistrationV1 from './apiregistration-v1.js';
import appsV1 from './apps-v1.js';
import authenticationV1 from './authentication-v1.js';
import authorizationV1 from './authorization-v1.js';
import autoscalingV1 from './autoscaling-v1.js';
import autoscalingV2 from './autoscaling-v2.js';
import batchV1 from './batch-v1.js';
import certificatesV1 from './certificates-v1.js';
import coordinationV1 from './coordination-v1.js';
import coreV1 from './core-v1.js';
import discoveryV1 from './discovery-v1.js';
import eventsV1 from './events-v1.js';
import flowcontrol from './flowcontrol.js';
import meta from './meta-v1.js';
import metricsV1beta1 from './metrics-v1beta1.js';
import networkingV1 from './networking-v1.js';
import nodeV1 from './node-v1.js';
import policyV1 from './policy-v1.js';
import rbacV1 from './rbac-v1.js';
import schedulingV1 from './scheduling-v1.js';
import storageV1 from './storage-v1.js';

export type { DescriptionTable } from './common.js';

/** tables by the reference's definition-name prefix (the name without its last part) */
export const descriptionTables: Readonly<Record<string, DescriptionTable>> = {
  'io.k8s.api.admissionregistration.v1': admissionregistrationV1,
  'io.k8s.api.admissionregistration.v1alpha1': admissionregistrationV1alpha1,
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1': apiextensionsV1,
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1': apiregistrationV1,
  'io.k8s.api.apps.v1': appsV1,
  'io.k8s.api.authentication.v1': authenticationV1,
  // SelfSubjectReview reads the same in both versions
  'io.k8s.api.authentication.v1beta1': authenticationV1,
  'io.k8s.api.authorization.v1': authorizationV1,
  'io.k8s.api.autoscaling.v1': autoscalingV1,
  'io.k8s.api.autoscaling.v2': autoscalingV2,
  'io.k8s.api.batch.v1': batchV1,
  'io.k8s.api.certificates.v1': certificatesV1,
  'io.k8s.api.coordination.v1': coordinationV1,
  'io.k8s.api.core.v1': coreV1,
  'io.k8s.api.discovery.v1': discoveryV1,
  'io.k8s.api.events.v1': eventsV1,
  // the two beta versions differ in one field, which the table names in both spellings
  'io.k8s.api.flowcontrol.v1beta2': flowcontrol,
  'io.k8s.api.flowcontrol.v1beta3': flowcontrol,
  'io.k8s.apimachinery.pkg.apis.meta.v1': meta,
  'io.k8s.apimachinery.pkg.api.resource': meta,
  'io.k8s.apimachinery.pkg.util.intstr': meta,
  'io.k8s.apimachinery.pkg.runtime': meta,
  'io.k8s.metrics.pkg.apis.metrics.v1beta1': metricsV1beta1,
  'io.k8s.api.networking.v1': networkingV1,
  'io.k8s.api.node.v1': nodeV1,
  'io.k8s.api.policy.v1': policyV1,
  'io.k8s.api.rbac.v1': rbacV1,
  'io.k8s.api.scheduling.v1': schedulingV1,
  'io.k8s.api.storage.v1': storageV1,
};

export interface Described {
  /** what the definition is */
  description?: string;
  /** what each field means, by field name */
  fields: Readonly<Record<string, string>>;
}

const nothing: Described = Object.freeze({ fields: Object.freeze({}) });

/** how the names that follow the API domain are spelled: a Naming, or words for documentation that serves every domain */
export interface Spelling { labelDomain: string; domain: string }
const defaultNames: Spelling = naming();

/** a table's text with the names that follow the API domain spelled out */
const spell = (text: string, names: Spelling) =>
  text.includes('{') ? text.replaceAll('{labels}', names.labelDomain).replaceAll('{domain}', names.domain) : text;

/** The descriptions of a definition, by its reference name (io.k8s.api.apps.v1.Deployment), with vendor names
 *  spelled for `names` (a Naming; the default domain when not given). List kinds of built-in kinds
 *  (…DeploymentList) are described from their item kind. Unknown names have none. */
export function descriptionsFor(ref: string, names: Spelling = defaultNames): Described {
  const dot = ref.lastIndexOf('.');
  const table = descriptionTables[ref.slice(0, dot)];
  if (!table) return nothing;
  const simple = ref.slice(dot + 1);
  const entry = table[simple];
  if (entry) {
    const fields: Record<string, string> = {};
    for (const [field, text] of Object.entries(entry)) if (field) fields[field] = spell(text, names);
    return { description: entry[''] === undefined ? undefined : spell(entry[''], names), fields };
  }
  if (simple.endsWith('List') && table[simple.slice(0, -'List'.length)]) return listDescriptions(simple.slice(0, -'List'.length));
  return nothing;
}

/** the descriptions of the list kind of `kind` (built-in or custom) */
export function listDescriptions(kind: string): Described {
  return {
    description: `A list of ${kind} objects, as a list or watch request returns them.`,
    fields: {
      apiVersion: objectFields.apiVersion,
      kind: objectFields.kind,
      metadata: 'List metadata: the resource version the list was read at and, when the list is read in pages, the token for the next page.',
      items: `The ${kind} objects.`,
    },
  };
}
