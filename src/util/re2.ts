// Regular expressions that clients write (CRD schema patterns, CEL rules) run with RE2 semantics, as the reference's
// do: matching takes time linear in the input, so no pattern can stall the server by backtracking, and the patterns
// accepted and refused are the reference's (no lookarounds or backreferences).
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS>();

/** the compiled pattern (kept for reuse); throws RE2's syntax error, worded as the reference words it */
export function re2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    // patterns come from stored objects and requests: a bounded cache, dropped whole when full
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** why a pattern is not valid RE2 (e.g. "error parsing regexp: missing argument to repetition operator: `+`"), or undefined */
export function re2Problem(pattern: string): string | undefined {
  try { re2(pattern); return undefined; } catch (e) { return (e as Error).message; }
}
