// What ConfigMaps and Secrets share: the rules of their keys, their size limit, and `immutable`.
import { type Causes, forbidden, invalid, sameJson } from '../../../validation/fields.js';

const configKey = /^[-._a-zA-Z0-9]+$/;
export const maxDataBytes = 1024 * 1024;

/** the problems of a key of the map `field` (data, binaryData); none, quickly, for a good key: a ConfigMap may hold
 *  a hundred thousand keys, and each was given its path string and causes list before it was looked at */
export function keyCauses(field: string, key: string): Causes {
  if (key.length <= 253 && configKey.test(key) && !key.startsWith('..') && key !== '.') return [];
  const at = `${field}[${key}]`;
  const out: Causes = [];
  if (key.length > 253) out.push(invalid(at, key, 'must be no more than 253 characters'));
  if (!configKey.test(key))
    out.push(invalid(at, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
  if (key === '.' || key === '..') out.push(invalid(at, key, `must not be '${key}'`));
  else if (key.startsWith('..')) out.push(invalid(at, key, "must not start with '..'"));
  return out;
}

export const tooLong = (field: string, max: number) => ({ reason: 'FieldValueTooLong', field, message: `Too long: must have at most ${max} bytes` });

/** the bytes of a base64 value */
export const decoded = (v: unknown) => Buffer.from(String(v ?? ''), 'base64');

const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** how many bytes a base64 value decodes to, counted without decoding it when it is canonical (as clients send it) */
export function decodedLength(v: unknown): number {
  if (typeof v !== 'string' || !canonicalBase64.test(v)) return decoded(v).length;
  return v.length / 4 * 3 - (v.endsWith('==') ? 2 : v.endsWith('=') ? 1 : 0);
}

/** the problems of the keys of a data map, and the size of its values (`size`: their bytes); a for..in loop that
 *  makes nothing per good key, since a map may hold a hundred thousand of them */
export function dataKeyCauses(field: string, map: Record<string, unknown>, out: Causes, size: (v: unknown) => number): number {
  let total = 0;
  for (const k in map) {
    if (!(k.length <= 253 && configKey.test(k) && !k.startsWith('..') && k !== '.')) out.push(...keyCauses(field, k));
    total += size(map[k]);
  }
  return total;
}

/** the UTF-8 bytes of a string value */
export const textLength = (v: unknown) => Buffer.byteLength(typeof v === 'string' ? v : String(v ?? ''));

/** once `immutable: true` is stored, the data and the flag stay as they are */
export function immutableData<T extends { immutable?: boolean }>(obj: T, old: T, fields: readonly (keyof T & string)[]): Causes {
  if (old.immutable !== true) return [];
  const out: Causes = [];
  if (obj.immutable !== true) out.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!sameJson(obj[f] ?? {}, old[f] ?? {})) out.push(forbidden(f, 'field is immutable when `immutable` is set'));
  return out;
}
