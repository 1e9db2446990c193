// Type checking of a parsed CEL expression against the declared variables (for CRD rules `self` and `oldSelf`
// typed from the OpenAPI schema): every name must be declared, every field selected from a closed object must
// exist in its schema, every function must exist, and operands of comparisons and arithmetic must agree when
// both types are known. The type of every node is recorded for the cost estimator. Types that cannot be
// known statically (int-or-string, preserved unknown fields) are dyn and accepted, as the reference does.
import type { Expr, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { dyn, listOf, mapOf, scalar, typeName, type CelType, type Kind } from './types.js';

export interface Checked {
  /** the type of each node, by expression id */
  types: Map<bigint, CelType>;
  /** the type of the whole expression */
  type: CelType;
  errors: string[];
}

const bool = scalar('bool'), int = scalar('int'), string = scalar('string');
const results: Record<string, CelType | undefined> = {
  '_==_': bool, '_!=_': bool, '_<_': bool, '_<=_': bool, '_>_': bool, '_>=_': bool, '!_': bool, '@in': bool,
  '@not_strictly_false': bool, contains: bool, startsWith: bool, endsWith: bool, matches: bool, isSorted: bool, isURL: bool,
  size: int, int, indexOf: int, lastIndexOf: int, getFullYear: int, getMonth: int, getDate: int, getDayOfMonth: int,
  getDayOfWeek: int, getDayOfYear: int, getHours: int, getMinutes: int, getSeconds: int, getMilliseconds: int,
  string, lowerAscii: string, upperAscii: string, replace: string, substring: string, trim: string, charAt: string,
  join: string, find: string, getScheme: string, getHost: string, getHostname: string, getPort: string,
  getEscapedPath: string, format: string, 'strings.quote': string,
  split: listOf(string), findAll: listOf(string),
  double: scalar('double'), uint: scalar('uint'), bytes: scalar('bytes'), bool, type: scalar('type'), dyn,
  timestamp: scalar('timestamp'), duration: scalar('duration'), url: scalar('url'),
  getQuery: mapOf(string, listOf(string)),
};
/** functions whose result has the type of their first operand or the target list's elements */
const sameAsOperand = new Set(['_+_', '_-_', '_*_', '_/_', '_%_', '-_']);
const listElement = new Set(['sum', 'min', 'max']);
const typeNames = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);
const comparable: Kind[] = ['int', 'uint', 'double', 'string', 'bool', 'bytes', 'timestamp', 'duration'];
const numeric = new Set<Kind>(['int', 'uint', 'double']);

/** checks an expression; `functions` adds the result types of functions beyond the standard and Kubernetes ones */
export function check(parsed: ParsedExpr & { expr: Expr }, source: string, vars: Record<string, CelType>, functions: Record<string, CelType> = {}): Checked {
  const types = new Map<bigint, CelType>();
  const errors: string[] = [];
  const positions = parsed.sourceInfo?.positions ?? {};
  const report = (e: Expr, message: string) => errors.push(located(source, positions[String(e.id)] ?? 0, message));

  const infer = (e: Expr, scope: Record<string, CelType>): CelType => {
    const t = inferNode(e, scope);
    types.set(e.id, t);
    return t;
  };
  const inferNode = (e: Expr, scope: Record<string, CelType>): CelType => {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        switch (c.case) {
          case 'int64Value': return int;
          case 'uint64Value': return scalar('uint');
          case 'doubleValue': return scalar('double');
          case 'stringValue': return { kind: 'string', maxSize: [...c.value].length };
          case 'bytesValue': return { kind: 'bytes', maxSize: c.value.length };
          case 'boolValue': return bool;
          case 'nullValue': return scalar('null');
          default: return dyn;
        }
      }
      case 'identExpr': {
        const name = k.value.name;
        if (name in scope) return scope[name];
        if (typeNames.has(name)) return scalar('type');
        report(e, `undeclared reference to '${name}' (in container '')`);
        return dyn;
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        if (!operand) return dyn;
        const t = infer(operand, scope);
        if (testOnly) {
          if (t.kind === 'object' && !(field in (t.fields ?? {}))) report(e, `undefined field '${field}'`);
          return bool;
        }
        if (t.kind === 'object') {
          const f = t.fields?.[field];
          if (!f) { report(e, `undefined field '${field}'`); return dyn; }
          return f;
        }
        if (t.kind === 'map') return t.value ?? dyn;
        if (t.kind === 'dyn') return dyn;
        report(e, `type '${typeName(t)}' does not support field selection`);
        return dyn;
      }
      case 'listExpr': {
        const elems = k.value.elements.map(x => infer(x, scope));
        const first = elems[0];
        const same = first && elems.every(x => x.kind === first.kind);
        return listOf(same ? { kind: first.kind, elem: first.elem, key: first.key, value: first.value, fields: first.fields } : dyn, elems.length);
      }
      case 'structExpr': {
        if (k.value.messageName) { report(e, `undeclared reference to '${k.value.messageName}' (in container '')`); return dyn; }
        let key: CelType | undefined, value: CelType | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') key = infer(entry.keyKind.value, scope);
          if (entry.value) value = infer(entry.value, scope);
        }
        return mapOf(key ?? dyn, value ?? dyn, k.value.entries.length);
      }
      case 'comprehensionExpr': {
        const c = k.value;
        if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) return dyn;
        const range = infer(c.iterRange, scope);
        const iter = range.kind === 'list' ? range.elem ?? dyn : range.kind === 'map' ? range.key ?? dyn : dyn;
        if (!['list', 'map', 'dyn'].includes(range.kind)) report(c.iterRange, `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        let accu = infer(c.accuInit, scope);
        const inner = { ...scope, [c.iterVar]: iter, [c.accuVar]: accu };
        infer(c.loopCondition, inner);
        const step = infer(c.loopStep, inner);
        if (accu.kind === 'list' && step.kind === 'list' && step.elem?.kind !== 'dyn') accu = { ...step, maxSize: range.maxSize };
        return infer(c.result, { ...scope, [c.accuVar]: accu });
      }
      case 'callExpr': {
        const { function: fn, target, args } = k.value;
        // a call on a name that is no variable is a namespaced function: strings.quote(s)
        const namespace = target?.exprKind.case === 'identExpr' && !(target.exprKind.value.name in scope) ? target.exprKind.value.name : undefined;
        const targetType = target && namespace === undefined ? infer(target, scope) : undefined;
        const argTypes = args.map(a => infer(a, scope));
        const operands = targetType ? [targetType, ...argTypes] : argTypes;
        switch (fn) {
          case '_&&_': case '_||_': case '!_':
            for (let i = 0; i < operands.length; i++)
              if (!['bool', 'dyn'].includes(operands[i].kind)) report(e, `found no matching overload for '${fn}' applied to '(${operands.map(typeName).join(', ')})'`);
            return bool;
          case '_?_:_': {
            const [, a, b] = operands;
            return a.kind === b.kind ? a : dyn;
          }
          case '_[_]': {
            const [c, i] = operands;
            if (c.kind === 'list') return c.elem ?? dyn;
            if (c.kind === 'map') return c.value ?? dyn;
            if (c.kind === 'object') return dyn;
            if (c.kind !== 'dyn') report(e, `found no matching overload for '_[_]' applied to '(${typeName(c)}, ${typeName(i)})'`);
            return dyn;
          }
          case '_==_': case '_!=_': case '_<_': case '_<=_': case '_>_': case '_>=_': {
            const [a, b] = operands;
            const ordering = fn !== '_==_' && fn !== '_!=_';
            const known = (t: CelType) => comparable.includes(t.kind) || t.kind === 'null' || t.kind === 'list' || t.kind === 'map';
            if (known(a) && known(b) && a.kind !== b.kind && !(numeric.has(a.kind) && numeric.has(b.kind) && ordering)
              && !(!ordering && (a.kind === 'null' || b.kind === 'null')))
              report(e, `found no matching overload for '${fn}' applied to '(${typeName(a)}, ${typeName(b)})'`);
            return bool;
          }
        }
        if (sameAsOperand.has(fn)) {
          const [a, b] = operands;
          if (b && comparable.includes(a.kind) && comparable.includes(b.kind) && a.kind !== b.kind
            && !(a.kind === 'timestamp' && b.kind === 'duration') && !(a.kind === 'duration' && b.kind === 'timestamp')) {
            report(e, `found no matching overload for '${fn}' applied to '(${typeName(a)}, ${typeName(b)})'`);
            return dyn;
          }
          if (fn === '_-_' && a.kind === 'timestamp' && b?.kind === 'timestamp') return scalar('duration');
          if (fn === '_+_' && (a.kind === 'string' || a.kind === 'list') && b)
            return { ...a, maxSize: (a.maxSize ?? Infinity) + (b.maxSize ?? Infinity) };
          return a.kind === 'dyn' && b ? b : a;
        }
        if (listElement.has(fn) && targetType) return targetType.kind === 'list' ? targetType.elem ?? dyn : dyn;
        const name = namespace === undefined ? fn : `${namespace}.${fn}`;
        if (name in functions) return functions[name]!;
        if (name in results) return results[name]!;
        report(e, `undeclared reference to '${name}' (in container '')`);
        return dyn;
      }
      default:
        return dyn;
    }
  };
  const type = infer(parsed.expr, vars);
  return { types, type, errors };
}

/** an error located the way cel-go prints it: `ERROR: <input>:1:6: message` and the source line with a caret */
export function located(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}
