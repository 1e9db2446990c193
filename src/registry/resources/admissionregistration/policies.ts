// What ValidatingAdmissionPolicies and their bindings (admissionregistration v1alpha1) share: the match resources
// both can name, with the reference's defaults and checks. Their CEL is checked by the admission CEL (cel/admission.ts),
// which their strategies load before validating.
import type { MatchResources, NamedRuleWithOperations } from '../../../api/types/admissionregistration-v1alpha1.js';
import { type Causes, labelSelector, oneOf, required } from '../../validation/fields.js';
import { validateRule } from './webhooks.js';

const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

export function defaultMatchResources(m: MatchResources | undefined) {
  if (!m || typeof m !== 'object') return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const r of [...list(m.resourceRules), ...list(m.excludeResourceRules)]) if (r && typeof r === 'object') r.scope ??= '*';
}

function namedRule(at: string, r: NamedRuleWithOperations): Causes {
  const out = validateRule(at, r as Parameters<typeof validateRule>[1]);
  list(r?.resourceNames).forEach((n, i) => { if (!n) out.push(required(`${at}.resourceNames[${i}]`)); });
  return out;
}

/** match constraints (a policy's, where resource rules are required) or a binding's match resources */
export function validateMatchResources(at: string, m: MatchResources | undefined, rulesRequired: boolean): Causes {
  if (!m) return rulesRequired ? [required(at)] : [];
  const out: Causes = [];
  if (rulesRequired && !list(m.resourceRules).length) out.push(required(`${at}.resourceRules`));
  list(m.resourceRules).forEach((r, i) => out.push(...namedRule(`${at}.resourceRules[${i}]`, r)));
  list(m.excludeResourceRules).forEach((r, i) => out.push(...namedRule(`${at}.excludeResourceRules[${i}]`, r)));
  if (m.matchPolicy != null) out.push(...oneOf(`${at}.matchPolicy`, m.matchPolicy, ['Equivalent', 'Exact']));
  out.push(...labelSelector(`${at}.namespaceSelector`, m.namespaceSelector), ...labelSelector(`${at}.objectSelector`, m.objectSelector));
  return out;
}
