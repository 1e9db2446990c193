// JSON values to CEL values under their schema's CEL type: integers are CEL ints (bigint) where the schema says
// integer (JSON numbers arrive as doubles), byte strings are bytes, durations and date-times are CEL durations
// and timestamps, objects are maps keyed by field name, arrays are lists.
import { celList, celMap, isCelError, type CelValue } from '@bufbuild/cel';
import type { CelType } from './types.js';
import { stdCall } from './library.js';

export function toCel(v: unknown, t: CelType | undefined): CelValue {
  if (v === null || v === undefined) return null;
  const kind = t?.kind ?? 'dyn';
  if (typeof v === 'number') {
    if (kind === 'double') return v;
    if (kind === 'int' || (kind === 'dyn' && Number.isInteger(v))) return Number.isInteger(v) ? BigInt(v) : v;
    return v;
  }
  if (typeof v === 'string') {
    if (kind === 'bytes') return new Uint8Array(Buffer.from(v, 'base64'));
    if (kind === 'duration' || kind === 'timestamp') {
      const r = stdCall(kind, undefined, [kind === 'timestamp' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v]);
      return r === undefined || isCelError(r) ? v : r;
    }
    return v;
  }
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const elem = kind === 'list' ? t!.elem : undefined;
    return celList(v.map(e => toCel(e, elem)));
  }
  if (typeof v === 'object') {
    const entries = new Map<string, CelValue>();
    for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
      const et = kind === 'object' ? t!.fields?.[k] : kind === 'map' ? t!.value : undefined;
      entries.set(k, toCel(e, et));
    }
    return celMap(entries);
  }
  return null;
}
