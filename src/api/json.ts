// JSON values compared through text: equal values (objects equal whatever their key order) have equal canonical text,
// so duplicates in a list are found with one set lookup per element instead of comparing every pair.

/** JSON text with object keys sorted */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  return `{${Object.keys(v).sort().map(k => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
}
