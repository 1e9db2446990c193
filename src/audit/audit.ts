// Auditing: every request the policy records gets an event at each of its stages (RequestReceived; for
// long-running requests ResponseStarted when the response begins; ResponseComplete; Panic when the server
// failed unexpectedly), with the user, the request line, the outcome and the annotations authorization and
// admission add, and, at the Request and RequestResponse levels, the request and response bodies. Events go
// to the log and webhook backends in their modes: in batch mode through a bounded buffer a request never waits
// for; in blocking mode the request waits until they are written, and under blocking-strict a first event
// (RequestReceived) that cannot be written fails the request.
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { RequestContext } from '../api/request.js';
import type { AuditLevel, AuditRecord } from '../api/audit.js';
import { levelCovers } from '../api/audit.js';
import type { Naming } from '../api/naming.js';
import type { UserInfo } from '../api/auth.js';
import { microTime, preciseNow, type Status } from '../api/meta.js';
import type { MetricsRegistry } from '../metrics/metrics.js';
import { openWebhookClient } from '../util/webhook-client.js';
import { decide, loadPolicy, type AuditPolicy, type Decision, type Stage } from './policy.js';
import { ensureLogFile, logBackend, truncating, unionBackend, webhookBackend, type AuditEvent, type Backend, type BatchOptions, type LogOptions,
  type TruncateOptions } from './backends.js';
import { internalError } from '../api/status.js';
import { loadedProtobufCodec } from '../api/protobuf/load.js';

/** how events reach one backend: its mode and, in batch mode, its buffer and batches */
export type AuditBatchOptions = Omit<BatchOptions, 'send' | 'onError'> & { truncate?: Omit<TruncateOptions, 'annotation'> };

export interface AuditOptions {
  policyFile?: string;
  log?: LogOptions & { batch: AuditBatchOptions };
  webhook?: { configFile: string; initialBackoffMs: number; batch: AuditBatchOptions };
}

export type AuditFilter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

export interface Auditor {
  /** before authentication: a request refused for its credentials is recorded too */
  failedAuthentication: AuditFilter;
  /** after authentication: every request the policy records */
  requests: AuditFilter;
  /** sends what the backends still hold */
  stop(): Promise<void>;
}


const userOf = (u: UserInfo | undefined) => (u ? {
  username: u.username, ...(u.uid ? { uid: u.uid } : {}), ...(u.groups?.length ? { groups: u.groups } : {}),
  ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
} : {});

/**
 * the client's addresses as the reference lists them: the addresses of X-Forwarded-For (what is not an address is
 * left out), X-Real-Ip unless already there, then the connection's unless it is the last one already
 */
function sourceIPs(ctx: RequestContext): string[] {
  const ips = String(ctx.headers['x-forwarded-for'] ?? '').split(',').map(s => s.trim()).filter(s => isIP(s));
  const real = String(ctx.headers['x-real-ip'] ?? '').trim();
  if (isIP(real) && !ips.includes(real)) ips.push(real);
  const remote = (ctx.req.socket?.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (remote && ips[ips.length - 1] !== remote) ips.push(remote);
  return ips;
}

/** the credentials a request refused as unauthenticated presented, as the reference names them in its event */
function attemptedAuthentication(ctx: RequestContext): string {
  const methods: string[] = [];
  const [scheme, ...rest] = String(ctx.headers.authorization ?? '').trim().split(' ');
  if (scheme.toLowerCase() === 'basic' && rest.length && Buffer.from(rest.join(' ').trim(), 'base64').toString('utf8').includes(':')) methods.push('basic');
  if (scheme.toLowerCase() === 'bearer' && rest.length) methods.push('bearer');
  if (ctx.query.get('access_token')?.trim()) methods.push('access_token');
  const socket = ((ctx.req as { stream?: { session?: { socket?: TLSSocket } } }).stream?.session?.socket ?? ctx.req.socket) as TLSSocket | undefined;
  const cert = typeof socket?.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
  if (cert && Object.keys(cert).length) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

function withoutManagedFields(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const o = v as { metadata?: { managedFields?: unknown }; items?: unknown[] };
  let out = o;
  if (o.metadata && typeof o.metadata === 'object' && 'managedFields' in o.metadata) {
    const { managedFields: _m, ...metadata } = o.metadata;
    out = { ...o, metadata };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(withoutManagedFields) };
  // a Table (what kubectl get asks for) carries each row's object
  const rows = (o as { rows?: Array<{ object?: unknown }> }).rows;
  if (Array.isArray(rows)) out = { ...out, rows: rows.map(r => (r && typeof r === 'object' && r.object ? { ...r, object: withoutManagedFields(r.object) } : r)) } as typeof out;
  return out;
}

/** the reference keeps at most 1024 characters of a user agent */
const userAgentOf = (ua: string) => (ua.length > 1024 ? `${ua.slice(0, 1024)}...TRUNCATED` : ua);

/** the fields of a Status an event records (not its kind, apiVersion or list metadata), as the reference copies them */
const recordedStatus = (s: Partial<Status>): Partial<Status> => {
  const { status, message, reason, details, code } = s;
  return Object.fromEntries(Object.entries({ status, message, reason, details, code }).filter(([, v]) => v !== undefined && v !== ''));
};

/** a protobuf body in its JSON form, as the reference records every object (the codec is loaded: a protobuf answer was written) */
function fromProtobuf(body: string | Buffer, names: Naming): { kind?: string } | undefined {
  const codec = loadedProtobufCodec();
  if (!codec) return undefined;
  try {
    const env = codec.decodeEnvelope(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), names);
    return codec.protobufToJson(env.raw, env.apiVersion, env.kind);
  } catch {
    return undefined;
  }
}

const statusBody = /^\{\s*"kind":\s*"Status"/;
const isJson = (contentType: string) => contentType === '' || contentType === 'application/json' || contentType.endsWith('+json');
const parsed = (body: string | Buffer): unknown => {
  try { return JSON.parse(body.toString()); } catch { return undefined; }
};

export interface AuditorDeps {
  names: Naming;
  metrics: MetricsRegistry;
  log: { warn(m: string): void };
  /** the Status the client gets for an error the server expects (a bad selector or patch, a conflict), undefined for a failure */
  knownError?(e: unknown): { status: Status } | undefined;
}

export function createAuditor(o: AuditOptions, deps: AuditorDeps): Auditor | undefined {
  const { names, metrics, log } = deps;
  if (!o.policyFile) {
    if (o.log || o.webhook) log.warn('audit backends are configured but --audit-policy-file is not: nothing will be recorded');
    return undefined;
  }
  const policy: AuditPolicy = loadPolicy(o.policyFile, names);
  const eventTotal = metrics.counter('apiserver_audit_event_total', 'Counter of audit events generated and sent to the audit backend.', []);
  const errorTotal = metrics.counter('apiserver_audit_error_total', 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.', ['plugin']);
  const levelTotal = metrics.counter('apiserver_audit_level_total', 'Counter of policy levels for audit events (1 per request).', ['level']);
  const rejectedTotal = metrics.counter('apiserver_audit_requests_rejected_total', 'Counter of apiserver requests rejected due to an error in audit logging backend.', []);
  const backends: Backend[] = [];
  const failures = (plugin: string) => {
    let warned = 0;
    return (count: number, why: string) => {
      if (count) errorTotal({ plugin }, count);
      // a sink that keeps failing is reported now and then, not for every event
      if (Date.now() - warned > 10_000) { warned = Date.now(); log.warn(`audit ${plugin} backend: ${count ? `${count} events lost: ` : ''}${why}`); }
    };
  };
  /** the backend behind the truncation its flags ask for, which comes first, as in the reference */
  const sized = (b: Backend, batch: AuditBatchOptions) => (batch.truncate
    ? truncating(b, { ...batch.truncate, annotation: `${names.group('audit')}/truncated` }, failures('truncate')) : b);
  if (o.log) ensureLogFile(o.log.path);
  if (o.log) backends.push(sized(logBackend(o.log, o.log.batch, failures('log')), o.log.batch));
  if (o.webhook) {
    let client;
    try { client = openWebhookClient(o.webhook.configFile); } catch (e) { throw new Error(`--audit-webhook-config-file: ${(e as Error).message}`); }
    backends.push(sized(webhookBackend(client, { batch: o.webhook.batch, initialBackoffMs: o.webhook.initialBackoffMs, apiVersion: `${names.group('audit')}/v1` },
      failures('webhook')), o.webhook.batch));
  }
  if (!backends.length) {
    log.warn('--audit-policy-file is set but no audit backend is: give --audit-log-path or --audit-webhook-config-file');
    return undefined;
  }
  const backend = unionBackend(backends);
  const apiVersion = `${names.group('audit')}/v1`;

  /** hands the event over; the promise of a blocking backend settles once it is written (a strict one's rejects when it was not) */
  function emit(event: AuditEvent, stage: Stage, d: Decision): void | Promise<void> {
    if (d.omitStages.includes(stage)) return undefined;
    eventTotal({});
    return backend.process([{ ...event, stage, stageTimestamp: microTime(preciseNow()) }]);
  }
  /** a later stage's event: waited for in blocking mode, but it can no longer fail the request */
  const settle = (p: void | Promise<void>) => p?.catch(() => {});

  /** the event's fixed part, made once a request is known to be recorded */
  function baseEvent(ctx: RequestContext, level: AuditLevel, user: UserInfo | undefined, receivedAt: number): AuditEvent {
    const i = ctx.info;
    return {
      kind: 'Event', apiVersion, level, auditID: ctx.id, requestURI: ctx.req.url ?? ctx.path, verb: i.verb,
      user: userOf(user), sourceIPs: sourceIPs(ctx),
      ...(ctx.headers['user-agent'] ? { userAgent: userAgentOf(String(ctx.headers['user-agent'])) } : {}),
      ...(i.isResourceRequest ? {
        objectRef: {
          resource: i.resource, ...(i.namespace ? { namespace: i.namespace } : {}), ...(i.name ? { name: i.name } : {}),
          apiGroup: i.apiGroup, apiVersion: i.apiVersion, ...(i.subresource ? { subresource: i.subresource } : {}),
        },
      } : {}),
      requestReceivedTimestamp: microTime(receivedAt),
    };
  }

  /** the Status an error is answered with; undefined for an unexpected failure (recorded at Panic) */
  const knownStatus = (e: unknown): Status | undefined =>
    (e instanceof Error && e.name === 'ApiError' ? (e as { status?: Status }).status : deps.knownError?.(e)?.status);
  const statusOf = (e: unknown): Partial<Status> => {
    const s = knownStatus(e);
    if (s) return recordedStatus({ ...s, status: 'Failure' });
    return { status: 'Failure', message: 'Internal Server Error', reason: 'InternalError', code: 500 };
  };

  const requests: AuditFilter = async (ctx, next) => {
    const d = decide(policy, {
      user: ctx.user, verb: ctx.info.verb, isResourceRequest: ctx.info.isResourceRequest, path: ctx.path, apiGroup: ctx.info.apiGroup,
      namespace: ctx.info.namespace, resource: ctx.info.resource, subresource: ctx.info.subresource, name: ctx.info.name,
    });
    levelTotal({ level: d.level });
    if (d.level === 'None') return next();
    const authenticated = ctx.user;
    // received when it arrived, before authentication, as the reference stamps it
    const event = baseEvent(ctx, d.level, authenticated, ctx.receivedAt ?? preciseNow());
    const annotations: Record<string, string> = { ...ctx.earlyAuditAnnotations };
    let requestObject: unknown, responseObject: unknown, responseStatus: Partial<Status> | undefined;
    const keep = (v: unknown) => (d.omitManagedFields ? withoutManagedFields(v) : v);
    const record: AuditRecord = {
      level: d.level,
      annotate(key, value, level = 'Metadata') {
        if (levelCovers(d.level, level) && !(key in annotations)) annotations[key] = value;
      },
      requestBody(body, contentType) {
        // a server-side apply patch is YAML by its type but JSON as kubectl and the client libraries send it: recorded
        // then, as the reference records it (a patch in YAML proper is left out)
        if (levelCovers(d.level, 'Request') && requestObject === undefined && (isJson(contentType) || contentType === 'application/apply-patch+yaml'))
          requestObject = keep(parsed(body));
      },
      requestObject(obj) {
        // a body that was not JSON (protobuf, YAML) is recorded as decoded, in the JSON form the reference records
        if (levelCovers(d.level, 'Request') && requestObject === undefined) requestObject = keep(structuredClone(obj));
        const meta = obj.metadata;
        if (!event.objectRef || !meta) return;
        // a new reference: events of earlier stages may still wait in a batch
        const ref: Record<string, string> = { ...event.objectRef as Record<string, string> };
        for (const key of ['namespace', 'name', 'uid', 'resourceVersion'] as const) if (!ref[key] && meta[key]) ref[key] = meta[key];
        event.objectRef = ref;
      },
      switchedProtocols() {
        responseStatus ??= { code: 101 };
        void settle(responseStarted());
      },
      responseBody(body, contentType) {
        if (contentType === names.protobufMediaType) {
          if (!levelCovers(d.level, 'RequestResponse')) return;
          const obj = fromProtobuf(body, names);
          if (obj?.kind === 'Status') responseStatus = recordedStatus(obj as Status);
          responseObject = keep(obj);
          return;
        }
        if (!isJson(contentType)) return;
        // below RequestResponse only a Status body is read, for the outcome's message
        const whole = levelCovers(d.level, 'RequestResponse');
        const obj = whole || statusBody.test(typeof body === 'string' ? body.slice(0, 40) : body.subarray(0, 40).toString()) ? parsed(body) as { kind?: string } | undefined : undefined;
        if (obj?.kind === 'Status') responseStatus = recordedStatus(obj as Status);
        if (levelCovers(d.level, 'RequestResponse')) responseObject = keep(obj);
      },
    };
    ctx.audit = record;
    /** a long-running request's ResponseStarted, once */
    let started = !ctx.longRunning;
    const responseStarted = () => {
      if (started) return undefined;
      started = true;
      return emit(current(), 'ResponseStarted', d);
    };
    /** what the event says at a stage: the user it acted as, the outcome and the bodies so far */
    const current = (): AuditEvent => ({
      ...event,
      ...(ctx.user !== authenticated ? { impersonatedUser: userOf(ctx.user) } : {}),
      ...(responseStatus ? { responseStatus: { metadata: {}, ...responseStatus } } : {}),
      ...(requestObject !== undefined ? { requestObject } : {}),
      ...(responseObject !== undefined ? { responseObject } : {}),
      ...(Object.keys(annotations).length ? { annotations: { ...annotations } } : {}),
    });
    try {
      await emit(current(), 'RequestReceived', d);
    } catch {
      rejectedTotal({});
      throw internalError('failed to store audit event');
    }
    if (ctx.longRunning) {
      // the listener has no event for a response's start: its writeHead is watched instead
      const res = ctx.res, writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
        res.writeHead = writeHead;
        const out = writeHead.apply(this, args);
        responseStatus ??= { code: res.statusCode };
        void settle(responseStarted());
        return out;
      } as typeof writeHead;
    }
    try {
      await next();
      responseStatus ??= { code: ctx.res.statusCode };
      await settle(emit(current(), 'ResponseComplete', d));
    } catch (e) {
      responseStatus = statusOf(e);
      const unexpected = !knownStatus(e);
      // a refusal's answer is written once this filter has passed it on: its start is recorded before its end, in the
      // order the reference records them (a failure is recorded at Panic alone)
      if (!unexpected) await settle(responseStarted());
      await settle(emit(current(), unexpected ? 'Panic' : 'ResponseComplete', d));
      throw e;
    }
  };

  const failedAuthentication: AuditFilter = async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      // a refusal after authentication was recorded by the request filter; this is one before it
      if (ctx.user || (e as { code?: number }).code !== 401) throw e;
      const d = decide(policy, {
        verb: ctx.info.verb, isResourceRequest: ctx.info.isResourceRequest, path: ctx.path, apiGroup: ctx.info.apiGroup,
        namespace: ctx.info.namespace, resource: ctx.info.resource, subresource: ctx.info.subresource, name: ctx.info.name,
      });
      // the reference records which credentials were tried, not the answer's Status
      if (d.level !== 'None') await settle(emit({ ...baseEvent(ctx, d.level, undefined, ctx.receivedAt ?? preciseNow()), responseStatus: { metadata: {}, message: attemptedAuthentication(ctx), code: 401 } }, 'ResponseStarted', d));
      throw e;
    }
  };

  return { requests, failedAuthentication, stop: () => backend.shutdown(5000) };
}
