// EventRateLimit (alpha): core Events are written at a bounded rate. Each configured limit is a token bucket
// (qps, burst) for the whole server, or one bucket per namespace, per user, or per event source and involved
// object, the most recently used `cacheSize` of them kept; a write no bucket has a token for is refused with 429.
import { definePlugin } from '../types.js';
import { configError, typedConfig } from '../config.js';
import { aggregate } from '../util.js';
import { tooManyRequests } from '../../api/status.js';
import type { AdmissionAttributes } from '../../api/admission.js';
import type { Event } from '../../api/types/core-v1.js';
import { tokenBucket, type TokenBucket } from '../../util/token-bucket.js';

const limitTypes = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
type LimitType = (typeof limitTypes)[number];

interface Limit { type?: LimitType; qps?: number; burst?: number; cacheSize?: number }
interface Configuration { limits?: Limit[] }

const defaultCacheSize = 4096;


/** one limit: its buckets by key, the least recently used dropped past cacheSize */
function enforcer(limit: Required<Limit>, now?: () => number) {
  const keyOf: Record<LimitType, (a: Readonly<AdmissionAttributes>) => string> = {
    Server: () => '',
    Namespace: a => a.namespace,
    User: a => a.user?.username ?? '',
    SourceAndObject: a => {
      const e = (a.object ?? {}) as Partial<Event>;
      const o = e.involvedObject ?? {};
      return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map(x => x ?? '').join('');
    },
  };
  const buckets = new Map<string, TokenBucket>();
  return (a: Readonly<AdmissionAttributes>): string | undefined => {
    const key = keyOf[limit.type](a);
    let b = buckets.get(key);
    if (b) buckets.delete(key);
    else b = tokenBucket(limit.qps, limit.burst, now);
    buckets.set(key, b);
    if (buckets.size > Math.max(limit.cacheSize, 1)) buckets.delete(buckets.keys().next().value!);
    return b.tryAccept() ? undefined : `limit reached on type ${limit.type} for key ${key}`;
  };
}

export function checkLimits(plugin: string, config: Configuration | undefined): Required<Limit>[] {
  const limits = config?.limits;
  if (!Array.isArray(limits) || !limits.length) throw configError(plugin, 'limits: Required value: must not be empty');
  return limits.map((l, i) => {
    const at = `limits[${i}]`;
    if (!limitTypes.includes(l?.type as LimitType)) throw configError(plugin, `${at}.type: Unsupported value: ${JSON.stringify(l?.type)}: supported values: ${limitTypes.map(t => `"${t}"`).join(', ')}`);
    if (!(typeof l.qps === 'number' && l.qps > 0)) throw configError(plugin, `${at}.qps: Invalid value: ${l.qps}: must be positive`);
    if (!(Number.isInteger(l.burst) && l.burst! > 0)) throw configError(plugin, `${at}.burst: Invalid value: ${l.burst}: must be positive`);
    if (l.cacheSize !== undefined && !(Number.isInteger(l.cacheSize) && l.cacheSize >= 0))
      throw configError(plugin, `${at}.cacheSize: Invalid value: ${l.cacheSize}: must not be negative`);
    return { type: l.type!, qps: l.qps, burst: l.burst!, cacheSize: l.cacheSize || defaultCacheSize };
  });
}

export default definePlugin({
  name: 'EventRateLimit',
  defaultOn: false,
  create: ({ config, names }) => {
    const limits = checkLimits('EventRateLimit',
      typedConfig<Configuration>('EventRateLimit', config, names, { kind: 'Configuration', group: 'eventratelimit.admission', versions: ['v1alpha1'] }));
    const enforcers = limits.map(l => enforcer(l));
    return {
      name: 'EventRateLimit',
      operations: ['CREATE', 'UPDATE'],
      validate(a) {
        // a dry run stores nothing, so it takes no token
        if (a.group !== '' || a.kind.kind !== 'Event' || a.dryRun) return;
        const refusals = enforcers.map(e => e(a)).filter((r): r is string => r !== undefined);
        if (refusals.length) throw tooManyRequests(`Too many requests: ${aggregate(refusals)}`);
      },
    };
  },
});
