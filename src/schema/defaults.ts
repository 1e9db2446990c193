// Defaulting from a structural schema, as the reference applies `default` to custom resources: a field that is
// absent (or null where the schema does not allow null) takes its default; defaults apply inside objects and
// list entries that exist, parents first, so a defaulted object then gets its own fields' defaults.
// A null that the schema does not allow and that has no default is dropped.
import { declaredProperty, type Schema } from '../api/schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** applies the defaults of `schema` to `value` in place */
export function applyDefaults(schema: Schema, value: unknown): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return;
    value.forEach((e, i) => {
      if (e === null && !items.nullable && items.default !== undefined) value[i] = structuredClone(items.default);
      applyDefaults(items, value[i]);
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (value[k] === null && !p.nullable) delete value[k];
    if (!Object.hasOwn(value, k) && p.default !== undefined) value[k] = structuredClone(p.default);
  }
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const k of Object.keys(value)) {
    const p = declaredProperty(schema, k) ?? extra;
    if (!p) continue;
    if (value[k] === null && !p.nullable) {
      if (p.default !== undefined) value[k] = structuredClone(p.default); else { delete value[k]; continue; }
    }
    applyDefaults(p, value[k]);
  }
}
