// JSON values to CEL values under their schema's CEL type: integers are CEL ints (bigint) where the schema says
// integer (JSON numbers arrive as doubles), byte strings are bytes, durations and date-times are CEL durations
// and timestamps, objects are maps keyed by field name, arrays are lists. An object's fields are converted when an
// expression first reads them: expressions read a few fields of objects that are often large (managed fields, status).
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
  if (typeof v === 'object') return celMap(new LazyFields(v as Record<string, unknown>, t) as unknown as ReadonlyMap<string, CelValue>);
  return null;
}

/** an object's fields as the map CEL reads (what a ReadonlyMap offers), each field converted once, when first read */
class LazyFields {
  private converted?: Map<string, CelValue>;
  constructor(private readonly source: Record<string, unknown>, private readonly type: CelType | undefined) {}

  get size() { return Object.keys(this.source).length; }
  get(key: string): CelValue | undefined {
    if (typeof key !== 'string' || !Object.hasOwn(this.source, key)) return undefined;
    let v = this.converted?.get(key);
    if (v === undefined) {
      const t = this.type;
      v = toCel(this.source[key], t?.kind === 'object' ? t.fields?.[key] : t?.kind === 'map' ? t.value : undefined);
      (this.converted ??= new Map()).set(key, v);
    }
    return v;
  }
  has(key: string) { return this.get(key) !== undefined; }
  keys() { return Object.keys(this.source)[Symbol.iterator](); }
  *values() { for (const k of Object.keys(this.source)) yield this.get(k)!; }
  *entries(): Generator<[string, CelValue]> { for (const k of Object.keys(this.source)) yield [k, this.get(k)!]; }
  [Symbol.iterator]() { return this.entries(); }
  forEach(f: (value: CelValue, key: string, map: LazyFields) => void, thisArg?: unknown) {
    for (const k of Object.keys(this.source)) f.call(thisArg, this.get(k)!, k, this);
  }
}
