// Pruning: fields a structural schema does not specify are dropped, as the reference does when it decodes a
// custom resource. `x-kubernetes-preserve-unknown-fields` keeps unknown fields (known ones are still pruned
// below), and apiVersion, kind and metadata survive at the root and in embedded resources, with metadata cut
// to the fields object metadata has.
import { objectMeta } from '../api/schemas/meta.js';
import { fieldSchema, type Schema } from '../api/schema.js';

const metaFields = new Set(Object.keys(objectMeta.properties ?? {}));
const typeMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Drops the unknown fields of `value` in place and returns their paths. `root` marks a whole object
 * (apiVersion, kind and metadata are its own).
 */
export function prune(schema: Schema, value: unknown, root = true): string[] {
  const pruned: string[] = [];
  walk(schema, value, '', root, pruned);
  return pruned;
}

function pruneMetadata(meta: unknown, path: string, pruned: string[]) {
  if (!isObject(meta)) return;
  for (const k of Object.keys(meta)) if (!metaFields.has(k)) { delete meta[k]; pruned.push(join(path, k)); }
}

function walk(s: Schema, v: unknown, path: string, typeMeta: boolean, pruned: string[]) {
  if (s['x-kubernetes-int-or-string']) return;
  if (Array.isArray(v)) {
    if (s.items) v.forEach((e, i) => walk(s.items!, e, `${path}[${i}]`, false, pruned));
    return;
  }
  if (!isObject(v)) return;
  const keepsTypeMeta = typeMeta || !!s['x-kubernetes-embedded-resource'];
  const preserve = !!s['x-kubernetes-preserve-unknown-fields'] || s.additionalProperties === true;
  for (const k of Object.keys(v)) {
    const child = fieldSchema(s, k);
    if (keepsTypeMeta && typeMetaFields.has(k)) {
      // metadata's own schema in a CRD may only narrow name and generateName; the rest is object metadata
      if (k === 'metadata') pruneMetadata(v[k], join(path, k), pruned);
      continue;
    }
    if (child) walk(child, v[k], join(path, k), false, pruned);
    else if (!preserve) { delete v[k]; pruned.push(join(path, k)); }
  }
}
