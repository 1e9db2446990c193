// What the three patch formats share: the error they throw and a few helpers for JSON values.
// Keys are always read and written as own properties, so a key named `__proto__` is plain data
// and a patch can never reach an object's prototype.

import { deepCopy } from '../util/objects.js';

/**
 * A patch that could not be applied. How the reference answers each reason:
 * - `BadRequest` (400): the patch document is malformed (not the expected JSON shape, unknown
 *   directive, missing merge key, ...). The reference answers some strategic-merge format errors
 *   with 500 (it passes the error through unclassified); we answer 400 since the request is at fault.
 * - `Invalid` (422): a well-formed patch that cannot apply to this object (JSON patch `test` failed,
 *   path missing; strategic merge list of lists). The reference builds this Status with the generic
 *   message "the server rejected our request due to an error in our request" and puts our message in
 *   `details.causes[0].message` (see `asCause`).
 * - `RequestEntityTooLarge` (413): a JSON patch with more than 10000 operations.
 */
export class PatchError extends Error {
  readonly code: number;
  constructor(readonly reason: 'BadRequest' | 'Invalid' | 'RequestEntityTooLarge', message: string) {
    super(message);
    this.name = 'PatchError';
    this.code = reason === 'BadRequest' ? 400 : reason === 'Invalid' ? 422 : 413;
  }
  /** true when the reference reports the message as a cause under a generic Status message */
  get asCause() { return this.reason === 'Invalid'; }
}

export const badPatch = (message: string) => new PatchError('BadRequest', message);
export const cannotApply = (message: string) => new PatchError('Invalid', message);

export type JsonObject = { [key: string]: unknown };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

export const getOwn = (o: JsonObject, key: string): unknown => (hasOwn(o, key) ? o[key] : undefined);

/** o[key] = value, without ever invoking the `__proto__` setter */
export function setOwn(o: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}

export const clone = deepCopy;

/** how a patch treats the document it is given */
export interface PatchOptions {
  /** the document is the caller's own copy, which the patch may change in place (rather than copy it first: on an
   *  object of many fields, the copy costs as much as the patch) */
  inPlace?: boolean;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every(k => hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** short JSON text of a value for error messages */
export function show(v: unknown, max = 200): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}...` : s;
}
