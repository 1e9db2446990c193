// The static cost estimate of a checked CEL expression, with the reference's cost model (cel-go's estimator
// plus the Kubernetes libraries'): identifiers and selections 1, constants 0, list literals 40 (spec §8), map literals
// 30, most calls 1, string and bytes operations 0.1 per character, `matches`/`find` the product of the
// string's and the regex's charges (0.1 and 0.25 per character), `in` a list its size, comprehensions their
// range's size times the cost of one step. Sizes come from literals and from the schema's bounds (types.ts).
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { CelType } from './types.js';
import { listBase } from './evaluate.js';
import { authzCheckCost } from './library.js';

export interface Estimate { min: number; max: number }

/** uint64's largest value, where the reference's estimates saturate */
export const maxCost = 2 ** 64 - 1;
const sat = (n: number) => Math.min(n, maxCost);
const add = (a: Estimate, b: Estimate): Estimate => ({ min: sat(a.min + b.min), max: sat(a.max + b.max) });
const fixed = (n: number): Estimate => ({ min: n, max: n });
const times = (a: Estimate, b: Estimate): Estimate => ({ min: sat(a.min * b.min), max: sat(a.max * b.max) });
const factor = (a: Estimate, f: number): Estimate => ({ min: sat(Math.ceil(a.min * f)), max: sat(Math.ceil(a.max * f)) });
const union = (a: Estimate, b: Estimate): Estimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const unknownSize: Estimate = { min: 0, max: maxCost };
const traversal = 0.1, regexFactor = 0.25;

export function estimateCost(root: Expr, types: Map<bigint, CelType>): Estimate {
  /** sizes computed for nodes (concatenations, literals, comprehension results) */
  const sizes = new Map<bigint, Estimate>();
  const locals: Record<string, Estimate | undefined>[] = [];

  const sizeOf = (e: Expr): Estimate => {
    const known = sizes.get(e.id);
    if (known) return known;
    const k = e.exprKind;
    if (k.case === 'constExpr') {
      const c = k.value.constantKind;
      if (c.case === 'stringValue') return fixed([...c.value].length);
      if (c.case === 'bytesValue') return fixed(c.value.length);
      return fixed(1);
    }
    if (k.case === 'listExpr') return fixed(k.value.elements.length);
    if (k.case === 'structExpr') return fixed(k.value.entries.length);
    if (k.case === 'identExpr') {
      for (let i = locals.length - 1; i >= 0; i--) if (k.value.name in locals[i]) { const s = locals[i][k.value.name]; if (s) return s; break; }
    }
    const t = types.get(e.id);
    if (t && ['int', 'uint', 'double', 'bool', 'null', 'timestamp', 'duration'].includes(t.kind)) return fixed(1);
    if (t?.maxSize !== undefined && Number.isFinite(t.maxSize)) return { min: 0, max: t.maxSize };
    return unknownSize;
  };
  const kindOf = (e: Expr) => types.get(e.id)?.kind ?? 'dyn';

  const cost = (e: Expr): Estimate => {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': return fixed(0);
      case 'identExpr': return fixed(1);
      case 'selectExpr': {
        if (!k.value.operand) return fixed(0);
        const operand = cost(k.value.operand);
        if (k.value.testOnly) return add(operand, fixed(1));
        return ['map', 'object', 'dyn'].includes(kindOf(k.value.operand)) ? add(operand, fixed(1)) : operand;
      }
      case 'listExpr': return k.value.elements.reduce((s, x) => add(s, cost(x)), fixed(listBase));
      case 'structExpr':
        return k.value.entries.reduce((s, x) => add(add(s, x.keyKind.case === 'mapKey' ? cost(x.keyKind.value) : fixed(0)), x.value ? cost(x.value) : fixed(0)),
          fixed(k.value.messageName ? 40 : 30));
      case 'comprehensionExpr': {
        const c = k.value;
        if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) return fixed(0);
        let sum = add(cost(c.iterRange), cost(c.accuInit));
        const range = sizeOf(c.iterRange);
        const rangeType = types.get(c.iterRange.id);
        const elemType = rangeType?.kind === 'list' ? rangeType.elem : rangeType?.kind === 'map' ? rangeType.key : undefined;
        const elemSize = elemType?.maxSize !== undefined ? { min: 0, max: elemType.maxSize } : undefined;
        locals.push({ [c.accuVar]: undefined, [c.iterVar]: elemSize });
        const step = add(cost(c.loopCondition), cost(c.loopStep));
        locals.pop();
        sum = add(sum, cost(c.result));
        if (c.accuInit.exprKind.case === 'listExpr' || c.accuInit.exprKind.case === 'structExpr') sizes.set(e.id, range);
        return add(sum, times(range, step));
      }
      case 'callExpr': return callCost(e);
      default: return fixed(0);
    }
  };

  const callCost = (e: Expr): Estimate => {
    const { function: fn, target, args } = e.exprKind.value as { function: string; target?: Expr; args: Expr[] };
    const argCosts = args.map(cost);
    const sumArgs = argCosts.reduce(add, fixed(0));
    const targetCost = target ? cost(target) : fixed(0);
    const operands = target ? [target, ...args] : args;
    const size = (i: number) => sizeOf(operands[i]);
    const base = add(targetCost, sumArgs);
    const isText = (x: Expr) => ['string', 'bytes'].includes(kindOf(x));
    switch (fn) {
      case 'dyn': return add(fixed(1), sumArgs);
      case '_&&_': case '_||_': return { min: argCosts[0].min, max: sat(argCosts[0].max + argCosts[1].max) };
      case '_?_:_': {
        sizes.set(e.id, union(sizeOf(args[1]), sizeOf(args[2])));
        return add(argCosts[0], union(argCosts[1], argCosts[2]));
      }
      case '_+_':
        if (isText(operands[0]) || kindOf(operands[0]) === 'list') {
          const result = add(size(0), size(1));
          sizes.set(e.id, result);
          return add(kindOf(operands[0]) === 'list' ? fixed(1) : factor(result, traversal), base);
        }
        return add(fixed(1), base);
      case '_==_': case '_!=_': case '_<_': case '_<=_': case '_>_': case '_>=_': {
        if (!['_==_', '_!=_'].includes(fn) && !isText(operands[0])) return add(fixed(1), base);
        const smallest = Math.min(size(0).max, size(1).max);
        return add(factor({ min: smallest > 0 ? 1 : 0, max: smallest }, traversal), base);
      }
      case 'matches': case 'find': case 'findAll': {
        if (operands.length < 2) break;
        const str = factor(add(size(0), fixed(1)), traversal);
        const re = factor(size(1), regexFactor);
        if (fn === 'findAll') sizes.set(e.id, { min: 0, max: size(0).max });
        return add(times(str, re), base);
      }
      case 'contains':
        if (operands.length === 2) return add(times(factor(size(0), traversal), factor(size(1), traversal)), base);
        break;
      case 'startsWith': case 'endsWith':
        if (operands.length === 2) return add(factor(size(1), traversal), base);
        break;
      case '@in':
        return add(kindOf(args[1]) === 'list' ? factor(size(1), 1) : fixed(1), base);
      case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
        if (target) {
          const t = types.get(target.id);
          if (t?.kind === 'list') {
            let element = fixed(1);
            if (t.elem && ['string', 'bytes'].includes(t.elem.kind))
              element = add(element, factor(t.elem.maxSize !== undefined ? { min: 0, max: t.elem.maxSize } : unknownSize, traversal));
            return add(times(size(0), element), base);
          }
          return add(factor(size(0), traversal), base);
        }
        break;
      case 'url':
        return add(factor(size(0), traversal), base);
      case 'check':
        if (target && args.length === 1) return add(fixed(authzCheckCost), base);
        break;
      case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
        if (target) { sizes.set(e.id, size(0)); return add(factor(size(0), traversal), base); }
        break;
      case 'replace':
        if (target) return add(factor(size(0), 2 * traversal), base);
        break;
      case 'split':
        if (target) { sizes.set(e.id, { min: 0, max: size(0).max }); return add(factor(size(0), 2 * traversal), base); }
        break;
      case 'join':
        if (target) {
          const t = types.get(target.id);
          const elem = t?.elem?.maxSize !== undefined ? { min: 0, max: t.elem.maxSize } : unknownSize;
          let result = times(size(0), elem);
          if (args.length) {
            const n = size(0);
            result = add(result, times(sizeOf(args[0]), { min: Math.max(n.min - 1, 0), max: Math.max(n.max - 1, 0) }));
          }
          sizes.set(e.id, result);
          return add(factor(result, traversal), base);
        }
        break;
      case 'string': case 'bytes':
        if (args.length === 1 && isText(args[0])) return add(factor(sizeOf(args[0]), traversal), base);
        break;
    }
    return add(fixed(1), base);
  };

  return cost(root);
}
