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

/**
 * Why a value does not decode as a quantity, in the reference's words, or undefined when it does: a string (spaces
 * around it allowed) or a number, a decimal number then a suffix or an exponent that an int32 holds.
 */
export function quantityProblem(q: unknown): string | undefined {
  const text = typeof q === 'number' ? String(q) : typeof q === 'string' ? q.trim() : '';
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)/.test(text)) return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const m = quantityForm.exec(text);
  if (!m || (m[2] && Math.abs(Number(m[2].slice(1))) > 2 ** 31 - 1)) return "unable to parse quantity's suffix";
  return undefined;
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

const binary: Array<[string, number]> = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
const decimal: Array<[string, number]> = [['E', 1e18], ['P', 1e15], ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]];

/** a number written as a quantity: binary suffixes when `like` used one, milli-units for fractions */
export function formatQuantity(n: number, like: string | number = ''): string {
  if (n === 0) return '0';
  if (!Number.isInteger(n)) {
    const milli = Math.round(n * 1000);
    return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
  }
  const table = /i$/.test(String(like)) ? binary : /[kMGTPE]$/.test(String(like)) ? decimal : [];
  for (const [s, f] of table) if (n % f === 0) return `${n / f}${s}`;
  return String(n);
}
