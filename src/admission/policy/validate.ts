// ValidatingAdmissionPolicy: each binding puts its policy to the requests both match. A policy's match
// conditions choose the requests further; its validations are CEL expressions that must hold, and a failed
// one is enforced as the binding's validationActions say: Deny refuses the request (with the validation's
// reason, Invalid unless set), Warn adds a warning, Audit records it in the audit annotation
// `validation.policy.admission.<domain>/validation_failure`. Expressions that cannot be evaluated, parameters
// that cannot be found and cost budgets that run out are failures too under failurePolicy Fail, and are
// passed over under Ignore. Audit annotations of a policy are recorded as `<policy>/<key>`. Writes of policies and
// bindings are never judged by policies.
import type { AdmissionAttributes, Listers, ResourceCatalog, WebhookSource } from '../../api/admission.js';
import type { Authorizer } from '../../api/auth.js';
import type { Naming } from '../../api/naming.js';
import { parseApiVersion, type Stored } from '../../api/meta.js';
import { ApiError } from '../../api/status.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, MatchResources } from '../../api/types/admissionregistration-v1alpha1.js';
import type { AdmissionActivation } from '../../cel/admission.js';
import { activationFor, admissionCel, compiled, matchConditions } from '../conditions.js';
import { matchingVersion, ruleMatches, selectorsMatch } from '../match.js';
import { refuse } from '../util.js';
import { sliceClock, yieldToLoop } from '../../util/slices.js';

type Policy = Stored<ValidatingAdmissionPolicy>;
type Binding = Stored<ValidatingAdmissionPolicyBinding>;

export interface PolicyDeps {
  source: WebhookSource;
  listers: Listers;
  names: Naming;
  authorizer?: Authorizer;
  catalog?: ResourceCatalog;
}

const codes: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

interface Failure { message: string; reason: string; expressionIndex?: number }

/** a policy's matchConstraints, or a binding's matchResources (whose missing rules leave the policy's to decide):
 *  rules, less the excluded ones, and selectors */
async function matches(m: MatchResources | undefined, a: AdmissionAttributes, d: PolicyDeps, rulesRequired = true): Promise<boolean> {
  if (!m) return !rulesRequired;
  const version = !rulesRequired && !m.resourceRules?.length ? a.version : matchingVersion(m.resourceRules, m.matchPolicy, a, d.source);
  if (!version) return false;
  if ((m.excludeResourceRules ?? []).some(r => ruleMatches(r, a, a.version) || ruleMatches(r, a, version))) return false;
  return selectorsMatch(m, a, d.listers);
}

/** the failures of one policy for this request under one binding; undefined when the policy does not concern it */
async function evaluatePolicy(policy: Policy, binding: Binding, a: AdmissionAttributes, act: () => Promise<AdmissionActivation>, d: PolicyDeps):
  Promise<Failure[]> {
  const spec = policy.spec ?? {};
  const ignore = spec.failurePolicy === 'Ignore';
  const failures: Failure[] = [];
  /** a failure of the machinery rather than of a validation: enforced only under failurePolicy Fail */
  const broken = (message: string, expressionIndex?: number) => { if (!ignore) failures.push({ message, reason: 'Invalid', expressionIndex }); };

  let params: unknown = null;
  const ref = binding.spec?.paramRef;
  if (spec.paramKind && ref) {
    const { group, version } = parseApiVersion(spec.paramKind.apiVersion ?? '');
    const served = d.catalog?.byKind(group, version, spec.paramKind.kind ?? '')[0];
    if (!served) { broken(`failed to configure binding: paramKind kind \`${spec.paramKind.kind}\` of ${spec.paramKind.apiVersion} is not served`); return failures; }
    params = await d.listers.get(served.group, served.resource, served.namespaced ? ref.namespace ?? '' : '', ref.name ?? '');
    if (!params) { broken(`failed to configure binding: no params found: ${served.resource} "${ref.name}" not found`); return failures; }
  }

  if (spec.matchConditions?.length) {
    const conditions = await matchConditions(spec.matchConditions, act, params);
    if ('error' in conditions) { broken(`failed to evaluate match conditions: ${conditions.error}`); return failures; }
    if (!conditions.matches) return failures;
  }

  const cel = await admissionCel();
  let budget = cel.perPolicyCostBudget;
  // the first request a policy sees compiles its expressions (thousands, maybe): the loop is given back between slices
  const clock = sliceClock();
  /** evaluates one expression of the policy within the per-expression limit and what is left of the policy's budget */
  const run = async (source: string, result: 'bool' | 'string' | 'string or null') => {
    if (clock.due()) await yieldToLoop();
    const program = compiled(cel, source, result);
    if ('error' in program) return { error: `compilation failed: ${program.error}` };
    if (budget <= 0) return { error: 'validation failed due to running out of cost budget, no further validation rules will be run' };
    const meter = { cost: 0, limit: Math.min(cel.perExpressionCostLimit, budget) };
    const outcome = await cel.evaluateAdmission(program.program, await act(), meter, params);
    budget -= meter.cost;
    return outcome;
  };

  const validations = spec.validations ?? [];
  for (let i = 0; i < validations.length; i++) {
    const v = validations[i]!;
    const outcome = await run(v.expression, 'bool');
    if ('error' in outcome) { broken(`expression '${v.expression}' resulted in error: ${outcome.error}`, i); continue; }
    if (outcome.value === true) continue;
    if (outcome.value !== false) { broken(`expression '${v.expression}' did not evaluate to a bool`, i); continue; }
    let message = v.message?.trim() || `failed expression: ${v.expression.trim()}`;
    if (v.messageExpression) {
      const m = await run(v.messageExpression, 'string');
      if ('value' in m && typeof m.value === 'string' && m.value.trim() && !/[\r\n]/.test(m.value)) message = m.value.trim();
    }
    failures.push({ message, reason: v.reason || 'Invalid', expressionIndex: i });
  }

  for (const annotation of spec.auditAnnotations ?? []) {
    const outcome = await run(annotation.valueExpression, 'string or null');
    if ('error' in outcome) { broken(`valueExpression '${annotation.valueExpression}' resulted in error: ${outcome.error}`); continue; }
    if (typeof outcome.value === 'string' && outcome.value) a.annotate?.(`${policy.metadata.name}/${annotation.key}`, outcome.value.slice(0, 10240));
  }
  return failures;
}

/** the policies by name, kept with the list the source gave (the same while no policy changed) */
const policiesByList = new WeakMap<Policy[], Map<string | undefined, Policy>>();
function byName(list: Policy[]): Map<string | undefined, Policy> {
  let m = policiesByList.get(list);
  if (!m) policiesByList.set(list, m = new Map(list.map(p => [p.metadata.name, p])));
  return m;
}

/** the policies and bindings themselves are never judged by policies, so a policy that refuses too much can always be
 *  removed (the webhook configurations are not exempt, as in the reference) */
const isPolicyResource = (a: AdmissionAttributes, names: Naming) => a.group === names.group('admissionregistration')
  && (a.resource === 'validatingadmissionpolicies' || a.resource === 'validatingadmissionpolicybindings');

export async function validatePolicies(a: AdmissionAttributes, d: PolicyDeps): Promise<void> {
  if (isPolicyResource(a, d.names)) return;
  const bindings = await d.source.configurations('validatingadmissionpolicybindings') as Binding[];
  if (!bindings.length) return;
  const policies = byName(await d.source.configurations('validatingadmissionpolicies') as Policy[]);
  let activation: Promise<AdmissionActivation> | undefined;
  const act = () => (activation ??= activationFor(a, d.names, d.authorizer));
  const denials: ApiError[] = [];
  const audited: object[] = [];
  for (const binding of bindings) {
    const policy = policies.get(binding.spec?.policyName);
    if (!policy || !(await matches(policy.spec?.matchConstraints, a, d))) continue;
    if (!(await matches(binding.spec?.matchResources, a, d, false))) continue;
    const failures = await evaluatePolicy(policy, binding, a, act, d);
    const actions = binding.spec?.validationActions?.length ? binding.spec.validationActions : ['Deny'];
    const names = `ValidatingAdmissionPolicy '${policy.metadata.name}' with binding '${binding.metadata.name}'`;
    for (const f of failures) {
      if (actions.includes('Deny')) {
        const message = `${names} denied request: ${f.message}`;
        const e = refuse(a, message);
        const code = codes[f.reason] ?? 422;
        denials.push(new ApiError({ ...e.status, reason: codes[f.reason] ? f.reason : 'Invalid', code,
          details: { ...e.status.details, causes: [{ message }] } }));
      }
      if (actions.includes('Warn')) a.warn?.(`Validation failed for ${names}: ${f.message}`);
      if (actions.includes('Audit')) audited.push({ message: f.message, policy: policy.metadata.name, binding: binding.metadata.name,
        ...(f.expressionIndex !== undefined ? { expressionIndex: f.expressionIndex } : {}), validationActions: actions });
    }
  }
  if (audited.length) a.annotate?.(`validation.policy.admission.${d.names.domain}/validation_failure`, JSON.stringify(audited));
  if (denials.length) throw denials[0];
}
