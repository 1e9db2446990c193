// Label and field selectors as list and watch requests carry them (`labelSelector`, `fieldSelector`),
// with the reference's grammar, validation, error messages and canonical string form.

/** a selector the request got wrong; the server answers 400 BadRequest with this message */
export class SelectorError extends Error {
  readonly reason = 'BadRequest';
  readonly code = 400;
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

// ---------------------------------------------------------------------------------------------
// Label key and value validation (the reference's qualified-name and label-value rules)

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const qualifiedNameMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValue = new RegExp(`^${labelValueFmt}$`);

const regexError = (msg: string, fmt: string, ...examples: string[]) =>
  `${msg} (e.g. ${examples.map(e => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
const maxLenError = (n: number) => `must be no more than ${n} characters`;

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * whether s[from, to) matches qualifiedNameFmt (or is empty, when `emptyOk`): the check runs once per value of a
 * selector that may carry hundreds of thousands, where a regex test per value was most of the cost
 */
function isQualifiedNamePart(s: string, from: number, to: number, emptyOk: boolean): boolean {
  if (from === to) return emptyOk;
  if (!isAlnum(s.charCodeAt(from)) || !isAlnum(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 45 /* - */ && c !== 95 /* _ */ && c !== 46 /* . */) return false;
  }
  return true;
}

/** a valid label value: the common case, decided without building error text */
const isLabelValue = (v: string) => v.length <= 63 && isQualifiedNamePart(v, 0, v.length, true);

/** a valid label key without a prefix: the common case; keys with a prefix take the full check */
const isPlainLabelKey = (k: string) => k.length <= 63 && isQualifiedNamePart(k, 0, k.length, false);

/** problems with a label key (`[prefix/]name`), empty when it is valid */
export function qualifiedNameErrors(value: string): string[] {
  if (isPlainLabelKey(value)) return [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`
      + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (!prefix) errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push(`prefix part ${maxLenError(253)}`);
      if (!dns1123Subdomain.test(prefix)) {
        errs.push(`prefix part ${regexError('a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '
          + "'-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, 'example.com')}`);
      }
    }
  }
  if (!name) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedName.test(name)) errs.push(`name part ${regexError(qualifiedNameMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** problems with a label value, empty when it is valid */
export function labelValueErrors(value: string): string[] {
  if (isLabelValue(value)) return [];
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!labelValue.test(value)) {
    errs.push(regexError('a valid label must be an empty string or consist of alphanumeric characters, '
      + "'-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

// the reference's field-error text: `<path>: Invalid value: <value>: <detail>`
const goValue = (v: string | string[]) =>
  typeof v === 'string' ? JSON.stringify(v) : v.length ? `[]string{${v.map(s => JSON.stringify(s)).join(', ')}}` : '[]string(nil)';
const invalid = (path: string, value: string | string[], detail: string) => `${path}: Invalid value: ${goValue(value)}: ${detail}`;
const aggregate = (errs: string[]) => (errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);

// ---------------------------------------------------------------------------------------------
// Label selectors

/** the reference's operator names */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement { key: string; operator: LabelOperator; values: string[] }

/** all requirements must hold; no requirements selects everything, `nothing` selects nothing */
export interface LabelSelector { requirements: LabelRequirement[]; nothing?: true }

/** the LabelSelector API type */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** the distinct strings, sorted (sorting first and dropping neighbours is several times cheaper than a Set) */
function sortedUnique(values: readonly string[]): string[] {
  const sorted = values.slice().sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (kept === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i];
  sorted.length = kept;
  return sorted;
}

/** a requirement, validated; the problems are returned as the reference words them */
function requirement(key: string, operator: LabelOperator, values: string[], keyPath: string | undefined): LabelRequirement | string {
  const errs: string[] = [];
  if (keyPath !== undefined) {
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length) errs.push(invalid(keyPath, key, keyErrs.join('; ')));
  }
  switch (operator) {
    case 'in': case 'notin':
      if (!values.length) errs.push(invalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=': case '==': case '!=':
      if (values.length !== 1) errs.push(invalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists': case '!':
      if (values.length) errs.push(invalid('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt': case 'lt':
      if (values.length !== 1) errs.push(invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (int64(v) === undefined) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  for (let i = 0; i < values.length; i++) {
    if (isLabelValue(values[i])) continue;
    errs.push(invalid(`values[${i}][${key}]`, values[i], labelValueErrors(values[i]).join('; ')));
  }
  if (errs.length) return aggregate(errs);
  return { key, operator, values: sortedUnique(values) };
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

// token kinds of the label selector grammar (typed `number` so that checks after `advance()` are not narrowed away)
const ID: number = 0, BANG: number = 1, NOT_EQUAL: number = 2, EQUAL: number = 3, DOUBLE_EQUAL: number = 4,
  GREATER: number = 5, LESS: number = 6, OPEN: number = 7, CLOSE: number = 8, COMMA: number = 9, IN: number = 10,
  NOT_IN: number = 11, END: number = 12;

// = ! ( ) , > <
const isSpecial = (c: number) => c === 61 || c === 33 || c === 40 || c === 41 || c === 44 || c === 62 || c === 60;
const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 10;
const specialKinds: Record<number, number> = { 61: EQUAL, 33: BANG, 40: OPEN, 41: CLOSE, 44: COMMA, 62: GREATER, 60: LESS };

/**
 * A cursor over the tokens of a label selector: `kind` and `text()` describe the current token, `advance` moves on
 * (and stays on the end). No token objects: a selector may hold hundreds of thousands of values.
 */
class SelectorLexer {
  kind = END;
  private start = 0;
  private end = 0;
  constructor(private readonly s: string) { this.advance(); }

  text(): string { return this.s.slice(this.start, this.end); }

  /** outside the operator position `in` and `notin` are ordinary words (keys or values) */
  isWord(): boolean { return this.kind === ID || this.kind === IN || this.kind === NOT_IN; }

  advance(): void {
    const s = this.s;
    let i = this.end;
    while (i < s.length && isSpace(s.charCodeAt(i))) i++;
    this.start = i;
    if (i >= s.length) { this.kind = END; this.end = i; return; }
    const c = s.charCodeAt(i);
    if (isSpecial(c)) {
      // the only two-character operators are != and ==
      if ((c === 33 || c === 61) && s.charCodeAt(i + 1) === 61) { this.kind = c === 33 ? NOT_EQUAL : DOUBLE_EQUAL; this.end = i + 2; }
      else { this.kind = specialKinds[c]; this.end = i + 1; }
      return;
    }
    i++;
    while (i < s.length) {
      const d = s.charCodeAt(i);
      if (isSpecial(d) || isSpace(d)) break;
      i++;
    }
    this.end = i;
    const n = i - this.start;
    this.kind = n === 2 && s.startsWith('in', this.start) ? IN : n === 5 && s.startsWith('notin', this.start) ? NOT_IN : ID;
  }
}

const operatorOfKind: Record<number, LabelOperator> = {
  [IN]: 'in', [NOT_IN]: 'notin', [EQUAL]: '=', [DOUBLE_EQUAL]: '==', [NOT_EQUAL]: '!=', [GREATER]: 'gt', [LESS]: 'lt',
};

/** parses the `labelSelector` query parameter; the empty string selects everything */
export function parseLabelSelector(s: string): LabelSelector {
  const lx = new SelectorLexer(s);
  const fail = (message: string): never => { throw new SelectorError(message); };
  /** the current token's text, then moves past it */
  const take = (): string => { const text = lx.text(); lx.advance(); return text; };

  const parseValues = (): string[] => {
    if (lx.kind !== OPEN) fail(`found '${lx.text()}' expected: '('`);
    lx.advance();
    if (lx.kind === CLOSE) { lx.advance(); return ['']; }
    if (!lx.isWord() && lx.kind !== COMMA) fail(`found '${lx.text()}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    for (;;) {
      if (lx.isWord()) {
        values.push(take());
        if (lx.kind === CLOSE) break;
        if (lx.kind !== COMMA) fail(`found '${lx.text()}', expected: ',' or ')'`);
      } else if (lx.kind === COMMA) {
        lx.advance();
        // empty members: "(,a)", "(a,)", "(a,,b)" each stand for the empty value
        if (!values.length) values.push('');
        if (lx.kind === CLOSE) { values.push(''); break; }
        if (lx.kind === COMMA) { lx.advance(); values.push(''); }
      } else fail(`found '${take()}', expected: ',', or identifier`);
    }
    lx.advance(); // the ')' the loop stopped on
    return values;
  };

  const parseRequirement = (): LabelRequirement => {
    let operator: LabelOperator | undefined;
    if (lx.kind === BANG) { operator = '!'; lx.advance(); }
    if (!lx.isWord()) fail(`found '${take()}', expected: identifier`);
    const key = take();
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length) fail(invalid('<nil>', key, keyErrs.join('; ')));
    if (operator === undefined && (lx.kind === END || lx.kind === COMMA)) operator = 'exists';
    let values: string[] = [];
    if (operator === undefined) {
      // the operator position: `in` and `notin` are keywords here
      const kind = lx.kind;
      const text = take();
      operator = operatorOfKind[kind] ?? fail(`found '${text}', expected: in, notin, =, ==, !=, gt, lt`);
      if (operator === 'in' || operator === 'notin') values = parseValues();
      else if (lx.kind === END || lx.kind === COMMA) values = [''];
      else if (lx.isWord()) values = [take()];
      else fail(`found '${take()}', expected: identifier`);
    }
    const r = requirement(key, operator, values, undefined);
    return typeof r === 'string' ? fail(r) : r;
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    if (lx.kind === END) break;
    if (!lx.isWord() && lx.kind !== BANG) fail(`found '${lx.text()}', expected: !, identifier, or 'end of string'`);
    try {
      requirements.push(parseRequirement());
    } catch (e) {
      throw e instanceof SelectorError ? new SelectorError(`unable to parse requirement: ${e.message}`) : e;
    }
    if (lx.kind === END) break;
    if (lx.kind !== COMMA) fail(`found '${lx.text()}', expected: ',' or 'end of string'`);
    lx.advance();
    if (!lx.isWord() && lx.kind !== BANG) fail(`found '${lx.text()}', expected: identifier after ','`);
  }
  return { requirements: requirements.sort(byKey) };
}

/** the LabelSelector API type as a selector; null or undefined selects nothing, `{}` everything */
export function labelSelectorFromObject(obj: LabelSelectorObject | null | undefined): LabelSelector {
  if (!obj) return { requirements: [], nothing: true };
  const operators: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };
  const add = (key: string, operator: LabelOperator, values: string[]) => {
    const r = requirement(key, operator, values, 'key');
    if (typeof r === 'string') throw new SelectorError(r);
    return r;
  };
  const requirements = [
    ...Object.entries(obj.matchLabels ?? {}).map(([k, v]) => add(k, '=', [v])),
    ...(obj.matchExpressions ?? []).map(e => {
      const operator = operators[e.operator];
      if (!operator) throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
      return add(e.key, operator, e.values ?? []);
    }),
  ];
  return { requirements: requirements.sort(byKey) };
}

/** a signed 64-bit integer as the reference parses one, or undefined */
function int64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

// How the values of a large `in`/`notin` are looked up, decided on first match: a watch with 100k values tests each
// event in O(log n) by binary search when they are sorted (as parsed selectors' are), else in O(1) through a Set.
// Keyed by the values array, which no one changes after parsing.
const valueLookups = new WeakMap<readonly string[], 'sorted' | ReadonlySet<string>>();

function isSorted(values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++) if (!(values[i - 1] < values[i])) return false;
  return true;
}

/** whether `value` is one of `values`, without a scan once the list is long enough that a scan costs more */
function isOneOf(values: readonly string[], value: string): boolean {
  if (values.length <= 16) return values.includes(value);
  let lookup = valueLookups.get(values);
  if (!lookup) { lookup = isSorted(values) ? 'sorted' : new Set(values); valueLookups.set(values, lookup); }
  if (lookup !== 'sorted') return lookup.has(value);
  let low = 0, high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid] < value) low = mid + 1; else high = mid;
  }
  return low < values.length && values[low] === value;
}

export function matchLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.nothing) return false;
  const ls = labels ?? {};
  return sel.requirements.every(({ key, operator, values }) => {
    const has = Object.prototype.hasOwnProperty.call(ls, key);
    const value = has ? ls[key] : undefined;
    switch (operator) {
      case '=': case '==': case 'in': return has && isOneOf(values, value!);
      case '!=': case 'notin': return !has || !isOneOf(values, value!);
      case 'exists': return has;
      case '!': return !has;
      case 'gt': case 'lt': {
        const actual = has ? int64(value!) : undefined;
        const bound = values.length === 1 ? int64(values[0]) : undefined;
        if (actual === undefined || bound === undefined) return false;
        return operator === 'gt' ? actual > bound : actual < bound;
      }
    }
  });
}

function labelRequirementToString({ key, operator, values }: LabelRequirement): string {
  switch (operator) {
    case 'exists': return key;
    case '!': return `!${key}`;
    case 'in': case 'notin': return `${key} ${operator} (${[...values].sort().join(',')})`;
    case 'gt': return `${key}>${values[0]}`;
    case 'lt': return `${key}<${values[0]}`;
    default: return `${key}${operator}${values[0]}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Field selectors

export interface FieldRequirement { field: string; operator: '=' | '!='; value: string }

/** all terms must hold; no terms selects everything */
export interface FieldSelector { terms: FieldRequirement[] }

/** fields every resource supports */
export const defaultSelectableFields: ReadonlySet<string> = new Set(['metadata.name', 'metadata.namespace']);

/** splits on commas not escaped by a backslash; escapes stay in the terms */
function splitTerms(s: string): string[] {
  if (!s) return [];
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \\ */) i++;
    else if (c === 44 /* , */) { terms.push(s.slice(start, i)); start = i + 1; }
  }
  terms.push(s.slice(start));
  return terms;
}

function unescapeValue(s: string): string {
  // most values have nothing to unescape or refuse
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      const e = s[++i];
      if (e !== '\\' && e !== ',' && e !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${e ?? ''}`);
      }
      out += e;
    } else if (c === ',' || c === '=') {
      throw new SelectorError(`invalid field selector: unescaped character in value: ${c}`);
    } else out += c;
  }
  return out;
}

const escapeValue = (s: string) => s.replace(/[\\,=]/g, c => `\\${c}`);

/** where the first operator (`!=`, `==` or `=`) of a field selector term starts, or -1 */
function operatorIndex(term: string): number {
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (c === 61 /* = */ || (c === 33 /* ! */ && term.charCodeAt(i + 1) === 61)) return i;
  }
  return -1;
}

/**
 * Parses the `fieldSelector` query parameter. `supported` lists the resource's selectable fields
 * besides metadata.name and metadata.namespace (omit it to accept any field); `aliases` maps old
 * field names to current ones (the core Pod's `spec.host` means `spec.nodeName`).
 */
export function parseFieldSelector(s: string, supported?: Iterable<string>,
  aliases: Readonly<Record<string, string>> = {}): FieldSelector {
  const allowed = supported ? new Set([...defaultSelectableFields, ...supported]) : undefined;
  const terms: FieldRequirement[] = [];
  for (const part of splitTerms(s).sort()) {
    if (!part) continue;
    // no escapes on the left: the first operator splits the term
    const at = operatorIndex(part);
    if (at < 0) throw new SelectorError(`invalid selector: '${s}'; can't understand '${part}'`);
    // the first operator splits the term; '!=' and '==' are two characters, '=' one
    const wide = part.charCodeAt(at) === 33 /* ! */ || part.charCodeAt(at + 1) === 61 /* = */;
    terms.push({
      field: part.slice(0, at), operator: part.charCodeAt(at) === 33 ? '!=' : '=', value: unescapeValue(part.slice(at + (wide ? 2 : 1))),
    });
  }
  if (allowed) {
    for (const t of terms) {
      if (allowed.has(t.field)) continue;
      const alias = Object.prototype.hasOwnProperty.call(aliases, t.field) ? aliases[t.field] : undefined;
      if (alias === undefined) throw new SelectorError(`field label not supported: ${t.field}`);
      t.field = alias;
    }
  }
  return { terms };
}

/** a missing field reads as the empty string, as in the reference */
export function matchFields(sel: FieldSelector, fields: Record<string, string>): boolean {
  return sel.terms.every(({ field, operator, value }) => {
    const actual = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : '';
    return operator === '=' ? actual === value : actual !== value;
  });
}

/** the value the selector requires `field` to equal (`field=value`), if it pins one */
export function fieldSelectorRequires(sel: FieldSelector, field: string): string | undefined {
  return sel.terms.find(t => t.field === field && t.operator === '=')?.value;
}

// ---------------------------------------------------------------------------------------------

/** the canonical text of a selector, which parses back to the same selector */
export function selectorToString(sel: LabelSelector | FieldSelector): string {
  if ('terms' in sel) return sel.terms.map(t => `${t.field}${t.operator}${escapeValue(t.value)}`).join(',');
  return sel.requirements.map(labelRequirementToString).join(',');
}

/** a selector that selects nothing or everything is refused where workloads own pods */
export const selectorIsEmpty = (sel: any) =>
  !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);

/** whether a metav1.LabelSelector matches a label set */
export function selectorMatches(sel: any, labelSet: Record<string, string> | undefined): boolean {
  const l = labelSet ?? {};
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel?.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals: string[] = e.values ?? [];
    if (e.operator === 'In' && !(has && isOneOf(vals, l[e.key]))) return false;
    if (e.operator === 'NotIn' && has && isOneOf(vals, l[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}
