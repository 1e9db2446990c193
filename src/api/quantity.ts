// Resource quantities (`100Mi`, `1.5G`, `250m`, `2`, `1e3`) as numbers, rounded up to whole units or
// milli-units as the reference's Value and MilliValue do, so requests never come out smaller than written.

const quantityForm = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;
const suffixes: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** the value of a quantity (a number is taken as it is), or undefined when it is not one */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = quantityForm.exec(q.trim());
  if (!m) return undefined;
  return m[2] ? Number(m[1] + m[2]) : Number(m[1]) * suffixes[m[3] ?? '']!;
}

// a fraction this small is representation noise (0.1 * 1000 is 100.00000000000001), not a request
function roundUp(v: number): number {
  const nearest = Math.round(v);
  return Math.abs(v - nearest) <= 1e-9 * Math.max(1, Math.abs(v)) ? nearest : Math.ceil(v);
}

/** whole units, rounded up (memory in bytes, pods, extended resources); 0 when it is not a quantity */
export const wholeUnits = (q: unknown): number => roundUp(quantityValue(q) ?? 0);

/** thousandths of a unit, rounded up (CPU in millicores); 0 when it is not a quantity */
export const milliUnits = (q: unknown): number => roundUp((quantityValue(q) ?? 0) * 1000);
