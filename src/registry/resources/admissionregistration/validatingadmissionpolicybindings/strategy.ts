// ValidatingAdmissionPolicyBinding: which policy applies to which requests, with which parameters, and how a
// failed validation is enforced (validationActions: Deny, Warn, Audit; Deny and Warn exclude each other).
import type { Stored } from '../../../../api/meta.js';
import type { ValidatingAdmissionPolicyBinding } from '../../../../api/types/admissionregistration-v1alpha1.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, duplicate, invalid, notSupported, required } from '../../../validation/fields.js';
import { defaultMatchResources, validateMatchResources } from '../policies.js';

type Binding = Stored<ValidatingAdmissionPolicyBinding>;
const actions = ['Deny', 'Warn', 'Audit'];

export function validateBinding(b: Binding): Causes {
  const spec = b.spec ?? {};
  const out: Causes = [];
  if (!spec.policyName) out.push(required('spec.policyName'));
  if (spec.paramRef && !spec.paramRef.name) out.push(required('spec.paramRef.name'));
  if (spec.matchResources) out.push(...validateMatchResources('spec.matchResources', spec.matchResources, false));
  const va = Array.isArray(spec.validationActions) ? spec.validationActions : [];
  if (!va.length) out.push(required('spec.validationActions'));
  const seen = new Set<string>();
  va.forEach((a, i) => {
    if (!actions.includes(a)) out.push(notSupported(`spec.validationActions[${i}]`, a, actions));
    if (seen.has(a)) out.push(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) out.push(invalid('spec.validationActions', va, 'must not contain both "Deny" and "Warn"'));
  return out;
}

export const strategy = defineStrategy<Binding>({
  generation: true,
  defaults(b) { if (b.spec && typeof b.spec === 'object') defaultMatchResources(b.spec.matchResources); },
  validate: validateBinding,
  validateUpdate: validateBinding,
});
