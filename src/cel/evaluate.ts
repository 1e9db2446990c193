// A tree-walking evaluator over the parsed CEL AST (the cel-go compatible one @bufbuild/cel produces) that
// counts the reference's runtime cost as it goes: identifiers and field selections 1, constants 0, list
// literals 40 (spec §8), map literals 30, each call what its function charges for its actual arguments, and every
// comprehension step its own nodes. Going over the limit halts the evaluation (CostLimitError). Functions
// and operators come from @bufbuild/cel's environment; the evaluator adds short-circuit logic, selection,
// indexing, literals and comprehensions, and hands names it does not know (type names) to @bufbuild/cel.
import { celList, celMap, isCelError, isCelList, isCelMap, isCelUint, plan, celError,
  type CelEnv, type CelError, type CelValue } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { callCost, evalContext } from './library.js';

export class CostLimitError extends Error {
  constructor() { super('operation cancelled: actual cost limit exceeded'); }
}

/** the running cost of one evaluation and the most it may reach */
export interface CostMeter { cost: number; limit: number }

type Scope = Record<string, CelValue>;
type Value = CelValue | CelError;

const err = (message: string, id: bigint) => celError(message, id);
/** spec §8: a list literal's base cost is 40 (cel-go's own estimator uses 10); map and message literals as the reference */
export const listBase = 40, mapBase = 30, structBase = 40;

/** the plans of @bufbuild/cel for the nodes it resolves, made once per environment and node (compiled expressions are kept) */
const plansByEnv = new WeakMap<CelEnv, WeakMap<Expr, (ctx: Scope) => Value>>();

export function evaluate(env: CelEnv, root: Expr, vars: Scope, meter: CostMeter): Value {
  let fallbacks = plansByEnv.get(env);
  if (!fallbacks) plansByEnv.set(env, fallbacks = new WeakMap());
  const charge = (n: number) => {
    meter.cost += n;
    if (meter.cost > meter.limit) throw new CostLimitError();
  };
  /** names that are no variable: type names and qualified identifiers, resolved by @bufbuild/cel */
  const viaLibrary = (e: Expr, scope: Scope): Value => {
    let f = fallbacks!.get(e);
    if (!f) {
      const planned = plan(env, e);
      f = (ctx: Scope) => planned(ctx as never);
      fallbacks!.set(e, f);
    }
    return f(scope);
  };
  /** the dotted name an ident/select chain spells, when its root is not a variable in scope */
  const qualifiedName = (e: Expr, scope: Scope): string | undefined => {
    const k = e.exprKind;
    if (k.case === 'identExpr') return k.value.name in scope ? undefined : k.value.name;
    if (k.case === 'selectExpr' && !k.value.testOnly && k.value.operand) {
      const base = qualifiedName(k.value.operand, scope);
      return base === undefined ? undefined : `${base}.${k.value.field}`;
    }
    return undefined;
  };

  const ev = (e: Expr, scope: Scope): Value => {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        switch (c.case) {
          case 'int64Value': return c.value;
          case 'uint64Value': return viaLibrary(e, scope);
          case 'doubleValue': case 'stringValue': case 'boolValue': case 'bytesValue': return c.value;
          case 'nullValue': return null;
          default: return viaLibrary(e, scope);
        }
      }
      case 'identExpr': {
        charge(1);
        const name = k.value.name;
        if (name in scope) return scope[name];
        return viaLibrary(e, scope);
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        if (!operand) return err('invalid select', e.id);
        if (qualifiedName(operand, scope) !== undefined) { charge(1); return viaLibrary(e, scope); }
        const target = ev(operand, scope);
        charge(1);
        if (isCelError(target)) return target;
        if (isCelMap(target)) {
          if (testOnly) return target.has(field);
          const v = target.get(field);
          return v === undefined ? err(`no such key: ${field}`, e.id) : v;
        }
        if (target !== null && typeof target === 'object' && !isCelList(target) && !isCelUint(target) && !(target instanceof Uint8Array))
          return viaLibrary(e, { ...scope });
        return err(`type '${describe(target)}' does not support field selection`, e.id);
      }
      case 'callExpr': return call(e, scope);
      case 'listExpr': {
        const out: CelValue[] = [];
        const optional = new Set(k.value.optionalIndices);
        for (let i = 0; i < k.value.elements.length; i++) {
          const v = ev(k.value.elements[i], scope);
          if (isCelError(v)) return v;
          if (optional.has(i)) return viaLibrary(e, scope);
          out.push(v);
        }
        charge(listBase);
        return celList(out);
      }
      case 'structExpr': {
        if (k.value.messageName) { charge(structBase); return viaLibrary(e, scope); }
        const entries = new Map<any, CelValue>();
        for (const entry of k.value.entries) {
          if (entry.keyKind.case !== 'mapKey' || !entry.value || entry.optionalEntry) return viaLibrary(e, scope);
          const key = ev(entry.keyKind.value, scope);
          if (isCelError(key)) return key;
          const value = ev(entry.value, scope);
          if (isCelError(value)) return value;
          const mapKey = isCelUint(key) ? key : key;
          if (!(typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || isCelUint(key)))
            return err(`unsupported key type: ${describe(key)}`, entry.id);
          for (const existing of entries.keys()) if (sameKey(existing, mapKey)) return err(`Failed with repeated key: ${String(key)}`, entry.id);
          entries.set(mapKey, value);
        }
        charge(mapBase);
        return celMap(entries);
      }
      case 'comprehensionExpr': {
        const c = k.value;
        if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) return err('invalid comprehension', e.id);
        if (c.iterVar2) return viaLibrary(e, scope);
        const range = ev(c.iterRange, scope);
        if (isCelError(range)) return range;
        let accu = ev(c.accuInit, scope);
        let elems: Iterable<unknown>;
        if (isCelList(range)) elems = range;
        else if (isCelMap(range)) elems = range.keys();
        else return err(`expression does not evaluate to a list or map: ${describe(range)}`, c.iterRange.id);
        const inner: Scope = Object.create(scope);
        for (const x of elems) {
          inner[c.iterVar] = x as CelValue;
          inner[c.accuVar] = accu as CelValue;
          const cond = ev(c.loopCondition, inner);
          if (cond === false) break;
          accu = ev(c.loopStep, inner);
        }
        const done: Scope = Object.create(scope);
        done[c.accuVar] = accu as CelValue;
        return ev(c.result, done);
      }
      default:
        return err('invalid expression', e.id);
    }
  };

  const call = (e: Expr, scope: Scope): Value => {
    const c = e.exprKind.value as { function: string; target?: Expr; args: Expr[] };
    const fn = c.function;
    switch (fn) {
      case '_&&_': case '_||_': {
        const stop = fn === '_||_';
        const a = ev(c.args[0], scope);
        if (a === stop) return stop;
        const b = ev(c.args[1], scope);
        if (b === stop) return stop;
        if (isCelError(a)) return a;
        if (isCelError(b)) return b;
        if (typeof a !== 'boolean' || typeof b !== 'boolean') return err(`no such overload: ${fn}`, e.id);
        return !stop;
      }
      case '_?_:_': {
        const cond = ev(c.args[0], scope);
        if (isCelError(cond)) return cond;
        if (typeof cond !== 'boolean') return err('no such overload: _?_:_', e.id);
        return ev(c.args[cond ? 1 : 2], scope);
      }
      case '@not_strictly_false': {
        const v = ev(c.args[0], scope);
        return v !== false;
      }
      case '_[_]': {
        const container = ev(c.args[0], scope);
        if (isCelError(container)) return container;
        const index = ev(c.args[1], scope);
        if (isCelError(index)) return index;
        charge(1);
        return indexInto(container, index, e.id);
      }
    }
    // a call on a name that is no variable may be a namespaced function: strings.quote(s)
    let name = fn;
    let target: Value | undefined;
    if (c.target) {
      const ns = qualifiedName(c.target, scope);
      if (ns !== undefined && env.funcs.find(`${ns}.${fn}`)) name = `${ns}.${fn}`;
      else {
        target = ev(c.target, scope);
        if (isCelError(target)) return target;
      }
    }
    const args: CelValue[] = [];
    for (const a of c.args) {
      const v = ev(a, scope);
      if (isCelError(v)) return v;
      args.push(v);
    }
    const group = env.funcs.find(name);
    let result: Value | undefined;
    try {
      result = group?.call(Number(e.id), target as CelValue | undefined, args);
    } catch (x) {
      if (x instanceof CostLimitError) throw x;
      result = err((x as Error).message, e.id);
    }
    if (result === undefined) {
      const shown = [target, ...args].filter(v => v !== undefined).map(v => describe(v as CelValue)).join(', ');
      return err(group ? `no such overload: ${name}(${shown})` : `unknown function: ${name}`, e.id);
    }
    charge(callCost(fn, target as CelValue | undefined, args, isCelError(result) ? undefined : result));
    return result;
  };

  const unset = evalContext.setEvalContext({ registry: env.registry });
  try {
    return ev(root, vars);
  } finally {
    unset();
  }
}

function sameKey(a: unknown, b: unknown): boolean {
  const n = (v: unknown) => (isCelUint(v) ? (v as { value: bigint }).value : v);
  return n(a) === n(b);
}

function indexInto(container: CelValue, index: CelValue, id: bigint): Value {
  if (isCelList(container)) {
    let i: number;
    if (typeof index === 'bigint') i = Number(index);
    else if (isCelUint(index)) i = Number((index as { value: bigint }).value);
    else if (typeof index === 'number' && Number.isInteger(index)) i = index;
    else return err(`no such overload: list[${describe(index)}]`, id);
    const v = i >= 0 && i < container.size ? container.get(i) : undefined;
    return v === undefined ? err(`index out of bounds: ${i}`, id) : v;
  }
  if (isCelMap(container)) {
    if (!(typeof index === 'string' || typeof index === 'bigint' || typeof index === 'boolean' || typeof index === 'number' || isCelUint(index)))
      return err(`unsupported key type: ${describe(index)}`, id);
    const v = container.get(index as never);
    return v === undefined ? err(`no such key: ${isCelUint(index) ? `${(index as { value: bigint }).value}u` : String(index)}`, id) : v;
  }
  return err(`no such overload: ${describe(container)}[${describe(index)}]`, id);
}

/** a value's CEL type name, for error messages */
export function describe(v: CelValue | undefined): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelUint(v)) return 'uint';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  return 'object';
}
