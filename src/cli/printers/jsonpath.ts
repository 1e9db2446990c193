// The reference CLI's JSONPath templates: literal text with `{expression}` actions, `{range expr}...{end}`
// loops and `{"literal"}` strings. Each expression is evaluated by jsonpath-plus once written in its syntax
// (`$` root, `\.` escapes made bracket keys); several results print space-separated, objects as JSON.
// The library loads on first use (loadJsonPath), so commands that never evaluate a path start faster.

import { CliError } from '../cli.js';

let library: typeof import('jsonpath-plus') | undefined;

export async function loadJsonPath(): Promise<void> {
  library ??= await import('jsonpath-plus');
}

/** every value the expression (reference syntax, without braces) selects; loadJsonPath() must have run */
export function query(expr: string, data: unknown): unknown[] {
  if (!library) throw new Error('the JSONPath library is not loaded yet; call loadJsonPath() first');
  return library.JSONPath({ path: toJsonPathPlus(expr), json: data as object, wrap: true, eval: 'safe' }) as unknown[];
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'expr'; expr: string }
  | { kind: 'range'; expr: string; body: Node[] };

/** splits the template into text and actions; braces inside quoted strings do not count */
function tokens(template: string): Array<{ text: string } | { action: string }> {
  const out: Array<{ text: string } | { action: string }> = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) { out.push({ text: template.slice(i) }); break; }
    if (open > i) out.push({ text: template.slice(i, open) });
    let j = open + 1;
    let quote = '';
    for (; j < template.length; j++) {
      const c = template[j]!;
      if (quote) { if (c === '\\') j++; else if (c === quote) quote = ''; }
      else if (c === '"' || c === "'") quote = c;
      else if (c === '}') break;
    }
    if (j >= template.length) throw new CliError(`unclosed action in the JSONPath template "${template}"`);
    out.push({ action: template.slice(open + 1, j).trim() });
    i = j + 1;
  }
  return out;
}

export function parseTemplate(template: string): Node[] {
  const stack: Node[][] = [[]];
  const ranges: Array<{ expr: string }> = [];
  for (const t of tokens(template)) {
    const top = stack[stack.length - 1]!;
    if ('text' in t) { top.push({ kind: 'text', text: t.text }); continue; }
    const a = t.action;
    if (/^range\s/.test(a)) { stack.push([]); ranges.push({ expr: a.slice(5).trim() }); continue; }
    if (a === 'end') {
      if (!ranges.length) throw new CliError(`{end} without {range} in the JSONPath template "${template}"`);
      const body = stack.pop()!;
      stack[stack.length - 1]!.push({ kind: 'range', expr: ranges.pop()!.expr, body });
      continue;
    }
    const literal = /^(["'])(.*)\1$/s.exec(a);
    if (literal) { top.push({ kind: 'text', text: unescape(literal[2]!) }); continue; }
    top.push({ kind: 'expr', expr: a });
  }
  if (ranges.length) throw new CliError(`{range} without {end} in the JSONPath template "${template}"`);
  return stack[0]!;
}

const unescape = (s: string) => s.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[c] ?? c);

/** `.a.b\.c[*]` → `$.a['b.c'][*]`; `@` and `$` keep their meaning */
export function toJsonPathPlus(expr: string): string {
  let e = expr.trim();
  if (e === '' || e === '@' || e === '$') return '$';
  if (e.startsWith('@')) e = e.slice(1);
  else if (e.startsWith('$')) e = e.slice(1);
  e = e.replace(/\.((?:[^.[\]\\]|\\.)*\\\.(?:[^.[\]\\]|\\.)*)/g, (_, key: string) => `['${key.replace(/\\\./g, '.').replace(/'/g, "\\'")}']`);
  return `$${e.startsWith('.') || e.startsWith('[') ? '' : '.'}${e}`;
}

function evaluate(expr: string, data: unknown, allowMissing: boolean): unknown[] {
  let results: unknown[];
  try {
    results = query(expr, data);
  } catch (e) {
    throw new CliError(`JSONPath "${expr}": ${(e as Error).message}`);
  }
  if (!results.length && !allowMissing) throw new CliError(`JSONPath "${expr}": ${expr.replace(/^[.@$]+/, '') || expr} is not found`);
  return results;
}

const show = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

export function renderTemplate(nodes: Node[], data: unknown, allowMissing = true): string {
  let out = '';
  for (const n of nodes) {
    if (n.kind === 'text') out += n.text;
    else if (n.kind === 'expr') out += evaluate(n.expr, data, allowMissing).map(show).join(' ');
    else {
      // a range over one array walks its elements
      const results = evaluate(n.expr, data, allowMissing);
      const items = results.length === 1 && Array.isArray(results[0]) ? results[0] : results;
      for (const each of items) out += renderTemplate(n.body, each, allowMissing);
    }
  }
  return out;
}

/** `-o jsonpath=...`: the template over one object or the List of several; loadJsonPath() must have run */
export function jsonPathPrinter(template: string, allowMissing = true): (data: unknown) => string {
  // the reference accepts a bare expression without braces
  const nodes = parseTemplate(template.includes('{') ? template : `{${template}}`);
  return (data) => renderTemplate(nodes, data, allowMissing);
}
