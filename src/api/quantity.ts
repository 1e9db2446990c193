// Resource quantities (`100Mi`, `1.5G`, `250m`, `2`) as plain numbers.

const suffixes: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The value of a quantity; throws on anything else. */
export function parseQuantity(raw: string): number {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/.exec(raw.trim());
  if (!m || (m[2] !== undefined && m[3] !== undefined)) throw new Error(`${JSON.stringify(raw)} is not a quantity (e.g. 100Mi, 1G, 250m)`);
  return Number(m[1]) * 10 ** Number(m[2] ?? 0) * suffixes[m[3] ?? '']!;
}
