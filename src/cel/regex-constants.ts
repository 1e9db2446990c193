// A regular expression given as a constant string to `matches`, `find` or `findAll` is compiled when the program is
// made, as the reference's programs compile such constants (its regex optimization): a pattern that is not valid RE2
// fails the expression then, with RE2's error, rather than every evaluation of the rule later.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { re2Problem } from '../util/re2.js';

/** the functions whose pattern argument is compiled ahead, as the reference's optimizations name them */
const regexFunctions = new Set(['matches', 'find', 'findAll']);

/** RE2's error for the first constant pattern of the expression that does not compile, or undefined */
export function constantRegexProblem(root: Expr): string | undefined {
  const stack: Expr[] = [root];
  while (stack.length) {
    const e = stack.pop()!;
    const k = e.exprKind;
    const children: Array<Expr | undefined> = [];
    switch (k.case) {
      case 'selectExpr': children.push(k.value.operand); break;
      case 'callExpr': {
        // the pattern is the argument after the string: the first of a method call, the second of a function call
        const pattern = regexFunctions.has(k.value.function) ? (k.value.target ? k.value.args[0] : k.value.args[1]) : undefined;
        const text = pattern?.exprKind.case === 'constExpr' && pattern.exprKind.value.constantKind.case === 'stringValue'
          ? pattern.exprKind.value.constantKind.value : undefined;
        const problem = text === undefined ? undefined : re2Problem(text);
        if (problem) return problem;
        children.push(k.value.target, ...k.value.args);
        break;
      }
      case 'listExpr': children.push(...k.value.elements); break;
      case 'structExpr': for (const x of k.value.entries) children.push(x.keyKind.case === 'mapKey' ? x.keyKind.value : undefined, x.value); break;
      case 'comprehensionExpr': children.push(k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result); break;
      default: break;
    }
    // pushed in reverse, so that the leftmost pattern is judged first
    for (let i = children.length - 1; i >= 0; i--) if (children[i]) stack.push(children[i]!);
  }
  return undefined;
}
