// Object metadata rules shared by every resource: names, labels, annotations, finalizers, owner references.
import type { ObjectMeta, StatusCause } from '../api/meta.js';
import type { NameRule } from './strategy.js';

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, field, message });

export function nameProblems(name: string, rule: NameRule): string[] {
  switch (rule) {
    case 'dns-label':
      if (name.length > 63) return ['must be no more than 63 characters'];
      return dnsLabel.test(name) ? [] : ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"];
    case 'path-segment':
      if (name === '.' || name === '..') return [`may not be '${name}'`];
      for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
      return [];
    default:
      if (name.length > 253) return ['must be no more than 253 characters'];
      return dnsSubdomain.test(name) ? [] : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"];
  }
}

/** a label or annotation key: an optional DNS subdomain prefix and a name of at most 63 characters */
export function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"];
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  const out: string[] = [];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) out.push('prefix part must be a lowercase RFC 1123 subdomain');
  if (!name) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  else if (!qualifiedNamePart.test(name)) out.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  return out;
}

export function labelValueProblems(v: string): string[] {
  if (v.length > 63) return ['must be no more than 63 characters'];
  return labelValue.test(v) ? [] : ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"];
}

const maxAnnotationBytes = 256 * 1024;

export function validateObjectMeta(m: ObjectMeta, namespaced: boolean, rule: NameRule, old?: ObjectMeta): StatusCause[] {
  const out: StatusCause[] = [];
  if (!m.name) out.push(cause('FieldValueRequired', 'metadata.name', 'Required value: name or generateName is required'));
  else for (const p of nameProblems(m.name, rule)) out.push(cause('FieldValueInvalid', 'metadata.name', `Invalid value: "${m.name}": ${p}`));
  if (namespaced && !m.namespace) out.push(cause('FieldValueRequired', 'metadata.namespace', 'Required value'));
  for (const [k, v] of Object.entries(m.labels ?? {})) {
    for (const p of qualifiedNameProblems(k)) out.push(cause('FieldValueInvalid', 'metadata.labels', `Invalid value: "${k}": ${p}`));
    if (typeof v !== 'string') out.push(cause('FieldValueTypeInvalid', `metadata.labels[${k}]`, 'Invalid value: must be a string'));
    else for (const p of labelValueProblems(v)) out.push(cause('FieldValueInvalid', `metadata.labels`, `Invalid value: "${v}": ${p}`));
  }
  let size = 0;
  for (const [k, v] of Object.entries(m.annotations ?? {})) {
    for (const p of qualifiedNameProblems(k.toLowerCase())) out.push(cause('FieldValueInvalid', 'metadata.annotations', `Invalid value: "${k}": ${p}`));
    if (typeof v !== 'string') out.push(cause('FieldValueTypeInvalid', `metadata.annotations[${k}]`, 'Invalid value: must be a string'));
    size += k.length + String(v).length;
  }
  if (size > maxAnnotationBytes) out.push(cause('FieldValueTooLong', 'metadata.annotations', `Too long: must have at most ${maxAnnotationBytes} bytes`));
  const seen = new Set<string>();
  for (const f of m.finalizers ?? []) {
    if (seen.has(f)) out.push(cause('FieldValueDuplicate', 'metadata.finalizers', `Duplicate value: "${f}"`));
    seen.add(f);
    for (const p of qualifiedNameProblems(f)) out.push(cause('FieldValueInvalid', 'metadata.finalizers', `Invalid value: "${f}": ${p}`));
  }
  for (const [i, r] of (m.ownerReferences ?? []).entries()) {
    for (const f of ['apiVersion', 'kind', 'name', 'uid'] as const)
      if (!r[f]) out.push(cause('FieldValueRequired', `metadata.ownerReferences[${i}].${f}`, `Required value: ${f} must not be empty`));
  }
  if ((m.ownerReferences ?? []).filter(r => r.controller).length > 1)
    out.push(cause('FieldValueInvalid', 'metadata.ownerReferences', 'Invalid value: Only one reference can have Controller set to true'));
  if (m.generateName) {
    const base = m.generateName.replace(/-$/, '');
    if (base && nameProblems(base, rule === 'path-segment' ? 'path-segment' : 'dns-subdomain').length)
      out.push(cause('FieldValueInvalid', 'metadata.generateName', `Invalid value: "${m.generateName}": ${nameProblems(base, rule)[0]}`));
  }
  if (old && m.name !== old.name) out.push(cause('FieldValueInvalid', 'metadata.name', 'Invalid value: field is immutable'));
  return out;
}
