// Parsing with the reference parser's limits: an expression of at most 100,000 code points, nested at most 250 deep.
// The checker, the cost estimator and the evaluator walk the tree recursively, so a deeper tree (a chain of
// 5,000 additions or field selections) would overflow the stack; the reference refuses it at parse time.
import { parse } from '@bufbuild/cel';
import type { Expr, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

export const maxCodePoints = 100_000;
export const maxDepth = 250;

export type Parsed = ParsedExpr & { expr: Expr };

/** the parsed expression, or the error as cel-go prints it */
export function parseBounded(source: string): { ok: true; parsed: Parsed } | { ok: false; error: string } {
  const size = source.length > maxCodePoints ? codePoints(source) : source.length;
  if (size > maxCodePoints) return { ok: false, error: `ERROR: <input>:-1:0: expression code point size exceeds limit: size: ${size}, limit ${maxCodePoints}` };
  let parsed: Parsed;
  try {
    parsed = parse(source) as Parsed;
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, error: 'ERROR: <input>:-1:0: max recursion depth exceeded' };
    const m = /^<input>:(\d+):(\d+): (.*)$/s.exec((e as Error).message);
    return { ok: false, error: m ? `ERROR: <input>:${m[1]}:${m[2]}: Syntax error: ${m[3]}` : `ERROR: <input>:1:1: Syntax error: ${(e as Error).message}` };
  }
  if (depthOf(parsed.expr) > maxDepth) return { ok: false, error: 'ERROR: <input>:-1:0: max recursion depth exceeded' };
  return { ok: true, parsed };
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) { const d = s.charCodeAt(i + 1); if (d >= 0xdc00 && d <= 0xdfff) i++; }
    n++;
  }
  return n;
}

/** the nesting depth of an expression tree, walked without recursion (the tree may be deeper than the stack) */
function depthOf(root: Expr): number {
  let deepest = 0;
  const pending: Array<[Expr, number]> = [[root, 1]];
  while (pending.length) {
    const [e, d] = pending.pop()!;
    if (d > deepest) deepest = d;
    if (d > maxDepth) break;
    for (const child of childrenOf(e)) pending.push([child, d + 1]);
  }
  return deepest;
}

function childrenOf(e: Expr): Expr[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr': return k.value.operand ? [k.value.operand] : [];
    case 'callExpr': return k.value.target ? [k.value.target, ...k.value.args] : k.value.args;
    case 'listExpr': return k.value.elements;
    case 'structExpr': return k.value.entries.flatMap(x => [...(x.keyKind.case === 'mapKey' ? [x.keyKind.value] : []), ...(x.value ? [x.value] : [])]);
    case 'comprehensionExpr': return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].filter((x): x is Expr => !!x);
    default: return [];
  }
}
