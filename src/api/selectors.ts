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

/** problems with a label key (`[prefix/]name`), empty when it is valid */
export function qualifiedNameErrors(value: string): string[] {
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
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length) return aggregate(errs);
  return { key, operator, values: [...new Set(values)].sort() };
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

type TokenType = 'id' | '!' | '!=' | '=' | '==' | '>' | '<' | '(' | ')' | ',' | 'in' | 'notin' | 'end';
interface Token { type: TokenType; text: string }

const specials = new Set(['=', '!', '(', ')', ',', '>', '<']);
const symbols = new Set<string>(['!', '!=', '=', '==', '>', '<', '(', ')', ',']);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i])) i++;
    if (i >= s.length) { tokens.push({ type: 'end', text: '' }); return tokens; }
    if (specials.has(s[i])) {
      // the longest run of special characters that is still an operator
      let text = s[i++];
      while (i < s.length && specials.has(s[i]) && symbols.has(text + s[i])) text += s[i++];
      tokens.push({ type: text as TokenType, text });
    } else {
      const start = i;
      while (i < s.length && !specials.has(s[i]) && !isSpace(s[i])) i++;
      const text = s.slice(start, i);
      tokens.push({ type: text === 'in' || text === 'notin' ? text : 'id', text });
    }
  }
}

/** parses the `labelSelector` query parameter; the empty string selects everything */
export function parseLabelSelector(s: string): LabelSelector {
  const tokens = lex(s);
  let pos = 0;
  // outside the operator position `in` and `notin` are ordinary words (keys or values)
  const asWord = (t: Token): Token => (t.type === 'in' || t.type === 'notin' ? { type: 'id', text: t.text } : t);
  const peek = () => asWord(tokens[pos]);
  const next = () => asWord(tokens[pos < tokens.length - 1 ? pos++ : pos]);
  const fail = (message: string): never => { throw new SelectorError(message); };

  const parseValues = (): string[] => {
    const open = next();
    if (open.type !== '(') fail(`found '${open.text}' expected: '('`);
    const first = peek();
    if (first.type === ')') { next(); return ['']; }
    if (first.type !== 'id' && first.type !== ',') fail(`found '${first.text}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    for (;;) {
      const t = next();
      if (t.type === 'id') {
        values.push(t.text);
        const after = peek();
        if (after.type === ')') break;
        if (after.type !== ',') fail(`found '${after.text}', expected: ',' or ')'`);
      } else if (t.type === ',') {
        // empty members: "(,a)", "(a,)", "(a,,b)" each stand for the empty value
        if (!values.length) values.push('');
        const after = peek();
        if (after.type === ')') { values.push(''); break; }
        if (after.type === ',') { next(); values.push(''); }
      } else fail(`found '${t.text}', expected: ',', or identifier`);
    }
    const close = next();
    if (close.type !== ')') fail(`found '${close.text}', expected: ')'`);
    return values;
  };

  const parseRequirement = (): LabelRequirement => {
    let t = next();
    let operator: LabelOperator | undefined;
    if (t.type === '!') { operator = '!'; t = next(); }
    if (t.type !== 'id') fail(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length) fail(invalid('<nil>', key, keyErrs.join('; ')));
    const after = peek().type;
    if (operator === undefined && (after === 'end' || after === ',')) operator = 'exists';
    let values: string[] = [];
    if (operator === undefined) {
      const op = tokens[pos]; // the operator position: `in` and `notin` are keywords here
      next();
      const operators: Partial<Record<TokenType, LabelOperator>> = {
        in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt',
      };
      operator = operators[op.type] ?? fail(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
      if (operator === 'in' || operator === 'notin') values = parseValues();
      else {
        const v = peek();
        if (v.type === 'end' || v.type === ',') values = [''];
        else if (v.type === 'id') values = [next().text];
        else fail(`found '${next().text}', expected: identifier`);
      }
    }
    const r = requirement(key, operator, values, undefined);
    return typeof r === 'string' ? fail(r) : r;
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const t = peek();
    if (t.type === 'end') break;
    if (t.type !== 'id' && t.type !== '!') fail(`found '${t.text}', expected: !, identifier, or 'end of string'`);
    try {
      requirements.push(parseRequirement());
    } catch (e) {
      throw e instanceof SelectorError ? new SelectorError(`unable to parse requirement: ${e.message}`) : e;
    }
    const sep = next();
    if (sep.type === 'end') break;
    if (sep.type !== ',') fail(`found '${sep.text}', expected: ',' or 'end of string'`);
    const following = peek();
    if (following.type !== 'id' && following.type !== '!') fail(`found '${following.text}', expected: identifier after ','`);
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

export function matchLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.nothing) return false;
  const ls = labels ?? {};
  return sel.requirements.every(({ key, operator, values }) => {
    const has = Object.prototype.hasOwnProperty.call(ls, key);
    const value = has ? ls[key] : undefined;
    switch (operator) {
      case '=': case '==': case 'in': return has && values.includes(value!);
      case '!=': case 'notin': return !has || !values.includes(value!);
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
    if (s[i] === '\\') i++;
    else if (s[i] === ',') { terms.push(s.slice(start, i)); start = i + 1; }
  }
  terms.push(s.slice(start));
  return terms;
}

function unescapeValue(s: string): string {
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
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(part);
    if (!m) throw new SelectorError(`invalid selector: '${s}'; can't understand '${part}'`);
    terms.push({ field: m[1], operator: m[2] === '!=' ? '!=' : '=', value: unescapeValue(m[3]) });
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
    if (e.operator === 'In' && !(has && vals.includes(l[e.key]))) return false;
    if (e.operator === 'NotIn' && has && vals.includes(l[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}
