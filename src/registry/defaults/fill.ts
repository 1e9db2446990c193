// The one defaulting primitive: a field gets its default only when unset, so defaults may be applied any number of times.

/** sets each field of `defaults` that is unset (undefined or null) in `obj`; returns `obj` */
export function fill<T extends object>(obj: T, defaults: Partial<T>): T {
  const fields = obj as Record<string, unknown>;
  for (const [k, v] of Object.entries(defaults)) if (fields[k] === undefined || fields[k] === null) fields[k] = v;
  return obj;
}

/**
 * The spec of an object being defaulted, made when absent as the reference's decoder always has one. Its required
 * fields may still be missing: validation, which runs after defaulting, reports them.
 */
export const specOf = <S>(obj: { spec?: S }): S => (obj.spec ??= {} as S);
