// Parsing with the reference parser's limits: an expression of at most 100,000 code points, nested at most 250 deep.
// The checker, the cost estimator and the evaluator walk the tree recursively, so a deeper tree (a chain of
// 5,000 additions or field selections) would overflow the stack; the reference refuses it at parse time.
// The parser (./parser.ts) enforces the depth itself, without recursing deeper than the limit, and takes time
// linear in the input, so even the largest expression a hostile author may send is parsed in milliseconds.
import type { Expr, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { maxDepth, parseCel, type CelParseError } from './parser.js';

export const maxCodePoints = 100_000;
export { maxDepth };

export type Parsed = ParsedExpr & { expr: Expr };

const tooDeep = 'ERROR: <input>:-1:0: max recursion depth exceeded';

/** the parsed expression, or the error as cel-go prints it */
export function parseBounded(source: string): { ok: true; parsed: Parsed } | { ok: false; error: string } {
  const size = source.length > maxCodePoints ? codePoints(source) : source.length;
  if (size > maxCodePoints) return { ok: false, error: `ERROR: <input>:-1:0: expression code point size exceeds limit: size: ${size}, limit ${maxCodePoints}` };
  try {
    return { ok: true, parsed: parseCel(source) };
  } catch (e) {
    // a stack overflow should not happen (the parser bounds its recursion), but would mean the same thing
    if (e instanceof RangeError) return { ok: false, error: tooDeep };
    const failure = e as Partial<CelParseError> & Error;
    if (failure.tooDeep) return { ok: false, error: tooDeep };
    if (failure.reason !== undefined) return { ok: false, error: `ERROR: <input>:${failure.line}:${failure.column}: ${failure.syntax ? 'Syntax error: ' : ''}${failure.reason}` };
    const m = /^<input>:(-?\d+):(\d+): (.*)$/s.exec(failure.message);
    return { ok: false, error: m ? `ERROR: <input>:${m[1]}:${m[2]}: Syntax error: ${m[3]}` : `ERROR: <input>:1:1: Syntax error: ${failure.message}` };
  }
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
