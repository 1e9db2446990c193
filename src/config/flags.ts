// A small declarative command-line parser shared by every program (API server, node agent, CLI).
// Flags follow the reference's conventions: `--name=value`, `--name value`, bare booleans,
// comma-separated and repeatable lists, `k=v` maps and Go-style durations.
import { strictFlag } from '../api/request.js';

export type FlagType = 'string' | 'int' | 'float' | 'bool' | 'duration' | 'stringList' | 'stringArray' | 'map' | 'enum';

/** The value each flag type yields. Durations are milliseconds. */
export type FlagValue = string | number | boolean | string[] | Record<string, string>;

export interface FlagDecl {
  name: string;
  type: FlagType;
  default?: FlagValue;
  help: string;
  /** one-letter alias, e.g. `v` for `-v=2` */
  short?: string;
  /** allowed values of an enum flag */
  values?: readonly string[];
  /** when set, using the flag yields this warning (spec §9 rule 6) */
  deprecated?: string;
  /** left out of the help text */
  hidden?: boolean;
  /** returns a description of what is wrong with a value, or nothing when it is fine */
  validate?(value: FlagValue): string | undefined;
}

export interface ParsedFlags {
  /** every declared flag: the given value, else its default */
  values: Record<string, FlagValue | undefined>;
  /** names of the flags given on the command line */
  given: Set<string>;
  /** arguments that are not flags, and everything after `--` */
  args: string[];
  warnings: string[];
  /** `-h` or `--help` was given */
  help: boolean;
}

export class FlagError extends Error {
  override name = 'FlagError';
}

const expectedForm: Record<FlagType, string> = {
  string: 'a string',
  int: 'an integer',
  float: 'a number',
  bool: 'true or false',
  duration: 'a duration such as 300ms, 5s, 1m30s or 2h',
  stringList: 'a comma-separated list',
  stringArray: 'a value, the flag repeated for more',
  map: 'comma-separated key=value pairs',
  enum: 'one of the listed values',
};

export function parseFlags(decls: readonly FlagDecl[], argv: readonly string[]): ParsedFlags {
  const byName = new Map<string, FlagDecl>();
  for (const d of decls) {
    byName.set(d.name, d);
    if (d.short) byName.set(d.short, d);
  }
  const values: Record<string, FlagValue | undefined> = {};
  for (const d of decls) values[d.name] = copy(d.default);
  const given = new Set<string>();
  const args: string[] = [];
  const warnings: string[] = [];
  let help = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      args.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const isShort = !arg.startsWith('--');
    if ((name === 'help' && !isShort) || (name === 'h' && isShort)) {
      help = true;
      continue;
    }
    const decl = byName.get(name);
    if (!decl || (isShort ? decl.short !== name : decl.name !== name)) {
      throw new FlagError(`unknown flag ${isShort ? '-' : '--'}${name}${suggestion(name, decls)}`);
    }
    let raw: string;
    if (eq >= 0) raw = body.slice(eq + 1);
    else if (decl.type === 'bool') raw = 'true';
    else if (i + 1 < argv.length) raw = argv[++i]!;
    else throw new FlagError(`flag --${decl.name} needs a value: ${describe(decl)}`);

    const value = convert(decl, raw);
    const accumulates = (decl.type === 'stringList' || decl.type === 'stringArray' || decl.type === 'map') && given.has(decl.name);
    values[decl.name] = accumulates ? merge(values[decl.name]!, value) : value;
    if (decl.deprecated && !given.has(decl.name)) warnings.push(`flag --${decl.name} is deprecated: ${decl.deprecated}`);
    given.add(decl.name);
  }

  for (const name of given) {
    const decl = byName.get(name)!;
    const problem = decl.validate?.(values[name]!);
    if (problem) throw new FlagError(`invalid value for flag --${name}: ${problem}`);
  }
  return { values, given, args, warnings, help };
}

function convert(decl: FlagDecl, raw: string): FlagValue {
  const bad = () => new FlagError(`invalid value ${JSON.stringify(raw)} for flag --${decl.name}: expected ${describe(decl)}`);
  switch (decl.type) {
    case 'string':
      return raw;
    case 'int':
      if (!/^[+-]?\d+$/.test(raw.trim())) throw bad();
      return Number(raw);
    case 'float': {
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(n)) throw bad();
      return n;
    }
    case 'bool': {
      const b = parseBool(raw);
      if (b === undefined) throw bad();
      return b;
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch {
        throw bad();
      }
    case 'stringList':
      return splitList(raw);
    case 'stringArray':
      return [raw];
    case 'map': {
      const out: Record<string, string> = {};
      for (const pair of splitList(raw)) {
        const eq = pair.indexOf('=');
        if (eq <= 0) throw bad();
        out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
      }
      return out;
    }
    case 'enum':
      if (!decl.values?.includes(raw)) throw bad();
      return raw;
  }
}

function describe(decl: FlagDecl): string {
  return decl.type === 'enum' ? `one of ${decl.values?.join(', ')}` : expectedForm[decl.type];
}

function merge(a: FlagValue, b: FlagValue): FlagValue {
  return Array.isArray(a) ? [...a, ...(b as string[])] : { ...(a as Record<string, string>), ...(b as Record<string, string>) };
}

function copy(v: FlagValue | undefined): FlagValue | undefined {
  if (Array.isArray(v)) return [...v];
  if (v && typeof v === 'object') return { ...v };
  return v;
}

function splitList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Go's strconv.ParseBool forms. */
export const parseBool = strictFlag;

const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration (`300ms`, `1.5h`, `1m30s`, `-2s`, `0`) into milliseconds. */
export function parseDuration(raw: string): number {
  const s = raw.trim();
  const sign = s[0] === '+' || s[0] === '-' ? s[0] : '';
  const body = s.slice(sign.length);
  if (body === '0') return 0;
  // each part is matched where the previous one ended: one pass, where a pattern repeating the parts backtracked
  // exponentially on a near-duration
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  for (let m: RegExpExecArray | null; part.lastIndex < body.length && (m = part.exec(body));) total += Number(m[1]) * unitMs[m[2]!]!;
  if (!body || part.lastIndex !== body.length) throw new Error(`invalid duration ${JSON.stringify(raw)}`);
  return sign === '-' ? -total : total;
}

/** Renders milliseconds the way Go prints durations: `0s`, `300ms`, `1m30s`, `2h0m0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${+rest.toFixed(6)}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${+(rest / 1000).toFixed(9)}s`;
  if (h) return `${sign}${h}h${m}m${s}`;
  if (m) return `${sign}${m}m${s}`;
  return sign + s;
}

/** Usage text: flags sorted by name, each with its type, default and description. */
export function help(decls: readonly FlagDecl[], opts: { usage?: string } = {}): string {
  const lines: string[] = [];
  if (opts.usage) lines.push(`Usage: ${opts.usage}`, '');
  lines.push('Flags:');
  const all: FlagDecl[] = [...decls, { name: 'help', short: 'h', type: 'bool', help: 'Show this help and exit.' }];
  for (const d of all.filter((d) => !d.hidden).sort((a, b) => a.name.localeCompare(b.name))) {
    const names = d.short ? `-${d.short}, --${d.name}` : `    --${d.name}`;
    const type = d.type === 'bool' ? '' : ` ${d.type === 'enum' ? d.values?.join('|') : d.type}`;
    const dflt = renderDefault(d);
    lines.push(`  ${names}${type}${dflt ? `  (default ${dflt})` : ''}`);
    lines.push(`        ${d.help}${d.deprecated ? ` (DEPRECATED: ${d.deprecated})` : ''}`);
  }
  return lines.join('\n') + '\n';
}

function renderDefault(d: FlagDecl): string {
  const v = d.default;
  if (v === undefined || v === '' || v === false) return '';
  if (d.type === 'duration') return formatDuration(v as number);
  if (Array.isArray(v)) return v.length ? v.join(',') : '';
  if (typeof v === 'object') {
    const pairs = Object.entries(v).map(([k, x]) => `${k}=${x}`);
    return pairs.length ? pairs.join(',') : '';
  }
  return String(v);
}

function suggestion(name: string, decls: readonly FlagDecl[]): string {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const d of decls) {
    const dist = editDistance(name, d.name);
    if (dist < bestDistance) [best, bestDistance] = [d.name, dist];
  }
  return best ? ` (did you mean --${best}?)` : '';
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
