// CEL in admission: the expressions of ValidatingAdmissionPolicies (validations, their messages, audit
// annotations, match conditions) and the match conditions of admission webhooks. They see `object`, `oldObject`,
// `request` (the AdmissionReview request without its objects), `params` (policies only) and `authorizer` (with
// `authorizer.requestResource`). They are compiled when the object holding them is written, so a problem refuses
// the write; checked against the schema of each kind a policy names, for warnings; and evaluated under the
// reference's runtime limits: 1,000,000 per expression, 10,000,000 for a policy on one request.
import { isCelError, type CelValue } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { StatusCause } from '../api/meta.js';
import type { Authorizer, UserInfo } from '../api/auth.js';
import type { Schema } from '../api/schema.js';
import type { ValidationSchema } from '../schema/validate.js';
import { check } from './check.js';
import { parseBounded } from './parse.js';
import { dyn, listOf, mapOf, scalar, typeOfSchema, type CelType } from './types.js';
import { evaluate, CostLimitError, type CostMeter } from './evaluate.js';
import { authorizerValue, celEnvironment, withAuthz, type AuthzContext } from './library.js';
import { toCel } from './values.js';
import { sliceClock, yieldToLoop } from '../util/slices.js';

export const perExpressionCostLimit = 1_000_000;
export const perPolicyCostBudget = 10_000_000;
/** match conditions a webhook or policy may have */
export const maxMatchConditions = 64;

const string = scalar('string'), bool = scalar('bool');
const object = (fields: Record<string, CelType>): CelType => ({ kind: 'object', fields });
const gvk = object({ group: string, version: string, kind: string });
const gvr = object({ group: string, version: string, resource: string });

/** the AdmissionReview request an expression sees as `request` */
const requestType = object({
  kind: gvk, resource: gvr, subResource: string, requestKind: gvk, requestResource: gvr, requestSubResource: string,
  name: string, namespace: string, operation: string, dryRun: bool, options: dyn,
  userInfo: object({ username: string, uid: string, groups: listOf(string), extra: mapOf(string, listOf(string)) }),
});
/** authorizer values: checks being built, and their decisions */
const authzCheck = object({});
const authorizerType = object({ requestResource: authzCheck });
const authorizerFunctions: Record<string, CelType> = {
  path: authzCheck, group: authzCheck, serviceAccount: authorizerType, resource: authzCheck, subresource: authzCheck,
  namespace: authzCheck, name: authzCheck, check: authzCheck, allowed: bool, reason: string, errored: bool, error: string,
};

export interface VariableTypes { object?: CelType; params?: CelType | false }

/** the declared variables: objects are of any shape unless a schema says otherwise; webhooks have no params */
function variables(types: VariableTypes = {}): Record<string, CelType> {
  const obj = types.object ?? dyn;
  return {
    object: obj, oldObject: obj, request: requestType, authorizer: authorizerType,
    ...(types.params === false ? {} : { params: types.params ?? dyn }),
  };
}

export type ResultKind = 'bool' | 'string' | 'string or null';

/** compiles an admission expression; the error is the checker's, located in the source as cel-go prints it */
export function compileAdmissionExpression(source: string, result: ResultKind, types?: VariableTypes):
  { ok: true; program: Expr } | { ok: false; error: string } {
  const bounded = parseBounded(source);
  if (!bounded.ok) return bounded;
  const parsed = bounded.parsed;
  const checked = check(parsed, source, variables(types), authorizerFunctions);
  if (checked.errors.length) return { ok: false, error: checked.errors.join('\n') };
  const kind = checked.type.kind;
  const fits = kind === 'dyn' || (result === 'bool' ? kind === 'bool' : kind === 'string' || (result === 'string or null' && kind === 'null'));
  if (!fits) return { ok: false, error: `must evaluate to ${result}` };
  return { ok: true, program: parsed.expr };
}

type Compilation = ReturnType<typeof compileAdmissionExpression>;

/**
 * Compilations made ahead by compileInSlices for the validation that follows, by result kind, params and text, with
 * how many fields will ask for each: each ask takes one, so nothing stays once the object is validated. Bounded, as
 * a validation that never comes (a request refused in between) leaves its entries.
 */
const compiledAhead = new Map<string, { compilation: Compilation; asks: number }>();
const maxCompiledAhead = 100_000;
const aheadKey = (source: string, result: ResultKind, params: boolean) => `${result}\u0000${params}\u0000${source}`;

export interface ExpressionField { source: unknown; result: ResultKind; params?: boolean }

/**
 * Compiles the expressions of an object about to be validated, in slices between which the event loop serves other
 * requests: a policy may carry thousands of validations (10,000 compiled in one piece held the loop for seconds), and
 * validation itself is synchronous. expressionProblems then takes these compilations.
 */
export async function compileInSlices(fields: Iterable<ExpressionField>): Promise<void> {
  const clock = sliceClock();
  for (const { source, result, params = true } of fields) {
    if (typeof source !== 'string' || !source.trim()) continue;
    const key = aheadKey(source, result, params);
    const made = compiledAhead.get(key);
    if (made) { made.asks++; continue; }
    if (compiledAhead.size >= maxCompiledAhead) compiledAhead.clear();
    compiledAhead.set(key, { compilation: compileAdmissionExpression(source, result, { params: params ? undefined : false }), asks: 1 });
    if (clock.due()) await yieldToLoop();
  }
}

/** the compilation made ahead for this field, taken, or one made now */
function compilationFor(source: string, result: ResultKind, params: boolean): Compilation {
  const key = aheadKey(source, result, params);
  const made = compiledAhead.get(key);
  if (!made) return compileAdmissionExpression(source, result, { params: params ? undefined : false });
  if (--made.asks <= 0) compiledAhead.delete(key);
  return made.compilation;
}

/** a 422 cause for an expression field that does not compile, in the reference's words; none when it does */
export function expressionProblems(field: string, source: unknown, result: ResultKind, params = true): StatusCause[] {
  if (typeof source !== 'string' || !source.trim()) return [{ reason: 'FieldValueRequired', field, message: 'Required value' }];
  const c = compilationFor(source, result, params);
  return c.ok ? [] : [{ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(source)}: compilation failed: ${c.error}` }];
}

/** the problems of a list of match conditions: each named (a qualified name, unique), at most 64, each compiling to a bool */
export function matchConditionProblems(path: string, conditions: unknown, params: boolean,
  nameErrors: (name: string) => string[]): StatusCause[] {
  if (conditions === undefined || conditions === null) return [];
  if (!Array.isArray(conditions)) return [{ reason: 'FieldValueInvalid', field: path, message: 'Invalid value: must be a list' }];
  const out: StatusCause[] = [];
  if (conditions.length > maxMatchConditions)
    out.push({ reason: 'FieldValueTooMany', field: path, message: `Too many: ${conditions.length}: must have at most ${maxMatchConditions} items` });
  const seen = new Set<string>();
  conditions.forEach((c: { name?: unknown; expression?: unknown } | null, i) => {
    const at = `${path}[${i}]`;
    const name = c?.name;
    if (typeof name !== 'string' || !name) out.push({ reason: 'FieldValueRequired', field: `${at}.name`, message: 'Required value' });
    else {
      for (const e of nameErrors(name)) out.push({ reason: 'FieldValueInvalid', field: `${at}.name`, message: `Invalid value: ${JSON.stringify(name)}: ${e}` });
      if (seen.has(name)) out.push({ reason: 'FieldValueDuplicate', field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(name)}` });
      seen.add(name);
    }
    out.push(...expressionProblems(`${at}.expression`, c?.expression, 'bool', params));
  });
  return out;
}

/**
 * Type warnings of an expression against the schema of each kind it will see (`apps/v1, Kind=Deployment: ERROR: ...`),
 * as a policy's status reports them; empty when it checks against all of them.
 */
export function typeWarnings(source: string, result: ResultKind, kinds: Array<{ label: string; schema: Schema }>, params?: Schema): string[] {
  const paramsType = params ? typeOfSchema(params as ValidationSchema) : undefined;
  return kinds.flatMap(k => {
    const c = compileAdmissionExpression(source, result, { object: typeOfSchema(k.schema as ValidationSchema), params: paramsType });
    return c.ok ? [] : [`${k.label}: ${c.error}`];
  });
}

/** what the expressions of one request see, converted once and shared by every policy and webhook */
export interface AdmissionActivation {
  vars: Record<string, CelValue>;
  /** authorization decisions asked during this request, shared by its expressions */
  authz: AuthzContext;
  authorizer?: Authorizer;
}

export interface ActivationInput {
  object?: unknown;
  oldObject?: unknown;
  /** the AdmissionReview request, without objects */
  request: Record<string, unknown>;
  user?: UserInfo;
  authorizer?: Authorizer;
  /** the request's resource, for authorizer.requestResource */
  resource: { group: string; resource: string; subresource: string; namespace: string; name: string };
}

/** the variables, each converted when an expression first reads it: most expressions name one or two of them */
function lazyVars(input: ActivationInput): Record<string, CelValue> {
  let object: CelValue | undefined, oldObject: CelValue | undefined, request: CelValue | undefined, authorizer: CelValue | undefined;
  return {
    get object() { return (object ??= toCel(input.object, undefined)); },
    get oldObject() { return (oldObject ??= toCel(input.oldObject, undefined)); },
    get request() { return (request ??= toCel(input.request, undefined)); },
    get authorizer() { return (authorizer ??= authorizerValue(input.resource)); },
    params: null,
  };
}

export function admissionActivation(input: ActivationInput): AdmissionActivation {
  return {
    vars: lazyVars(input),
    authz: { user: input.user, decisions: new Map(), pending: new Map() },
    authorizer: input.authorizer,
  };
}

export type Outcome = { value: CelValue } | { error: string };

/**
 * Evaluates a compiled expression against the activation (with `params` when given). Authorization checks are
 * asked as the evaluation meets them: the expression is evaluated again once their decisions are known. The
 * cost is charged to the meter, which stops the evaluation past its limit.
 */
export async function evaluateAdmission(program: Expr, act: AdmissionActivation, meter: CostMeter, params?: unknown): Promise<Outcome> {
  // the request's variables stay shared (and unconverted until read); params are the policy's own
  const vars = params === undefined ? act.vars : Object.create(act.vars, { params: { value: toCel(params, undefined), enumerable: true } }) as typeof act.vars;
  const start = meter.cost;
  for (let round = 0; ; round++) {
    meter.cost = start;
    let result;
    try {
      result = withAuthz(act.authz, () => evaluate(celEnvironment(), program, vars, meter));
    } catch (e) {
      if (e instanceof CostLimitError) return { error: e.message };
      throw e;
    }
    // most expressions ask the authorizer nothing: they end here without copying the (empty) set of questions
    if (!act.authz.pending.size || round >= 8 || !act.authorizer) {
      act.authz.pending.clear();
      if (isCelError(result)) return { error: result.message };
      return { value: result as CelValue };
    }
    const pending = [...act.authz.pending];
    act.authz.pending.clear();
    for (const [key, attrs] of pending) {
      try {
        const d = await act.authorizer.authorize(attrs);
        act.authz.decisions.set(key, { decision: d.decision, reason: d.reason ?? '', error: '' });
      } catch (e) {
        act.authz.decisions.set(key, { decision: 'NoOpinion', reason: '', error: (e as Error).message });
      }
    }
  }
}
