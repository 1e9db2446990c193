// CEL in admission plugins: the activation a request's expressions see, expressions compiled once per text,
// and match conditions, which webhooks and policies share: a request concerns the webhook or policy only when
// every condition is true; a false one decides even when another failed to evaluate. The CEL engine loads the
// first time a request meets an expression.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { AdmissionAttributes } from '../api/admission.js';
import type { Authorizer } from '../api/auth.js';
import type { Naming } from '../api/naming.js';
import type { MatchCondition } from '../api/types/admissionregistration-v1.js';
import type { AdmissionActivation, ResultKind } from '../cel/admission.js';
import { loadAdmissionCel, loadedAdmissionCel, type AdmissionCel } from '../cel/index.js';
import { reviewRequest } from './webhook/call.js';
import { sliceClock, yieldToLoop } from '../util/slices.js';

/** the activation of a request: `request` is the AdmissionReview request as a webhook would get it, without objects */
export async function activationFor(a: AdmissionAttributes, names: Naming, authorizer?: Authorizer): Promise<AdmissionActivation> {
  const cel = await admissionCel();
  const { object: _o, oldObject: _p, ...request } = reviewRequest(a, { version: a.version, kind: a.kind }, names);
  return cel.admissionActivation({
    object: a.object, oldObject: a.oldObject, request, user: a.user, authorizer,
    resource: { group: a.group, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name },
  });
}

export type Compiled = { program: Expr } | { error: string };

/** compiled expressions by result kind, whether params are declared, and text; a text read from a stored object is the
 *  same string each time, whose hash is kept, so a lookup costs little */
const compiledBySource = new Map<string, Map<string, Compiled>>();
let compiledCount = 0;
/** an expression compiled once per text and result kind (stored objects were checked when written; this never fails for them) */
export function compiled(cel: AdmissionCel, source: string, result: ResultKind, params = true): Compiled {
  const kind = params ? result : `${result} without params`;
  let bySource = compiledBySource.get(kind);
  if (!bySource) compiledBySource.set(kind, bySource = new Map());
  let c = bySource.get(source);
  if (!c) {
    const r = cel.compileAdmissionExpression(source, result, { params: params ? undefined : false });
    c = r.ok ? { program: r.program } : { error: r.error };
    if (++compiledCount > 10_000) { for (const m of compiledBySource.values()) m.clear(); compiledCount = 1; }
    bySource.set(source, c);
  }
  return c;
}

/** the CEL engine, without waiting a turn once it is loaded */
export const admissionCel = (): AdmissionCel | Promise<AdmissionCel> => loadedAdmissionCel() ?? loadAdmissionCel();

export type ConditionsResult = { matches: boolean } | { error: string };

/** evaluates the match conditions; params are the policy's (webhooks have none: undefined) */
export async function matchConditions(conditions: MatchCondition[] | undefined, act: () => Promise<AdmissionActivation>, params?: unknown): Promise<ConditionsResult> {
  if (!Array.isArray(conditions) || !conditions.length) return { matches: true };
  const cel = await admissionCel();
  const errors: string[] = [];
  const activation = await act();
  // the first request compiles the conditions (up to 64, each up to 100,000 code points): the loop is given back between slices
  const clock = sliceClock();
  for (const c of conditions) {
    if (clock.due()) await yieldToLoop();
    const program = compiled(cel, c.expression, 'bool', params !== undefined);
    if ('error' in program) { errors.push(`compilation failed for match condition '${c.name}': ${program.error}`); continue; }
    const outcome = await cel.evaluateAdmission(program.program, activation, { cost: 0, limit: cel.perExpressionCostLimit }, params);
    if ('error' in outcome) errors.push(`match condition '${c.name}': ${outcome.error}`);
    else if (outcome.value === false) return { matches: false };
    else if (outcome.value !== true) errors.push(`match condition '${c.name}' did not evaluate to a bool`);
  }
  return errors.length ? { error: errors.join('; ') } : { matches: true };
}
