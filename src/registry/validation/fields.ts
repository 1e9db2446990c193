// Field errors in the reference's words, and the small checks every kind's validation is built from.
// A check returns the causes it found (empty when the value is fine), so a validator is a list of checks.
import type { StatusCause } from '../../api/meta.js';
import type { LabelSelector } from '../../api/types/meta-v1.js';
import { labelValueErrors, qualifiedNameErrors } from '../../api/selectors.js';
import { nameProblems } from './object-meta.js';

export type Causes = StatusCause[];

/** a value as the reference prints it in an error: strings quoted, string maps as Go prints them, the rest as JSON */
export function showValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (!Array.isArray(v) && typeof v === 'object' && Object.values(v).every(x => typeof x === 'string')) {
    const entries = Object.keys(v).sort().map(k => `${JSON.stringify(k)}:${JSON.stringify((v as Record<string, string>)[k])}`);
    return `map[string]string{${entries.join(', ')}}`;
  }
  return JSON.stringify(v);
}

/** a string list as Go's %#v prints it, for the causes where the reference shows the list itself */
export const goStringList = (l: readonly string[] | undefined) => (l ? `[]string{${l.map(v => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)');
/** an Invalid cause whose value is a string list, printed as the reference prints it */
export const invalidList = (field: string, list: readonly string[] | undefined, detail: string): StatusCause =>
  ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${goStringList(list)}: ${detail}` });

export const required = (field: string, detail = ''): StatusCause =>
  ({ reason: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' });
export const invalid = (field: string, value: unknown, detail: string): StatusCause =>
  ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${showValue(value)}${detail ? `: ${detail}` : ''}` });
/** the supported values as a cause lists them, written once per list (a long list of bad values shares its text) */
const supportedTexts = new WeakMap<readonly string[], string>();
function supportedText(supported: readonly string[]): string {
  let text = supportedTexts.get(supported);
  if (text === undefined) supportedTexts.set(supported, text = supported.map(s => JSON.stringify(s)).join(', '));
  return text;
}
export const notSupported = (field: string, value: unknown, supported: readonly string[]): StatusCause =>
  ({ reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${showValue(value)}: supported values: ${supportedText(supported)}` });
export const duplicate = (field: string, value: unknown): StatusCause =>
  ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${showValue(value)}` });
export const forbidden = (field: string, detail: string): StatusCause =>
  ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
export const tooMany = (field: string, actual: number, max: number): StatusCause =>
  ({ reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items` });

export const isSet = <T>(v: T): v is NonNullable<T> => v !== undefined && v !== null;
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export const dnsLabel = (field: string, v: string): Causes =>
  nameProblems(v, 'dns-label').map(p => invalid(field, v, p));
export const dns1035Label = (field: string, v: string): Causes =>
  nameProblems(v, 'dns-1035-label').map(p => invalid(field, v, p));
export const dnsSubdomain = (field: string, v: string): Causes =>
  nameProblems(v, 'dns-subdomain').map(p => invalid(field, v, p));
export const qualifiedName = (field: string, v: string): Causes => qualifiedNameErrors(v).map(p => invalid(field, v, p));

export function nonNegative(field: string, v: unknown): Causes {
  return isSet(v) && typeof v === 'number' && v < 0 ? [invalid(field, v, 'must be greater than or equal to 0')] : [];
}
/** an int-or-percent: a non-negative integer or "<n>%", with n at most 100 unless `atMost100` is false */
export function intOrPercent(at: string, v: unknown, atMost100 = true): Causes {
  if (!isSet(v)) return [];
  if (typeof v === 'number') return nonNegative(at, v);
  const m = /^(\d+)%$/.exec(String(v));
  if (!m) return [invalid(at, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  return atMost100 && Number(m[1]) > 100 ? [invalid(at, v, 'must not be greater than 100%')] : [];
}

export function positive(field: string, v: unknown): Causes {
  return isSet(v) && typeof v === 'number' && v <= 0 ? [invalid(field, v, 'must be greater than zero')] : [];
}
export function oneOf(field: string, v: unknown, allowed: readonly string[], needed = true): Causes {
  if (!isSet(v) || v === '') return needed ? [required(field)] : [];
  return allowed.includes(v as string) ? [] : [notSupported(field, v, allowed)];
}

export function portNumber(field: string, v: unknown): Causes {
  return isInt(v) && v >= 1 && v <= 65535 ? [] : [invalid(field, v, 'must be between 1 and 65535, inclusive')];
}

/** an IANA service name, as container port names and named target ports must be */
export function portName(field: string, v: string): Causes {
  const out: Causes = [];
  if (v.length > 15) out.push(invalid(field, v, 'must be no more than 15 characters'));
  if (!/^[-a-z0-9]+$/.test(v)) out.push(invalid(field, v, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'));
  if (v.includes('--')) out.push(invalid(field, v, 'must not contain consecutive hyphens'));
  if (/[a-z]/.test(v) === false) out.push(invalid(field, v, 'must contain at least one letter (a-z)'));
  if (v.startsWith('-') || v.endsWith('-')) out.push(invalid(field, v, 'must not begin or end with a hyphen'));
  return out;
}

/** an int-or-string port: a number in range or a service name */
export function portNumberOrName(field: string, v: unknown): Causes {
  if (typeof v === 'string') return v === '' ? [required(field)] : portName(field, v);
  return portNumber(field, v);
}

export function labels(field: string, m: unknown): Causes {
  const out: Causes = [];
  for (const [k, v] of Object.entries((m ?? {}) as Record<string, unknown>)) {
    out.push(...qualifiedName(field, k));
    if (typeof v === 'string') out.push(...labelValueErrors(v).map(p => invalid(field, v, p)));
  }
  return out;
}

const selectorOperators = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** a metav1.LabelSelector */
export function labelSelector(field: string, sel: LabelSelector | undefined): Causes {
  if (!sel) return [];
  const out = labels(`${field}.matchLabels`, sel.matchLabels);
  for (const [i, e] of (sel.matchExpressions ?? []).entries()) {
    const at = `${field}.matchExpressions[${i}]`;
    out.push(...qualifiedName(`${at}.key`, e?.key ?? ''));
    if (!selectorOperators.includes(e?.operator)) { out.push(notSupported(`${at}.operator`, e?.operator ?? '', selectorOperators)); continue; }
    const n = (e.values ?? []).length;
    if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0)
      out.push(required(`${at}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n > 0)
      out.push(forbidden(`${at}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
  }
  return out;
}

/** a field that may not change after create: the cause names the new value */
export function immutable(field: string, next: unknown, old: unknown): Causes {
  return JSON.stringify(next ?? null) === JSON.stringify(old ?? null) ? [] : [invalid(field, next, 'field is immutable')];
}


function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** JSON text with object keys sorted, so equal values have equal text (absent and null alike) */
export const canonicalJson = (v: unknown) => JSON.stringify(sortKeys(v ?? null));

/** the same JSON value, whatever the order of object keys */
export const sameJson = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
