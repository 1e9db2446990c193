// Resource quantities ("500m", "1Gi", "2e3") as numbers, for comparisons and sums.

/** quantities: `<number><suffix>` as resource requests and limits are written (the decoder has refused malformed ones) */
const quantityPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;
const suffixes: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** a quantity's value as a number (approximate for huge values), undefined when it is not a quantity */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string' || !quantityPattern.test(q.trim())) return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(.*)$/.exec(q.trim())!;
  const suffix = m[2];
  if (/^[eE]/.test(suffix)) return Number(m[1] + suffix);
  return Number(m[1]) * suffixes[suffix];
}
