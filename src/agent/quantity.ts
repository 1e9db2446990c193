// Resource quantities (`100Mi`, `1.5G`, `250m`, `2`) as plain numbers, and the agent's list syntaxes
// built on them: eviction thresholds and taints.

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

export const evictionSignals = [
  'memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree',
  'pid.available', 'allocatableMemory.available',
] as const;
export type EvictionSignal = (typeof evictionSignals)[number];

export interface Threshold {
  signal: EvictionSignal;
  /** an absolute amount, or a fraction of capacity when `percentage` is set */
  quantity?: number;
  percentage?: number;
}

/** `memory.available<100Mi,nodefs.available<10%` (only `<` is an operator the reference accepts) */
export function parseThresholds(items: readonly string[]): Threshold[] {
  const seen = new Set<string>();
  return items.map((item) => {
    const m = /^([A-Za-z.]+)<(.+)$/.exec(item.trim());
    if (!m) throw new Error(`${JSON.stringify(item)} is not of the form <signal><<quantity or percentage>`);
    const signal = m[1] as EvictionSignal;
    if (!evictionSignals.includes(signal)) throw new Error(`unknown eviction signal ${signal}; known: ${evictionSignals.join(', ')}`);
    if (seen.has(signal)) throw new Error(`eviction signal ${signal} given twice`);
    seen.add(signal);
    const value = m[2]!.trim();
    if (value.endsWith('%')) {
      const p = Number(value.slice(0, -1));
      if (!Number.isFinite(p) || p < 0 || p > 100) throw new Error(`${item}: percentage must be from 0% to 100%`);
      return { signal, percentage: p / 100 };
    }
    const q = parseQuantity(value);
    if (q < 0) throw new Error(`${item}: the quantity must not be negative`);
    return { signal, quantity: q };
  });
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const qualifiedName = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** `key=value:Effect` or `key:Effect` */
export function parseTaint(raw: string): Taint {
  const colon = raw.lastIndexOf(':');
  if (colon < 0) throw new Error(`taint ${JSON.stringify(raw)} has no effect: use <key>=<value>:<effect>`);
  const effect = raw.slice(colon + 1);
  if (!taintEffects.includes(effect)) throw new Error(`taint ${JSON.stringify(raw)}: effect must be one of ${taintEffects.join(', ')}`);
  const [key, value] = raw.slice(0, colon).split(/=(.*)/s);
  if (!key || !qualifiedName.test(key)) throw new Error(`taint ${JSON.stringify(raw)}: invalid key ${JSON.stringify(key)}`);
  if (value !== undefined && !labelValue.test(value)) throw new Error(`taint ${JSON.stringify(raw)}: invalid value ${JSON.stringify(value)}`);
  return { key, ...(value ? { value } : {}), effect: effect as Taint['effect'] };
}

export function validLabel(key: string, value: string): string | undefined {
  if (!qualifiedName.test(key)) return `invalid label key ${JSON.stringify(key)}`;
  if (!labelValue.test(value)) return `invalid label value ${JSON.stringify(value)} for ${key}`;
  return undefined;
}
