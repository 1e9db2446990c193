// The function libraries of Kubernetes 1.27 CEL on top of @bufbuild/cel: the standard library, the string
// extensions, lists (isSorted, sum, min, max, indexOf, lastIndexOf), regex (find, findAll with RE2 semantics
// through re2js), URLs (url, isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery) and the
// authorizer of admission expressions (path, group, resource, subresource, namespace, name, serviceAccount, check,
// allowed, reason, errored, error). CRD validation rules have no `authorizer` variable, so the checker answers
// its functions as undeclared there. Runtime call costs follow the reference's cost model.
import { celEnv, celFunc, celList, celMap, celMethod, CelScalar, isCelError, isCelList, isCelMap, listType, mapType,
  type CelEnv, type CelList, type CelMap, type CelResult, type CelValue, celError, isCelUint, celUint } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { re2 as regex } from '../util/re2.js';
import type { AuthzAttributes, UserInfo } from '../api/auth.js';

const { INT, STRING, BOOL, DYN } = CelScalar;
const LIST = listType(DYN);
const URL_TYPE = mapType(STRING, DYN);

/** CEL's size of a value: characters of a string, bytes, items, entries; 1 for anything else */
export function sizeOf(v: CelValue | undefined): number {
  if (typeof v === 'string') { let n = 0; for (const _ of v) n++; return n; }
  if (v instanceof Uint8Array) return v.length;
  if (isCelList(v)) return v.size;
  if (isCelMap(v)) return v.size;
  return 1;
}

// @bufbuild/cel's timestamp, duration and message functions read the registry from an evaluation context its
// planner sets; our evaluator sets the same context through the package's own module (not in its exports map).
export const evalContext: { setEvalContext(c: { registry: CelEnv['registry'] }): () => void } =
  await import(new URL('./eval.js', import.meta.resolve('@bufbuild/cel')).href);

// ---- lists
let std: CelEnv | undefined;
/** calls a standard function or operator by name (comparison, arithmetic, conversions) */
export function stdCall(name: string, target: CelValue | undefined, args: CelValue[]): CelResult | undefined {
  std ??= celEnv();
  const unset = evalContext.setEvalContext({ registry: std.registry });
  try {
    return std.funcs.find(name)?.call(0, target, args);
  } finally {
    unset();
  }
}
const less = (a: CelValue, b: CelValue) => {
  const r = stdCall('_<_', undefined, [a, b]);
  if (r === undefined || isCelError(r)) throw new Error(`no such overload: ${typeof a} < ${typeof b}`);
  return r === true;
};
const items = (l: CelList) => [...l];

function isSorted(this: CelList) {
  const xs = items(this);
  for (let i = 1; i < xs.length; i++) if (less(xs[i], xs[i - 1])) return false;
  return true;
}
function sum(this: CelList): CelValue {
  const xs = items(this);
  if (!xs.length) return 0n;
  let acc: CelValue = xs[0];
  for (const x of xs.slice(1)) {
    const r = stdCall('_+_', undefined, [acc, x]);
    if (r === undefined) throw new Error('no such overload: sum');
    if (isCelError(r)) throw r;
    acc = r;
  }
  return acc;
}
const extreme = (name: string, pick: (a: CelValue, b: CelValue) => boolean) => function (this: CelList): CelValue {
  const xs = items(this);
  if (!xs.length) throw new Error(`${name} called on empty list`);
  return xs.reduce((a, b) => (pick(a, b) ? a : b));
};
const equal = (a: CelValue, b: CelValue) => stdCall('_==_', undefined, [a, b]) === true;
function listIndexOf(this: CelList, x: CelValue) { return BigInt(items(this).findIndex(e => equal(e, x))); }
function listLastIndexOf(this: CelList, x: CelValue) {
  const xs = items(this);
  for (let i = xs.length - 1; i >= 0; i--) if (equal(xs[i], x)) return BigInt(i);
  return -1n;
}

// ---- strings
/**
 * `replace` of the string extension, as Go's strings.Replace: the first n matches (all when n is absent or negative),
 * an empty `old` matching before each character and at the end. Built in one pass: the package's own rebuilds the
 * whole string at each match, seconds of CPU for a 1,000-character string whose every character is replaced.
 */
function replace(this: string, old: string, repl: string, n?: bigint): string {
  let left = n === undefined || n < 0n ? Infinity : Number(n);
  const parts: string[] = [];
  if (old === '') {
    for (const ch of this) {
      if (left > 0) { parts.push(repl); left--; }
      parts.push(ch);
    }
    if (left > 0) parts.push(repl);
    return parts.join('');
  }
  let from = 0;
  for (let at = this.indexOf(old); at !== -1 && left > 0; at = this.indexOf(old, from), left--) {
    parts.push(this.slice(from, at), repl);
    from = at + old.length;
  }
  parts.push(this.slice(from));
  return parts.join('');
}

// ---- regex
function find(this: string, pattern: string) {
  const m = regex(pattern).matcher(this);
  return m.find() ? m.group(0) ?? '' : '';
}
function findAll(this: string, pattern: string, limit?: bigint) {
  const out: string[] = [];
  if (limit === 0n) return celList([]);
  const m = regex(pattern).matcher(this);
  while (m.find()) {
    out.push(m.group(0) ?? '');
    if (limit !== undefined && limit > 0n && BigInt(out.length) >= limit) break;
  }
  return celList(out);
}

// ---- URLs: held as maps with a marker key so equality and dispatch work without a custom value type
const urlMarker = '\u0000url';
interface ParsedUrl { scheme: string; host: string; hostname: string; port: string; path: string; query: Record<string, string[]> }
/** absolute URLs and absolute paths, as Go's url.ParseRequestURI accepts them */
function parseUrl(s: string): ParsedUrl | string {
  if (s.startsWith('/')) {
    const [path, q = ''] = s.split('?', 2);
    return { scheme: '', host: '', hostname: '', port: '', path, query: queryOf(q) };
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (!m) return `parse "${s}": invalid URI for request`;
  if (/\s/.test(s)) return `parse "${s}": invalid character " " in URL`;
  try {
    const u = new URL(s);
    const hostPart = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(s)?.[1] ?? '';
    const host = hostPart.includes('@') ? hostPart.slice(hostPart.lastIndexOf('@') + 1) : hostPart;
    const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
    const hostname = bracketed ? bracketed[1] : host.replace(/:\d*$/, '');
    const port = bracketed ? bracketed[2] ?? '' : /:(\d*)$/.exec(host)?.[1] ?? '';
    const raw = /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/[^/?#]*)?([^?#]*)/.exec(s)?.[1] ?? '';
    return { scheme: m[1], host, hostname, port, path: raw, query: queryOf(u.search.slice(1)) };
  } catch {
    return `parse "${s}": invalid URL`;
  }
}
function queryOf(q: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!q) return out;
  for (const part of q.split('&')) {
    if (!part) continue;
    const [k, v = ''] = part.split('=', 2);
    const key = decodeURIComponent(k.replace(/\+/g, ' '));
    (out[key] ??= []).push(decodeURIComponent(v.replace(/\+/g, ' ')));
  }
  return out;
}
function url(s: string): CelMap {
  const u = parseUrl(s);
  if (typeof u === 'string') throw new Error(`URL parse error during conversion from string: ${u}`);
  return celMap(new Map<string, CelValue>([[urlMarker, JSON.stringify(u)]]));
}
const urlOf = (m: CelMap): ParsedUrl => {
  const raw = m.get(urlMarker);
  if (typeof raw !== 'string') throw new Error('no such overload: not a URL');
  return JSON.parse(raw);
};
const urlQuery = (m: CelMap) => celMap(new Map(Object.entries(urlOf(m).query).map(([k, v]) => [k, celList(v)])));

// ---- the authorizer: its values are maps with a marker key holding the check being built, as URLs are held.
// A check's decision comes from the evaluation's authorization context: a decision not known yet is recorded
// as pending and the check fails; the caller asks the authorizer and evaluates again (see admission.ts).
const authzMarker = '\u0000authz';
type AuthzState =
  | { kind: 'authorizer'; user?: UserInfo }
  | { kind: 'path'; user?: UserInfo; path: string }
  | { kind: 'group' | 'resource'; user?: UserInfo; group: string; resource?: string; subresource?: string; namespace?: string; name?: string }
  | { kind: 'decision'; decision: string; reason: string; error: string };

export interface AuthzDecision { decision: string; reason: string; error: string }
export interface AuthzContext {
  user?: UserInfo;
  /** decisions by the attributes asked (JSON) */
  decisions: Map<string, AuthzDecision>;
  /** questions met during the evaluation that have no decision yet */
  pending: Map<string, AuthzAttributes>;
}
let authzContext: AuthzContext | undefined;

/** runs an evaluation with its authorization context */
export function withAuthz<T>(ctx: AuthzContext, run: () => T): T {
  const before = authzContext;
  authzContext = ctx;
  try { return run(); } finally { authzContext = before; }
}

const authzValue = (state: AuthzState, extra: Array<[string, CelValue]> = []) =>
  celMap(new Map<string, CelValue>([[authzMarker, JSON.stringify(state)], ...extra]));
const stateOf = (m: CelMap, ...kinds: AuthzState['kind'][]): AuthzState => {
  const raw = m.get(authzMarker);
  const state = typeof raw === 'string' ? JSON.parse(raw) as AuthzState : undefined;
  if (!state || !kinds.includes(state.kind)) throw new Error(`no such overload: not an authorizer ${kinds.join(' or ')} value`);
  return state;
};

/** the `authorizer` variable of a request: checks as the requesting user, and `requestResource` for the request's own resource */
export function authorizerValue(request: { group: string; resource: string; subresource: string; namespace: string; name: string }): CelMap {
  const requestResource = authzValue({ kind: 'resource', group: request.group, resource: request.resource,
    subresource: request.subresource, namespace: request.namespace, name: request.name });
  return authzValue({ kind: 'authorizer' }, [['requestResource', requestResource]]);
}

function checkAuthz(this: CelMap, verb: string): CelMap {
  const s = stateOf(this, 'path', 'resource');
  const ctx = authzContext;
  const user = ('user' in s && s.user) || ctx?.user;
  if (!ctx || !user) throw new Error('no authorizer is available to this expression');
  const attrs: AuthzAttributes = s.kind === 'path'
    ? { user, verb, isResourceRequest: false, path: s.path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' }
    : s.kind === 'resource' ? { user, verb, isResourceRequest: true, path: '', apiGroup: s.group, apiVersion: '*', namespace: s.namespace ?? '',
      resource: s.resource ?? '', subresource: s.subresource ?? '', name: s.name ?? '' } : (() => { throw new Error('unreachable'); })();
  const key = JSON.stringify(attrs);
  const d = ctx.decisions.get(key);
  if (!d) { ctx.pending.set(key, attrs); throw new Error('authorization decision pending'); }
  return authzValue({ kind: 'decision', ...d });
}
const withField = (field: 'resource' | 'subresource' | 'namespace' | 'name') => function (this: CelMap, value: string) {
  const s = stateOf(this, field === 'resource' ? 'group' : 'resource');
  return authzValue({ ...s, kind: 'resource', [field]: value } as AuthzState);
};
const decisionOf = (m: CelMap) => stateOf(m, 'decision') as Extract<AuthzState, { kind: 'decision' }>;

/** the string extensions, with a replace of our own */
const stringFunctions = [
  ...strings.filter(f => f.name !== 'replace'),
  celMethod('replace', STRING, [STRING, STRING], STRING, replace),
  celMethod('replace', STRING, [STRING, STRING, INT], STRING, replace),
];

/** the functions Kubernetes 1.27 adds to CEL, beside the standard library and string extensions */
export const kubernetesFunctions = [
  celMethod('isSorted', LIST, [], BOOL, isSorted),
  celMethod('sum', LIST, [], DYN, sum),
  celMethod('min', LIST, [], DYN, extreme('min', (a, b) => !less(b, a))),
  celMethod('max', LIST, [], DYN, extreme('max', (a, b) => !less(a, b))),
  celMethod('indexOf', LIST, [DYN], INT, listIndexOf),
  celMethod('lastIndexOf', LIST, [DYN], INT, listLastIndexOf),
  celMethod('find', STRING, [STRING], STRING, find),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (this: string, p: string) { return findAll.call(this, p); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), findAll),
  celFunc('url', [STRING], URL_TYPE, url),
  celFunc('isURL', [STRING], BOOL, (s: string) => typeof parseUrl(s) !== 'string'),
  celMethod('getScheme', URL_TYPE, [], STRING, function (this: CelMap) { return urlOf(this).scheme; }),
  celMethod('getHost', URL_TYPE, [], STRING, function (this: CelMap) { return urlOf(this).host; }),
  celMethod('getHostname', URL_TYPE, [], STRING, function (this: CelMap) { return urlOf(this).hostname; }),
  celMethod('getPort', URL_TYPE, [], STRING, function (this: CelMap) { return urlOf(this).port; }),
  celMethod('getEscapedPath', URL_TYPE, [], STRING, function (this: CelMap) { return urlOf(this).path; }),
  celMethod('getQuery', URL_TYPE, [], mapType(STRING, listType(STRING)), function (this: CelMap) { return urlQuery(this); }),
  celMethod('path', URL_TYPE, [STRING], URL_TYPE, function (this: CelMap, path: string) {
    const s = stateOf(this, 'authorizer');
    return authzValue({ kind: 'path', user: 'user' in s ? s.user : undefined, path });
  }),
  celMethod('group', URL_TYPE, [STRING], URL_TYPE, function (this: CelMap, group: string) {
    const s = stateOf(this, 'authorizer');
    return authzValue({ kind: 'group', user: 'user' in s ? s.user : undefined, group });
  }),
  celMethod('serviceAccount', URL_TYPE, [STRING, STRING], URL_TYPE, function (this: CelMap, namespace: string, name: string) {
    stateOf(this, 'authorizer');
    return authzValue({ kind: 'authorizer', user: { username: `system:serviceaccount:${namespace}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] } });
  }),
  celMethod('resource', URL_TYPE, [STRING], URL_TYPE, withField('resource')),
  celMethod('subresource', URL_TYPE, [STRING], URL_TYPE, withField('subresource')),
  celMethod('namespace', URL_TYPE, [STRING], URL_TYPE, withField('namespace')),
  celMethod('name', URL_TYPE, [STRING], URL_TYPE, withField('name')),
  celMethod('check', URL_TYPE, [STRING], URL_TYPE, checkAuthz),
  celMethod('allowed', URL_TYPE, [], BOOL, function (this: CelMap) { return decisionOf(this).decision === 'Allow'; }),
  celMethod('reason', URL_TYPE, [], STRING, function (this: CelMap) { return decisionOf(this).reason; }),
  celMethod('errored', URL_TYPE, [], BOOL, function (this: CelMap) { return decisionOf(this).error !== ''; }),
  celMethod('error', URL_TYPE, [], STRING, function (this: CelMap) { return decisionOf(this).error; }),
];

/** the environment rules run in: standard library, string extensions and the Kubernetes libraries */
export function kubernetesEnv(): CelEnv {
  return celEnv({ funcs: [...stringFunctions, ...kubernetesFunctions] });
}

let shared: CelEnv | undefined;
/** one environment for every evaluation */
export const celEnvironment = (): CelEnv => (shared ??= kubernetesEnv());

const traversal = 0.1;   // cost per character of traversing a string
/** an authorization check costs as much as the reference charges it: a handful fit in one expression's budget */
export const authzCheckCost = 350_000;
const regexFactor = 0.25; // cost per character of a regular expression

/** a data tree's traversal cost, as the list functions are charged */
function traversalCost(v: CelValue): number {
  if (typeof v === 'string' || v instanceof Uint8Array) return Math.floor(sizeOf(v) * traversal);
  if (isCelList(v)) { let c = 0; for (const x of v) c += traversalCost(x); return c; }
  if (isCelMap(v)) { let c = 0; for (const [k, x] of v) c += traversalCost(k as CelValue) + traversalCost(x); return c; }
  return 1;
}

/** the runtime cost of one call, from its actual arguments, as the reference's cost tracker charges it */
export function callCost(fn: string, target: CelValue | undefined, args: CelValue[], result: CelValue | undefined): number {
  const all = target === undefined ? args : [target, ...args];
  const size = (i: number) => sizeOf(all[i]);
  switch (fn) {
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      return isCelList(all[0]) ? traversalCost(all[0]) : Math.ceil(size(0) * traversal);
    case 'url': case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
      return Math.ceil(size(0) * traversal);
    case 'replace': case 'split':
      return Math.ceil(size(0) * 2 * traversal);
    case 'join':
      return Math.ceil(sizeOf(result) * 2 * traversal);
    case 'find': case 'findAll':
    case 'matches':
      return Math.ceil((1 + size(0)) * traversal) * Math.ceil(size(1) * regexFactor);
    case 'contains':
      return Math.ceil(size(0) * traversal) * Math.ceil(size(1) * traversal);
    case 'startsWith': case 'endsWith':
      return Math.ceil(size(1) * traversal);
    case '@in':
      return isCelList(all[1]) ? size(1) : 1;
    case 'check':
      return authzCheckCost;
    case '_+_':
      if (typeof all[0] === 'string' || all[0] instanceof Uint8Array) return Math.ceil((size(0) + size(1)) * traversal);
      return 1;
    case '_==_': case '_!=_': case '_<_': case '_<=_': case '_>_': case '_>=_':
      if (typeof all[0] === 'string' || all[0] instanceof Uint8Array) return Math.ceil(Math.min(size(0), size(1)) * traversal);
      return 1;
    case 'string': case 'bytes':
      return typeof all[0] === 'string' || all[0] instanceof Uint8Array ? Math.ceil(size(0) * traversal) : 1;
    default:
      return 1;
  }
}

export { celError, celUint, isCelUint };
