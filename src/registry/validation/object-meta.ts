// Object metadata rules shared by every resource: names, labels, annotations, finalizers, owner references.
import type { ObjectMeta, OwnerReference, StatusCause } from '../../api/meta.js';
import type { NameRule } from '../strategy.js';
import { qualifiedNameErrors, labelValueErrors } from '../../api/selectors.js';

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Problem = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
  + "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });

export function nameProblems(name: string, rule: NameRule): string[] {
  switch (rule) {
    case 'dns-label':
      if (name.length > 63) return ['must be no more than 63 characters'];
      return dnsLabel.test(name) ? [] : ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"];
    case 'dns-1035-label':
      return [...(name.length > 63 ? ['must be no more than 63 characters'] : []), ...(dns1035Label.test(name) ? [] : [dns1035Problem])];
    case 'path-segment':
      if (name === '.' || name === '..') return [`may not be '${name}'`];
      for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
      return [];
    default:
      if (name.length > 253) return ['must be no more than 253 characters'];
      return dnsSubdomain.test(name) ? [] : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"];
  }
}

const maxAnnotationBytes = 256 * 1024;

export function validateObjectMeta(m: ObjectMeta, namespaced: boolean, rule: NameRule, old?: ObjectMeta): StatusCause[] {
  const out: StatusCause[] = [];
  if (!m.name) out.push(cause('FieldValueRequired', 'metadata.name', 'Required value: name or generateName is required'));
  else for (const p of nameProblems(m.name, rule)) out.push(cause('FieldValueInvalid', 'metadata.name', `Invalid value: "${m.name}": ${p}`));
  if (namespaced && !m.namespace) out.push(cause('FieldValueRequired', 'metadata.namespace', 'Required value'));
  for (const [k, v] of Object.entries(m.labels ?? {})) {
    for (const p of qualifiedNameErrors(k)) out.push(cause('FieldValueInvalid', 'metadata.labels', `Invalid value: "${k}": ${p}`));
    if (typeof v !== 'string') out.push(cause('FieldValueTypeInvalid', `metadata.labels[${k}]`, 'Invalid value: must be a string'));
    else for (const p of labelValueErrors(v)) out.push(cause('FieldValueInvalid', `metadata.labels`, `Invalid value: "${v}": ${p}`));
  }
  let size = 0;
  for (const [k, v] of Object.entries(m.annotations ?? {})) {
    for (const p of qualifiedNameErrors(k.toLowerCase())) out.push(cause('FieldValueInvalid', 'metadata.annotations', `Invalid value: "${k}": ${p}`));
    if (typeof v !== 'string') out.push(cause('FieldValueTypeInvalid', `metadata.annotations[${k}]`, 'Invalid value: must be a string'));
    size += k.length + String(v).length;
  }
  if (size > maxAnnotationBytes) out.push(cause('FieldValueTooLong', 'metadata.annotations', `Too long: must have at most ${maxAnnotationBytes} bytes`));
  const seen = new Set<string>();
  for (const f of m.finalizers ?? []) {
    if (seen.has(f)) out.push(cause('FieldValueDuplicate', 'metadata.finalizers', `Duplicate value: "${f}"`));
    seen.add(f);
    for (const p of qualifiedNameErrors(f)) out.push(cause('FieldValueInvalid', 'metadata.finalizers', `Invalid value: "${f}": ${p}`));
  }
  out.push(...ownerReferenceCauses(m.ownerReferences ?? []));
  if (m.generateName) {
    const base = m.generateName.replace(/-$/, '');
    if (base && nameProblems(base, rule === 'path-segment' ? 'path-segment' : 'dns-subdomain').length)
      out.push(cause('FieldValueInvalid', 'metadata.generateName', `Invalid value: "${m.generateName}": ${nameProblems(base, rule)[0]}`));
  }
  if (old && m.name !== old.name) out.push(cause('FieldValueInvalid', 'metadata.name', 'Invalid value: field is immutable'));
  return out;
}

/** the reference's checks of owner references, at its paths (no index) and in its words */
function ownerReferenceCauses(refs: OwnerReference[]): StatusCause[] {
  const out: StatusCause[] = [];
  const at = 'metadata.ownerReferences';
  let controller = '';
  for (const r of refs) {
    const slash = (r.apiVersion ?? '').lastIndexOf('/');
    const version = slash < 0 ? r.apiVersion ?? '' : r.apiVersion.slice(slash + 1);
    if (!version) out.push(cause('FieldValueInvalid', `${at}.apiVersion`, `Invalid value: ${JSON.stringify(r.apiVersion ?? '')}: version must not be empty`));
    for (const f of ['kind', 'name', 'uid'] as const)
      if (!r[f]) out.push(cause('FieldValueInvalid', `${at}.${f}`, `Invalid value: "": ${f} must not be empty`));
    if (version === 'v1' && slash < 0 && r.kind === 'Event') out.push(cause('FieldValueInvalid', at, 'Invalid value: /v1, Kind=Event is disallowed from being an owner'));
    if (!r.controller) continue;
    const name = `${r.kind}/${r.name}`;
    if (controller) out.push(cause('FieldValueInvalid', at, `Invalid value: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${name}`));
    else controller = name;
  }
  return out;
}
