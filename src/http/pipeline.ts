// The request pipeline, read top to bottom: every request passes these stages in order, then the mux.
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { RequestContext } from '../api/request.js';
import type { Naming } from '../api/naming.js';
import { requestInfo } from './request-info.js';
import { forbidden, internalError, tooManyRequests, badRequest, serviceUnavailable } from '../api/status.js';
import type { Authorizer, AuthzAttributes, AuthnRequest, AuthnResult, UserInfo } from '../api/auth.js';
import { isHealthProbe, type Decision, type FlowControl, type LevelState } from '../flowcontrol/controller.js';
import type { MetricsRegistry } from '../metrics/metrics.js';
import { turns } from '../util/slices.js';
import { extend } from '../util/objects.js';
import { re2 } from '../util/re2.js';

export type Next = () => Promise<void>;
export type Filter = (ctx: RequestContext, next: Next) => Promise<void>;

export interface PipelineConfig {
  names: Naming;
  /** the audit stages, when the server audits */
  audit?: { failedAuthentication: Filter; requests: Filter };
  authenticate(req: AuthnRequest): Promise<AuthnResult>;
  authorizer: Authorizer;
  requestTimeoutMs: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** API priority and fairness (--enable-priority-and-fairness); without it the two in-flight limits apply */
  flowControl?: FlowControl;
  metrics?: MetricsRegistry;
  /** on the way down: whether the server has stopped taking new requests, and whether it answers them 429 (else 503) */
  shutdown?: { notAcceptingRequests(): boolean; sendRetryAfter: boolean };
  /** the Strict-Transport-Security header of every answer (--strict-transport-security-directives) */
  hsts?: string;
  /** origins (RE2 patterns) browsers may call from (--cors-allowed-origins) */
  corsAllowedOrigins?: readonly string[];
}

export function pipeline(c: PipelineConfig): Filter[] {
  return [
    ...(c.hsts ? [hsts(c.hsts)] : []),
    ...(c.shutdown ? [refuseWhenStopping(c.shutdown)] : []),
    takeTurns(() => c.shutdown?.notAcceptingRequests() ?? false),
    requestInfoStage,
    deadline(c.requestTimeoutMs),
    ...(c.corsAllowedOrigins?.length ? [cors(c.corsAllowedOrigins)] : []),
    ...(c.audit ? [c.audit.failedAuthentication] : []),
    authentication(c.authenticate),
    ...(c.audit ? [c.audit.requests] : []),
    impersonation(c.authorizer, c.names.group('authentication')),
    c.flowControl ? priorityAndFairness(c.flowControl, c.names, c.metrics) : maxInFlight(c.maxRequestsInflight, c.maxMutatingRequestsInflight),
    authorization(c.authorizer, c.names.domain),
  ];
}

export function compose(filters: Filter[], handler: (ctx: RequestContext) => Promise<void>) {
  return (ctx: RequestContext): Promise<void> => {
    const run = (i: number): Promise<void> => (i < filters.length ? filters[i](ctx, () => run(i + 1)) : handler(ctx));
    return run(0);
  };
}

/**
 * Requests start one a turn of the event loop, health probes at once: a client that opens thousands of watches in one
 * go cannot hold the loop for seconds while probes wait to be read (they are answered between two of its requests).
 * A request whose client has gone by its turn (an HTTP/2 stream reset as soon as it was opened, thousands a second
 * in a "rapid reset" flood) is dropped there, before any work is done for it.
 */
function takeTurns(stopping: () => boolean): Filter {
  // once the server stops taking requests, the ones it took wait no more: the drain is not rationed
  const turn = turns(undefined, stopping);
  return async (ctx, next) => {
    if (!isHealthProbe(ctx.path)) {
      await turn(ctx.clientGone, claimant(ctx));
      if (ctx.clientGone()) return;
    }
    await next();
  };
}

/**
 * Who a request says it comes from, before it is authenticated: its credential (a bearer token, or the client
 * certificate of its connection) and whom it impersonates. Requests take their turns to start one claimant after
 * another, so that a client with hundreds of requests waiting (a flood from one user) does not hold back the requests
 * of others (another user, the nodes' leases, an administrator) behind all of its own: they reach priority and
 * fairness, which shares the server between them, in a turn or two. A credential that is not valid fails
 * authentication at its turn, as before; what is claimed only orders the turns.
 */
function claimant(ctx: RequestContext): string {
  const h = ctx.headers;
  const credential = h.authorization ?? peerCertificate(ctx).peerCertificate?.fingerprint256 ?? '';
  const impersonated = h['impersonate-user'] ?? h['impersonate-uid'];
  return impersonated === undefined ? String(credential) : `${String(credential)}\n${String(impersonated)}`;
}

/** a percent sign not followed by two hex digits: a path the reference's HTTP server refuses before any handler */
const invalidEscape = /%(?![0-9A-Fa-f]{2})[^/]{0,2}/;

const requestInfoStage: Filter = async (ctx, next) => {
  const bad = ctx.path.includes('%') ? invalidEscape.exec(ctx.path) : null;
  if (bad) throw badRequest(`invalid URL escape ${JSON.stringify(bad[0])}`);
  ctx.info = requestInfo(ctx.method, ctx.path, ctx.query);
  ctx.longRunning = ctx.info.verb === 'watch' || ctx.info.verb === 'proxy' || ['log', 'exec', 'attach', 'portforward', 'proxy'].includes(ctx.info.subresource);
  await next();
};

/** health probes and metrics are still answered while the server stops, as by the reference */
const servedWhileStopping = /^\/(healthz|livez|readyz|metrics)(\/|$)/;

/**
 * Once the server stops taking requests on its way down, a new request is told to come back (to another server, most
 * likely), as the reference tells it: 503 with Retry-After: 1, or with --shutdown-send-retry-after 429 with
 * Retry-After: 5 and the connection closed (a GOAWAY on HTTP/2).
 */
function refuseWhenStopping(s: NonNullable<PipelineConfig['shutdown']>): Filter {
  return async (ctx, next) => {
    if (!s.notAcceptingRequests() || servedWhileStopping.test(ctx.path)) return next();
    if (!s.sendRetryAfter) throw serviceUnavailable('apiserver is shutting down', 1);
    const session = (ctx.req as { stream?: { session?: { close(): void } } }).stream?.session;
    if (session) session.close(); else ctx.res.setHeader('Connection', 'close');
    throw tooManyRequests('The apiserver is shutting down, please try again later.', 5);
  };
}

/**
 * parses the reference's duration form used by ?timeout= (e.g. 32s, 1m30s). Each part is matched where the previous
 * ended (sticky), never searched for: a search restarts at every digit of a long run and takes quadratic time.
 */
export function parseGoDuration(s: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
  let total = 0, m: RegExpExecArray | null;
  while (re.lastIndex < s.length && (m = re.exec(s))) total += Number(m[1]) * unit[m[2]];
  return re.lastIndex === s.length && s.length > 0 ? total : undefined;
}

function deadline(defaultMs: number): Filter {
  return async (ctx, next) => {
    if (ctx.longRunning) return next();
    let ms = defaultMs;
    const t = ctx.query.get('timeout');
    if (t) {
      const parsed = parseGoDuration(t);
      if (parsed === undefined) throw badRequest(`invalid timeout "${t}": must be a duration such as 32s`);
      ms = Math.min(parsed, defaultMs);
    }
    if (ms > 0) ctx.deadline = Date.now() + ms;
    await next();
  };
}

type PeerResult = Pick<AuthnRequest, 'peerCertificate' | 'peerCertificateError'>;
/** a connection's certificate is fixed at its handshake: read once per connection, not per request */
const peers = new WeakMap<TLSSocket, PeerResult>();

function peerCertificate(ctx: RequestContext): PeerResult {
  const socket = ((ctx.req as { stream?: { session?: { socket?: TLSSocket } } }).stream?.session?.socket ?? ctx.req.socket) as TLSSocket;
  if (!socket || typeof socket.getPeerCertificate !== 'function') return {};
  let result = peers.get(socket);
  if (!result) {
    const cert = socket.getPeerCertificate() as PeerCertificate;
    result = !cert || !cert.subject ? {}
      : !socket.authorized ? { peerCertificateError: String(socket.authorizationError ?? 'unknown authority') }
        : { peerCertificate: cert };
    peers.set(socket, result);
  }
  return result;
}

function authentication(authenticate: PipelineConfig['authenticate']): Filter {
  return async (ctx, next) => {
    const result = await authenticate({ headers: ctx.headers, rawHeaders: (ctx.req as { rawHeaders?: string[] }).rawHeaders, ...peerCertificate(ctx) });
    // what the credential says of itself is not the user's; most requests have none, and keep the result as it is
    if (result.auditAnnotations || result.warnings || result.webSocketProtocols !== undefined) {
      const { auditAnnotations, warnings, webSocketProtocols, ...user } = result;
      // the token's subprotocol is neither echoed to the client nor passed on to a proxied target
      if (webSocketProtocols !== undefined) ctx.headers['sec-websocket-protocol'] = webSocketProtocols;
      // the audit record is made next, from the user: it takes these
      if (auditAnnotations) ctx.earlyAuditAnnotations = auditAnnotations;
      if (warnings) ctx.warnings.push(...warnings);
      ctx.user = user;
    } else {
      ctx.user = result;
    }
    await next();
  };
}

const attributesOf = (ctx: RequestContext, user: UserInfo): AuthzAttributes => ({
  user, verb: ctx.info.verb, isResourceRequest: ctx.info.isResourceRequest, path: ctx.path,
  apiGroup: ctx.info.apiGroup, apiVersion: ctx.info.apiVersion, namespace: ctx.info.namespace,
  resource: ctx.info.resource, subresource: ctx.info.subresource, name: ctx.info.name,
});

/** every value of every header, in order, as sent (repeated headers stay separate, unlike ctx.headers) */
function rawHeaderPairs(ctx: RequestContext): Array<[string, string]> {
  const raw = (ctx.req as { rawHeaders?: string[] }).rawHeaders;
  const out: Array<[string, string]> = [];
  if (raw) for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  else for (const [k, v] of Object.entries(ctx.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.push([k, String(x)]);
  return out;
}

const extraPrefix = 'impersonate-extra-';

/**
 * Impersonate-User/Group/Uid/Extra-*: the requester acts as another user when allowed to `impersonate` each
 * part (users or serviceaccounts, groups, uids, userextras/<key>; resourceNames restrict the values).
 */
function impersonation(authorizer: Authorizer, authenticationGroup: string): Filter {
  return async (ctx, next) => {
    let users: string[] = [], groups: string[] = [], uids: string[] = [];
    // keys are the client's: __proto__ or constructor must be plain keys
    const extra: Record<string, string[]> = Object.create(null);
    let any = false;
    for (const [k, v] of rawHeaderPairs(ctx)) {
      if (!k.startsWith('impersonate-')) continue;
      any = true;
      // an empty Impersonate-User asks for no one, as in the reference
      if (k === 'impersonate-user') { if (v) users.push(v); }
      else if (k === 'impersonate-group') groups.push(v);
      else if (k === 'impersonate-uid') uids.push(v);
      else if (k.startsWith(extraPrefix)) {
        let key = k.slice(extraPrefix.length);
        try { key = decodeURIComponent(key); } catch { throw badRequest(`invalid impersonation extra key "${key}"`); }
        (extra[key] ??= []).push(v);
      }
    }
    if (!any) return next();
    users = [...new Set(users)]; uids = [...new Set(uids)];
    if (!users.length) {
      if (groups.length || uids.length || Object.keys(extra).length)
        throw badRequest('requested impersonation of groups, uid or extra without impersonating a user');
      return next();
    }
    if (users.length > 1) throw badRequest('only one Impersonate-User header may be given');
    if (uids.length > 1) throw badRequest('only one Impersonate-Uid header may be given');
    const requester = ctx.user!;
    const check = async (resource: string, name: string, opts: { apiGroup?: string; subresource?: string; namespace?: string } = {}) => {
      const apiGroup = opts.apiGroup ?? '';
      const d = await authorizer.authorize({
        user: requester, verb: 'impersonate', isResourceRequest: true, path: ctx.path, apiGroup, apiVersion: '',
        namespace: opts.namespace ?? '', resource, subresource: opts.subresource ?? '', name,
      });
      if (d.decision !== 'Allow')
        throw forbidden(`${resource}${apiGroup ? `.${apiGroup}` : ''} "${name}" is forbidden: User "${requester.username}" cannot impersonate resource "${resource}${opts.subresource ? `/${opts.subresource}` : ''}" in API group "${apiGroup}" ${opts.namespace ? `in the namespace "${opts.namespace}"` : 'at the cluster scope'}${d.reason ? `: ${d.reason}` : ''}`,
          { name, group: apiGroup || undefined, kind: resource });
    };
    const username = users[0];
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
    if (sa) await check('serviceaccounts', sa[2], { namespace: sa[1] }); else await check('users', username);
    for (const g of groups) await check('groups', g);
    if (uids.length) await check('uids', uids[0], { apiGroup: authenticationGroup });
    for (const [k, vs] of Object.entries(extra)) for (const v of vs) await check('userextras', v, { apiGroup: authenticationGroup, subresource: k });

    const impersonatedGroups = [...new Set(groups)];
    if (sa && !groups.length) impersonatedGroups.push('system:serviceaccounts', `system:serviceaccounts:${sa[1]}`);
    if (username !== 'system:anonymous') {
      // a user impersonated as unauthenticated stays so, as in the reference
      if (!impersonatedGroups.includes('system:authenticated') && !impersonatedGroups.includes('system:unauthenticated')) impersonatedGroups.push('system:authenticated');
    } else if (!impersonatedGroups.includes('system:authenticated') && !impersonatedGroups.includes('system:unauthenticated')) {
      impersonatedGroups.push('system:unauthenticated');
    }
    const impersonated: UserInfo = { username, groups: impersonatedGroups, ...(Object.keys(extra).length ? { extra } : {}) };
    if (uids.length) impersonated.uid = uids[0];
    ctx.user = impersonated;
    await next();
  };
}

const overloaded = 'Too many requests, please try again later.';
const mutating = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** without priority and fairness: over either limit, 429, except for system:masters (who always get an answer) and probes */
function maxInFlight(readonlyLimit: number, mutatingLimit: number): Filter {
  let readonly = 0, writes = 0;
  return async (ctx, next) => {
    if (ctx.longRunning) return next();
    const isWrite = mutating.has(ctx.info.verb);
    const limit = isWrite ? mutatingLimit : readonlyLimit;
    if (limit > 0 && (isWrite ? writes : readonly) >= limit && !ctx.user?.groups.includes('system:masters') && !isHealthProbe(ctx.path))
      throw tooManyRequests(overloaded);
    if (isWrite) writes++; else readonly++;
    try { await next(); } finally { if (isWrite) writes--; else readonly--; }
  };
}

/**
 * Each request waits in its priority level's fair queues for the seats it needs (refused with 429 when its queue is
 * full or the wait is too long); the response names the FlowSchema and priority level it was classified by. A watch
 * holds its seats only until its initial events are out; other long-running requests (exec, logs, proxy) hold none.
 */
function priorityAndFairness(fc: FlowControl, names: Naming, metrics?: MetricsRegistry): Filter {
  const schemaHeader = names.header('PF-FlowSchema-UID'), levelHeader = names.header('PF-PriorityLevel-UID');
  const m = metrics && flowControlMetrics(fc, metrics);
  return async (ctx, next) => {
    if (ctx.longRunning && ctx.info.verb !== 'watch') return next();
    const arrived = performance.now();
    const d = await fc.admit({ user: ctx.user!, info: ctx.info, query: ctx.query }, () => ctx.signal);
    if (!ctx.res.headersSent) { ctx.res.setHeader(schemaHeader, d.flowSchema.uid); ctx.res.setHeader(levelHeader, d.priorityLevel.uid); }
    const labels = { flow_schema: d.flowSchema.name, priority_level: d.priorityLevel.name };
    m?.decided(labels, d, (performance.now() - arrived) / 1000);
    if (!d.outcome.admitted) {
      // a client that went away gets no answer; a request whose deadline passed while it waited gets 429
      if (d.outcome.reason === 'cancelled' && (ctx.signal.reason as Error | undefined)?.name !== 'TimeoutError') return;
      throw tooManyRequests(overloaded);
    }
    const { release } = d.outcome;
    const running = m?.started(labels, d.seats);
    let released = false;
    const done = () => { if (!released) { released = true; release(); running?.(ctx.info.verb === 'watch' ? 'watch' : 'regular'); } };
    if (ctx.info.verb === 'watch') ctx.watchInitialized = done;
    try { await next(); } finally { done(); }
  };
}

/**
 * The reference's apiserver_flowcontrol_* families: requests dispatched and rejected, waiting and running by flow
 * schema and level, their wait and run times, estimated seats and the length of the queue each joined; and per level, read when scraped, its seat limits
 * (nominal, lower, upper, current), its seat demand and target from the last lending round, and its virtual clock.
 */
function flowControlMetrics(fc: FlowControl, metrics: MetricsRegistry) {
  const both = ['flow_schema', 'priority_level'];
  const dispatched = metrics.counter('apiserver_flowcontrol_dispatched_requests_total', 'Number of requests executed by API Priority and Fairness subsystem', both);
  const rejected = metrics.counter('apiserver_flowcontrol_rejected_requests_total', 'Number of requests rejected by API Priority and Fairness subsystem', [...both, 'reason']);
  const waited = metrics.histogram('apiserver_flowcontrol_request_wait_duration_seconds', 'Length of time a request spent waiting in its queue',
    [...both, 'execute'], [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30]);
  const ran = metrics.histogram('apiserver_flowcontrol_request_execution_seconds', 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
    [...both, 'type'], [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30]);
  const queueLength = metrics.histogram('apiserver_flowcontrol_request_queue_length_after_enqueue', 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
    both, [0, 10, 25, 50, 100, 250, 500, 1000]);
  const seatsEstimated = metrics.histogram('apiserver_flowcontrol_work_estimated_seats', 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
    both, [1, 2, 4, 10]);
  // running requests by flow schema and level, counted here as they come and go (waiting ones are read from the queues)
  const key = (l: Record<string, string>) => `${l.flow_schema}\0${l.priority_level}`;
  const executing = new Map<string, number>(), executingSeats = new Map<string, number>();
  const add = (map: Map<string, number>, k: string, by: number) => { const n = (map.get(k) ?? 0) + by; if (n) map.set(k, n); else map.delete(k); };
  const series = (map: Map<string, number>): Array<[Record<string, string>, number]> =>
    [...map].map(([k, v]) => { const [flow_schema, priority_level] = k.split('\0'); return [{ flow_schema, priority_level }, v]; });
  metrics.collected('apiserver_flowcontrol_current_inqueue_requests', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', both, () =>
    series(fc.waiting().reduce((map, w) => { add(map, key({ flow_schema: w.detail.flowSchema, priority_level: w.level }), 1); return map; }, new Map<string, number>())));
  metrics.collected('apiserver_flowcontrol_current_executing_requests', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', both, () => series(executing));
  metrics.collected('apiserver_flowcontrol_current_executing_seats', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', both, () => series(executingSeats));
  const perLevel = (name: string, help: string, value: (l: LevelState) => number) =>
    metrics.collected(name, help, ['priority_level'], () => fc.levels().filter(l => !l.exempt).map(l => [{ priority_level: l.name }, value(l)]));
  perLevel('apiserver_flowcontrol_nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', l => l.nominalLimit);
  perLevel('apiserver_flowcontrol_lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', l => l.lowerLimit);
  perLevel('apiserver_flowcontrol_upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', l => (Number.isFinite(l.upperLimit) ? l.upperLimit : -1));
  perLevel('apiserver_flowcontrol_current_limit_seats', 'current derived number of execution seats available to each priority level', l => l.concurrencyLimit);
  perLevel('apiserver_flowcontrol_request_concurrency_limit', 'Shared concurrency limit in the API Priority and Fairness subsystem', l => l.concurrencyLimit);
  perLevel('apiserver_flowcontrol_demand_seats_high_watermark', 'High watermark, over last adjustment period, of demand_seats', l => l.demand.highWatermark);
  perLevel('apiserver_flowcontrol_demand_seats_average', 'Time-weighted average, over last adjustment period, of demand_seats', l => l.demand.average);
  perLevel('apiserver_flowcontrol_demand_seats_smoothed', 'Smoothed seat demands', l => l.demand.smoothed);
  perLevel('apiserver_flowcontrol_target_seats', 'Seat allocation targets', l => l.demand.target);
  perLevel('apiserver_flowcontrol_current_r', 'R(time of last change)', l => l.virtualNow);
  metrics.collected('apiserver_flowcontrol_seat_fair_frac', 'Fair fraction of server\'s concurrency to allocate to each priority level that can use it', [],
    () => [[{}, Number.isFinite(fc.fairFraction()) ? fc.fairFraction() : 0]]);
  return {
    decided(labels: Record<string, string>, d: Decision, waitedSeconds: number) {
      waited(extend(labels, { execute: String(d.outcome.admitted) }), waitedSeconds);
      if (d.outcome.queueLength !== undefined) queueLength(labels, d.outcome.queueLength);
      if (d.outcome.admitted) dispatched(labels); else rejected(extend(labels, { reason: d.outcome.reason }));
    },
    /** a request that starts running; returns what to call when it ends */
    started(labels: Record<string, string>, seats: number) {
      const k = key(labels), startedAt = performance.now();
      add(executing, k, 1); add(executingSeats, k, seats);
      seatsEstimated(labels, seats);
      return (type: string) => {
        add(executing, k, -1); add(executingSeats, k, -seats);
        ran(extend(labels, { type }), (performance.now() - startedAt) / 1000);
      };
    },
  };
}

function authorization(authorizer: Authorizer, domain: string): Filter {
  return async (ctx, next) => {
    const a = attributesOf(ctx, ctx.user!);
    let d;
    try { d = await authorizer.authorize(a); } catch (e) { throw internalError(`authorization failed: ${(e as Error).message}`); }
    // no authorizer allowed it and one could not decide (its webhook failed): the reference's 500, for the client to retry
    if (d.decision !== 'Allow' && d.error) {
      ctx.audit?.annotate(`authorization.${domain}/reason`, 'internal error');
      throw internalError(d.error);
    }
    ctx.audit?.annotate(`authorization.${domain}/decision`, d.decision === 'Allow' ? 'allow' : 'forbid');
    ctx.audit?.annotate(`authorization.${domain}/reason`, d.reason ?? '');
    if (d.decision === 'Allow') return next();
    const who = `User "${a.user.username}"`;
    const what = a.isResourceRequest
      ? `${a.resource}${a.apiGroup ? `.${a.apiGroup}` : ''}${a.name ? ` "${a.name}"` : ''} is forbidden: ${who} cannot ${a.verb} resource "${a.resource}${a.subresource ? `/${a.subresource}` : ''}" in API group "${a.apiGroup}" ${a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope'}`
      : `forbidden: ${who} cannot ${a.verb} path "${a.path}"`;
    throw forbidden(`${what}${d.reason ? `: ${d.reason}` : ''}`, a.isResourceRequest ? { name: a.name || undefined, group: a.apiGroup || undefined, kind: a.resource } : {});
  };
}

// Headers for browsers, by the reference's flags: HSTS on every answer (--strict-transport-security-directives), and
// CORS for the origins --cors-allowed-origins allows (RE2 patterns, as the reference's Go patterns), a preflight
// OPTIONS from one of them answered 204 before authentication.
function hsts(header: string): Filter {
  return async (ctx, next) => {
    ctx.res.setHeader('Strict-Transport-Security', header);
    await next();
  };
}

const corsHeaders = {
  'Access-Control-Allow-Methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
  'Access-Control-Allow-Headers': 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
  'Access-Control-Expose-Headers': 'Date',
  'Access-Control-Allow-Credentials': 'true',
};

function cors(originPatterns: readonly string[]): Filter {
  const patterns = originPatterns.map(p => re2(p));
  return async (ctx, next) => {
    const origin = ctx.req.headers.origin;
    if (typeof origin === 'string' && origin && patterns.some(p => p.matcher(origin).find())) {
      ctx.res.setHeader('Access-Control-Allow-Origin', origin);
      for (const [name, value] of Object.entries(corsHeaders)) ctx.res.setHeader(name, value);
      if (ctx.method === 'OPTIONS') {
        ctx.res.writeHead(204);
        ctx.res.end();
        return;
      }
    }
    await next();
  };
}
