// A hand-written CEL parser: a tokenizer that scans character codes once, then recursive descent over the tokens
// with one function per precedence level. It builds exactly the tree @bufbuild/cel's parser builds (the same
// messages, expression ids in the same order, the same source positions and macro records), because the checker,
// the cost estimator and @bufbuild/cel's planner consume that tree; it replaces a generated PEG parser that spent
// 3-10 µs per character. Work is linear in the input and recursion is bounded: nesting deeper than `maxDepth`
// is refused before it can exhaust the stack.
//
// Where the two grammars differ, cel-go (the parser Kubernetes uses) decides:
// - refused as cel-go refuses them: reserved words as identifiers ("reserved identifier: if"), escapes cel-go does
//   not know ("\d" was kept as a backslash and a d), \u and \U in bytes literals, int, uint and double literals out
//   of range, `a inx` (read as `a in x`), and nesting deeper than 250 even when the parentheses add no node;
// - accepted as cel-go accepts them: any number of comments and a comment at the end without a newline,
//   whitespace between repeated unary operators (`! !x`) and inside an empty argument list (`f( )`), identifiers
//   that begin with a keyword (`trueCount`), and `-1u` (the negation of 1u);
// - bytes literals encode characters outside the BMP as UTF-8 (the PEG parser encoded each UTF-16 half alone).
import type { Constant, Expr, Expr_CreateStruct_Entry, ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** the deepest expression tree (and the deepest nesting of brackets) accepted, as cel-go's default */
export const maxDepth = 250;

/** a parse failure: `message` reads `<input>:LINE:COLUMN: reason` */
export interface CelParseError extends Error {
  line: number;
  column: number;
  reason: string;
  /** a grammar error, which cel-go prefixes with "Syntax error: " (not so a bad literal or a reserved word) */
  syntax: boolean;
  /** the expression nests deeper than maxDepth (line -1, column 0 as cel-go reports it) */
  tooDeep: boolean;
}

// Token kinds.
const EOF = 0, IDENT = 1, INT = 2, UINT = 3, DOUBLE = 4, STRING = 5, BYTES = 6, TRUE = 7, FALSE = 8, NULL = 9, IN = 10,
  DOT = 11, COMMA = 12, COLON = 13, QUESTION = 14, LPAREN = 15, RPAREN = 16, LBRACKET = 17, RBRACKET = 18,
  LBRACE = 19, RBRACE = 20, NOT = 21, MINUS = 22, PLUS = 23, STAR = 24, SLASH = 25, PERCENT = 26,
  LT = 27, LE = 28, GT = 29, GE = 30, EQ = 31, NE = 32, AND = 33, OR = 34;
const tokenNames = ['end of input', 'identifier', 'int literal', 'uint literal', 'double literal', 'string literal',
  'bytes literal', "'true'", "'false'", "'null'", "'in'", "'.'", "','", "':'", "'?'", "'('", "')'", "'['", "']'", "'{'",
  "'}'", "'!'", "'-'", "'+'", "'*'", "'/'", "'%'", "'<'", "'<='", "'>'", "'>='", "'=='", "'!='", "'&&'", "'||'"];

// Binary operators: their precedence level (0 relations, 1 additive, 2 multiplicative; -1 not binary) and function.
const RELATION = 0, MULTIPLICATION = 2;
const binaryLevel = new Int8Array(35).fill(-1);
const binaryFunction: string[] = [];
for (const [kind, level, name] of [[LT, 0, '_<_'], [LE, 0, '_<=_'], [GT, 0, '_>_'], [GE, 0, '_>=_'], [EQ, 0, '_==_'],
  [NE, 0, '_!=_'], [IN, 0, '@in'], [PLUS, 1, '_+_'], [MINUS, 1, '_-_'], [STAR, 2, '_*_'], [SLASH, 2, '_/_'],
  [PERCENT, 2, '_%_']] as const) {
  binaryLevel[kind] = level;
  binaryFunction[kind] = name;
}

/** words cel-go refuses as identifiers (true, false, null and in are keywords and never identifiers) */
const reservedWords = new Set(['as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const accumulator = '@result';
const sparseKey = 4294967294; // the largest array index
const placeholder: Expr = { $typeName: 'cel.expr.Expr', id: 0n, exprKind: { case: undefined, value: undefined } };
const maxInt64 = (1n << 63n) - 1n, minInt64 = -(1n << 63n), maxUint64 = (1n << 64n) - 1n;
const utf8 = new TextEncoder();

// The state of the parse in progress. Module variables rather than an object threaded through every call: the
// parse never calls out, so it cannot be re-entered, and V8 reads them faster than object fields.
let source = '';
let kinds = new Uint8Array(0);
let starts = new Int32Array(0);
let ends = new Int32Array(0);
/** identifier names, number texts, decoded strings and bytes, by token index (one entry per token: a holey
 * array would keep switching between V8's fast and dictionary elements) */
let values: Array<string | Uint8Array | undefined> = [];
let tokenCount = 0;
/** the current token */
let at = 0;
/** the last expression id handed out */
let lastId = 0;
/** the tree depth of each node and struct entry, by id */
let depths = new Int32Array(64);
let positions: Record<string, number> = {};
let macroCalls: Record<string, Expr> = {};
/** how many expressions enclose the one being parsed */
let nesting = 0;
/** the token index of the last field name consumed by a selection (see operatorOffset) */
let lastSelectedField = -1;

/** parses a CEL expression into the ParsedExpr @bufbuild/cel's `parse` returns, or throws a CelParseError */
export function parseCel(source: string): ParsedExpr & { expr: Expr } {
  try {
    tokenize(source);
    at = 0; lastId = 0; positions = {}; nesting = 0; lastSelectedField = -1;
    // Macro records are keyed by sparse ids: inserting those in order into a plain object makes V8 convert its
    // elements between fast and dictionary form again and again (4 µs an insert). A huge key set first keeps the
    // object in dictionary form from the start; it is removed before the object is handed out.
    macroCalls = {};
    macroCalls[sparseKey] = placeholder;
    const expr = parseExpr();
    if (kinds[at] !== EOF) unexpected('end of input');
    if (depthOf(expr) > maxDepth) tooDeep();
    delete macroCalls[sparseKey];
    return {
      $typeName: 'cel.expr.ParsedExpr',
      expr,
      sourceInfo: { $typeName: 'cel.expr.SourceInfo', syntaxVersion: '', location: '', lineOffsets: [], positions, macroCalls, extensions: [] },
    };
  } finally {
    // let go of the input and the tree, and of buffers grown for a long input
    source = ''; values = []; positions = {}; macroCalls = {};
    if (kinds.length > 4096) { kinds = new Uint8Array(0); starts = new Int32Array(0); ends = new Int32Array(0); }
    if (depths.length > 4096) depths = new Int32Array(64);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tokenizer

function tokenize(text: string): void {
  source = text;
  const n = text.length;
  if (kinds.length < n + 1) {
    kinds = new Uint8Array(n + 1);
    starts = new Int32Array(n + 1);
    ends = new Int32Array(n + 1);
  }
  values = [];
  tokenCount = 0;
  let p = 0;
  while (true) {
    p = skipSpaceAndComments(p);
    if (p >= n) break;
    const c = text.charCodeAt(p);
    const start = p;
    if (isIdentifierStart(c)) {
      p++;
      while (p < n && isIdentifierPart(text.charCodeAt(p))) p++;
      const q = p < n ? text.charCodeAt(p) : 0;
      if ((q === 34 || q === 39) && p - start <= 2) {
        // r"...", b'...', br"""...""": a string or bytes literal with prefixes
        const prefix = text.slice(start, p).toLowerCase();
        if (prefix === 'r' || prefix === 'b' || prefix === 'br') {
          p = scanQuoted(start, p, prefix !== 'b', prefix !== 'r');
          continue;
        }
      }
      const word = text.slice(start, p);
      switch (word) {
        case 'true': push(TRUE, start, p, undefined); break;
        case 'false': push(FALSE, start, p, undefined); break;
        case 'null': push(NULL, start, p, undefined); break;
        case 'in': push(IN, start, p, undefined); break;
        default: push(IDENT, start, p, word);
      }
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(p + 1)))) {
      p = scanNumber(p);
      continue;
    }
    const next = p + 1 < n ? text.charCodeAt(p + 1) : 0;
    switch (c) {
      case 34: case 39: p = scanQuoted(start, p, false, false); continue;
      case 46: push(DOT, start, p + 1, undefined); break;
      case 44: push(COMMA, start, p + 1, undefined); break;
      case 58: push(COLON, start, p + 1, undefined); break;
      case 63: push(QUESTION, start, p + 1, undefined); break;
      case 40: push(LPAREN, start, p + 1, undefined); break;
      case 41: push(RPAREN, start, p + 1, undefined); break;
      case 91: push(LBRACKET, start, p + 1, undefined); break;
      case 93: push(RBRACKET, start, p + 1, undefined); break;
      case 123: push(LBRACE, start, p + 1, undefined); break;
      case 125: push(RBRACE, start, p + 1, undefined); break;
      case 43: push(PLUS, start, p + 1, undefined); break;
      case 45: push(MINUS, start, p + 1, undefined); break;
      case 42: push(STAR, start, p + 1, undefined); break;
      case 47: push(SLASH, start, p + 1, undefined); break;
      case 37: push(PERCENT, start, p + 1, undefined); break;
      case 33: if (next === 61) push(NE, start, p + 2, undefined); else push(NOT, start, p + 1, undefined); break;
      case 60: if (next === 61) push(LE, start, p + 2, undefined); else push(LT, start, p + 1, undefined); break;
      case 62: if (next === 61) push(GE, start, p + 2, undefined); else push(GT, start, p + 1, undefined); break;
      case 61: if (next === 61) { push(EQ, start, p + 2, undefined); break; } return fail(p, "unexpected character '='");
      case 38: if (next === 38) { push(AND, start, p + 2, undefined); break; } return fail(p, "unexpected character '&'");
      case 124: if (next === 124) { push(OR, start, p + 2, undefined); break; } return fail(p, "unexpected character '|'");
      default: return fail(p, `unexpected character '${String.fromCodePoint(text.codePointAt(p)!)}'`);
    }
    p = ends[tokenCount - 1];
  }
  push(EOF, n, n, undefined);
}

function push(kind: number, start: number, end: number, value: string | Uint8Array | undefined): void {
  kinds[tokenCount] = kind;
  starts[tokenCount] = start;
  ends[tokenCount] = end;
  values.push(value);
  tokenCount++;
}

/** whitespace (tab, newline, form feed, carriage return, space) and // comments, which end at a line break */
function skipSpaceAndComments(p: number): number {
  const n = source.length;
  while (p < n) {
    const c = source.charCodeAt(p);
    if (c === 32 || c === 10 || c === 13 || c === 9 || c === 12) p++;
    else if (c === 47 && source.charCodeAt(p + 1) === 47) {
      p += 2;
      while (p < n) { const d = source.charCodeAt(p); if (d === 10 || d === 13) break; p++; }
    } else break;
  }
  return p;
}

function skipSpace(p: number): number {
  const n = source.length;
  while (p < n) {
    const c = source.charCodeAt(p);
    if (c === 32 || c === 10 || c === 13 || c === 9 || c === 12) p++; else break;
  }
  return p;
}

/** int, uint (suffix u) or double token; the text kept is what the literal's value is read from */
function scanNumber(p: number): number {
  const text = source, n = text.length, start = p;
  if (text.charCodeAt(p) === 48 && text.charCodeAt(p + 1) === 120 && isHexDigit(text.charCodeAt(p + 2))) {
    p += 2;
    while (p < n && isHexDigit(text.charCodeAt(p))) p++;
    const c = text.charCodeAt(p);
    if (c === 117 || c === 85) { push(UINT, start, p + 1, text.slice(start, p)); return p + 1; }
    push(INT, start, p, text.slice(start, p));
    return p;
  }
  while (p < n && isDigit(text.charCodeAt(p))) p++;
  let isDouble = false;
  if (text.charCodeAt(p) === 46 && isDigit(text.charCodeAt(p + 1))) {
    p += 2;
    while (p < n && isDigit(text.charCodeAt(p))) p++;
    isDouble = true;
  }
  let c = text.charCodeAt(p);
  if (c === 101 || c === 69) {
    let q = p + 1;
    c = text.charCodeAt(q);
    if (c === 43 || c === 45) q++;
    if (isDigit(text.charCodeAt(q))) {
      p = q + 1;
      while (p < n && isDigit(text.charCodeAt(p))) p++;
      isDouble = true;
    }
  }
  if (isDouble) { push(DOUBLE, start, p, text.slice(start, p)); return p; }
  c = text.charCodeAt(p);
  if (c === 117 || c === 85) { push(UINT, start, p + 1, text.slice(start, p)); return p + 1; }
  push(INT, start, p, text.slice(start, p));
  return p;
}

/**
 * a quoted string or bytes literal whose opening quote is at `p` (after any r/b prefix starting at `start`):
 * single-line ('...', "...") or triple-quoted; raw ones keep backslashes as they are
 */
function scanQuoted(start: number, p: number, raw: boolean, isBytes: boolean): number {
  const text = source, n = text.length;
  const quote = text.charCodeAt(p);
  const triple = text.charCodeAt(p + 1) === quote && text.charCodeAt(p + 2) === quote;
  p += triple ? 3 : 1;
  let decoded = '';
  const bytes: number[] = [];
  let run = p;
  while (true) {
    if (p >= n) return fail(start, 'unterminated string literal');
    const c = text.charCodeAt(p);
    if (c === quote && (!triple || (text.charCodeAt(p + 1) === quote && text.charCodeAt(p + 2) === quote))) break;
    if (!triple && (c === 10 || c === 13)) return fail(p, 'newline in a single-quoted string literal');
    if (c !== 92 || raw) { p++; continue; }
    // an escape: flush the plain run before it
    if (isBytes) appendUtf8(bytes, text.slice(run, p)); else decoded += text.slice(run, p);
    const e = text.charCodeAt(p + 1);
    let value = -1, width = 2, numeric = false;
    switch (e) {
      case 97: value = 7; break;
      case 98: value = 8; break;
      case 102: value = 12; break;
      case 110: value = 10; break;
      case 114: value = 13; break;
      case 116: value = 9; break;
      case 118: value = 11; break;
      case 34: case 39: case 96: case 92: case 63: value = e; break;
      case 120: case 88: value = hexValue(p + 2, 2); width = 4; numeric = true; break;
      case 117: value = hexValue(p + 2, 4); width = 6; numeric = true; break;
      case 85: value = hexValue(p + 2, 8); width = 10; numeric = true; break;
      default:
        if (e >= 48 && e <= 51 && isOctalDigit(text.charCodeAt(p + 2)) && isOctalDigit(text.charCodeAt(p + 3))) {
          value = (e - 48) * 64 + (text.charCodeAt(p + 2) - 48) * 8 + (text.charCodeAt(p + 3) - 48);
          width = 4; numeric = true;
        }
    }
    if (value < 0) return fail(p, `invalid escape sequence '${text.slice(p, Math.min(p + 2, n))}'`);
    if (isBytes) {
      if (e === 117 || e === 85) return fail(p, 'unicode escape sequences are not allowed in bytes literals', false);
      bytes.push(value);
    } else {
      if (numeric && ((value >= 0xd800 && value < 0xe000) || value > 0x10ffff))
        return fail(p, `invalid unicode code point in escape sequence '${text.slice(p, p + width)}'`, false);
      decoded += String.fromCodePoint(value);
    }
    p += width;
    run = p;
  }
  if (isBytes) {
    appendUtf8(bytes, text.slice(run, p));
    push(BYTES, start, p + (triple ? 3 : 1), Uint8Array.from(bytes));
  } else {
    push(STRING, start, p + (triple ? 3 : 1), decoded + text.slice(run, p));
  }
  return p + (triple ? 3 : 1);
}

function appendUtf8(bytes: number[], text: string): void {
  if (text.length === 0) return;
  for (const b of utf8.encode(text)) bytes.push(b);
}

/** the value of `count` hex digits at `p`, or -1 */
function hexValue(p: number, count: number): number {
  let v = 0;
  for (let k = 0; k < count; k++) {
    const c = source.charCodeAt(p + k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

function isDigit(c: number): boolean { return c >= 48 && c <= 57; }
function isOctalDigit(c: number): boolean { return c >= 48 && c <= 55; }
function isHexDigit(c: number): boolean { return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70); }
function isIdentifierStart(c: number): boolean { return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95; }
function isIdentifierPart(c: number): boolean { return isIdentifierStart(c) || isDigit(c); }

// ---------------------------------------------------------------------------------------------------------------
// Parser. Offsets follow @bufbuild/cel's: an operator's node sits where its grammar rule began, which for ?:, ||,
// &&, ! and - is the end of the token before the operand (before any whitespace), for a binary operator the end
// of its left operand, and for selections, calls and indexes the '.', '(' or '['.

/** the end of the token before the current one: where a rule starting here began */
function ruleStart(): number {
  return at > 0 ? ends[at - 1] : 0;
}

/** Expr: a conditional or a ternary */
function parseExpr(): Expr {
  if (++nesting > maxDepth) tooDeep();
  const start = ruleStart();
  let e = parseLogical(OR);
  if (kinds[at] === QUESTION) {
    at++;
    const whenTrue = parseLogical(OR);
    expect(COLON);
    const whenFalse = parseExpr();
    e = call(start, '_?_:_', [e, whenTrue, whenFalse]);
  }
  nesting--;
  return e;
}

/** a chain of || (or &&) terms, folded into a balanced tree as @bufbuild/cel and cel-go do */
function parseLogical(operator: typeof OR | typeof AND): Expr {
  const start = ruleStart();
  const first = operator === OR ? parseLogical(AND) : parseBinary(RELATION);
  if (kinds[at] !== operator) return first;
  const terms = [first];
  while (kinds[at] === operator) {
    at++;
    terms.push(operator === OR ? parseLogical(AND) : parseBinary(RELATION));
  }
  return balanced(terms, 0, terms.length - 2, start, operator === OR ? '_||_' : '_&&_');
}

/** the terms lo..hi+1 joined by the operators lo..hi, split at the middle operator; ids come out in post-order */
function balanced(terms: Expr[], lo: number, hi: number, offset: number, fn: string): Expr {
  const mid = (lo + hi + 1) >> 1;
  const left = mid === lo ? terms[mid] : balanced(terms, lo, mid - 1, offset, fn);
  const right = mid === hi ? terms[mid + 1] : balanced(terms, mid + 1, hi, offset, fn);
  return call(offset, fn, [left, right]);
}

/**
 * a left-associative chain of the binary operators of one level. Like @bufbuild/cel, all operands of the chain
 * are parsed (and numbered) before the operator nodes, which are then numbered left to right.
 */
function parseBinary(level: number): Expr {
  const first = level === MULTIPLICATION ? parseUnary() : parseBinary(level + 1);
  if (binaryLevel[kinds[at]] !== level) return first;
  const offsets: number[] = [], functions: string[] = [], operands: Expr[] = [];
  while (binaryLevel[kinds[at]] === level) {
    // each operator adds a level to the tree: refuse a chain that must end too deep before building it
    if (operands.length >= maxDepth) tooDeep();
    offsets.push(operatorOffset());
    functions.push(binaryFunction[kinds[at]]);
    at++;
    operands.push(level === MULTIPLICATION ? parseUnary() : parseBinary(level + 1));
  }
  let e = first;
  for (let k = 0; k < operands.length; k++) e = call(offsets[k], functions[k], [e, operands[k]]);
  return e;
}

/**
 * where a binary operator's node sits: the end of its left operand. @bufbuild/cel's grammar lets a field selection
 * take the whitespace and one comment after the field name, so after a selection that end moves past them.
 */
function operatorOffset(): number {
  const end = ends[at - 1];
  return lastSelectedField === at - 1 ? endOfOneGap(end) : end;
}

/**
 * where one gap of @bufbuild/cel's grammar ends: whitespace, at most one comment (ended by a line break), and
 * whitespace again. That grammar allows a gap between tokens only in certain places, some of them twice in a row.
 */
function endOfOneGap(p: number): number {
  p = skipSpace(p);
  if (source.charCodeAt(p) === 47 && source.charCodeAt(p + 1) === 47) {
    let q = p + 2;
    while (q < source.length && source.charCodeAt(q) !== 10 && source.charCodeAt(q) !== 13) q++;
    if (q < source.length) p = skipSpace(q);
  }
  return p;
}

/** a '-' directly followed by a number is the sign of an int or double literal, as in both parsers */
function isNegativeLiteral(k: number): boolean {
  const next = kinds[k + 1];
  return kinds[k] === MINUS && (next === INT || next === DOUBLE) && starts[k + 1] === ends[k];
}

/** ! and - (repeated any number of times: an even count cancels out) before a member expression */
function parseUnary(): Expr {
  const op = kinds[at];
  if ((op !== NOT && op !== MINUS) || isNegativeLiteral(at)) return parseMember();
  const start = ruleStart();
  let count = 0;
  while (kinds[at] === op) {
    // after a space, "-1" is a negative literal rather than one more minus (as @bufbuild/cel reads "- -1")
    if (count > 0 && starts[at] !== ends[at - 1] && isNegativeLiteral(at)) break;
    count++;
    at++;
  }
  const operand = parseMember();
  if (count % 2 === 0) return operand;
  const fn = op === NOT ? '!_' : '-_';
  // @bufbuild/cel folds -(-x) and !(!x) to x; kept for identical trees
  if (operand.exprKind.case === 'callExpr' && operand.exprKind.value.function === fn) return operand.exprKind.value.args[0];
  return call(start, fn, [operand], true);
}

type Access = { kind: typeof DOT | typeof LPAREN | typeof LBRACKET; offset: number; name: string; args: Expr[] };

/**
 * a primary expression followed by selections, method calls and indexes. As in @bufbuild/cel, the nodes of the
 * chain are numbered after everything inside it (arguments and indexes), in order from the innermost.
 */
function parseMember(): Expr {
  const primary = parsePrimary();
  let k = kinds[at];
  if (k !== DOT && k !== LBRACKET) return primary;
  const accesses: Access[] = [];
  while (k === DOT || k === LBRACKET) {
    if (accesses.length >= maxDepth) tooDeep(); // as for a chain of binary operators
    const offset = starts[at];
    at++;
    if (k === DOT) {
      const name = fieldName();
      if (kinds[at] === LPAREN) {
        at++;
        accesses.push({ kind: LPAREN, offset, name, args: parseArguments() });
      } else {
        lastSelectedField = at - 1;
        accesses.push({ kind: DOT, offset, name, args: [] });
      }
    } else {
      const index = parseExpr();
      expect(RBRACKET);
      accesses.push({ kind: LBRACKET, offset, name: '', args: [index] });
    }
    k = kinds[at];
  }
  let e = primary;
  for (const a of accesses) {
    if (a.kind === DOT) e = select(a.offset, e, a.name, false);
    else if (a.kind === LBRACKET) e = call(a.offset, '_[_]', [e, a.args[0]]);
    else e = expandMacro(a.offset, memberCall(a.offset, e, a.name, a.args), a.name, e, a.args);
  }
  return e;
}

/** a field or method name after '.', or a field name in a message literal: any identifier but the keywords */
function fieldName(): string {
  const k = kinds[at];
  if (k === IDENT) return values[at++] as string;
  if (k === TRUE || k === FALSE || k === NULL || k === IN) return fail(starts[at], `reserved keyword '${tokenText(at)}' used as a name`);
  return unexpected('identifier');
}

function parsePrimary(): Expr {
  const k = kinds[at];
  const start = starts[at];
  switch (k) {
    case INT: case UINT: case DOUBLE: case STRING: case BYTES: case TRUE: case FALSE: case NULL:
      at++;
      return constant(start, literal(at - 1, false));
    case MINUS:
      if (!isNegativeLiteral(at)) return unexpected('an expression');
      at += 2;
      return constant(start, literal(at - 1, true));
    case LPAREN: {
      at++;
      const e = parseExpr();
      expect(RPAREN);
      return e;
    }
    case LBRACKET: {
      at++;
      const elements: Expr[] = [];
      if (!emptyList(RBRACKET)) do elements.push(parseExpr()); while (listGoesOn(RBRACKET));
      return list(start, elements);
    }
    case LBRACE: {
      at++;
      const entries: Expr_CreateStruct_Entry[] = [];
      if (!emptyList(RBRACE)) do {
        const offset = ruleStart();
        const key = parseExpr();
        expect(COLON);
        const value = parseExpr();
        entries.push(entry(offset, { case: 'mapKey', value: key }, value, Math.max(depthOf(key), depthOf(value))));
      } while (listGoesOn(RBRACE));
      return struct(start, entries, '');
    }
    case DOT:
      return parseNamed(start);
    case IDENT:
      // @bufbuild/cel reads a gap before a name in two parts, and places the name where the second began (which
      // matters only when the gap holds two comments)
      return parseNamed(start === ruleStart() ? start : Math.min(start, endOfOneGap(ruleStart())));
    case IN:
      return fail(start, 'reserved identifier: in', false);
    default:
      return unexpected('an expression');
  }
}

/** an identifier, a global call or a message literal, possibly with a leading '.' */
function parseNamed(start: number): Expr {
  const leadingDot = kinds[at] === DOT;
  if (leadingDot) at++;
  if (kinds[at] !== IDENT) return kinds[at] === IN ? fail(starts[at], 'reserved identifier: in', false) : unexpected('identifier');
  const name = values[at] as string;
  if (reservedWords.has(name)) return fail(starts[at], `reserved identifier: ${name}`, false);
  at++;
  if (kinds[at] === LPAREN) {
    // like @bufbuild/cel, the function's name drops the leading dot
    at++;
    const args = parseArguments();
    return globalCall(start, name, args);
  }
  if (isMessageLiteral()) {
    let messageName = (leadingDot ? '.' : '') + name;
    while (kinds[at] === DOT) {
      at++;
      messageName += '.' + (values[at++] as string);
    }
    at++; // '{'
    const entries: Expr_CreateStruct_Entry[] = [];
    if (!emptyList(RBRACE)) do {
      const offset = ruleStart();
      const field = fieldName();
      expect(COLON);
      const value = parseExpr();
      entries.push(entry(offset, { case: 'fieldKey', value: field }, value, depthOf(value)));
    } while (listGoesOn(RBRACE));
    return struct(start, entries, messageName);
  }
  // like @bufbuild/cel, the identifier drops the leading dot
  return ident(start, name);
}

/** whether the tokens from here are (. identifier)* followed by '{', which makes the name a message type */
function isMessageLiteral(): boolean {
  let k = at;
  while (kinds[k] === DOT && kinds[k + 1] === IDENT) k += 2;
  return kinds[k] === LBRACE;
}

// List, map and message literals: elements separated by commas, with an optional trailing comma (even alone: "[,]").

/** whether the literal has no elements (then its closing bracket is consumed) */
function emptyList(close: number): boolean {
  if (kinds[at] === close) { at++; return true; }
  if (kinds[at] === COMMA && kinds[at + 1] === close) { at += 2; return true; }
  return false;
}

/** after an element: whether another follows (else the closing bracket, consumed) */
function listGoesOn(close: number): boolean {
  if (kinds[at] === COMMA) {
    at++;
    if (kinds[at] !== close) return true;
  } else if (kinds[at] !== close) unexpected(`',' or ${tokenNames[close]}`);
  at++;
  return false;
}

/** call arguments after '(' up to ')', without a trailing comma */
function parseArguments(): Expr[] {
  const args: Expr[] = [];
  if (kinds[at] === RPAREN) { at++; return args; }
  while (true) {
    args.push(parseExpr());
    if (kinds[at] === RPAREN) { at++; return args; }
    expect(COMMA);
  }
}

/** the constant of a literal token, negated when a '-' came before it */
function literal(k: number, negative: boolean): Constant['constantKind'] {
  const text = values[k];
  switch (kinds[k]) {
    case INT: {
      const v = negative ? -BigInt(text as string) : BigInt(text as string);
      if (v > maxInt64 || v < minInt64) fail(starts[k], 'invalid int literal', false);
      return { case: 'int64Value', value: v };
    }
    case UINT: {
      const v = BigInt(text as string);
      if (v > maxUint64) fail(starts[k], 'invalid uint literal', false);
      return { case: 'uint64Value', value: v };
    }
    case DOUBLE: {
      const v = parseFloat(negative ? '-' + (text as string) : (text as string));
      if (!Number.isFinite(v)) fail(starts[k], 'invalid double literal', false);
      return { case: 'doubleValue', value: v };
    }
    case STRING: return { case: 'stringValue', value: text as string };
    case BYTES: return { case: 'bytesValue', value: text as Uint8Array };
    case TRUE: return { case: 'boolValue', value: true };
    case FALSE: return { case: 'boolValue', value: false };
    default: return { case: 'nullValue', value: 0 };
  }
}

function expect(kind: number): void {
  if (kinds[at] !== kind) unexpected(tokenNames[kind]);
  at++;
}

// ---------------------------------------------------------------------------------------------------------------
// Tree construction: the same messages, ids and positions @bufbuild/cel's builder produces. Plain objects (with
// $typeName) rather than create(): the macro records carry keys set to undefined that create() would leave out,
// and they are what deep equality compares.

function node(offset: number, exprKind: Expr['exprKind'], depth: number, mayFoldAway = false): Expr {
  const id = ++lastId;
  positions[id] = offset;
  if (id >= depths.length) growDepths();
  depths[id] = depth;
  // Too deep already: every enclosing node is deeper still. A negation may yet be folded away by another, so it
  // waits for the final check.
  if (depth > maxDepth && !mayFoldAway) tooDeep();
  return { $typeName: 'cel.expr.Expr', id: BigInt(id), exprKind };
}

function growDepths(): void {
  const grown = new Int32Array(depths.length * 2);
  grown.set(depths);
  depths = grown;
}

function depthOf(e: Expr): number {
  return depths[Number(e.id)];
}

function deepest(args: Expr[]): number {
  let d = 0;
  for (const a of args) { const ad = depthOf(a); if (ad > d) d = ad; }
  return d;
}

function constant(offset: number, constantKind: Constant['constantKind']): Expr {
  return node(offset, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind } }, 1);
}

function ident(offset: number, name: string): Expr {
  return node(offset, { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name } }, 1);
}

function select(offset: number, operand: Expr, field: string, testOnly: boolean): Expr {
  return node(offset, { case: 'selectExpr', value: { $typeName: 'cel.expr.Expr.Select', operand, field, testOnly } }, depthOf(operand) + 1);
}

function call(offset: number, fn: string, args: Expr[], mayFoldAway = false): Expr {
  return node(offset, { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } }, deepest(args) + 1, mayFoldAway);
}

function memberCall(offset: number, target: Expr, fn: string, args: Expr[]): Expr {
  return node(offset, { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, target, args } },
    Math.max(depthOf(target), deepest(args)) + 1);
}

function list(offset: number, elements: Expr[]): Expr {
  return node(offset, { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] } }, deepest(elements) + 1);
}

function entry(offset: number, keyKind: Expr_CreateStruct_Entry['keyKind'], value: Expr, depth: number): Expr_CreateStruct_Entry {
  const id = ++lastId;
  positions[id] = offset;
  if (id >= depths.length) growDepths();
  depths[id] = depth;
  return { $typeName: 'cel.expr.Expr.CreateStruct.Entry', id: BigInt(id), keyKind, value, optionalEntry: false };
}

function struct(offset: number, entries: Expr_CreateStruct_Entry[], messageName: string): Expr {
  let d = 0;
  for (const x of entries) { const ed = depths[Number(x.id)]; if (ed > d) d = ed; }
  return node(offset, { case: 'structExpr', value: { $typeName: 'cel.expr.Expr.CreateStruct', entries, messageName } }, d + 1);
}

function comprehension(offset: number, iterVar: string, iterRange: Expr, accuInit: Expr, loopCondition: Expr, loopStep: Expr, result: Expr): Expr {
  const value = { $typeName: 'cel.expr.Expr.Comprehension', accuVar: accumulator, accuInit, iterVar, iterVar2: '', iterRange, loopStep, loopCondition, result } as const;
  return node(offset, { case: 'comprehensionExpr', value }, deepest([iterRange, accuInit, loopCondition, loopStep, result]) + 1);
}

/** a global call; has(a.b) becomes the test-only selection, as the has() macro says */
function globalCall(offset: number, fn: string, args: Expr[]): Expr {
  const arg = args[0];
  if (fn === 'has' && args.length === 1 && arg.exprKind.case === 'selectExpr') {
    const { operand, field } = arg.exprKind.value;
    const test = node(offset, { case: 'selectExpr', value: { $typeName: 'cel.expr.Expr.Select', operand, field, testOnly: true } }, depthOf(arg));
    recordMacroCall(test.id, 'has', undefined, args);
    return test;
  }
  return call(offset, fn, args);
}

/**
 * the comprehension a macro call (all, exists, exists_one/existsOne, map, filter) stands for, or the call itself.
 * The order in which the parts are built fixes their ids: it is @bufbuild/cel's.
 */
function expandMacro(offset: number, memberCallExpr: Expr, fn: string, target: Expr, args: Expr[]): Expr {
  if (args.length < 2 || args.length > 3 || args[0].exprKind.case !== 'identExpr') return memberCallExpr;
  const name = args[0].exprKind.value.name;
  const result = () => ident(offset, accumulator);
  let expanded: Expr;
  if (args.length === 3) {
    if (fn !== 'map') return memberCallExpr;
    const step = call(offset, '_?_:_', [args[1], call(offset, '_+_', [result(), list(offset, [args[2]])]), result()]);
    expanded = listComprehension(offset, name, target, step);
  } else {
    switch (fn) {
      case 'all': {
        const step = call(offset, '_&&_', [result(), args[1]]);
        const condition = call(offset, '@not_strictly_false', [result()]);
        expanded = boolComprehension(offset, name, target, true, condition, step);
        break;
      }
      case 'exists': {
        const step = call(offset, '_||_', [result(), args[1]]);
        const condition = call(offset, '@not_strictly_false', [call(offset, '!_', [result()])]);
        expanded = boolComprehension(offset, name, target, false, condition, step);
        break;
      }
      case 'exists_one': case 'existsOne': {
        const init = constant(offset, { case: 'int64Value', value: 0n });
        const condition = constant(offset, { case: 'boolValue', value: true });
        const step = call(offset, '_?_:_', [args[1], call(offset, '_+_', [result(), constant(offset, { case: 'int64Value', value: 1n })]), result()]);
        const outcome = call(offset, '_==_', [result(), constant(offset, { case: 'int64Value', value: 1n })]);
        expanded = comprehension(offset, name, target, init, condition, step, outcome);
        break;
      }
      case 'map': {
        const step = call(offset, '_+_', [result(), list(offset, [args[1]])]);
        expanded = listComprehension(offset, name, target, step);
        break;
      }
      case 'filter': {
        const step = call(offset, '_?_:_', [args[1], call(offset, '_+_', [result(), list(offset, [ident(offset, name)])]), result()]);
        expanded = listComprehension(offset, name, target, step);
        break;
      }
      default: return memberCallExpr;
    }
  }
  recordMacroCall(expanded.id, fn, target, args);
  return expanded;
}

function boolComprehension(offset: number, name: string, range: Expr, init: boolean, condition: Expr, step: Expr): Expr {
  const accuInit = constant(offset, { case: 'boolValue', value: init });
  const result = ident(offset, accumulator);
  return comprehension(offset, name, range, accuInit, condition, step, result);
}

function listComprehension(offset: number, name: string, range: Expr, step: Expr): Expr {
  const accuInit = list(offset, []);
  const condition = constant(offset, { case: 'boolValue', value: true });
  const result = ident(offset, accumulator);
  return comprehension(offset, name, range, accuInit, condition, step, result);
}

/** sourceInfo.macroCalls: the call as written, keyed by the id of the expression it became */
function recordMacroCall(id: bigint, fn: string, target: Expr | undefined, args: Expr[]): void {
  const callValue = target === undefined
    ? { $typeName: 'cel.expr.Expr.Call' as const, function: fn, args: args.map(macroArgument) }
    : { $typeName: 'cel.expr.Expr.Call' as const, function: fn, target: macroArgument(target), args: args.map(macroArgument) };
  macroCalls[String(id)] = { $typeName: 'cel.expr.Expr', id: 0n, exprKind: { case: 'callExpr', value: callValue } };
}

/**
 * an argument of a recorded macro call: calls, selections and lists are copied, with any expansion of a macro
 * inside replaced by a reference to its id; other nodes are shared. Arguments are at most maxDepth deep.
 */
function macroArgument(e: Expr): Expr {
  if (macroCalls[String(e.id)] !== undefined) return { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: undefined, value: undefined } };
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      const c = k.value;
      const value = { $typeName: 'cel.expr.Expr.Call' as const, function: c.function, target: c.target !== undefined ? macroArgument(c.target) : undefined, args: c.args.map(macroArgument) };
      return { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: 'callExpr', value } };
    }
    case 'selectExpr': {
      const s = k.value;
      const value = { $typeName: 'cel.expr.Expr.Select' as const, operand: s.operand ? macroArgument(s.operand) : undefined, field: s.field, testOnly: s.testOnly };
      return { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: 'selectExpr', value } };
    }
    case 'listExpr': {
      const l = k.value;
      const value = { $typeName: 'cel.expr.Expr.CreateList' as const, elements: l.elements.map(macroArgument), optionalIndices: l.optionalIndices };
      return { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: 'listExpr', value } };
    }
    default:
      return e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

function tokenText(k: number): string {
  return kinds[k] === EOF ? 'end of input' : source.slice(starts[k], ends[k]);
}

function unexpected(expected: string): never {
  const found = kinds[at] === EOF ? 'end of input' : `'${tokenText(at).slice(0, 40)}'`;
  return fail(starts[at], `mismatched input ${found} expecting ${expected}`);
}

function fail(offset: number, reason: string, syntax = true): never {
  let line = 1, lineStart = 0;
  for (let p = 0; p < offset; p++) {
    const c = source.charCodeAt(p);
    if (c === 10 || (c === 13 && source.charCodeAt(p + 1) !== 10)) { line++; lineStart = p + 1; }
  }
  throw parseError(line, offset - lineStart + 1, reason, syntax, false);
}

function tooDeep(): never {
  throw parseError(-1, 0, 'max recursion depth exceeded', false, true);
}

function parseError(line: number, column: number, reason: string, syntax: boolean, deep: boolean): CelParseError {
  const e = new Error(`<input>:${line}:${column}: ${reason}`) as CelParseError;
  e.line = line;
  e.column = column;
  e.reason = reason;
  e.syntax = syntax;
  e.tooDeep = deep;
  return e;
}
