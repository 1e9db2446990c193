// The bound a decoded value must keep: nested no deeper than a limit, and holding no more values than a count (a YAML
// alias makes one value appear in many places). The walk uses no recursion and stops as soon as either bound is passed.

/**
 * Objects and arrays nested deeper than this are refused, in request bodies and in what admission webhooks return.
 * The reference's decoders stop at 10,000; the walks over a decoded object (typing, defaulting, merging, field sets,
 * conversion) recurse, and no real object comes near this depth.
 */
export const maxNestingDepth = 1000;

/** which bound the value passes, if any */
export type ValueBound = 'depth' | 'values';

export function valueBeyond(value: unknown, maxValues: number, maxDepth: number): ValueBound | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let seen = 0;
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (++seen > maxValues) return 'values';
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return 'depth';
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]); else seen++;
  }
  return undefined;
}
