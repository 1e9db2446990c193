// CustomResourceDefinition (v1) defaults and validation: names, scope, versions with exactly one storage
// version, structural schemas, subresources, printer columns and conversion, with the reference's field
// paths and reasons. CEL rules (x-kubernetes-validations) are compiled against their schema: syntax, types
// and estimated cost (the engine is loaded by the strategy before validation runs).
import type { StatusCause, Stored } from '../../../../api/meta.js';
import type {
  CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion,
} from '../../../../api/types/apiextensions-v1.js';
import { shown, type ValidationSchema } from '../../../../schema/validate.js';
import { structuralProblems } from '../../../../schema/structural.js';
import { nameProblems } from '../../../validation/object-meta.js';
import { hasRules, loadedRules } from '../../../../cel/index.js';
import { validateReviewVersions, validateWebhookService, validateWebhookUrl } from '../../../validation/webhook-client.js';

/** the ConversionReview versions this server can send */
const conversionReviewVersions = ['v1', 'v1beta1'];

/** a CRD as a write sends it: any part may be missing until validation has passed */
export type CrdBody = Stored<Omit<CustomResourceDefinition, 'spec'> & { spec?: Partial<CustomResourceDefinition['spec']> }>;

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });
const required = (field: string, detail = '') => cause('FieldValueRequired', field, `Required value${detail ? `: ${detail}` : ''}`);
const invalid = (field: string, value: unknown, detail: string) => cause('FieldValueInvalid', field, `Invalid value: ${shown(value)}: ${detail}`);
const notSupported = (field: string, value: unknown, supported: string[]) =>
  cause('FieldValueNotSupported', field, `Unsupported value: ${shown(value)}: supported values: ${supported.map(s => `"${s}"`).join(', ')}`);
const forbidden = (field: string, detail: string) => cause('FieldValueForbidden', field, `Forbidden: ${detail}`);

const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Message = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const labelProblems = (s: string) => (s.length > 63 ? ['must be no more than 63 characters'] : dns1035.test(s) ? [] : [dns1035Message]);

export const columnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** the version objects are stored at */
export const storageVersionOf = (crd: CrdBody): string | undefined => (crd.spec?.versions ?? []).find(v => v?.storage)?.name;

/** the reference's defaults for a CRD: singular and listKind from the kind, conversion None, webhook port 443 */
export function applyCrdDefaults(crd: CrdBody) {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const n = spec.names;
  if (n && typeof n === 'object' && typeof n.kind === 'string' && n.kind) {
    if (!n.singular) n.singular = n.kind.toLowerCase();
    if (!n.listKind) n.listKind = `${n.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion?.webhook?.clientConfig?.service;
  if (service && typeof service === 'object' && service.port === undefined) service.port = 443;
}

function validateNames(n: CustomResourceDefinitionNames | undefined, path: string, out: StatusCause[]) {
  if (!n || typeof n !== 'object') { out.push(required(path)); return; }
  const label = (field: string, value: unknown) => {
    if (typeof value !== 'string' || !value) { out.push(required(`${path}.${field}`)); return; }
    for (const p of labelProblems(value)) out.push(invalid(`${path}.${field}`, value, p));
  };
  const mixedCase = (field: string, value: unknown) => {
    if (typeof value !== 'string' || !value) { out.push(required(`${path}.${field}`)); return; }
    const problems = labelProblems(value.toLowerCase());
    if (problems.length) out.push(invalid(`${path}.${field}`, value, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  };
  label('plural', n.plural);
  if (n.singular) label('singular', n.singular);
  mixedCase('kind', n.kind);
  mixedCase('listKind', n.listKind);
  if (n.kind && n.kind === n.listKind) out.push(invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  (Array.isArray(n.shortNames) ? n.shortNames : []).forEach((s: unknown, i: number) => {
    if (typeof s !== 'string' || !s) { out.push(required(`${path}.shortNames[${i}]`)); return; }
    for (const p of labelProblems(s)) out.push(invalid(`${path}.shortNames[${i}]`, s, p));
  });
  (Array.isArray(n.categories) ? n.categories : []).forEach((c: unknown, i: number) => {
    if (typeof c !== 'string' || !c) { out.push(required(`${path}.categories[${i}]`)); return; }
    for (const p of labelProblems(c)) out.push(invalid(`${path}.categories[${i}]`, c, p));
  });
}

const underPath = (p: unknown, roots: string[]) => typeof p === 'string' && roots.some(r => p.startsWith(`${r}.`) && p.length > r.length + 1);
/** a simple JSONPath as printer columns use: .a.b[0].c, optionally with [?(@.k=="v")] filters */
const simpleJsonPath = /^\.[^\s]*$/;

function validateVersion(v: CustomResourceDefinitionVersion, path: string, out: StatusCause[]) {
  if (!v || typeof v !== 'object') { out.push(required(path)); return; }
  if (typeof v.name !== 'string' || !v.name) out.push(required(`${path}.name`));
  else for (const p of labelProblems(v.name)) out.push(invalid(`${path}.name`, v.name, p));

  const schemaPath = `${path}.schema.openAPIV3Schema`;
  const schema = v.schema?.openAPIV3Schema;
  if (schema === undefined || schema === null) out.push(required(schemaPath, 'schemas are required'));
  else {
    const problems = structuralProblems(schema, schemaPath);
    out.push(...problems);
    if (!problems.length && hasRules(schema)) {
      const engine = loadedRules();
      if (!engine) out.push({ reason: 'InternalError', field: schemaPath, message: 'Internal error: the CEL engine is not loaded' });
      // a structural schema is a validation schema
      else out.push(...engine.compileSchema(schema as ValidationSchema, schemaPath).problems);
    }
  }

  const scale = v.subresources?.scale;
  if (scale && typeof scale === 'object') {
    const sp = `${path}.subresources.scale`;
    if (!scale.specReplicasPath) out.push(required(`${sp}.specReplicasPath`));
    else if (!underPath(scale.specReplicasPath, ['.spec'])) out.push(invalid(`${sp}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
    if (!scale.statusReplicasPath) out.push(required(`${sp}.statusReplicasPath`));
    else if (!underPath(scale.statusReplicasPath, ['.status'])) out.push(invalid(`${sp}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
    if (scale.labelSelectorPath && !underPath(scale.labelSelectorPath, ['.spec', '.status']))
      out.push(invalid(`${sp}.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
  }

  (Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : []).forEach((c, i) => {
    const cp = `${path}.additionalPrinterColumns[${i}]`;
    if (!c || typeof c !== 'object') { out.push(required(cp)); return; }
    if (!c.name) out.push(required(`${cp}.name`));
    if (!c.type) out.push(required(`${cp}.type`));
    else if (!columnTypes.includes(c.type)) out.push(notSupported(`${cp}.type`, c.type, columnTypes));
    if (c.format && !columnFormats.includes(c.format)) out.push(notSupported(`${cp}.format`, c.format, columnFormats));
    if (c.priority !== undefined && !(Number.isInteger(c.priority) && c.priority >= 0)) out.push(invalid(`${cp}.priority`, c.priority, 'must be greater than or equal to 0'));
    if (!c.jsonPath) out.push(required(`${cp}.jsonPath`));
    else if (typeof c.jsonPath !== 'string' || !simpleJsonPath.test(c.jsonPath)) out.push(invalid(`${cp}.jsonPath`, c.jsonPath, 'must be a simple json path starting with .'));
  });
}

function validateConversion(c: CustomResourceConversion | undefined, path: string, out: StatusCause[]) {
  if (!c || typeof c !== 'object') return;
  const strategies = ['None', 'Webhook'];
  if (!c.strategy) out.push(required(`${path}.strategy`));
  else if (!strategies.includes(c.strategy)) out.push(notSupported(`${path}.strategy`, c.strategy, strategies));
  if (c.strategy === 'Webhook') {
    const w = c.webhook;
    if (!w || typeof w !== 'object') { out.push(required(`${path}.webhook`, 'required when strategy is set to Webhook')); return; }
    const cc = w.clientConfig;
    if (!cc || typeof cc !== 'object') out.push(required(`${path}.webhook.clientConfig`, 'required when strategy is set to Webhook'));
    else if (!!cc.url === !!cc.service) out.push(required(`${path}.webhook.clientConfig`, 'exactly one of url or service is required'));
    else if (cc.url) out.push(...validateWebhookUrl(`${path}.webhook.clientConfig.url`, cc.url));
    else out.push(...validateWebhookService(`${path}.webhook.clientConfig.service`, cc.service!));
    out.push(...validateReviewVersions(`${path}.webhook.conversionReviewVersions`, w.conversionReviewVersions, conversionReviewVersions, true, ''));
  } else if (c.webhook !== undefined && c.webhook !== null) {
    out.push(forbidden(`${path}.webhook`, 'should not be set when strategy is not set to Webhook'));
  }
}

/** every problem of a CRD as created or updated (the status included) */
export function validateCrd(crd: CrdBody): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return [required('spec')];
  const group = spec.group;
  if (typeof group !== 'string' || !group) out.push(required('spec.group'));
  else {
    for (const p of nameProblems(group, 'dns-subdomain')) out.push(invalid('spec.group', group, p));
    if (!group.includes('.')) out.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  validateNames(spec.names, 'spec.names', out);
  const plural = spec.names?.plural;
  if (plural && group && crd.metadata?.name !== `${plural}.${group}`)
    out.push(invalid('metadata.name', crd.metadata?.name ?? '', 'must be spec.names.plural+"."+spec.group'));

  if (!spec.scope) out.push(required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') out.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (!versions.length) out.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else {
    const names = versions.map(v => v?.name);
    if (versions.filter(v => v?.storage === true).length !== 1)
      out.push(invalid('spec.versions', names, 'must have exactly one version marked as storage version'));
    if (!versions.some(v => v?.served === true)) out.push(invalid('spec.versions', names, 'must have at least one served version'));
    const seen = new Set<unknown>();
    versions.forEach((v, i) => {
      if (seen.has(v?.name)) out.push(invalid(`spec.versions[${i}].name`, v?.name, 'must be unique'));
      seen.add(v?.name);
      validateVersion(v, `spec.versions[${i}]`, out);
    });
  }
  validateConversion(spec.conversion, 'spec.conversion', out);
  if (spec.preserveUnknownFields === true)
    out.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));

  if (versions.length && crd.status?.storedVersions?.length) out.push(...validateStoredVersions(crd));
  return out;
}

/** status.storedVersions: versions of spec.versions, the storage version among them (a status write may not empty it) */
export function validateStoredVersions(crd: CrdBody): StatusCause[] {
  const out: StatusCause[] = [];
  const stored = Array.isArray(crd.status?.storedVersions) ? crd.status.storedVersions : [];
  if (!stored.length) return [invalid('status.storedVersions', stored, 'must have at least one stored version')];
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  const storage = storageVersionOf(crd);
  if (storage && !stored.includes(storage)) out.push(invalid('status.storedVersions', stored, `must have the storage version ${storage}`));
  stored.forEach((s, i) => {
    if (!versions.some(v => v?.name === s)) out.push(invalid(`status.storedVersions[${i}]`, s, 'must appear in spec.versions'));
  });
  return out;
}

/** the checks of an update: as on create, and the group, plural, scope and kind stay */
export function validateCrdUpdate(crd: CrdBody, old: CrdBody): StatusCause[] {
  const out = validateCrd(crd);
  const immutable = (field: string, a: unknown, b: unknown) => { if (a !== b) out.push(invalid(field, a ?? '', 'field is immutable')); };
  immutable('spec.group', crd.spec?.group, old.spec?.group);
  immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural);
  const established = (old.status?.conditions ?? []).some(c => c?.type === 'Established' && c?.status === 'True');
  if (established) {
    immutable('spec.scope', crd.spec?.scope, old.spec?.scope);
    immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind);
  }
  return out;
}
