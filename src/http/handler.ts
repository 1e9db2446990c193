// What every request goes through: the pipeline's filters in order, then the mux to health, version, metrics,
// OpenAPI, resources or discovery; failures become Status bodies; each request is counted and timed.
import type { Naming } from '../api/naming.js';
import type { RequestContext } from '../api/request.js';
import { methodNotSupported, pathNotFound } from '../api/status.js';
import { sendError, sendObject, sendText } from '../endpoints/respond.js';
import { versionInfo } from '../endpoints/version.js';
import { loadYamlCodecs } from '../util/yaml.js';
import { loadProtobufCodec, mentionsProtobuf } from '../api/protobuf/load.js';
import type { MetricsRegistry } from '../metrics/metrics.js';
import { metricVerb, requestDurationBuckets } from '../metrics/metrics.js';
import { compose, pipeline, type PipelineConfig } from './pipeline.js';
import type { Logger } from './server.js';

/** a part of the mux: answers the request, or returns false when the path is not its own */
export type Route = (ctx: RequestContext) => boolean | Promise<boolean>;

export interface HandlerConfig extends PipelineConfig {
  metrics: MetricsRegistry;
  log: Logger;
  /** in the mux's order: health, OpenAPI, then the resource endpoints, then discovery */
  routes: Route[];
  /** the feature gates every request is served under */
  features: Readonly<Record<string, boolean>>;
  /**
   * whether the server serves a resource and subresource ('' for none), here or through an APIService; requests for
   * any other are counted without group, version, resource and subresource, so made-up paths cannot grow the metrics
   */
  servesResource?: (group: string, version: string, resource: string, subresource: string) => boolean;
}

export function createHandler(c: HandlerConfig): (ctx: RequestContext) => Promise<void> {
  const { names, metrics } = c;
  const version = versionInfo();
  const mux = async (ctx: RequestContext) => {
    // codecs load on first use, keeping their tables out of start-up
    if (/yaml/.test(`${ctx.headers.accept ?? ''} ${ctx.headers['content-type'] ?? ''}`)) await loadYamlCodecs();
    if (mentionsProtobuf(ctx.headers, names.protobufMediaType)) await loadProtobufCodec();
    if (ctx.path === '/version' || ctx.path === '/version/') {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotSupported(ctx.path, ctx.method);
      return sendObject(ctx, 200, version);
    }
    if (ctx.path === '/metrics') return sendText(ctx, 200, await metrics.render(), metrics.contentType);
    for (const route of c.routes) if (await route(ctx)) return;
    throw pathNotFound(ctx.path);
  };
  const chain = compose(pipeline(c), mux);
  const record = requestMetrics(metrics, c.servesResource ?? (() => true));
  return async ctx => {
    const startedAt = performance.now();
    ctx.features = c.features;
    ctx.res.once('finish', () => record(ctx, startedAt));
    try {
      await chain(ctx);
    } catch (e) {
      if ((e as { code?: number }).code === undefined && !(e instanceof Error && e.name === 'ApiError'))
        c.log.error(`${ctx.method} ${ctx.path}: ${(e as Error)?.stack ?? e}`);
      try {
        sendError(ctx, e, names);
      } catch (sendFailure) {
        // the answer itself could not be written (a header it carried, a closed stream): end the exchange, never the process
        c.log.error(`${ctx.method} ${ctx.path}: could not send the error: ${(sendFailure as Error)?.message ?? sendFailure}`);
        ctx.res.destroy();
      }
    }
  };
}

function requestMetrics(metrics: MetricsRegistry, servesResource: NonNullable<HandlerConfig['servesResource']>) {
  const labelNames = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
  const requestTotal = metrics.counter('apiserver_request_total',
    'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', [...labelNames, 'code']);
  const requestDuration = metrics.histogram('apiserver_request_duration_seconds',
    'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', labelNames, requestDurationBuckets);
  return (ctx: RequestContext, startedAt: number) => {
    const i = ctx.info;
    // only a served resource names its group, version and resource: a path the client made up (a group's discovery
    // path among them, /apis/<anything>/<anything>) would add series without bound, and the reference's non-resource
    // requests carry none
    const known = i.isResourceRequest && servesResource(i.apiGroup, i.apiVersion, i.resource, i.subresource);
    // one set of labels for both: the histogram reads its own label names and so passes over the code
    const labels = {
      code: String(ctx.res.statusCode),
      verb: metricVerb(i.verb, ctx.method), dry_run: ctx.query.has('dryRun') ? 'All' : '', group: known ? i.apiGroup : '', version: known ? i.apiVersion : '',
      resource: known ? i.resource : '', subresource: known ? i.subresource : '', scope: !i.isResourceRequest ? '' : i.namespace ? 'namespace' : i.name ? 'resource' : 'cluster',
      component: 'apiserver',
    };
    requestTotal(labels);
    if (!ctx.longRunning) requestDuration(labels, (performance.now() - startedAt) / 1000);
  };
}
