// CRD validation rules (x-kubernetes-validations): compiled once per schema, checked at CRD create/update
// (syntax, types against the schema, estimated cost against the reference's limits) and evaluated on every
// write of a custom object at each schema node that has rules, with `self` the node's value and `oldSelf` its
// previous value on updates. Costs: 10,000,000 per rule estimate (times how many times the node can occur),
// 100,000,000 for the whole schema, 1,000,000 per evaluation, 10,000,000 per object at runtime.
import { isCelError, type CelValue } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { StatusCause } from '../api/meta.js';
import type { ValidationSchema } from '../schema/validate.js';
import { typeOfSchema, typeName, maxRequestSizeBytes, type CelType } from './types.js';
import { check } from './check.js';
import { parseBounded } from './parse.js';
import { constantRegexProblem } from './regex-constants.js';
import { estimateCost, maxCost } from './cost.js';
import { evaluate, CostLimitError, type CostMeter } from './evaluate.js';
import { celEnvironment } from './library.js';
import { toCel } from './values.js';
import { inSteps } from '../util/slices.js';

export const perExpressionEstimateLimit = 10_000_000;
export const perCrdEstimateLimit = 100_000_000;
export const perCallLimit = 1_000_000;
export const perObjectRuntimeBudget = 10_000_000;

interface Rule { rule?: string; message?: string; messageExpression?: string }
export interface CompiledRule {
  rule: Rule;
  program?: Expr;
  messageProgram?: Expr;
  /** uses oldSelf: evaluated only on updates that have an old value */
  transition: boolean;
}
export interface CompiledSchema {
  /** compiled rules of each schema node that has any */
  rules: WeakMap<object, CompiledRule[]>;
  /** CRD-time problems: syntax, types, costs, with field paths below the schema's path */
  problems: StatusCause[];
  any: boolean;
}


/** compiles the CEL expression against `self`/`oldSelf` of the given type; errors as cel-go prints them */
export function compileExpression(source: string, vars: Record<string, CelType>, functions?: Record<string, CelType>):
  { ok: true; expr: Expr; type: CelType; cost: { min: number; max: number }; usesOldSelf: boolean } | { ok: false; error: string } {
  const bounded = parseBounded(source);
  if (!bounded.ok) return bounded;
  const parsed = bounded.parsed;
  const checked = check(parsed, source, vars, functions);
  if (checked.errors.length) return { ok: false, error: checked.errors.join('\n') };
  const usesOldSelf = source.includes('oldSelf') && [...checked.types.keys()].length > 0 && mentions(parsed.expr, 'oldSelf');
  return { ok: true, expr: parsed.expr, type: checked.type, cost: estimateCost(parsed.expr, checked.types), usesOldSelf };
}

function mentions(e: Expr, name: string): boolean {
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr': return k.value.name === name;
    case 'selectExpr': return !!k.value.operand && mentions(k.value.operand, name);
    case 'callExpr': return (!!k.value.target && mentions(k.value.target, name)) || k.value.args.some(a => mentions(a, name));
    case 'listExpr': return k.value.elements.some(a => mentions(a, name));
    case 'structExpr': return k.value.entries.some(x => (x.keyKind.case === 'mapKey' && mentions(x.keyKind.value, name)) || (!!x.value && mentions(x.value, name)));
    case 'comprehensionExpr': return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].some(x => !!x && mentions(x, name));
    default: return false;
  }
}

/** the reference's wording of an estimate over its limit */
export function costMessage(what: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** the rule as the reference prints it in "Invalid value" (Go's %#v of its ValidationRule) */
const shownRule = (r: Rule) => `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule ?? '')}, Message:${JSON.stringify(r.message ?? '')}, MessageExpression:${JSON.stringify(r.messageExpression ?? '')}}`;

/**
 * The compilation of every rule of a schema, one rule per step: a CRD may carry tens of thousands of rules (parsing
 * one takes from a fraction of a millisecond to a few hundred for one of 100,000 code points), so the server runs
 * the steps with the event loop given back between them (compileSchemaInSlices).
 */
function* compileSteps(schema: ValidationSchema, path: string): Generator<void, CompiledSchema> {
  const rules = new WeakMap<object, CompiledRule[]>();
  const problems: StatusCause[] = [];
  let total = 0, any = false;

  function* visit(s: ValidationSchema | undefined, p: string, cardinality: number, root: boolean): Generator<void> {
    if (!s || typeof s !== 'object') return;
    const list = Array.isArray(s['x-kubernetes-validations']) ? s['x-kubernetes-validations'] as Rule[] : [];
    if (list.length) {
      any = true;
      const self = typeOfSchema(s, root);
      const vars = { self, oldSelf: self };
      const compiled: CompiledRule[] = [];
      for (const [i, rule] of list.entries()) {
        yield;
        const rp = `${p}.x-kubernetes-validations[${i}]`;
        const entry: CompiledRule = { rule, transition: false };
        compiled.push(entry);
        if (!rule || typeof rule.rule !== 'string' || !rule.rule.trim()) {
          problems.push({ reason: 'FieldValueRequired', field: `${rp}.rule`, message: 'Required value: rule is not specified' });
          continue;
        }
        if (rule.message !== undefined && /[\n\r]/.test(rule.message))
          problems.push({ reason: 'FieldValueInvalid', field: `${rp}.message`, message: `Invalid value: ${JSON.stringify(rule.message)}: message must not contain line breaks` });
        if (rule.message === undefined && !rule.messageExpression && /[\n\r]/.test(rule.rule))
          problems.push({ reason: 'FieldValueRequired', field: `${rp}.message`, message: 'Required value: message must be specified if rule contains line breaks' });
        const c = compileExpression(rule.rule, vars);
        const regexProblem = c.ok ? constantRegexProblem(c.expr) : undefined;
        if (!c.ok) {
          problems.push({ reason: 'FieldValueInvalid', field: `${rp}.rule`, message: `Invalid value: ${shownRule(rule)}: compilation failed: ${c.error}` });
        } else if (c.type.kind !== 'bool' && c.type.kind !== 'dyn') {
          problems.push({ reason: 'FieldValueInvalid', field: `${rp}.rule`, message: `Invalid value: ${shownRule(rule)}: compilation failed: cel expression must evaluate to a bool` });
        } else if (regexProblem) {
          // the reference compiles constant patterns when it makes the rule's program, after type checking
          problems.push({ reason: 'FieldValueInvalid', field: `${rp}.rule`, message: `Invalid value: ${shownRule(rule)}: program instantiation failed: ${regexProblem}` });
        } else {
          entry.program = c.expr;
          entry.transition = c.usesOldSelf;
          const cost = Math.min(c.cost.max * cardinality, maxCost);
          if (cost > perExpressionEstimateLimit)
            problems.push({ reason: 'FieldValueForbidden', field: `${rp}.rule`, message: `Forbidden: ${costMessage('estimated rule cost', cost, perExpressionEstimateLimit)}` });
          total = Math.min(total + cost, maxCost);
        }
        if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
          const m = compileExpression(rule.messageExpression, vars);
          if (!m.ok) {
            problems.push({ reason: 'FieldValueInvalid', field: `${rp}.messageExpression`, message: `Invalid value: ${shownRule(rule)}: messageExpression compilation failed: ${m.error}` });
          } else if (m.type.kind !== 'string' && m.type.kind !== 'dyn') {
            problems.push({ reason: 'FieldValueInvalid', field: `${rp}.messageExpression`, message: `Invalid value: ${shownRule(rule)}: messageExpression compilation failed: messageExpression must evaluate to a string` });
          } else {
            entry.messageProgram = m.expr;
            const cost = Math.min(m.cost.max * cardinality, maxCost);
            if (cost > perExpressionEstimateLimit)
              problems.push({ reason: 'FieldValueForbidden', field: `${rp}.messageExpression`, message: `Forbidden: ${costMessage('estimated messageExpression cost', cost, perExpressionEstimateLimit)}` });
            total = Math.min(total + cost, maxCost);
          }
        }
      }
      rules.set(s, compiled);
    }
    for (const [k, child] of Object.entries(s.properties ?? {})) yield* visit(child, `${p}.properties[${k}]`, cardinality, false);
    if (s.items && typeof s.items === 'object') {
      const t = typeOfSchema(s);
      yield* visit(s.items, `${p}.items`, Math.min(cardinality * (t.maxSize ?? maxRequestSizeBytes), maxCost), false);
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      const t = typeOfSchema(s);
      yield* visit(s.additionalProperties, `${p}.additionalProperties`, Math.min(cardinality * (t.maxSize ?? maxRequestSizeBytes), maxCost), false);
    }
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) for (const sub of s[k] ?? []) if (sub?.['x-kubernetes-validations']) yield* visit(sub, p, cardinality, root);
  }
  yield* visit(schema, path, 1, true);
  if (total > perCrdEstimateLimit)
    problems.push({ reason: 'FieldValueForbidden', field: path,
      message: `Forbidden: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, perCrdEstimateLimit)}` });
  return { rules, problems, any };
}

/** schemas compiled ahead of their validation, by schema object and path; each is taken once (see compileSchema) */
const compiledAhead = new WeakMap<object, Map<string, CompiledSchema>>();

/**
 * compiles every rule of a schema; `path` is where the schema sits in its CRD, for the problems' field paths. A
 * compilation made ahead for this very schema object and path (compileSchemaInSlices with `ahead`) is taken instead:
 * the CRD strategy compiles in its asynchronous prepare step, just before the synchronous validation asks.
 */
export function compileSchema(schema: ValidationSchema, path: string): CompiledSchema {
  const made = compiledAhead.get(schema)?.get(path);
  if (made) {
    compiledAhead.get(schema)!.delete(path);
    return made;
  }
  const steps = compileSteps(schema, path);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * compileSchema in steps with the event loop given back between them (inSteps), so that health checks, watches and
 * other writes go on while a CRD with many rules compiles; `ahead` keeps the result for the next compileSchema of
 * the same schema object and path.
 */
export async function compileSchemaInSlices(schema: ValidationSchema, path: string, ahead = false): Promise<CompiledSchema> {
  const compiled = await inSteps(compileSteps(schema, path));
  if (ahead) {
    let byPath = compiledAhead.get(schema);
    if (!byPath) compiledAhead.set(schema, byPath = new Map());
    byPath.set(path, compiled);
  }
  return compiled;
}

const schemaType = (s: ValidationSchema) => (s['x-kubernetes-int-or-string'] ? '' : s.type ?? '');
const joinPath = (p: string, k: string) => (p ? `${p}.${k}` : k);
const invalidCause = (path: string, s: ValidationSchema, message: string): StatusCause =>
  ({ reason: 'FieldValueInvalid', field: path || '<nil>', message: `Invalid value: ${JSON.stringify(schemaType(s))}: ${message}` });

const ruleErrorString = (r: Rule) => (r.message?.trim() ? r.message.trim() : (r.rule ?? '').trim());

/** evaluates the rules of an object (and its old version on update); the causes name the rule and the field */
export function validateRules(compiled: CompiledSchema, schema: ValidationSchema, obj: unknown, old: unknown, runtimeBudget = perObjectRuntimeBudget): StatusCause[] {
  const steps = validateSteps(compiled, schema, obj, old, runtimeBudget);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * validateRules with the event loop given back between rule evaluations (inSteps): one call may cost a second on a
 * string of megabytes (a regular expression over it), and an object's budget holds tens of such calls, which in one
 * piece held the loop for all of them
 */
export function validateRulesInSteps(compiled: CompiledSchema, schema: ValidationSchema, obj: unknown, old: unknown, runtimeBudget = perObjectRuntimeBudget): Promise<StatusCause[]> {
  return inSteps(validateSteps(compiled, schema, obj, old, runtimeBudget));
}

/** the evaluation of validateRules, pausing after each rule */
function* validateSteps(compiled: CompiledSchema, schema: ValidationSchema, obj: unknown, old: unknown, runtimeBudget: number): Generator<void, StatusCause[], void> {
  const out: StatusCause[] = [];
  if (!compiled.any) return out;
  let remaining = runtimeBudget;
  const env = celEnvironment();

  /** false when evaluation must stop: the budget is spent */
  const evalNode = function* (s: ValidationSchema, value: unknown, oldValue: unknown, path: string, root: boolean): Generator<void, boolean, void> {
    const rules = compiled.rules.get(s);
    if (!rules?.length || value === null || value === undefined) return true;
    if (remaining <= 0) {
      out.push(invalidCause(path, s, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return false;
    }
    const type = typeOfCached(s, root);
    let self: CelValue | undefined, oldSelf: CelValue | undefined;
    for (const r of rules) {
      if (!r.program) continue;
      if (r.transition && (oldValue === undefined || oldValue === null)) continue;
      self ??= toCel(value, type);
      const vars: Record<string, CelValue> = { self };
      if (oldValue !== undefined && oldValue !== null) vars.oldSelf = oldSelf ??= toCel(oldValue, type);
      const meter: CostMeter = { cost: 0, limit: perCallLimit };
      let result;
      try {
        result = evaluate(env, r.program, vars, meter);
      } catch (e) {
        if (!(e instanceof CostLimitError)) throw e;
        out.push(invalidCause(path, s, `'${e.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.rule)}`));
        return false;
      }
      yield;
      if (meter.cost > remaining) {
        out.push(invalidCause(path, s, 'validation failed due to running out of cost budget, no further validation rules will be run'));
        return false;
      }
      remaining -= meter.cost;
      if (isCelError(result)) {
        const m = result.message;
        out.push(invalidCause(path, s, m.startsWith('no such overload')
          ? `'${m}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r.rule)}`
          : `${m} evaluating rule: ${ruleErrorString(r.rule)}`));
        continue;
      }
      if (result === true) continue;
      out.push(invalidCause(path, s, messageOf(r, vars)));
      if (remaining < 0) return false;
    }
    return true;
  };

  /** the rule's message: its messageExpression's result when that gives a usable string */
  const messageOf = (r: CompiledRule, vars: Record<string, CelValue>): string => {
    const fallback = r.rule.message?.trim() ? r.rule.message.trim() : `failed rule: ${ruleErrorString(r.rule)}`;
    if (!r.messageProgram) return fallback;
    const meter: CostMeter = { cost: 0, limit: perCallLimit };
    try {
      const m = evaluate(env, r.messageProgram, vars, meter);
      remaining -= meter.cost;
      if (typeof m !== 'string') return fallback;
      const text = m.trim();
      if (!text || /\n/.test(text) || text.length > 5000) return fallback;
      return text;
    } catch (e) {
      if (!(e instanceof CostLimitError)) throw e;
      remaining = -1;
      return `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(r.rule.messageExpression)}`;
    }
  };

  const walk = function* (s: ValidationSchema | undefined, value: unknown, oldValue: unknown, path: string, root: boolean): Generator<void, boolean, void> {
    if (!s || value === null || value === undefined) return true;
    if (!(yield* evalNode(s, value, oldValue, path, root))) return false;
    if (Array.isArray(value)) {
      if (!s.items) return true;
      const keys = s['x-kubernetes-list-type'] === 'map' ? s['x-kubernetes-list-map-keys'] ?? [] : undefined;
      // old items correlate only in map lists, by their keys
      const olds = keys && Array.isArray(oldValue) && oldValue.length > 0 ? itemsByKey(oldValue, keys) : undefined;
      for (let i = 0; i < value.length; i++) {
        const prev = olds?.get(listKeyOf(value[i], keys!));
        if (!(yield* walk(s.items, value[i], prev, `${path}[${i}]`, false))) return false;
      }
      return true;
    }
    if (typeof value === 'object') {
      const o = value as Record<string, unknown>;
      const prev = oldValue && typeof oldValue === 'object' && !Array.isArray(oldValue) ? oldValue as Record<string, unknown> : undefined;
      if (s.properties) {
        for (const [k, child] of Object.entries(s.properties)) {
          if (root && k === 'metadata') continue;
          if (!(yield* walk(child, o[k], prev?.[k], joinPath(path, k), false))) return false;
        }
      } else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        for (const k of Object.keys(o)) if (!(yield* walk(s.additionalProperties, o[k], prev?.[k], `${path}[${k}]`, false))) return false;
      }
    }
    return true;
  };
  yield* walk(schema, obj, old, '', true);
  return out;
}

/** a map-list item's identity: its key fields' types and values (keys are scalars; an item that is no object has none) */
function listKeyOf(item: unknown, keys: readonly string[]): string | undefined {
  if (!item || typeof item !== 'object') return undefined;
  let id = '';
  for (const k of keys) {
    const v = (item as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object') return undefined;
    id += `${typeof v}:${String(v).length}:${String(v)};`;
  }
  return id;
}

/** the old items of a map list by identity, the first of each kept: one pass, where a search per new item is quadratic */
function itemsByKey(items: unknown[], keys: readonly string[]): Map<string | undefined, unknown> {
  const out = new Map<string | undefined, unknown>();
  for (const item of items) {
    const id = listKeyOf(item, keys);
    if (id !== undefined && !out.has(id)) out.set(id, item);
  }
  return out;
}

const typeCache = new WeakMap<object, { root?: CelType; inner?: CelType }>();
function typeOfCached(s: ValidationSchema, root: boolean): CelType {
  let c = typeCache.get(s);
  if (!c) typeCache.set(s, (c = {}));
  return root ? (c.root ??= typeOfSchema(s, true)) : (c.inner ??= typeOfSchema(s));
}

export { typeName };
