// Assembles the API server from its options: storage, watch cache, installed resources, admission,
// the pipeline, health, discovery and HTTPS (HTTP/2 and HTTP/1.1 on one port).
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from 'node:http2';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { naming, type Naming } from '../api/naming.js';
import type { ApiServerOptions } from '../config/apiserver-options.js';
import { writeAdminClientConfig } from '../config/client-config.js';
import { ensurePki } from '../pki/pki.js';
import { openStorage } from '../storage/open.js';
import { startCompactor } from '../storage/compactor.js';
import type { KV } from '../storage/types.js';
import { createWatchHub, type WatchHub } from '../watch/cache.js';
import { createApiResources, fullGroup, type ApiResources } from '../registry/resources.js';
import { builtinResources } from '../registry/catalog/index.js';
import { checkRuntimeConfig } from '../config/runtime-config.js';
import { decodeObject, noAdmission } from '../registry/store.js';
import { selectPlugins } from '../admission/registry.js';
import { webhookSource } from '../admission/webhook/source.js';
import type { Listers, Writers } from '../admission/types.js';
import { loadAdmissionConfig } from '../admission/config.js';
import { setupAuth } from '../authn/setup.js';
import { resourceEndpoints } from '../endpoints/install.js';
import { discoveryEndpoints } from '../discovery/discovery.js';
import { healthEndpoints, type HealthCheck } from '../health/checks.js';
import { openapiEndpoints } from '../openapi/openapi.js';
import { asResponse, type RequestContext } from './context.js';
import { compose, pipeline } from './pipeline.js';
import { sendError, sendObject, sendText } from './respond.js';
import { pathNotFound } from './status.js';
import { versionInfo } from './version.js';
import { loadYaml } from '../util/yaml.js';
import { loadProtobufCodec, mentionsProtobuf } from '../api/protobuf/load.js';
import { createMetrics, metricVerb, requestDurationBuckets } from '../metrics/metrics.js';
import { startCrdController } from '../controllers/crd.js';
import { startEmbeddedControllerManager } from '../main/embedded-controller-manager.js';
import { startEmbeddedScheduler } from '../main/embedded-scheduler.js';

export interface ApiServer {
  url: string;
  port: number;
  names: Naming;
  kv: KV;
  resources: ApiResources;
  adminKubeconfigPath?: string;
  caCertPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  /** graceful stop: readyz fails, the delay passes, in-flight requests finish, watches end */
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

export interface Logger { info(msg: string): void; warn(msg: string): void; error(msg: string): void }

/** settings with no flag of their own, changed only by tests */
export interface ServerTuning {
  /** how often an idle watch that allows bookmarks gets one (default 60 s) */
  bookmarkIntervalMs?: number;
  /** how long a read waits for the watch cache to reach a requested resourceVersion before 504 (default 3 s) */
  freshnessTimeoutMs?: number;
}

const domainKey = '/registry/_meta/api-domain';

/** the API domain is fixed when the store is first used; another one later is refused */
async function checkDomain(kv: KV, names: Naming) {
  const { kv: stored } = await kv.get(domainKey);
  if (!stored) {
    try { await kv.create(domainKey, Buffer.from(JSON.stringify({ domain: names.domain }))); } catch { /* created concurrently */ }
    return checkDomain(kv, names);
  }
  const domain = JSON.parse(Buffer.from(stored.value).toString('utf8')).domain;
  if (domain !== names.domain)
    throw new Error(`this store was created with --api-domain=${domain}; start with --api-domain=${domain}, or use a new data directory or store`);
}

export async function startApiServer(options: ApiServerOptions, log: Logger, tuning: ServerTuning = {}): Promise<ApiServer> {
  const startedAt = Date.now();
  const names = naming(options.apiDomain);
  const specs = selectPlugins(options.enableAdmissionPlugins, options.disableAdmissionPlugins);

  // keys are /registry/...; --etcd-prefix other than the default puts them under a root of its own
  const kv = await openStorage({
    backend: options.storageBackend, dataDir: options.dataDir, etcdServers: options.etcdServers,
    etcdPrefix: options.etcdPrefix === '/registry' ? '' : options.etcdPrefix,
  });
  const cleanup: Array<() => unknown> = [() => kv.close()];
  try {
    await checkDomain(kv, names);
    const hub: WatchHub = createWatchHub(kv, '/registry/', { decode: decodeObject });
    await hub.start();
    cleanup.unshift(() => hub.stop());

    // --runtime-config switches built-in versions (alpha off unless enabled); custom resources serve what their definition says
    const builtins = new Set(builtinResources);
    const resources = createApiResources(names, (group, version, resource, def) =>
      !builtins.has(def) || options.runtimeConfig.isEnabled(group, version, resource, !/alpha/.test(version)));
    checkRuntimeConfig(options.runtimeConfig, builtinResources.flatMap(def =>
      def.versions.map(v => ({ group: fullGroup(def, names), version: v.name, resources: [def.resource] }))));
    for (const def of builtinResources) resources.add(def);

    const metrics = createMetrics();
    const deprecatedApis = metrics.gauge('apiserver_requested_deprecated_apis',
      'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.');
    let endpoints: ReturnType<typeof resourceEndpoints>;
    const listers: Listers = {
      async get(group, resource, namespace, name) {
        const info = resources.preferred(group, resource);
        if (!info) return undefined;
        try { return await endpoints.backendFor(info).store.get(namespace, name); } catch { return undefined; }
      },
      async list(group, resource, namespace) {
        const info = resources.preferred(group, resource);
        if (!info) return [];
        const { items } = await endpoints.backendFor(info).reads.list({ namespace, selective: false, resourceVersion: '0' });
        return items.map(i => i.obj);
      },
    };
    const writers: Writers = {
      async create(group, resource, namespace, obj) {
        const info = resources.preferred(group, resource);
        if (!info) throw new Error(`no resource ${resource} in group "${group}"`);
        return endpoints.backendFor(info).store.create(namespace, obj, noAdmission, { dryRun: false });
      },
      async updateStatus(group, resource, namespace, name, change) {
        const info = resources.preferred(group, resource);
        if (!info) throw new Error(`no resource ${resource} in group "${group}"`);
        await endpoints.backendFor(info).store.guaranteedUpdate(namespace, name, 'status',
          cur => (cur && change(cur)) ?? cur!, noAdmission, { dryRun: false });
      },
    };
    const admissionConfig = await loadAdmissionConfig(options.admissionControlConfigFile ?? '', names);
    const auth = await setupAuth(options, { names, hub, resources, listers, log });
    cleanup.unshift(() => auth.stop());
    const { authenticate, authorizer } = auth;
    const webhooks = webhookSource(hub, resources, names);
    const plugins = [...specs.map(s => s.create({ listers, names, authorizer, writers, config: admissionConfig.get(s.name), webhooks })), ...auth.admissionPlugins];
    endpoints = resourceEndpoints({
      resources, names, plugins,
      deps: { kv, names, hub, freshnessTimeoutMs: tuning.freshnessTimeoutMs ?? 3000,
        serviceClusterIpRanges: options.serviceClusterIpRanges, serviceNodePortRange: options.serviceNodePortRange },
      bookmarkIntervalMs: tuning.bookmarkIntervalMs ?? 60_000,
      reviews: {
        authorizer, authenticate, apiAudiences: auth.apiAudiences,
        tokenRequest: { tokens: auth.tokens, maxExpirationMs: options.authentication.serviceAccountMaxTokenExpirationMs, get: (r, ns, n) => listers.get('', r, ns, n) },
      },
      deprecatedApiRequested: (info, subresource) => deprecatedApis({
        group: info.group, version: info.version, resource: info.resource, subresource, removed_release: info.versionDef.removedIn ?? '',
      }, 1),
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    });

    // the namespaces that exist from the first start
    const nsInfo = resources.lookup('', 'v1', 'namespaces')!;
    const nsStore = endpoints.backendFor(nsInfo).store;
    for (const name of names.initialNamespaces) {
      try { await nsStore.get('', name); } catch {
        await nsStore.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, noAdmission, { dryRun: false })
          .catch(e => { if ((e as { code?: number }).code !== 409) throw e; });
      }
    }
    await auth.start(info => endpoints.backendFor(info));
    const crds = startCrdController({ resources, names, hub, backendFor: info => endpoints.backendFor(info) }, log);
    cleanup.unshift(() => crds.stop());
    await crds.ready;   // custom resources stored before a restart are served from the first request
    if (options.etcdCompactionIntervalMs > 0) {
      const compactor = startCompactor(kv, { intervalMs: options.etcdCompactionIntervalMs });
      cleanup.unshift(() => compactor.stop());
    }

    // certificates and the HTTPS listener
    const hosts = [...options.tlsSans, ...(options.advertiseAddress ? [options.advertiseAddress] : []),
      ...(options.externalHostname ? [options.externalHostname] : []),
      ...(options.bindAddress && options.bindAddress !== '0.0.0.0' && options.bindAddress !== '::' ? [options.bindAddress] : [])];
    const pki = await ensurePki(options.certDir, { hosts });
    if (pki.written?.length) log.info(`generated ${pki.written.join(', ')} in ${options.certDir}`);
    const serverCert = options.tlsCertFile ? readFileSync(options.tlsCertFile, 'utf8') : pki.serverCertPem;
    const serverKey = options.tlsPrivateKeyFile ? readFileSync(options.tlsPrivateKeyFile, 'utf8') : pki.serverKeyPem;
    const clientCAs = [pki.caCertPem, ...(options.clientCaFile ? [readFileSync(options.clientCaFile, 'utf8')] : []), ...auth.extraClientCAs];

    let shuttingDown = false;
    let address = '';
    const storageCheck: HealthCheck = { name: kv.name, check: () => kv.check() };
    const ping: HealthCheck = { name: 'ping', check: () => {} };
    const logCheck: HealthCheck = { name: 'log', check: () => {} };
    const hooks: HealthCheck[] = ['poststarthook/bootstrap-namespaces', 'poststarthook/start-watch-cache']
      .map(name => ({ name, check: () => {} }));
    const health = healthEndpoints({
      healthz: [ping, logCheck, storageCheck, ...hooks],
      livez: [ping, logCheck, storageCheck, ...hooks],
      readyz: [ping, logCheck, storageCheck, ...hooks,
        { name: 'shutdown', check: () => { if (shuttingDown) throw new Error('process is shutting down'); } }],
      livezGracePeriodMs: options.livezGracePeriodMs, startedAt,
    });
    const discovery = discoveryEndpoints(resources, names, () => address);
    const openapi = openapiEndpoints(resources, names);
    const version = versionInfo();

    const mux = async (ctx: RequestContext) => {
      if (/yaml/.test(`${ctx.headers.accept ?? ''} ${ctx.headers['content-type'] ?? ''}`)) await loadYaml();
      if (mentionsProtobuf(ctx.headers, names.protobufMediaType)) await loadProtobufCodec();
      if (await health.handle(ctx)) return;
      if (ctx.path === '/version' || ctx.path === '/version/') return sendObject(ctx, 200, version);
      if (ctx.path === '/metrics') return sendText(ctx, 200, metrics.render(), 'text/plain; version=0.0.4; charset=utf-8');
      if (await openapi.handle(ctx)) return;
      if (ctx.info.isResourceRequest) return endpoints.handle(ctx);
      if (discovery.handle(ctx)) return;
      throw pathNotFound(ctx.path);
    };
    const chain = compose(pipeline({
      names, authenticate, authorizer, requestTimeoutMs: options.requestTimeoutMs,
      maxRequestsInflight: options.maxRequestsInflight, maxMutatingRequestsInflight: options.maxMutatingRequestsInflight,
    }), mux);

    const requestTotal = metrics.counter('apiserver_request_total',
      'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    const requestDuration = metrics.histogram('apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', requestDurationBuckets);
    const record = (ctx: RequestContext, startedAt: number) => {
      const i = ctx.info;
      const labels = {
        verb: metricVerb(i.verb, ctx.method), dry_run: ctx.query.has('dryRun') ? 'All' : '', group: i.apiGroup, version: i.apiVersion,
        resource: i.resource, subresource: i.subresource, scope: !i.isResourceRequest ? '' : i.namespace ? 'namespace' : i.name ? 'resource' : 'cluster',
        component: 'apiserver',
      };
      requestTotal({ ...labels, code: String(ctx.res.statusCode) });
      if (!ctx.longRunning) requestDuration(labels, (performance.now() - startedAt) / 1000);
    };
    const inflight = new Set<RequestContext>();
    const onRequest = (req: Http2ServerRequest, rawRes: Http2ServerResponse) => {
      const res = asResponse(rawRes);
      const target = req.url ?? '/';
      const qmark = target.indexOf('?');
      const url = { pathname: qmark < 0 ? target : target.slice(0, qmark), searchParams: new URLSearchParams(qmark < 0 ? '' : target.slice(qmark + 1)) };
      let aborter: AbortController | undefined;
      let signal: AbortSignal | undefined;
      const ctx: RequestContext = {
        get signal() {
          if (!signal) {
            aborter = new AbortController();
            signal = ctx.deadline ? AbortSignal.any([aborter.signal, AbortSignal.timeout(Math.max(0, ctx.deadline - Date.now()))]) : aborter.signal;
          }
          return signal;
        },
        id: randomUUID(), req, res, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers,
        info: { isResourceRequest: false, path: url.pathname, verb: '', apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [] },
        warnings: [], longRunning: false,
      };
      const startedAt = performance.now();
      res.on('close', () => aborter?.abort());
      res.once('finish', () => record(ctx, startedAt));
      inflight.add(ctx);
      chain(ctx).catch(e => {
        if ((e as { code?: number }).code === undefined && !(e instanceof Error && e.name === 'ApiError'))
          log.error(`${ctx.method} ${ctx.path}: ${(e as Error)?.stack ?? e}`);
        sendError(ctx, e, names);
      }).finally(() => inflight.delete(ctx));
    };
    const server = createSecureServer({
      allowHTTP1: true, key: serverKey, cert: serverCert, ca: clientCAs, requestCert: true, rejectUnauthorized: false,
      // node agents multiplex many streams on one connection; the default 10 MB per session refuses streams under load
      maxSessionMemory: 64,
    }, onRequest);
    server.on('sessionError', () => {});
    // open connections (clients that keep theirs, such as node agents) are told to go on close, or closing never ends
    const sessions = new Set<ServerHttp2Session>();
    server.on('session', (s: ServerHttp2Session) => { sessions.add(s); s.once('close', () => sessions.delete(s)); });
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.securePort, options.bindAddress, () => { server.off('error', reject); resolve(); });
    });
    cleanup.unshift(() => new Promise<void>(r => {
      server.close(() => r());
      for (const s of sessions) s.close();
      // a session whose peer does not answer the GOAWAY is cut after a moment
      setTimeout(() => { for (const s of sessions) s.destroy(); }, 1000).unref();
    }));
    const port = (server.address() as AddressInfo).port;
    const host = options.bindAddress === '0.0.0.0' || options.bindAddress === '::' || !options.bindAddress ? '127.0.0.1' : options.bindAddress;
    const hostInUrl = host.includes(':') ? `[${host}]` : host;
    address = `${options.advertiseAddress || (host === '127.0.0.1' ? hostname() : host)}:${port}`;
    const url = `https://${hostInUrl}:${port}`;

    // the controller manager and the scheduler, clients of this server over HTTPS
    const loopback = { url, ca: { certPem: pki.caCertPem, keyPem: pki.caKeyPem }, names };
    if (options.controllerManager) {
      const cm = startEmbeddedControllerManager({ ...loopback, options: options.controllerManager, log });
      cleanup.unshift(() => cm.stop());
      await cm.ready.catch(e => log.warn(`controller manager: ${(e as Error).message}`));
    }
    if (options.scheduler) {
      const scheduler = await startEmbeddedScheduler({ ...loopback, options: options.scheduler, log });
      cleanup.unshift(() => scheduler.stop());
      await scheduler.ready.catch(e => log.warn(`scheduler: ${(e as Error).message}`));
    }

    let adminKubeconfigPath: string | undefined;
    if (options.storageBackend !== 'memory' || options.adminKubeconfigPath) {
      adminKubeconfigPath = options.adminKubeconfigPath;
      await writeAdminClientConfig(adminKubeconfigPath, {
        server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem,
        clusterName: names.vendor, userName: 'admin', contextName: 'admin',
      });
    }

    const close = async () => {
      for (const ctx of inflight) if (ctx.longRunning && !ctx.res.writableEnded) ctx.res.end();
      for (const fn of cleanup.splice(0)) await fn();
    };
    return {
      url, port, names, kv, resources, adminKubeconfigPath,
      caCertPem: pki.caCertPem, adminCertPem: pki.adminCertPem, adminKeyPem: pki.adminKeyPem,
      async shutdown() {
        shuttingDown = true;
        if (options.shutdownDelayDurationMs > 0) await new Promise(r => setTimeout(r, options.shutdownDelayDurationMs));
        server.close();
        const deadline = Date.now() + 60_000;
        while ([...inflight].some(c => !c.longRunning) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20));
        await close();
      },
      close,
    };
  } catch (e) {
    for (const fn of cleanup.splice(0)) await Promise.resolve(fn()).catch(() => {});
    throw e;
  }
}

