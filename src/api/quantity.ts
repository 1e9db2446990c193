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

const decimalSuffixes: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const decimalExponents: Record<string, number> = Object.fromEntries(Object.entries(decimalSuffixes).map(([e, s]) => [s, Number(e)]));
const binaryExponents: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const maxInt64 = 2n ** 63n - 1n;
/** past this many digits a quantity is kept as written: big-number arithmetic on it would not be linear in its size */
const maxCanonicalDigits = 100;

/**
 * A quantity in the reference's canonical form, as it is stored and served once decoded into a typed object:
 * `0.5` is `500m`, `1024Mi` is `1Gi`, `1000m` is `1`, `1e3` stays `1e3` (the exponent form is kept), and anything
 * finer than a nano-unit is rounded up to one. The format follows the suffix written (decimal, binary, exponent);
 * a binary quantity below 1024 or with a fraction is written in decimal. Like the reference, a value already in
 * its canonical shape keeps the text it came with. A value that is not a quantity is returned unchanged.
 */
export function canonicalQuantity(q: string | number): string | number {
  const text = typeof q === 'number' ? String(q) : q.trim();
  const m = quantityForm.exec(text);
  if (!m) return q;
  if (text === '0') return text;
  const [, number, exponentSuffix, siSuffix = ''] = m;
  const negative = number!.startsWith('-');
  const [whole = '', fraction = ''] = number!.replace(/^[+-]/, '').split('.');
  const num = whole.replace(/^0+/, '') || '0';
  if (num.length + fraction.length > maxCanonicalDigits) return text;
  const binaryExponent = binaryExponents[siSuffix];
  const exponent = exponentSuffix ? Number(exponentSuffix.slice(1)) : binaryExponent ?? decimalExponents[siSuffix]!;
  let format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent' = exponentSuffix ? 'DecimalExponent' : binaryExponent === undefined ? 'DecimalSI' : 'BinarySI';
  const digits = num + fraction;

  if (keepsItsText(format, digits, num, fraction, exponent)) return text;

  // the exact value, mantissa × 10^scale
  let mantissa = BigInt(digits) * (binaryExponent === undefined ? 1n : 2n ** BigInt(binaryExponent));
  let scale = (binaryExponent === undefined ? exponent : 0) - fraction.length;
  if (mantissa === 0n) return '0';
  if (scale < -9) {
    // finer than a nano-unit: rounded up to the next one
    const drop = -9 - scale;
    if (drop > digits.length + 20) mantissa = 1n;
    else { const unit = 10n ** BigInt(drop); mantissa = (mantissa + unit - 1n) / unit; }
    scale = -9;
  }
  if (format === 'BinarySI') {
    // binary quantities are capped at the largest int64
    if (mantissa > maxInt64 * 10n ** BigInt(-scale)) { mantissa = maxInt64; scale = 0; }
    const unit = 10n ** BigInt(-scale);
    const value = mantissa / unit;
    if (mantissa % unit === 0n && value >= 1024n) {
      let units = value;
      let power = 0;
      while (units % 1024n === 0n && power < binarySuffixes.length - 1) { units /= 1024n; power++; }
      return `${negative ? '-' : ''}${units}${binarySuffixes[power]}`;
    }
    format = 'DecimalSI';
  }
  while (mantissa % 10n === 0n) { mantissa /= 10n; scale++; }
  while (scale % 3 !== 0) { mantissa *= 10n; scale--; }
  const sign = negative ? '-' : '';
  if (format === 'DecimalExponent') return `${sign}${mantissa}${scale === 0 ? '' : `e${scale}`}`;
  const suffix = decimalSuffixes[scale];
  return suffix === undefined ? text : `${sign}${mantissa}${suffix}`;
}

/**
 * The reference's parser keeps the text of a quantity it reads on its fast path when the text is canonical already:
 * decimal with a scale in thousands and no trailing "000" or leading zero digit, or binary with a whole number that
 * is not a multiple of 8
 */
function keepsItsText(format: string, digits: string, num: string, fraction: string, exponent: number): boolean {
  if (format === 'BinarySI') {
    if (fraction || 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return false;
    const value = BigInt(num);
    return value << BigInt(exponent) <= maxInt64 && (value & 7n) !== 0n;
  }
  const scale = exponent - fraction.length;
  if (digits.length > 18 || scale < -9) return false;
  return scale % 3 === 0 && !digits.endsWith('000') && !digits.startsWith('0');
}
