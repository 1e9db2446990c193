// The reference's API server metric families beyond the request ones, gathered where the composition root joins
// the parts: storage requests timed at the key-value store, authentication, authorization and each admission
// plugin timed around their calls, and the gauges read when scraped (watchers and long-running requests from the
// requests in flight, stored objects from the watch cache, feature gate states). The audit families are the auditor's.
import { observedChain } from '../admission/chain.js';
import type { KV } from '../storage/types.js';
import type { AdmissionPlugin } from '../api/admission.js';
import type { Authorizer, AuthnRequest } from '../api/auth.js';
import type { RequestContext } from '../api/request.js';
import type { FeatureGates } from '../config/feature-gates.js';
import { apiServerFeatureGates } from '../config/feature-gates.js';
import type { ApiResources } from '../registry/resources.js';
import type { WatchCache } from '../watch/cache.js';
import { admissionDurationBuckets, authDurationBuckets, metricVerb, storageDurationBuckets, type MetricsRegistry } from '../metrics/metrics.js';

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

/** times a call and records it with `record(ok, seconds)`; the call's result or error passes through */
async function timed<T>(call: () => Promise<T> | T, record: (error: unknown, s: number) => void): Promise<T> {
  const startedAt = performance.now();
  try {
    const out = await call();
    record(undefined, seconds(startedAt));
    return out;
  } catch (e) {
    record(e, seconds(startedAt));
    throw e;
  }
}

/** the resource a storage key belongs to: /registry/<group>/<resource>/... */
const resourceOfKey = (key: string) => {
  const parts = key.split('/');
  return parts[1] === 'registry' && parts.length > 3 ? (parts[2] === 'core' ? parts[3] : `${parts[3]}.${parts[2]}`) : parts[1] ?? '';
};

/** etcd_request_duration_seconds and etcd_requests_total around every request to the key-value store */
export function instrumentStorage(kv: KV, metrics: MetricsRegistry): KV {
  const duration = metrics.histogram('etcd_request_duration_seconds', 'Etcd request latency in seconds for each operation and object type.', ['operation', 'type'], storageDurationBuckets);
  const total = metrics.counter('etcd_requests_total', 'Etcd request counts for each operation and object type.', ['operation', 'type']);
  const errors = metrics.counter('etcd_request_errors_total', 'Etcd failed request counts for each operation and object type.', ['operation', 'type']);
  const wrap = <A extends unknown[], R>(operation: string, f: (key: string, ...rest: A) => Promise<R>) => (key: string, ...rest: A) =>
    timed(() => f.call(kv, key, ...rest), (e, s) => {
      const labels = { operation, type: resourceOfKey(key) };
      duration(labels, s);
      total(labels);
      // a failed compare-and-swap is an answer, not a failure of the store
      if (e && !(e as { code?: string }).code) errors(labels);
    });
  return Object.assign(Object.create(kv) as KV, {
    get: wrap('get', kv.get), list: wrap('listWithCount', kv.list), count: wrap('count', kv.count),
    create: wrap('create', kv.create), update: wrap('update', kv.update), delete: wrap('delete', kv.delete),
  });
}

export function instrumentAuthentication<R>(authenticate: (req: AuthnRequest) => Promise<R>, metrics: MetricsRegistry) {
  const attempts = metrics.counter('authentication_attempts', 'Counter of authenticated attempts.', ['result']);
  const duration = metrics.histogram('authentication_duration_seconds', 'Authentication duration in seconds broken out by result.', ['result'], authDurationBuckets);
  return (req: AuthnRequest) => timed(() => authenticate(req), (e, s) => {
    const result = !e ? 'success' : (e as { code?: number }).code === 401 ? 'failure' : 'error';
    attempts({ result });
    duration({ result }, s);
  });
}

export function instrumentAuthorizer(authorizer: Authorizer, metrics: MetricsRegistry): Authorizer {
  const attempts = metrics.counter('authorization_attempts_total', 'Counter of authorization attempts broken down by result.', ['result']);
  const duration = metrics.histogram('authorization_duration_seconds', 'Authorization duration in seconds broken out by result.', ['result'], authDurationBuckets);
  return {
    ...authorizer,
    authorize: async a => {
      const startedAt = performance.now();
      let result = 'error';
      try {
        const d = await authorizer.authorize(a);
        result = d.decision === 'Allow' ? 'allowed' : d.decision === 'Deny' ? 'denied' : 'no-opinion';
        return d;
      } finally {
        attempts({ result });
        duration({ result }, seconds(startedAt));
      }
    },
  };
}

/** the admission families: the step (each phase of a request's admission), each plugin's call, and the webhook plugins' */
export function instrumentAdmission(plugins: AdmissionPlugin[], metrics: MetricsRegistry): AdmissionPlugin[] {
  const labels = ['name', 'type', 'operation', 'rejected'];
  const plugin = metrics.histogram('apiserver_admission_controller_admission_duration_seconds',
    'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).', labels, admissionDurationBuckets);
  const step = metrics.histogram('apiserver_admission_step_admission_duration_seconds',
    'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).', ['type', 'operation', 'rejected'], admissionDurationBuckets);
  const webhook = metrics.histogram('apiserver_admission_webhook_admission_duration_seconds',
    'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).', labels, admissionDurationBuckets);
  const rejections = metrics.counter('apiserver_admission_webhook_rejection_count',
    'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation.', ['name', 'type', 'operation', 'rejection_code']);
  const isWebhook = (p: AdmissionPlugin) => /Webhook$/.test(p.name);
  return [observedChain(plugins, {
    plugin(p, type, operation, s, e) {
      const l = { name: p.name, type, operation, rejected: String(!!e) };
      plugin(l, s);
      if (isWebhook(p)) {
        webhook(l, s);
        if (e) rejections({ name: p.name, type, operation, rejection_code: String((e as { code?: number }).code ?? 500) });
      }
    },
    phase: (type, operation, s, e) => step({ type, operation, rejected: String(!!e) }, s),
  })];
}

/** gauges read at scrape time: watchers and long-running requests, stored objects, feature gates */
export function scrapedGauges(metrics: MetricsRegistry, deps: {
  inflight: () => Iterable<RequestContext>; resources: ApiResources; watchCache: () => WatchCache | undefined; features: FeatureGates;
  /** how long counts of stored objects are kept before they are taken again (--etcd-count-metric-poll-period); 0: no metric */
  storageCountPeriodMs?: number;
}) {
  /** the requests in flight that `labelsOf` labels (undefined: not counted), counted per set of labels */
  const countInflight = (labelsOf: (ctx: RequestContext) => Record<string, string> | undefined) => {
    const counts = new Map<string, [Record<string, string>, number]>();
    for (const ctx of deps.inflight()) {
      const labels = labelsOf(ctx);
      if (!labels) continue;
      const key = JSON.stringify(labels);
      counts.set(key, [labels, (counts.get(key)?.[1] ?? 0) + 1]);
    }
    return [...counts.values()];
  };
  metrics.collected('apiserver_registered_watchers', 'Number of currently registered watchers for a given resources', ['group', 'version', 'kind'], () =>
    countInflight(ctx => {
      if (ctx.info.verb !== 'watch') return undefined;
      const info = deps.resources.lookup(ctx.info.apiGroup, ctx.info.apiVersion, ctx.info.resource);
      return { group: ctx.info.apiGroup, version: ctx.info.apiVersion, kind: info?.kind ?? ctx.info.resource };
    }));
  metrics.collected('apiserver_longrunning_requests', 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component.',
    ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], () => countInflight(ctx => {
      const i = ctx.info;
      return !ctx.longRunning ? undefined : {
        verb: metricVerb(i.verb, ctx.method), group: i.apiGroup, version: i.apiVersion, resource: i.resource, subresource: i.subresource,
        scope: !i.isResourceRequest ? '' : i.namespace ? 'namespace' : i.name ? 'resource' : 'cluster', component: 'apiserver',
      };
    }));
  metrics.collected('apiserver_current_inflight_requests', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', ['request_kind'], () => {
    let readOnly = 0, mutating = 0;
    for (const ctx of deps.inflight()) {
      if (ctx.longRunning) continue;
      if (['create', 'update', 'patch', 'delete', 'deletecollection'].includes(ctx.info.verb)) mutating++; else readOnly++;
    }
    return [[{ request_kind: 'readOnly' }, readOnly], [{ request_kind: 'mutating' }, mutating]];
  });
  let counted: { at: number; counts: Array<[Record<string, string>, number]> } | undefined;
  const period = deps.storageCountPeriodMs ?? 60_000;
  if (period > 0) metrics.collected('apiserver_storage_objects', 'Number of stored objects at the time of last check split by kind.', ['resource'], () => {
    // a scrape within the period sees the last counts, as the reference's metric is refreshed once a period
    if (counted && Date.now() - counted.at < period) return counted.counts;
    const counts = countStored();
    if (counts.length) counted = { at: Date.now(), counts };
    return counts;
  });
  const countStored = () => {
    const cache = deps.watchCache();
    if (!cache) return [];
    const seen = new Set<string>();
    const out: Array<[Record<string, string>, number]> = [];
    for (const info of deps.resources.all()) {
      if (seen.has(info.keyPrefix) || !info.def.versions.length || info.def.rest) continue;
      seen.add(info.keyPrefix);
      const c = cache.cache(info.keyPrefix);
      out.push([{ resource: info.group ? `${info.resource}.${info.group}` : info.resource }, c.snapshot(info.keyPrefix).length]);
    }
    return out;
  };
  metrics.collected('kubernetes_feature_enabled', 'This metric records the data about the stage and enablement of a k8s feature.', ['name', 'stage'], () =>
    Object.entries(deps.features).map(([name, on]) => {
      const stage = apiServerFeatureGates[name]?.stage;
      return [{ name, stage: stage === 'GA' ? '' : stage ?? '' }, on ? 1 : 0];
    }));
}
