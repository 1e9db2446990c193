// Regular expressions that clients write (CRD schema patterns, CEL rules) run with RE2 semantics, as the reference's
// do: matching takes time linear in the input, so no pattern can stall the server by backtracking, and the patterns
// accepted and refused are the reference's (no lookarounds or backreferences).
import { createRequire } from 'node:module';
import type { RE2JS as Engine } from 're2js';
import { boundedMemo } from './memo.js';

// loaded on first use: most servers never meet a client's pattern, and the engine is a quarter of a megabyte of
// code that every start would otherwise read and parse
let engine: typeof Engine | undefined;
const loadEngine = () => (engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof Engine }).RE2JS);

/**
 * The compiled pattern (kept for reuse: a bounded number, of patterns no longer than a real one; a rule may take its
 * pattern from the object it checks); throws RE2's syntax error, worded as the reference words it.
 */
export const re2 = boundedMemo((pattern: string) => loadEngine().compile(pattern), 1000, 4096);

/** why a pattern is not valid RE2 (e.g. "error parsing regexp: missing argument to repetition operator: `+`"), or undefined */
export function re2Problem(pattern: string): string | undefined {
  try { re2(pattern); return undefined; } catch (e) { return (e as Error).message; }
}
