// ValidatingAdmissionPolicy: the reference's defaults and checks; every CEL expression must compile (a policy
// whose expressions cannot work is refused with 422, never stored to be ignored).
import type { Stored } from '../../../../api/meta.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicySpec } from '../../../../api/types/admissionregistration-v1alpha1.js';
import { qualifiedNameErrors } from '../../../../api/selectors.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, duplicate, invalid, oneOf, required } from '../../../validation/fields.js';
import { loadAdmissionCel, loadedAdmissionCel } from '../../../../cel/index.js';
import type { ExpressionField } from '../../../../cel/admission.js';
import { defaultMatchResources, validateMatchResources } from '../policies.js';

type Policy = Stored<ValidatingAdmissionPolicy>;
const reasons = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

export function validatePolicy(p: Policy): Causes {
  const cel = loadedAdmissionCel()!;
  const spec: ValidatingAdmissionPolicySpec = p.spec ?? {};
  const out: Causes = [];
  const pk = spec.paramKind;
  if (pk) {
    if (!pk.apiVersion) out.push(required('spec.paramKind.apiVersion'));
    else if (pk.apiVersion.split('/').length > 2 || pk.apiVersion.endsWith('/')) out.push(invalid('spec.paramKind.apiVersion', pk.apiVersion, 'must be a group/version or a version'));
    if (!pk.kind) out.push(required('spec.paramKind.kind'));
  }
  out.push(...validateMatchResources('spec.matchConstraints', spec.matchConstraints, true));
  const validations = list(spec.validations), annotations = list(spec.auditAnnotations);
  if (!validations.length && !annotations.length)
    out.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((v, i) => {
    const at = `spec.validations[${i}]`;
    out.push(...cel.expressionProblems(`${at}.expression`, v?.expression, 'bool'));
    if (typeof v?.message === 'string' && /[\r\n]/.test(v.message)) out.push(invalid(`${at}.message`, v.message, 'message must not contain line breaks'));
    if (v?.messageExpression !== undefined && v.messageExpression !== '')
      out.push(...cel.expressionProblems(`${at}.messageExpression`, v.messageExpression, 'string'));
    if (v?.reason != null) out.push(...oneOf(`${at}.reason`, v.reason, reasons));
  });
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const at = `spec.auditAnnotations[${i}]`;
    if (!a?.key) out.push(required(`${at}.key`));
    else {
      for (const e of qualifiedNameErrors(`${p.metadata.name ?? ''}/${a.key}`)) out.push(invalid(`${at}.key`, a.key, e));
      if (keys.has(a.key)) out.push(duplicate(`${at}.key`, a.key));
      keys.add(a.key);
    }
    out.push(...cel.expressionProblems(`${at}.valueExpression`, a?.valueExpression, 'string or null'));
  });
  out.push(...cel.matchConditionProblems('spec.matchConditions', spec.matchConditions, true, qualifiedNameErrors));
  if (spec.failurePolicy != null) out.push(...oneOf('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  return out;
}

/** every expression validatePolicy compiles, as it asks for them */
function* expressionFields(p: Policy): Generator<ExpressionField> {
  const spec: ValidatingAdmissionPolicySpec = p.spec ?? {};
  for (const v of list(spec.validations)) {
    yield { source: v?.expression, result: 'bool' };
    if (v?.messageExpression !== undefined && v.messageExpression !== '') yield { source: v.messageExpression, result: 'string' };
  }
  for (const a of list(spec.auditAnnotations)) yield { source: a?.valueExpression, result: 'string or null' };
  if (Array.isArray(spec.matchConditions)) for (const c of spec.matchConditions) yield { source: (c as { expression?: unknown } | null)?.expression, result: 'bool' };
}

/** the expressions compile before validation, in slices that let other requests run (a policy may have thousands) */
const compileAhead = async (p: Policy) => { await (await loadAdmissionCel()).compileInSlices(expressionFields(p)); };

export const strategy = defineStrategy<Policy>({
  generation: true,
  defaults(p) {
    if (!p.spec || typeof p.spec !== 'object') return;
    p.spec.failurePolicy ??= 'Fail';
    defaultMatchResources(p.spec.matchConstraints);
  },
  prepareForCreate: compileAhead,
  prepareForUpdate: compileAhead,
  validate: validatePolicy,
  validateUpdate: validatePolicy,
});
