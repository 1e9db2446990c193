// The composition root of the API server: an ordered list of modules, each started in turn and stopped in
// reverse. Modules before the listener make the server able to answer; the ones after it are the reference's
// post-start hooks, and readyz reports each until it has started. Health checks come from the modules.
import { X509Certificate } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { naming, type Naming } from '../api/naming.js';
import { readFlagFile } from '../util/files.js';
import { checkCompatibilityFiles, type ApiServerOptions } from '../config/apiserver-options.js';
import { writeAdminClientConfig } from '../config/client-config.js';
import { ensureFrontProxyCa, ensurePki, issueClientCertificate, type Pki } from '../pki/pki.js';
import { openStorage } from '../storage/open.js';
import { startCompactor } from '../storage/compactor.js';
import { startEventExpiry } from '../registry/event-expiry.js';
import type { KV } from '../storage/types.js';
import { createObjectStore } from '../storage/objects.js';
import { loadEncryptionConfig, reloadingEncryptionConfig, type EncryptionRules } from '../storage/encryption/config.js';
import { encryptingKV } from '../storage/encryption/kv.js';
import { createWatchCache, type WatchCache } from '../watch/cache.js';
import { createApiResources, fullGroup, type ApiResources } from '../registry/resources.js';
import { createBackends, type Backends } from '../registry/backends.js';
import { webhookSource } from '../registry/resources/admissionregistration/webhook-source.js';
import { flowControlSource, flowControlWriter } from '../registry/resources/flowcontrol/source.js';
import { createFlowControl, dumpPriorityLevels, dumpQueues, dumpRequests, type FlowControl } from '../flowcontrol/controller.js';
import { keepDefaults } from '../flowcontrol/bootstrap.js';
import type { FlowControlSource } from '../api/flowcontrol.js';
import { builtinResources } from '../registry/resources/index.js';
import { noAdmission } from '../registry/store.js';
import { issuerDiscoveryRoute, issuerProblem, jwksPath } from '../endpoints/issuer-discovery.js';
import { systemPriorityClass, systemPriorityClasses } from '../api/priority-classes.js';
import { startCrdController } from '../registry/crd/controller.js';
import { startPolicyTypeChecking } from '../registry/resources/admissionregistration/validatingadmissionpolicies/type-checking.js';
import { startServiceRepair } from '../registry/resources/core/services/allocator.js';
import { checkRuntimeConfig } from '../config/runtime-config.js';
import { admissionPlugins, checkAlwaysDeny, checkWebhookPlugins, selectPlugins } from '../admission/registry.js';
import { loadAdmissionConfig } from '../admission/config.js';
import type { AdmissionPlugin, ResourceCatalog, ServedResource } from '../api/admission.js';
import { loadYaml } from '../util/yaml.js';
import { createAuditor, type Auditor } from '../audit/audit.js';
import { resourceEndpoints } from '../endpoints/install.js';
import { sendText } from '../endpoints/respond.js';
import { knownApiError } from '../endpoints/errors.js';
import type { ComponentHealth, NodeClientConfig } from '../registry/types.js';
import { discoveryEndpoints } from '../discovery/discovery.js';
import { healthEndpoints, type HealthCheck } from '../health/checks.js';
import { openapiEndpoints } from '../openapi/openapi.js';
import { profilingEndpoints } from '../debug/profiling.js';
import { createMetrics, storageDurationBuckets } from '../metrics/metrics.js';
import { createHandler } from '../http/handler.js';
import { checkCanListen, listenHttps, type HttpsServer, type Logger, type SniCertificate } from '../http/server.js';
import { refusalReasonsLogged, setupAuth, type Auth } from './auth.js';
import { inClusterNames, startKubernetesService } from './kubernetes-service.js';
import { startIdentityLease, startIdentityLeaseGc } from './identity-lease.js';
import { ensureTrackingSince } from './legacy-token-tracking.js';
import { loopbackServerName, type Loopback } from './loopback.js';
import { startComponentThread } from './component-thread.js';
import { createAggregation, frontProxy, type Aggregation } from './aggregation.js';
import { instrumentAdmission, instrumentAuthentication, instrumentAuthorizer, instrumentStorage, scrapedGauges } from './server-metrics.js';

/** the debug dumps of priority and fairness, by path */
const flowControlDumps: Record<string, (fc: FlowControl, query: URLSearchParams) => string> = {
  '/debug/api_priority_and_fairness/dump_priority_levels': fc => dumpPriorityLevels(fc),
  '/debug/api_priority_and_fairness/dump_queues': fc => dumpQueues(fc),
  '/debug/api_priority_and_fairness/dump_requests': (fc, q) => dumpRequests(fc, ['1', 'true'].includes(q.get('includeRequestDetails') ?? '')),
};

export type { Logger };

export interface ApiServer {
  /** the URL clients on this machine use (the loopback address when every address is listened on) */
  url: string;
  /** the address listened on, as an URL: `https://0.0.0.0:6443` when every address is */
  listenUrl: string;
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

/** settings with no flag of their own, changed only by tests */
export interface ServerTuning {
  /** how often an idle watch that allows bookmarks gets one (default 60 s) */
  bookmarkIntervalMs?: number;
  /** how long a read waits for the watch cache to reach a requested resourceVersion before 504 (default 3 s) */
  freshnessTimeoutMs?: number;
  /** how often the backends of APIServices are checked (default 30 s; a change of one is checked at once) */
  apiServiceCheckIntervalMs?: number;
  /** how long a deleted CRD waits for instances holding finalizers before its condition says so (default 1 min) */
  crdInstanceWaitMs?: number;
  /** wraps the opened store before anything reads it (the testing kit's fault injection and forks) */
  decorateStorage?: (kv: KV) => KV | Promise<KV>;
  /** how often --encryption-provider-config-automatic-reload checks the file (default 60 s, as the reference) */
  encryptionConfigReloadIntervalMs?: number;
  /** the controller manager and the scheduler run on threads of their own (the program's way: their work then uses
   *  another core); without, in the server's thread (the testing kit's way: quicker to start, less memory) */
  componentThreads?: boolean;
}

/** a part of the server with a life of its own */
export interface Module {
  /** its health check's name; modules without one have no check */
  name?: string;
  start(): Promise<void> | void;
  stop?(): Promise<void> | void;
  /** throws while the module cannot do its work (default: passes once started) */
  check?(): Promise<void> | void;
  /** the check is also a liveness check (a failing one means the process should be restarted) */
  live?: boolean;
}

const domainKey = '/registry/_meta/api-domain';
/** on shutdown, how long the server's own clients have to leave (at least; the shutdown delay when longer) */
const ownClientsLeaveMs = 2000;
/** connections still open this long after the listener stops (clients that keep them after their last answer) are cut */
const connectionsCloseMs = 1000;
const sleep = (ms: number) => new Promise<void>(resolve => { if (ms > 0) setTimeout(resolve, ms); else resolve(); });
/** the promise, or nothing once ms have passed (a bound that holds no process open) */
const within = (p: Promise<unknown>, ms: number) => Promise.race([p, new Promise<void>(resolve => setTimeout(resolve, ms).unref())]);

/** the etcd TLS files read, each once at start */
const etcdTlsPems = (files: ApiServerOptions['etcdTls']) => {
  const read = (flag: string, f: string | undefined) => (f ? readFlagFile(flag, f) : undefined);
  return { caPem: read('--etcd-cafile', files.caFile), certPem: read('--etcd-certfile', files.certFile), keyPem: read('--etcd-keyfile', files.keyFile) };
};

/** the --tls-sni-cert-key certificates read, with their names: those given on the flag before those read from a certificate */
function sniCertificates(keys: ApiServerOptions['tlsSniCertKeys']): SniCertificate[] {
  const read = keys.map(k => {
    const certPem = readFlagFile('--tls-sni-cert-key', k.certFile);
    return { certPem, keyPem: readFlagFile('--tls-sni-cert-key', k.keyFile), names: k.names, own: k.names.length ? [] : certificateNames(certPem, k.certFile) };
  });
  return [...read.filter(r => r.names.length), ...read.filter(r => !r.names.length).map(r => ({ ...r, names: r.own }))]
    .map(({ certPem, keyPem, names }) => ({ certPem, keyPem, names }));
}

/** the DNS names a certificate is for: its subject alternative names, and its common name when that is a host name */
function certificateNames(pem: string, file: string): string[] {
  let cert: X509Certificate;
  try { cert = new X509Certificate(pem); } catch { throw new Error(`--tls-sni-cert-key: ${file} holds no certificate`); }
  const dns = (cert.subjectAltName ?? '').split(', ').filter(n => n.startsWith('DNS:')).map(n => n.slice(4));
  const cn = /^CN=(.*)$/m.exec(cert.subject)?.[1];
  return [...new Set([...(cn && /^(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(cn) && !isIP(cn) ? [cn] : []), ...dns])];
}

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

interface Running { ready: Promise<void>; stop(): Promise<void> }

/** a module that starts a loop and keeps its stop */
const loop = (name: string | undefined, begin: () => { stop(): void | Promise<void>; ready?: Promise<unknown> }): Module => {
  let running: { stop(): void | Promise<void> } | undefined;
  return {
    name,
    async start() { const r = begin(); running = r; await r.ready; },
    stop: () => running?.stop(),
  };
};

/** the served resources as admission asks about them (owner references, policy parameters, schemas) */
function resourceCatalog(resources: ApiResources): ResourceCatalog {
  const served = (i: ReturnType<ApiResources['all']>[number]): ServedResource =>
    ({ group: i.group, version: i.version, resource: i.resource, kind: i.kind, namespaced: i.namespaced, schema: i.schema });
  return {
    byKind: (group, version, kind) => resources.all()
      .filter(i => i.group === group && i.kind === kind && (!version || version === '*' || i.version === version)).map(served),
    get(group, version, resource) {
      const i = resources.lookup(group, version, resource);
      return i && served(i);
    },
  };
}

export async function startApiServer(options: ApiServerOptions, log: Logger, tuning: ServerTuning = {}): Promise<ApiServer> {
  const startedAt = Date.now();
  const names = naming(options.apiDomain);
  const metrics = createMetrics();
  let kv!: KV, watchCache!: WatchCache, pki!: Pki, pkiMade!: Promise<Pki>, auth!: Auth, https!: HttpsServer;
  let auditor: Auditor | undefined;
  let backends!: Backends, plugins!: AdmissionPlugin[], aggregation!: Aggregation;
  let flowControl: FlowControl | undefined, flowControlConfig: FlowControlSource | undefined;
  let shuttingDown = false;
  /** set once the server takes no new requests on its way down */
  let notAcceptingRequests = false;
  let address = '';

  // --runtime-config switches built-in versions (alpha off unless enabled); custom resources serve what their definition says
  const builtins = new Set(builtinResources);

  // encryption at rest: without a configuration the store is not wrapped at all, so nothing is added to any write
  let stopEncryptionReload = () => {};
  const withEncryption = (inner: KV, initial: EncryptionRules | undefined): KV => {
    const path = options.encryptionProviderConfig;
    if (!path || !initial) return inner;
    let current = (): EncryptionRules => initial;
    if (options.encryptionProviderConfigAutomaticReload) {
      const reloading = reloadingEncryptionConfig(path, names, initial, {
        intervalMs: tuning.encryptionConfigReloadIntervalMs ?? 60_000,
        onReload: err => (err ? log.error(err.message) : log.info(`encryption provider configuration ${path} reloaded`)),
      });
      current = reloading.current;
      stopEncryptionReload = reloading.stop;
    }
    const operations = metrics.counter('apiserver_storage_transformation_operations_total',
      'Total number of transformations.', ['transformation_type', 'transformer_prefix', 'status']);
    const duration = metrics.histogram('apiserver_storage_transformation_duration_seconds',
      'Latencies in seconds of value transformation operations.', ['transformation_type', 'transformer_prefix'], storageDurationBuckets);
    return encryptingKV(inner, () => current(), (type, prefix, failed, seconds) => {
      operations({ transformation_type: type, transformer_prefix: prefix, status: failed ? 'Unknown' : 'OK' });
      duration({ transformation_type: type, transformer_prefix: prefix }, seconds);
    });
  };
  // a resource behind a feature gate is served only with the gate on
  const gatedResources: Record<string, string> = {
    selfsubjectreviews: 'APISelfSubjectReview', validatingadmissionpolicies: 'ValidatingAdmissionPolicy', validatingadmissionpolicybindings: 'ValidatingAdmissionPolicy',
  };
  const resources = createApiResources(names, (group, version, resource, def) =>
    !builtins.has(def) || (options.runtimeConfig.isEnabled(group, version, resource, !/alpha/.test(version))
      && (!gatedResources[resource] || options.featureGates[gatedResources[resource]] !== false)));
  scrapedGauges(metrics, { inflight: () => https?.inflight ?? [], resources, watchCache: () => watchCache, features: options.featureGates,
    storageCountPeriodMs: options.etcdCountMetricPollPeriodMs });
  const backendFor = (info: Parameters<Backends['backendFor']>[0]) => backends.backendFor(info);
  const controllerDeps = () => ({ resources, names, caches: watchCache, backendFor, celRules: options.featureGates.CustomResourceValidationExpressions,
    instanceWaitMs: tuning.crdInstanceWaitMs });
  /**
   * A component the server runs as its own client (controller manager, scheduler), started after the listener
   * with the server's address and CA; not becoming ready is logged, not fatal, as for a separate process.
   */
  type Component = { ready: Promise<unknown>; stop(): Promise<void> | void };
  /** the server's own clients (and its hook that leaves the endpoints): on shutdown they stop first, while the server still
   *  answers, so they leave cleanly */
  const clients: Module[] = [];
  const ownClient = (module: Module) => { clients.push(module); return module; };
  /** how each component the server may run is, by its name in componentstatuses */
  const components = new Map<string, Omit<ComponentHealth, 'name'>>();
  const embedded = (what: string, begin: false | undefined | ((lb: Loopback) => Component | Promise<Component>)): Module => {
    let running: Component | undefined;
    const name = what.replace(/ /g, '-');
    const health = (h: Omit<ComponentHealth, 'name'>) => components.set(name, h);
    health({ healthy: undefined, message: begin ? 'starting' : 'not run inside this server: its health is not known here' });
    const module: Module = {
      async start() {
        if (!begin) return;
        // a client of the API needs pods and leases served (--runtime-config can switch them off)
        if (!resources.preferred('', 'pods') || !resources.preferred(names.group('coordination'), 'leases')) {
          log.warn(`${what}: not started, as the core group or coordination.${names.domain} is not served`);
          health({ healthy: false, message: '', error: 'not started: the core group or the coordination group is not served' });
          return;
        }
        running = await begin({ url: serverUrl(), ca: { certPem: pki.caCertPem, keyPem: pki.caKeyPem }, names });
        // the server is ready without them, as the reference's is without its controller manager and scheduler
        void running.ready.then(() => health({ healthy: true, message: 'ok' }), (e) => {
          log.warn(`${what}: ${(e as Error).message}`);
          health({ healthy: false, message: '', error: (e as Error).message });
        });
      },
      stop: () => { health({ healthy: false, message: '', error: 'stopped' }); return running?.stop(); },
    };
    return ownClient(module);
  };

  const modules: Module[] = [
    // configuration files of flags that do not act here are still checked, so a file the reference refuses stops the start
    { start: () => checkCompatibilityFiles(options) },
    // so is the scheduler's configuration: on a thread of its own, a file it refuses would only end that thread again and again
    { start: async () => { if (options.scheduler?.configFile) await (await import('./embedded-scheduler.js')).checkSchedulerConfigFile(options.scheduler, names); } },
    // a port in use is reported before anything is written (store, certificates)
    { start: () => options.securePort ? checkCanListen(options.bindAddress || '0.0.0.0', options.securePort) : undefined },
    {
      // the certificates are made while the store opens and the registry is assembled; the listener waits for them
      start() {
        const hosts = [...options.tlsSans, ...(options.advertiseAddress ? [options.advertiseAddress] : []),
          ...(options.externalHostname ? [options.externalHostname] : []),
          ...(options.bindAddress && options.bindAddress !== '0.0.0.0' && options.bindAddress !== '::' ? [options.bindAddress] : []),
          ...inClusterNames(names, options.serviceClusterIpRanges), loopbackServerName];
        pkiMade = ensurePki(options.certDir, { hosts });
        pkiMade.catch(() => undefined);   // awaited below; a start that fails before then reports its own error
      },
    },
    {
      name: 'etcd', live: true,
      async start() {
        // a configuration the server refuses stops the start before the store is opened
        const encryption = options.encryptionProviderConfig ? await loadEncryptionConfig(options.encryptionProviderConfig, names) : undefined;
        // keys are /registry/...; --etcd-prefix other than the default puts them under a root of its own
        const opened = await openStorage({
          backend: options.storageBackend, dataDir: options.dataDir, etcdServers: options.etcdServers,
          etcdPrefix: options.etcdPrefix === '/registry' ? '' : options.etcdPrefix,
          etcdTls: etcdTlsPems(options.etcdTls),
        });
        const decorated = tuning.decorateStorage ? await tuning.decorateStorage(opened) : opened;
        kv = withEncryption(instrumentStorage(decorated, metrics), encryption);
        await checkDomain(kv, names);
      },
      stop: () => { stopEncryptionReload(); return kv?.close(); },
      check: () => kv.check(),
    },
    {
      // fails while the cache has lost its storage watch or lists storage again to heal
      name: 'poststarthook/start-watch-cache',
      async start() {
        watchCache = createWatchCache(createObjectStore(kv), {
          root: '/registry/', freshnessTimeoutMs: tuning.freshnessTimeoutMs, log,
          historyLimitFor: prefix => watchCacheSizeOf(options.watchCacheSizes, resources.all().find(i => i.keyPrefix === prefix)),
          bypasses: watchCacheBypass(options, prefix => resources.all().find(i => i.keyPrefix === prefix)),
          // memory and SQLite publish every commit to their watchers before acknowledging it; etcd's revisions also
          // count other clients' writes, and a decorated store may fail reads its watch never shows
          consistentReads: options.storageBackend !== 'etcd' && !tuning.decorateStorage,
        });
        await watchCache.start();
      },
      stop: () => watchCache?.stop(),
      check: () => watchCache.check(),
    },
    {
      start() {
        checkRuntimeConfig(options.runtimeConfig, builtinResources.flatMap(def =>
          def.versions.map(v => ({ group: fullGroup(def, names), version: v.name, resources: [def.resource] }))));
        for (const def of builtinResources) resources.add(def);
        backends = createBackends(resources, {
          objects: watchCache, names,
          serviceClusterIpRanges: options.serviceClusterIpRanges, serviceNodePortRange: options.serviceNodePortRange,
          featureGates: options.featureGates, allowPrivileged: options.allowPrivileged,
        });
      },
    },
    {
      // API priority and fairness reads its configuration from the watch cache; without it, the in-flight limits apply
      start() {
        const seats = options.maxRequestsInflight + options.maxMutatingRequestsInflight;
        if (!options.enablePriorityAndFairness) return;
        const flowcontrolGroup = names.group('flowcontrol.apiserver');
        if (!resources.preferred(flowcontrolGroup, 'flowschemas') || !resources.preferred(flowcontrolGroup, 'prioritylevelconfigurations')) {
          log.warn(`API priority and fairness: off, as ${flowcontrolGroup} is not served; the in-flight limits apply`);
          return;
        }
        flowControlConfig = flowControlSource(watchCache, resources, names);
        flowControl = createFlowControl(flowControlConfig, {
          names, serverConcurrencyLimit: seats,
          // a quarter of the request timeout, as the reference waits
          requestWaitLimitMs: Math.max(1000, options.requestTimeoutMs / 4),
        });
      },
      stop() { flowControl?.stop(); },
    },
    // before the first request: the allocation objects hold every address and port stored Services hold (state written
    // before they existed included), and later passes free what a failed create left allocated
    loop(undefined, () => startServiceRepair(watchCache, { clusterIps: options.serviceClusterIpRanges, nodePorts: options.serviceNodePortRange },
      resources.preferred('', 'services')?.keyPrefix ?? '/registry/core/services/', log)),
    {
      async start() {
        pki = await pkiMade;
        if (pki.written?.length) log.info(`generated ${pki.written.join(', ')} in ${options.certDir}`);
      },
    },
    // the aggregation layer's view of APIServices and its front-proxy identity, before the first request
    {
      async start() {
        // the generated front-proxy CA is kept beside the cluster CA: a restart publishes no new one to backends
        const { proxyClientCertFile, proxyClientKeyFile } = options.aggregation;
        const generated = proxyClientCertFile && proxyClientKeyFile ? undefined : await ensureFrontProxyCa(options.certDir);
        if (generated?.written.length) log.info(`generated ${generated.written.join(', ')} in ${options.certDir}`);
        aggregation = createAggregation({ watchCache, resources, backends, names, front: frontProxy(options, generated), rejectForwardingRedirect: options.aggregatorRejectForwardingRedirect });
      },
    },
    {
      async start() {
        const a = await setupAuth(options, { names, watchCache, resources, backends, log });
        auth = { ...a, authenticate: instrumentAuthentication(a.authenticate, metrics), authorizer: instrumentAuthorizer(a.authorizer, metrics), start: a.start, stop: a.stop };
      },
      stop: () => auth?.stop(),
    },
    {
      async start() {
        const admissionConfig = await loadAdmissionConfig(options.admissionControlConfigFile ?? '', names)
          .catch((e: Error) => { throw new Error(`--admission-control-config-file: ${e.message}`); });
        // --admission-control names every plugin that runs: those it leaves out are off, defaults included
        const specs = options.admissionControl
          ? selectPlugins(options.admissionControl, admissionPlugins.map(p => p.name).filter(n => !options.admissionControl!.includes(n)))
          : selectPlugins(options.enableAdmissionPlugins, options.disableAdmissionPlugins);
        checkWebhookPlugins(specs, names, (group, version, resource) => !!resources.lookup(group, version, resource));
        checkAlwaysDeny(specs, [
          ...(options.controllerManager ? [{ what: 'controller manager', flag: '--controller-manager=false' }] : []),
          ...(options.scheduler ? [{ what: 'scheduler', flag: '--scheduler=false' }] : []),
          ...(options.metricsServer ? [{ what: 'metrics server', flag: '--metrics-server=false' }] : []),
        ]);
        if (resources.lookup(names.group('admissionregistration'), 'v1alpha1', 'validatingadmissionpolicies')
          && (!options.featureGates.ValidatingAdmissionPolicy || !specs.some(p => p.name === 'ValidatingAdmissionPolicy')))
          log.warn('ValidatingAdmissionPolicies are served but not enforced: enable --feature-gates=ValidatingAdmissionPolicy=true and the ValidatingAdmissionPolicy admission plugin');
        // plugins that read client configurations at start-up parse them synchronously
        if (options.admissionControlConfigFile) await loadYaml();
        const flagConfig: Record<string, unknown> = {
          DefaultTolerationSeconds: { notReadySeconds: options.defaultNotReadyTolerationSeconds, unreachableSeconds: options.defaultUnreachableTolerationSeconds },
        };
        plugins = instrumentAdmission([...specs.map(s => s.create({
          listers: backends.admissionListers, names, authorizer: auth.authorizer, writers: backends.writers,
          config: admissionConfig.get(s.name)?.config ?? flagConfig[s.name], configPath: admissionConfig.get(s.name)?.path,
          webhooks: webhookSource(watchCache, resources, names), catalog: resourceCatalog(resources), featureGates: options.featureGates, log,
        })), ...auth.admissionPlugins], metrics);
      },
    },
    {
      // the audit backends are stopped after the listener, so the last requests' events still go out
      async start() {
        if (options.audit.policyFile) await loadYaml();
        auditor = createAuditor(options.audit, { names, metrics, log, knownError: knownApiError });
      },
      stop: () => auditor?.stop(),
    },
    {
      // the listener: from here on the server answers, and readyz tells whether the hooks below have run
      async start() {
        https = await listenHttps({
          port: options.securePort, host: options.bindAddress, log,
          keyPem: options.tlsPrivateKeyFile ? readFlagFile('--tls-private-key-file', options.tlsPrivateKeyFile) : pki.serverKeyPem,
          certPem: options.tlsCertFile ? readFlagFile('--tls-cert-file', options.tlsCertFile) : pki.serverCertPem,
          minVersion: options.tlsMinVersion, ciphers: options.tlsCiphers,
          // with a serving certificate of another CA, the server's own clients get the certificate of its CA by their
          // SNI name; then those of --tls-sni-cert-key. Without either, no SNI callback: each handshake then takes
          // TLS's plain path, not the certificate callback's
          sniCertificates: [...(options.tlsCertFile ? [{ names: [loopbackServerName], certPem: pki.serverCertPem, keyPem: pki.serverKeyPem }] : []),
            ...sniCertificates(options.tlsSniCertKeys)],
          goawayChance: options.goawayChance, maxConcurrentStreams: options.http2MaxStreamsPerConnection,
          clientCaPems: [pki.caCertPem, ...(options.clientCaFile ? [readFlagFile('--client-ca-file', options.clientCaFile)] : []), ...auth.extraClientCAs],
        }, handler());
        address = `${options.advertiseAddress || (listenHost() === '127.0.0.1' ? hostname() : listenHost())}:${https.port}`;
      },
      async stop() {
        if (!https) return;
        https.endLongRunning();
        // connections still open a moment after their last answer (clients that keep them) are cut
        await within(https.close(), connectionsCloseMs);
        https.destroy();
      },
    },
    {
      name: 'poststarthook/bootstrap-namespaces',
      async start() {
        // with the core group switched off (--runtime-config=api/all=false) there are no namespaces to make
        const namespaces = backends.preferred('', 'namespaces')?.store;
        if (!namespaces) return;
        // all at once: their writes share one commit
        await Promise.all(names.initialNamespaces.map(async name => {
          try { await namespaces.get('', name); } catch {
            await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, noAdmission, { dryRun: false })
              .catch(e => { if ((e as { code?: number }).code !== 409) throw e; });
          }
        }));
      },
    },
    { name: 'poststarthook/rbac/bootstrap-roles', start: () => auth.start() },
    {
      name: 'poststarthook/scheduling/bootstrap-system-priority-classes',
      async start() {
        const group = names.group('scheduling');
        const classes = backends.preferred(group, 'priorityclasses')?.store;
        if (!classes) return;
        await Promise.all(systemPriorityClasses.map(async c => {
          try { await classes.get('', c.name); } catch {
            await classes.create('', { ...systemPriorityClass(c, group) }, noAdmission, { dryRun: false })
              .catch(e => { if ((e as { code?: number }).code !== 409) throw e; });
          }
        }));
      },
    },
    // the server's own Service in default, its endpoints the live API servers (on shutdown it leaves them with the
    // server's own clients, while the server still serves)
    ownClient(loop('poststarthook/bootstrap-controller', () => startKubernetesService({
      backends, names, log, reconciler: options.endpointReconcilerType, serviceClusterIpRanges: options.serviceClusterIpRanges,
      nodePort: options.kubernetesServiceNodePort,
      address: () => ({ ip: advertisedIp(), port: https.port }),
    }))),
    // the server's identity Lease, and the collection of those of servers gone (APIServerIdentity, on by default)
    ...(options.featureGates.APIServerIdentity ? [
      loop('poststarthook/start-kube-apiserver-identity-lease-controller', () => startIdentityLease({ backends, names, log })),
      loop('poststarthook/start-kube-apiserver-identity-lease-garbage-collector', () => startIdentityLeaseGc({ backends, names, log })),
    ] : []),
    // since when legacy service-account tokens' uses are recorded (LegacyServiceAccountTokenTracking, on by default)
    ...(options.featureGates.LegacyServiceAccountTokenTracking
      ? [{ name: 'poststarthook/start-legacy-token-tracking-controller', start: () => ensureTrackingSince(backends, names) }] : []),
    { name: 'poststarthook/kube-apiserver-autoregistration', start: () => aggregation.register() },
    loop('poststarthook/start-cluster-authentication-info-controller', () =>
      aggregation.keepAuthenticationTrust(pki.caCertPem, tuning.apiServiceCheckIntervalMs ?? 30_000, log)),
    // a client of this server: the poststarthook is done once it runs, its informers sync after
    ownClient(loop('poststarthook/apiservice-status-available-controller', () => aggregation.startAvailability(
      { url: serverUrl(), ca: { certPem: pki.caCertPem, keyPem: pki.caKeyPem }, names }, tuning.apiServiceCheckIntervalMs ?? 30_000, log))),
    // the mandatory and suggested FlowSchemas and PriorityLevelConfigurations, kept in place while the server runs
    loop('poststarthook/apiserver/bootstrap-system-flowcontrol-configuration', () => (flowControlConfig
      ? keepDefaults(flowControlConfig, flowControlWriter(backends, names), names, log)
      : { stop() {} })),
    // custom resources stored before a restart are served from the first request after start-up
    loop('poststarthook/crd-informer-synced', () => startCrdController(controllerDeps(), log)),
    loop(undefined, () => startPolicyTypeChecking(controllerDeps(), log)),
    // the controller manager and the scheduler: clients of this server over HTTPS, unless turned off
    // (their code loads only when they run: a server without them starts without reading it)
    embedded('controller manager', options.controllerManager && (async lb => tuning.componentThreads
      ? startComponentThread({ kind: 'controller-manager', ...threadLoopback(lb), options: options.controllerManager!, serviceAccountKeyPem: auth.tokens.signingKeyPem }, log)
      : (await import('./embedded-controller-manager.js'))
        .startEmbeddedControllerManager({ ...lb, options: options.controllerManager!, log, serviceAccountKeyPem: auth.tokens.signingKeyPem }))),
    embedded('scheduler', options.scheduler && (async lb => tuning.componentThreads
      ? startComponentThread({ kind: 'scheduler', ...threadLoopback(lb), options: options.scheduler! }, log)
      : (await import('./embedded-scheduler.js')).startEmbeddedScheduler({ ...lb, options: options.scheduler!, log }))),
    // the resource metrics API behind its APIService (or, turned off, the removal of what an earlier start registered)
    embedded('metrics server', async lb => (await import('./embedded-metrics-server.js')).startEmbeddedMetricsServer({
      ...lb, log, resolutionMs: options.metricsServer?.resolutionMs,
      storedApiService: name => backends.preferred(names.group('apiregistration'), 'apiservices')?.store.get('', name).catch(() => undefined) ?? Promise.resolve(undefined),
    })),
    loop(undefined, () => options.etcdCompactionIntervalMs > 0 ? startCompactor(kv, { intervalMs: options.etcdCompactionIntervalMs }) : { stop() {} }),
    loop(undefined, () => {
      const events = resources.preferred('', 'events');
      if (!events || options.eventTtlMs <= 0) return { stop() {} };
      return startEventExpiry({ store: backends.backendFor(events).store, cache: watchCache.cache(events.keyPrefix), ttlMs: options.eventTtlMs, log: m => log.warn(m) });
    }),
  ];

  /** the loopback as a thread takes it: plain data */
  const threadLoopback = (lb: Loopback) => ({ url: lb.url, ca: lb.ca, domain: lb.names.domain });

  /** the IP the server's Service leads to: --advertise-address, else an address of this host's own network */
  const advertisedIp = () => {
    if (options.advertiseAddress) return options.advertiseAddress;
    if (isIP(listenHost()) && listenHost() !== '127.0.0.1') return listenHost();
    const external = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4');
    return external?.address ?? '127.0.0.1';
  };
  const listenHost = () => (options.bindAddress === '0.0.0.0' || options.bindAddress === '::' || !options.bindAddress ? '127.0.0.1' : options.bindAddress);
  const urlOf = (host: string) => `https://${host.includes(':') ? `[${host}]` : host}:${https.port}`;
  const serverUrl = () => urlOf(listenHost());

  const started = new Set<Module>();
  const checkOf = (m: Module): HealthCheck => ({
    name: m.name!,
    check: () => {
      if (!started.has(m)) throw new Error('not started yet');
      return m.check?.();
    },
  });
  const named = modules.filter(m => m.name);
  /** the storage check fails once it has taken longer than its flag allows (--etcd-healthcheck-timeout for /healthz and
   *  /livez, --etcd-readycheck-timeout for /readyz) */
  const checksOf = (list: Module[], storageTimeoutMs: number) => list.map(m => (m.name === 'etcd' ? withTimeout(checkOf(m), storageTimeoutMs) : checkOf(m)));
  const ping: HealthCheck = { name: 'ping', check: () => {} };
  // the log check fails when what the server writes to its log cannot get out
  const logCheck: HealthCheck = { name: 'log', check: () => { if (process.stderr.writableLength > 1 << 20) throw new Error('log output is backed up'); } };
  const shutdownCheck: HealthCheck = { name: 'shutdown', check: () => { if (shuttingDown) throw new Error('process is shutting down'); } };

  function handler() {
    const health = healthEndpoints({
      healthz: [ping, logCheck, ...checksOf(named, options.etcdHealthcheckTimeoutMs)],
      livez: [ping, logCheck, ...checksOf(named.filter(m => m.live), options.etcdHealthcheckTimeoutMs)],
      readyz: [ping, logCheck, ...checksOf(named, options.etcdReadycheckTimeoutMs), shutdownCheck],
      livezGracePeriodMs: options.livezGracePeriodMs, startedAt,
    });
    const endpoints = resourceEndpoints({
      resources, names, plugins, backends,
      bookmarkIntervalMs: tuning.bookmarkIntervalMs ?? 60_000,
      services: {
        authorizer: auth.authorizer, authenticate: auth.authenticate, apiAudiences: auth.apiAudiences,
        tokens: auth.tokens, maxTokenExpirationMs: options.authentication.serviceAccountMaxTokenExpirationMs,
        extendTokenExpiration: options.authentication.serviceAccountExtendTokenExpiration,
        nodeClient: nodeClient(),
        componentHealth,
      },
      deprecatedApiRequested: deprecatedApiGauge(), watchEventSent: watchEventMetrics(),
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds, deleteCollectionWorkers: options.deleteCollectionWorkers,
    });
    const discovery = discoveryEndpoints(resources, names, () => address, aggregation.remoteGroups);
    const openapi = openapiEndpoints(resources, names, aggregation.remoteSpecs);
    const profiling = options.profiling ? profilingEndpoints({ requestTimeoutMs: options.requestTimeoutMs }) : undefined;
    // as the reference: the issuer's discovery is served only when the issuer is an https URL (else a warning)
    const issuer = auth.tokens.issuers[0]!;
    const unpublishable = issuerProblem(issuer);
    if (unpublishable) log.warn(`the service-account issuer's discovery is not served: ${unpublishable} (${issuer})`);
    const issuerDiscovery = unpublishable ? undefined : issuerDiscoveryRoute({
      issuer, keys: () => auth.tokens.publicJwks(),
      jwksUri: () => options.authentication.serviceAccountJwksUri || `https://${address}${jwksPath}`,
    });
    return createHandler({
      names, metrics, log, features: options.featureGates, authenticate: refusalReasonsLogged(auth.authenticate, log), authorizer: auth.authorizer, requestTimeoutMs: options.requestTimeoutMs, audit: auditor,
      maxRequestsInflight: options.maxRequestsInflight, maxMutatingRequestsInflight: options.maxMutatingRequestsInflight,
      flowControl, hsts: options.hsts, corsAllowedOrigins: options.corsAllowedOrigins,
      shutdown: { notAcceptingRequests: () => notAcceptingRequests, sendRetryAfter: options.shutdownSendRetryAfter },
      servesResource: (group, version, resource, subresource) => {
        const local = resources.lookup(group, version, resource);
        if (local) return !subresource || Object.hasOwn(local.subresources, subresource);
        return aggregation.servesRemote(group, version, resource, subresource);
      },
      routes: [
        ctx => health.handle(ctx),
        ctx => aggregation.proxy.handle(ctx),
        ctx => {
          const dump = flowControl && flowControlDumps[ctx.path];
          if (!dump || !flowControl) return false;
          sendText(ctx, 200, dump(flowControl, ctx.query), 'text/plain; charset=utf-8');
          return true;
        },
        ctx => profiling?.handle(ctx) ?? false,
        ctx => issuerDiscovery?.(ctx) ?? false,
        ctx => openapi.handle(ctx),
        async ctx => { if (!ctx.info.isResourceRequest) return false; await endpoints.handle(ctx); return true; },
        ctx => discovery.handle(ctx),
      ],
    });
  }

  function watchEventMetrics() {
    const labels = ['group', 'version', 'kind'];
    const total = metrics.counter('apiserver_watch_events_total', 'Number of events sent in watch clients', labels);
    const sizes = metrics.histogram('apiserver_watch_events_sizes', 'Watch event size distribution in bytes', labels, [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]);
    return (info: { group: string; version: string; kind: string }, bytes: number) => {
      const l = { group: info.group, version: info.version, kind: info.kind };
      total(l);
      sizes(l, bytes);
    };
  }

  /** the client side towards the node agents: the flags' files, or a certificate of the server's CA */
  /** componentstatuses: the components the reference lists (controller manager, scheduler) and the store, by its
   *  backend's name, judged by the same check as healthz */
  async function componentHealth(): Promise<ComponentHealth[]> {
    const store = await Promise.resolve().then(() => kv.check()).then(
      (): ComponentHealth => ({ name: options.storageBackend, healthy: true, message: 'ok' }),
      (e): ComponentHealth => ({ name: options.storageBackend, healthy: false, message: '', error: (e as Error).message }));
    const listed = ['controller-manager', 'scheduler'];
    return [...listed.map(name => ({ name, ...components.get(name)! })), store];
  }

  function nodeClient(): NodeClientConfig {
    const k = options.kubelet;
    const own = k.clientCertificateFile ? undefined
      : issueClientCertificate({ certPem: pki.caCertPem, keyPem: pki.caKeyPem }, 'kube-apiserver-kubelet-client', ['system:masters']);
    return {
      certPem: own?.certPem ?? readFlagFile('--kubelet-client-certificate', k.clientCertificateFile!),
      keyPem: own?.keyPem ?? readFlagFile('--kubelet-client-key', k.clientKeyFile!),
      caPem: k.certificateAuthorityFile ? readFlagFile('--kubelet-certificate-authority', k.certificateAuthorityFile) : undefined,
      preferredAddressTypes: k.preferredAddressTypes, timeoutMs: k.timeoutMs,
    };
  }

  function deprecatedApiGauge() {
    const gauge = metrics.gauge('apiserver_requested_deprecated_apis',
      'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      ['group', 'version', 'resource', 'subresource', 'removed_release']);
    return (info: { group: string; version: string; resource: string; versionDef: { removedIn?: string } }, subresource: string) => gauge({
      group: info.group, version: info.version, resource: info.resource, subresource, removed_release: info.versionDef.removedIn ?? '',
    }, 1);
  }

  const stopSome = async (some: Module[]) => {
    for (const m of some) {
      if (!started.delete(m)) continue;
      try { await m.stop?.(); } catch (e) { log.warn(`stopping ${m.name ?? 'a module'}: ${(e as Error).message}`); }
    }
  };
  const stopAll = () => stopSome([...modules].reverse());
  try {
    for (const m of modules) { started.add(m); await m.start(); }
  } catch (e) {
    await stopAll();
    throw e;
  }

  const url = serverUrl();
  let adminKubeconfigPath: string | undefined;
  if (options.storageBackend !== 'memory' || options.adminKubeconfigPath) {
    adminKubeconfigPath = options.adminKubeconfigPath;
    await writeAdminClientConfig(adminKubeconfigPath, {
      server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem,
      // a serving certificate of another CA (--tls-cert-file) is not the one this file trusts: it asks for the server's own
      tlsServerName: options.tlsCertFile ? loopbackServerName : undefined,
      clusterName: names.vendor, userName: 'admin', contextName: 'admin',
    });
  }

  return {
    url, listenUrl: urlOf(options.bindAddress || '0.0.0.0'), port: https.port, names, kv, resources, adminKubeconfigPath,
    caCertPem: pki.caCertPem, adminCertPem: pki.adminCertPem, adminKeyPem: pki.adminKeyPem,
    /**
     * The reference's graceful termination, bounded at each step: readyz fails at once; for the shutdown delay the
     * server serves on while its own clients (controller manager, scheduler) leave, releasing their leases; then it
     * takes no new requests (they are told to retry), stops listening (after the drain with --shutdown-send-retry-after),
     * ends the watches and waits for the requests in flight, each within the request timeout; then everything stops,
     * the store last, so every acknowledged write is on disk. No step waits on a client that does not go away.
     */
    async shutdown() {
      const began = performance.now();
      const phase = (what: string) => log.info(`graceful termination: ${what} (${Math.round(performance.now() - began)} ms)`);
      shuttingDown = true;
      const clientsLeft = Promise.all([...clients].map(c => stopSome([c])));
      await Promise.all([sleep(options.shutdownDelayDurationMs), within(clientsLeft, Math.max(options.shutdownDelayDurationMs, ownClientsLeaveMs))]);
      notAcceptingRequests = true;
      if (!options.shutdownSendRetryAfter) void https.close();
      // a watch is ended as at its timeout: its client resumes from its last version, on another server
      const longRunning = [...https.inflight].filter(c => c.longRunning).length;
      https.endLongRunning();
      phase(`not accepting new requests; ${longRunning} long-running requests ended, ${https.inflight.size - longRunning} others in flight`);
      const drainedBy = Date.now() + options.requestTimeoutMs;
      while ([...https.inflight].some(c => !c.longRunning) && Date.now() < drainedBy) await sleep(20);
      phase(`requests in flight ${[...https.inflight].some(c => !c.longRunning) ? 'cut at the request timeout' : 'drained'}`);
      await stopAll();
      phase('stopped');
    },
    close: stopAll,
  };
}

/** a check that fails when it has not passed within `ms` */
function withTimeout(c: HealthCheck, ms: number): HealthCheck {
  return {
    name: c.name,
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms`)), ms); });
      try { await Promise.race([Promise.resolve(c.check()), late]); } finally { clearTimeout(timer); }
    },
  };
}

/**
 * whether a resource's clients are served from storage rather than the watch cache: --watch-cache=false for all, a
 * size of 0 in --watch-cache-sizes for one, --default-watch-cache-size=0 for those without a size of their own. The
 * answer for a prefix is kept once its resource is known (a prefix always names the same resource).
 */
function watchCacheBypass(options: ApiServerOptions, resourceAt: (prefix: string) => { resource: string; group: string } | undefined) {
  const known = new Map<string, boolean>();
  return (prefix: string): boolean => {
    if (!options.watchCache) return true;
    let off = known.get(prefix);
    if (off === undefined) {
      const info = resourceAt(prefix);
      if (!info) return options.defaultWatchCacheSize === 0;
      off = (watchCacheSizeOf(options.watchCacheSizes, info) ?? options.defaultWatchCacheSize) === 0;
      known.set(prefix, off);
    }
    return off;
  };
}

/** the size --watch-cache-sizes gives a resource: by `resource.group`, or by `resource` alone for the core group */
function watchCacheSizeOf(sizes: Record<string, number>, info: { resource: string; group: string } | undefined): number | undefined {
  if (!info) return undefined;
  return info.group ? sizes[`${info.resource}.${info.group}`] : sizes[info.resource];
}
