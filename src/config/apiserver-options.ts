// The API server's command line: flag declarations with the reference's defaults, and their
// validation into one typed options object.

import type { OidcOptions } from '../authn/oidc.js';
import type { RequestHeaderOptions } from '../authn/request-header.js';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { loadYaml } from '../util/yaml.js';
import { apiDomains, defaultApiDomain, naming, type ApiDomain } from '../api/naming.js';
import { describeFeatureGates, parseFeatureGates, type FeatureGates } from './feature-gates.js';
import { FlagError, formatDuration, help, parseFlags, type FlagDecl, type FlagValue } from './flags.js';
import { re2Problem } from '../util/re2.js';
import { unreadable } from '../util/files.js';
import { cipherSuiteNames, opensslCiphers, parseNamedCertKey, unavailableCipherSuites, tlsVersionHelp, tlsVersions, type NamedCertKey, type TlsVersion } from './tls-options.js';
import { parseRuntimeConfig, type RuntimeConfig } from './runtime-config.js';
import { controllerManagerFlags, controllerManagerOptionsFrom, type ControllerManagerOptions } from './controller-manager-options.js';
import { embeddedSchedulerFlags, embeddedSchedulerValues, schedulerOptionsFrom } from './scheduler-options.js';

export type StorageBackend = 'memory' | 'sqlite' | 'etcd';

export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];

export interface PortRange {
  /** first port, inclusive */
  base: number;
  /** number of ports */
  size: number;
}

export interface TokenWebhookOptions { configFile: string; cacheTtlMs: number; version: 'v1' | 'v1beta1' }

export interface AuthenticationOptions {
  tokenAuthFile?: string;
  enableBootstrapTokenAuth: boolean;
  /** keys verifying service-account tokens (PEM, RSA or ECDSA, public or private) */
  serviceAccountKeyFiles: string[];
  /** the private key signing service-account tokens; generated under the cert dir when absent */
  serviceAccountSigningKeyFile?: string;
  /** the first issues tokens; all are accepted. Empty: derived from the API domain */
  serviceAccountIssuers: string[];
  /** the discovery document's jwks_uri; empty: this server's /openid/v1/jwks */
  serviceAccountJwksUri?: string;
  serviceAccountLookup: boolean;
  /** empty: the first issuer */
  apiAudiences: string[];
  /** 0: no limit */
  serviceAccountMaxTokenExpirationMs: number;
  /** pod-bound tokens asked for the agent's usual lifetime are issued for a year, with the asked end as warnafter */
  serviceAccountExtendTokenExpiration: boolean;
  oidc?: OidcOptions;
  tokenWebhook?: TokenWebhookOptions;
  requestHeader?: RequestHeaderOptions;
}

export interface AuthorizationOptions {
  webhook?: { configFile: string; authorizedTtlMs: number; unauthorizedTtlMs: number; version: 'v1' | 'v1beta1' };
  /** mode ABAC: the file of its policies */
  policyFile?: string;
}

/** how a request hands its audit events to a backend: it waits for them to be written (blocking; blocking-strict also
 *  fails the request when its first event cannot be), or they are buffered and sent in batches (batch) */
export type AuditMode = 'blocking' | 'blocking-strict' | 'batch';
export const auditModes: readonly AuditMode[] = ['blocking', 'blocking-strict', 'batch'];

export interface AuditBatchFlags {
  mode: AuditMode;
  bufferSize: number;
  maxBatchSize: number;
  maxWaitMs: number;
  throttle?: { qps: number; burst: number };
  /** events and batches kept within sizes in bytes (--audit-<backend>-truncate-*), when enabled */
  truncate?: { maxEventSize: number; maxBatchSize: number };
}

export interface AuditFlags {
  policyFile?: string;
  log?: { path: string; maxAgeDays: number; maxBackups: number; maxSizeMb: number; format: 'json' | 'legacy'; compress: boolean; batch: AuditBatchFlags };
  webhook?: { configFile: string; initialBackoffMs: number; batch: AuditBatchFlags };
}

export interface KubeletClientOptions {
  /** client certificate and key files; absent: one the server issues itself from its CA */
  clientCertificateFile?: string;
  clientKeyFile?: string;
  /** CA file the agents' serving certificates are checked against; absent: not checked */
  certificateAuthorityFile?: string;
  preferredAddressTypes: string[];
  timeoutMs: number;
}

export const nodeAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

export interface ApiServerOptions {
  storageBackend: StorageBackend;
  etcdServers: string[];
  etcdPrefix: string;
  /** the files of TLS towards etcd: the CA its serving certificate is checked against, and the client certificate
   *  and key shown to it (PEM) */
  etcdTls: { caFile?: string; certFile?: string; keyFile?: string };
  etcdCompactionIntervalMs: number;
  /** the EncryptionConfiguration file: which resources are encrypted at rest, and how */
  encryptionProviderConfig?: string;
  /** the file is read again when it changes (else once, at start) */
  encryptionProviderConfigAutomaticReload: boolean;
  /** how long an Event lives after its last change (--event-ttl); 0: for ever */
  eventTtlMs: number;
  dataDir: string;
  /** where the generated CA and certificates live: `--cert-dir`, else `<data-dir>/pki` */
  certDir: string;
  /** the admin client-configuration file written on start-up: `<data-dir>/admin.kubeconfig` */
  adminKubeconfigPath: string;
  securePort: number;
  bindAddress: string;
  advertiseAddress?: string;
  externalHostname?: string;
  /** extra names for the generated serving certificate */
  tlsSans: string[];
  apiDomain: ApiDomain;
  tlsCertFile?: string;
  /** --tls-min-version and --tls-cipher-suites in Node's terms (undefined: Node's defaults) */
  tlsMinVersion?: TlsVersion;
  tlsCiphers?: string;
  /** --tls-sni-cert-key: certificates served to clients that ask for their names */
  tlsSniCertKeys: NamedCertKey[];
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  anonymousAuth: boolean;
  authorizationModes: AuthorizationMode[];
  authentication: AuthenticationOptions;
  authorization: AuthorizationOptions;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  admissionControlConfigFile?: string;
  /** tolerationSeconds DefaultTolerationSeconds gives pods for the not-ready and unreachable taints */
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  runtimeConfig: RuntimeConfig;
  featureGates: FeatureGates;
  /** pod specs may ask for privileged containers */
  allowPrivileged: boolean;
  /** /debug/pprof is served */
  profiling: boolean;
  /** the Strict-Transport-Security header value, and the CORS origin patterns */
  hsts?: string;
  corsAllowedOrigins: string[];
  audit: AuditFlags;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  enablePriorityAndFairness: boolean;
  requestTimeoutMs: number;
  /** lower bound of a watch's randomised lifetime, seconds */
  minRequestTimeoutSeconds: number;
  livezGracePeriodMs: number;
  shutdownDelayDurationMs: number;
  shutdownSendRetryAfter: boolean;
  watchCache: boolean;
  defaultWatchCacheSize: number;
  serviceClusterIpRanges: string[];
  serviceNodePortRange: PortRange;
  /** how the `<vendor>` Service's endpoints are kept: a lease per API server, or not at all */
  endpointReconcilerType: 'lease' | 'none';
  verbosity: number;
  /** the aggregation layer: the client certificate shown to backends (generated when absent) */
  aggregation: { proxyClientCertFile?: string; proxyClientKeyFile?: string };
  /** how the server reaches the node agents' servers */
  kubelet: KubeletClientOptions;
  /** the controller manager run inside the server's process; undefined with --controller-manager=false */
  controllerManager?: ControllerManagerOptions;
  /** the scheduler run inside the server's process; undefined with --scheduler=false */
  scheduler?: EmbeddedSchedulerOptions;
  /** the metrics server run inside the server's process (how often it scrapes); undefined with --metrics-server=false */
  metricsServer?: { resolutionMs: number };
  /** HTTP/2: the chance, after each request, that the connection is asked to go (a graceful GOAWAY), 0 to 0.02 */
  goawayChance: number;
  /** HTTP/2: the streams a client may open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS); 0: no limit */
  http2MaxStreamsPerConnection: number;
  /** --admission-control: exactly these plugins, in this order, are on (undefined: --enable/--disable-admission-plugins) */
  admissionControl?: string[];
  /** --watch-cache-sizes: events kept per resource (`resource` or `resource.group`), overriding the default size */
  watchCacheSizes: Record<string, number>;
  /** how many deletes a DELETE of a collection runs at once */
  deleteCollectionWorkers: number;
  /** > 0: the `<vendor>` Service in default is of type NodePort, its https port on this node port */
  kubernetesServiceNodePort: number;
  /** a redirect answered by an APIService's backend is refused (502) rather than passed to the client */
  aggregatorRejectForwardingRedirect: boolean;
  /** how long the storage check of /healthz and /livez, and of /readyz, may take */
  etcdHealthcheckTimeoutMs: number;
  etcdReadycheckTimeoutMs: number;
  /** how long the counts of apiserver_storage_objects are kept before they are counted again; 0: not collected */
  etcdCountMetricPollPeriodMs: number;
  /** the format of the server's log lines */
  loggingFormat: 'text' | 'json';
  /** configuration files read and checked at start (checkCompatibilityFiles), whose settings do not act here */
  tracingConfigFile?: string;
  egressSelectorConfigFile?: string;
}

export interface EmbeddedSchedulerOptions {
  /** a KubeSchedulerConfiguration file (--scheduler-config), read when the scheduler starts */
  configFile?: string;
  /** the flag values its options start from (the shared leader-election flags) */
  flagValues: Record<string, FlagValue | undefined>;
}

/**
 * --service-account-max-token-expiration, when set, lies between an hour and 2^32 seconds (else the start fails, as the
 * reference's does); the warnings when pod-bound tokens are extended past it, in the reference's words.
 */
function tokenExpirationProblems(maxMs: number, extend: boolean): string[] {
  if (maxMs === 0) return [];
  if (maxMs < 3_600_000 || maxMs > 2 ** 32 * 1000) throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  if (!extend) return [];
  const warnOnlySeconds = 3607, extensionSeconds = 365 * 24 * 3600;
  const warnings: string[] = [];
  if (maxMs < warnOnlySeconds * 1000)
    warnings.push(`service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than ${warnOnlySeconds} seconds (currently ${formatDuration(maxMs)})`);
  if (maxMs < extensionSeconds * 1000)
    warnings.push(`service-account-extend-token-expiration is true, enabling tokens valid up to ${extensionSeconds} seconds, which is longer than service-account-max-token-expiration set to ${formatDuration(maxMs)}`);
  return warnings;
}

const nonNegative = (v: FlagValue) => ((v as number) < 0 ? 'must not be negative' : undefined);
const positiveInt = (v: FlagValue) => (Number.isInteger(v) && (v as number) > 0 ? undefined : 'must be a positive integer');
const positiveNumber = (v: FlagValue) => ((v as number) > 0 ? undefined : 'must be greater than 0');
const port = (v: FlagValue) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'must be a port number from 0 to 65535');
const ipAddress = (v: FlagValue) => (v === '' || isIP(v as string) ? undefined : `${JSON.stringify(v)} is not an IP address`);

/** the mode and batching flags of an audit backend, with the reference's defaults for it */
function auditBatchFlags(backend: 'log' | 'webhook', what: string, d: { mode: AuditMode; maxBatchSize: number; maxWaitMs: number; throttle: boolean }): FlagDecl[] {
  const f = `audit-${backend}`;
  return [
    { name: `${f}-mode`, type: 'enum', values: [...auditModes], default: d.mode, help: `How requests hand their events to ${what}: blocking (each request waits until they are written), blocking-strict (and fails when its first event cannot be), batch (buffered and sent in batches; a request never waits).` },
    { name: `${f}-batch-buffer-size`, type: 'int', default: 10000, help: `Audit events held for ${what} in batch mode when it falls behind; more are dropped and counted (apiserver_audit_error_total).`, validate: positiveInt },
    { name: `${f}-batch-max-size`, type: 'int', default: d.maxBatchSize, help: `Most events in one batch sent to ${what} (batch mode).`, validate: positiveInt },
    { name: `${f}-batch-max-wait`, type: 'duration', default: d.maxWaitMs, help: `Longest an event waits for its batch to fill before the batch is sent to ${what} (batch mode).`, validate: nonNegative },
    { name: `${f}-batch-throttle-enable`, type: 'bool', default: d.throttle, help: `Limit how often batches are sent to ${what} (batch mode).` },
    { name: `${f}-batch-throttle-qps`, type: 'float', default: 10, help: `Batches a second sent to ${what} at most, when throttled.`, validate: positiveNumber },
    { name: `${f}-batch-throttle-burst`, type: 'int', default: 15, help: `Batches sent at once to ${what} before the throttle applies.`, validate: positiveInt },
    { name: `${f}-truncate-enabled`, type: 'bool', default: false, help: `Keep events and batches sent to ${what} within the sizes below: a larger event loses its request and response objects, then is dropped; a larger batch is split.` },
    { name: `${f}-truncate-max-batch-size`, type: 'int', default: 10 * 1024 * 1024, help: `Bytes of one batch sent to ${what} at most, when truncating; larger ones are split.`, validate: positiveInt },
    { name: `${f}-truncate-max-event-size`, type: 'int', default: 100 * 1024, help: `Bytes of one event sent to ${what} at most, when truncating: a larger one loses its request and response objects, then is dropped.`, validate: positiveInt },
  ];
}

/** the reference's media types for storage: all accepted, objects are stored as JSON whichever is named */
export const storageMediaTypes = ['application/json', 'application/yaml', ...new Set(apiDomains.map(d => naming(d).protobufMediaType))];

/** flags accepted for compatibility that do nothing here: a value other than the default is warned about at start */
const notActingFlags: Record<string, string> = {
  'etcd-db-metric-poll-interval': 'this server has no apiserver_storage_db_total_size_in_bytes metric',
  'vmodule': 'per-file log verbosity is not supported; -v applies to every file',
  'log-json-info-buffer-size': 'JSON log lines are written unbuffered',
  'apiserver-count': 'it sets the master-count endpoint reconciler, which this server does not have (see --endpoint-reconciler-type)',
  'storage-media-type': 'objects are always stored as JSON',
  'contention-profiling': 'the process has no lock-contention profile; /debug/pprof serves CPU profiles and heap snapshots',
  'lease-reuse-duration-seconds': 'every key with a time to live (Events) is expired by the server itself, without storage leases',
  'tracing-config-file': 'this server exports no traces',
};

/** the asymmetric JWS algorithms the reference's OpenID authenticator accepts (never HMAC, whose key would be public) */
const oidcSigningAlgs = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];
function checkSigningAlgs(algs: string[]): string | undefined {
  const bad = algs.find((a) => !oidcSigningAlgs.includes(a));
  return bad === undefined ? undefined : `unsupported signing algorithm ${JSON.stringify(bad)}: use ${oidcSigningAlgs.join(', ')}`;
}

export const apiServerFlags: readonly FlagDecl[] = [
  { name: 'storage-backend', type: 'enum', values: ['memory', 'sqlite', 'etcd', 'etcd3'], default: 'sqlite', help: 'Where objects are stored: in memory (lost on exit), an embedded SQLite file under --data-dir, or etcd (etcd3, the reference\'s name, is the same). Default: etcd when --etcd-servers is given, else sqlite.' },
  { name: 'etcd-servers', type: 'stringList', default: [], help: 'etcd servers to connect to (scheme://ip:port), comma-separated. Required with --storage-backend=etcd.', validate: (v) => (v as string[]).map(checkUrl).find(Boolean) },
  { name: 'etcd-cafile', type: 'string', default: '', help: 'CA certificates (PEM) that the etcd members\' serving certificates must chain to (https:// servers); without it, the system\'s roots.' },
  { name: 'etcd-certfile', type: 'string', default: '', help: 'Client certificate (PEM) shown to etcd members that ask for one (etcd --client-cert-auth); with --etcd-keyfile.' },
  { name: 'etcd-keyfile', type: 'string', default: '', help: 'The private key (PEM) of --etcd-certfile.' },
  { name: 'etcd-prefix', type: 'string', default: '/registry', help: 'The prefix of every key in storage.', validate: (v) => ((v as string).startsWith('/') ? undefined : 'must start with /') },
  { name: 'encryption-provider-config', type: 'string', default: '', help: 'File with an EncryptionConfiguration (apiserver.config.<domain>/v1): the resources whose stored objects are encrypted, and the providers (aescbc, aesgcm, secretbox, identity) that encrypt and decrypt them. KMS providers are not supported.' },
  { name: 'encryption-provider-config-automatic-reload', type: 'bool', default: false, help: 'Read --encryption-provider-config again whenever the file changes (checked every minute), so keys can be rotated without a restart. Off: the file is read once, at start.' },
  { name: 'etcd-compaction-interval', type: 'duration', default: 5 * 60_000, help: 'How often old revisions are compacted away. 0 disables compaction.', validate: nonNegative },
  { name: 'event-ttl', type: 'duration', default: 60 * 60_000, help: 'How long an Event is kept after its last change. 0 keeps events until deleted.', validate: nonNegative },
  { name: 'data-dir', type: 'string', default: './data', help: 'Directory for the SQLite store, the generated certificates and the admin client configuration.', validate: (v) => (v === '' ? 'must not be empty' : undefined) },
  { name: 'cert-dir', type: 'string', default: '', help: 'Directory of the generated CA and certificates (default <data-dir>/pki). Ignored for serving when --tls-cert-file is given.' },
  { name: 'secure-port', type: 'int', default: 6443, help: 'The port to serve HTTPS on; 0 picks a free port.', validate: port },
  { name: 'bind-address', type: 'string', default: '0.0.0.0', help: 'The IP address to listen on. 0.0.0.0 or :: means all interfaces.', validate: ipAddress },
  { name: 'advertise-address', type: 'string', default: '', help: 'The IP address the server advertises to members of the cluster. Defaults to --bind-address when that is not 0.0.0.0.', validate: ipAddress },
  { name: 'external-hostname', type: 'string', default: '', help: 'The host name to use in URLs the server generates for itself.' },
  { name: 'tls-sans', type: 'stringList', default: [], help: 'Extra DNS names and IP addresses for the generated serving certificate.' },
  { name: 'api-domain', type: 'enum', values: apiDomains, default: defaultApiDomain, help: 'The domain of API groups, labels and annotations; the reference domain makes unmodified reference clients work.' },
  { name: 'tls-cert-file', type: 'string', default: '', help: 'Serving certificate (PEM, with any intermediates after it). Without it a certificate is generated under --cert-dir.' },
  { name: 'tls-private-key-file', type: 'string', default: '', help: 'The private key of --tls-cert-file.' },
  { name: 'tls-min-version', type: 'enum', values: ['', ...Object.keys(tlsVersions)], default: '', help: `The oldest TLS version the server speaks (${tlsVersionHelp}); default TLS 1.2.` },
  { name: 'tls-sni-cert-key', type: 'stringArray', default: [], help: 'A certificate and key served to clients that ask for one of its names by SNI: "cert,key" (the names in the certificate) or "cert,key:name1,*.example.com"; repeat the flag for more. A name given here beats one read from a certificate, an exact name a wildcard; other clients get --tls-cert-file.' },
  { name: 'tls-cipher-suites', type: 'stringList', default: [], help: `The TLS 1.2 (and older) cipher suites the server offers, by their IANA names; TLS 1.3's are always on. Default: Node's own list. Known: ${cipherSuiteNames.join(', ')}.` },
  { name: 'client-ca-file', type: 'string', default: '', help: 'CA bundle that client certificates are checked against. The generated CA is always trusted too.' },
  { name: 'allow-privileged', type: 'bool', default: false, help: 'Accept pods and pod templates whose containers ask to run privileged; without it they are refused as invalid.' },
  { name: 'strict-transport-security-directives', type: 'stringList', default: [], help: 'The Strict-Transport-Security header of every answer, as directives: max-age=<seconds> (required), includeSubDomains, preload. Empty: none.' },
  { name: 'cors-allowed-origins', type: 'stringList', default: [], help: 'Origins (RE2 patterns; anchor them, e.g. //example.com(:|$)) whose browser pages may call the API: their requests get CORS headers and their preflights a 204. Empty: no CORS.' },
  { name: 'profiling', type: 'bool', default: true, help: 'Serve the process\'s CPU profiles and heap snapshots (V8\'s formats) under /debug/pprof to those allowed to read it.' },
  { name: 'anonymous-auth', type: 'bool', default: true, help: 'Treat requests no authenticator rejects or accepts as user system:anonymous in group system:unauthenticated.' },
  { name: 'authorization-mode', type: 'stringList', default: ['AlwaysAllow'], help: `Ordered list of authorizers: ${authorizationModes.join(', ')}.`, validate: checkAuthorizationModes },
  { name: 'token-auth-file', type: 'string', default: '', help: 'CSV file of static bearer tokens: token,user,uid[,"group1,group2"]. Read once at start-up.' },
  { name: 'enable-bootstrap-token-auth', type: 'bool', default: false, help: 'Accept bootstrap tokens (Secrets of the bootstrap token type in the system namespace) as bearer tokens.' },
  { name: 'service-account-key-file', type: 'stringList', default: [], help: 'PEM file of RSA or ECDSA keys (public or private) that verify service-account tokens; repeatable. Defaults to the signing key.' },
  { name: 'service-account-signing-key-file', type: 'string', default: '', help: 'Private key that signs service-account tokens. Without it a key is generated under --cert-dir (or --tls-private-key-file is used).' },
  { name: 'service-account-issuer', type: 'stringList', default: [], help: 'Issuer of service-account tokens; repeatable: the first issues, all are accepted.' },
  { name: 'service-account-jwks-uri', type: 'string', default: '', help: 'The jwks_uri of the issuer\'s discovery document (/.well-known/openid-configuration), for relying parties that fetch the keys elsewhere than this server. Default: https://<this server>/openid/v1/jwks.' },
  { name: 'service-account-lookup', type: 'bool', default: true, help: 'Check that the service account (and bound object) of a token still exists.' },
  { name: 'api-audiences', type: 'stringList', default: [], help: 'Audiences a token must be meant for. Defaults to the first --service-account-issuer.' },
  { name: 'service-account-extend-token-expiration', type: 'bool', default: true, help: 'Issue pod-bound tokens asked for 3607 seconds (the node agent\'s projected tokens) for a year instead, noting the asked end in the token (warnafter), so that clients that never read a refreshed token keep working.' },
  { name: 'service-account-max-token-expiration', type: 'duration', default: 0, help: 'Longest lifetime of a token issued by TokenRequest. 0 means no limit.', validate: nonNegative },
  { name: 'oidc-issuer-url', type: 'string', default: '', help: 'HTTPS URL of the OpenID issuer; enables OpenID Connect tokens.', validate: (v) => (v === '' || /^https:\/\//.test(v as string) ? undefined : 'must be an https URL') },
  { name: 'oidc-client-id', type: 'string', default: '', help: 'Client ID every OpenID token must be issued for (required with --oidc-issuer-url).' },
  { name: 'oidc-username-claim', type: 'string', default: 'sub', help: 'The claim giving the user name.' },
  { name: 'oidc-username-prefix', type: 'string', default: '', help: 'Prefix of user names; "-" disables. Default: the issuer URL and "#" unless the claim is email.' },
  { name: 'oidc-groups-claim', type: 'string', default: '', help: 'The claim giving the groups (a string or list of strings).' },
  { name: 'oidc-groups-prefix', type: 'string', default: '', help: 'Prefix of group names.' },
  { name: 'oidc-required-claim', type: 'map', default: {}, help: 'key=value claims every token must have; repeatable.' },
  { name: 'oidc-ca-file', type: 'string', default: '', help: 'CA certificates for the issuer. Default: the host roots.' },
  { name: 'oidc-signing-algs', type: 'stringList', default: ['RS256'], help: `Accepted signing algorithms: ${oidcSigningAlgs.join(', ')}.`, validate: (v) => checkSigningAlgs(v as string[]) },
  { name: 'authentication-token-webhook-config-file', type: 'string', default: '', help: 'Client configuration of the token-review webhook.' },
  { name: 'authentication-token-webhook-cache-ttl', type: 'duration', default: 120_000, help: 'How long token-review answers are cached.', validate: nonNegative },
  { name: 'authentication-token-webhook-version', type: 'enum', values: ['v1', 'v1beta1'], default: 'v1beta1', help: 'TokenReview version sent to the webhook.' },
  { name: 'proxy-client-cert-file', type: 'string', default: '', help: 'Client certificate this server shows the backends of APIServices; they trust it through their --requestheader-client-ca-file. Without it one is issued from a front-proxy CA generated at start.' },
  { name: 'proxy-client-key-file', type: 'string', default: '', help: 'Private key of --proxy-client-cert-file.' },
  { name: 'enable-aggregator-routing', type: 'bool', default: true, help: 'Accepted for compatibility: backends of APIServices are always reached through the endpoints of their Service (this server has no cluster IP routing).' },
  { name: 'requestheader-client-ca-file', type: 'string', default: '', help: 'CA that an authenticating proxy\'s client certificate must chain to before its headers are trusted.' },
  { name: 'requestheader-allowed-names', type: 'stringList', default: [], help: 'Common names an authenticating proxy\'s certificate may have. Empty: any.' },
  { name: 'requestheader-username-headers', type: 'stringList', default: [], help: 'Headers that carry the user name, first with a value wins.' },
  { name: 'requestheader-group-headers', type: 'stringList', default: [], help: 'Headers whose values are groups.' },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', default: [], help: 'Header prefixes whose headers give extra attributes.' },
  { name: 'authorization-policy-file', type: 'string', default: '', help: 'The policies of mode ABAC: one JSON object a line (Policy of apiVersion abac.authorization.<label domain>/v1beta1, or the older unversioned form).' },
  { name: 'authorization-webhook-config-file', type: 'string', default: '', help: 'Client configuration of the authorization webhook (mode Webhook).' },
  { name: 'authorization-webhook-cache-authorized-ttl', type: 'duration', default: 300_000, help: 'How long allowed answers of the webhook are cached.', validate: nonNegative },
  { name: 'authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 30_000, help: 'How long denied answers of the webhook are cached.', validate: nonNegative },
  { name: 'authorization-webhook-version', type: 'enum', values: ['v1', 'v1beta1'], default: 'v1beta1', help: 'SubjectAccessReview version sent to the webhook.' },
  { name: 'enable-admission-plugins', type: 'stringList', default: [], help: 'Admission plugins to enable in addition to the default ones.' },
  { name: 'disable-admission-plugins', type: 'stringList', default: [], help: 'Admission plugins to disable, even if on by default.' },
  { name: 'admission-control-config-file', type: 'string', default: '', help: 'File with the admission plugins\' configuration (an AdmissionConfiguration object).' },
  { name: 'default-not-ready-toleration-seconds', type: 'int', default: 300, help: 'How long pods tolerate a not-ready node (the toleration DefaultTolerationSeconds adds).', validate: nonNegative },
  { name: 'default-unreachable-toleration-seconds', type: 'int', default: 300, help: 'How long pods tolerate an unreachable node (the toleration DefaultTolerationSeconds adds).', validate: nonNegative },
  { name: 'audit-policy-file', type: 'string', default: '', help: 'Audit policy (kind Policy of audit.<domain>/v1): which requests are recorded, at which level. Needed for any auditing.' },
  { name: 'audit-log-path', type: 'string', default: '', help: 'File the audit log is written to, one JSON event a line; "-" writes to standard output.' },
  { name: 'audit-log-maxage', type: 'int', default: 0, help: 'Days a rotated audit log file is kept (0: no limit).', validate: nonNegative },
  { name: 'audit-log-maxbackup', type: 'int', default: 0, help: 'Rotated audit log files kept (0: all).', validate: nonNegative },
  { name: 'audit-log-maxsize', type: 'int', default: 0, help: 'Megabytes of the audit log file before it is rotated (0: never).', validate: nonNegative },
  { name: 'audit-log-format', type: 'enum', values: ['json', 'legacy'], default: 'json', help: 'Format of the audit log: json (one event a line) or legacy (one line of text an event).' },
  { name: 'audit-log-compress', type: 'bool', default: false, help: 'Compress rotated audit log files with gzip.' },
  { name: 'audit-log-version', type: 'string', default: '', help: 'API version of the events written to the log: audit.<domain>/v1, the only one (the default).' },
  ...auditBatchFlags('log', 'the log', { mode: 'blocking', maxBatchSize: 1, maxWaitMs: 0, throttle: false }),
  { name: 'audit-webhook-config-file', type: 'string', default: '', help: 'Client configuration of the audit webhook, which receives batches of events (EventList).' },
  { name: 'audit-webhook-version', type: 'string', default: '', help: 'API version of the events sent to the webhook: audit.<domain>/v1, the only one (the default).' },
  ...auditBatchFlags('webhook', 'the webhook', { mode: 'batch', maxBatchSize: 400, maxWaitMs: 30_000, throttle: true }),
  { name: 'audit-webhook-initial-backoff', type: 'duration', default: 10_000, help: 'Wait before a failed batch is sent again; each retry waits twice as long, five tries in all.', validate: nonNegative },
  { name: 'runtime-config', type: 'stringList', default: [], help: 'Comma-separated <key>[=true|false] entries enabling or disabling API versions and resources. Keys: api/all, api/ga, api/beta, api/alpha, v1, <group>/<version>, <group>/<version>/<resource>.' },
  { name: 'feature-gates', type: 'map', default: {}, help: `Comma-separated Name=true|false pairs. Known gates:\n          ${describeFeatureGates().split('\n').join('\n          ')}` },
  { name: 'enable-priority-and-fairness', type: 'bool', default: true, help: 'Queue requests fairly by FlowSchemas and PriorityLevelConfigurations (API priority and fairness); when false, the two in-flight limits below refuse what is over them.' },
  { name: 'max-requests-inflight', type: 'int', default: 400, help: 'Maximum number of non-mutating requests in flight; more are refused. 0 means no limit. With priority and fairness, this plus the mutating limit is the seats its levels share.', validate: nonNegative },
  { name: 'max-mutating-requests-inflight', type: 'int', default: 200, help: 'Maximum number of mutating requests in flight; more are refused. 0 means no limit. With priority and fairness, part of the seats its levels share.', validate: nonNegative },
  { name: 'request-timeout', type: 'duration', default: 60_000, help: 'Time limit for a request, except long-running ones such as watches.', validate: (v) => ((v as number) > 0 ? undefined : 'must be greater than 0') },
  { name: 'min-request-timeout', type: 'int', default: 1800, help: 'Minimum lifetime of a watch, in seconds; each watch lives a random time between this and twice this.', validate: nonNegative },
  { name: 'livez-grace-period', type: 'duration', default: 0, help: 'Time after start-up during which /livez reports success even if checks fail.', validate: nonNegative },
  { name: 'shutdown-delay-duration', type: 'duration', default: 0, help: 'Time to keep serving after a termination signal, while /readyz reports failure.', validate: nonNegative },
  { name: 'shutdown-send-retry-after', type: 'bool', default: false, help: 'During shutdown, answer new requests with 429 and Retry-After instead of serving them.' },
  { name: 'watch-cache', type: 'bool', default: true, help: 'Serve lists and watches from an in-memory cache. False serves every resource from storage.' },
  { name: 'default-watch-cache-size', type: 'int', default: 100, help: 'Events kept per resource by the watch cache. 0 turns the cache off for resources with no size in --watch-cache-sizes (their lists and watches are served from storage).', validate: nonNegative },
  { name: 'endpoint-reconciler-type', type: 'enum', values: ['lease', 'none'], default: 'lease', help: 'How the endpoints of the API server\'s own Service are kept: each server renews a lease and the live ones are listed (lease), or they are left alone (none).' },
  { name: 'service-cluster-ip-range', type: 'stringList', default: ['10.0.0.0/24'], help: 'CIDR from which Service cluster IPs are allocated; at most one per IP family.', validate: checkCidrs },
  { name: 'service-node-port-range', type: 'string', default: '30000-32767', help: 'Ports for NodePort Services, both ends included, as <first>-<last> or <first>+<count>.', validate: (v) => checkPortRange(v as string) },
  { name: 'kubelet-client-certificate', type: 'string', default: '', help: 'Client certificate the server presents to node agents (logs, exec, attach, port-forward, nodes/proxy). Without it the server issues one from its CA (user kube-apiserver-kubelet-client, group system:masters).' },
  { name: 'kubelet-client-key', type: 'string', default: '', help: 'The private key of --kubelet-client-certificate.' },
  { name: 'kubelet-certificate-authority', type: 'string', default: '', help: 'CA file the node agents\' serving certificates must chain to. Without it they are not checked.' },
  { name: 'kubelet-preferred-address-types', type: 'stringList', default: ['InternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS', 'ExternalIP'], help: 'The node address types to reach agents at, in order. The default puts InternalIP first (the reference puts Hostname first), since simulated nodes\' names do not resolve.', validate: (v) => ((v as string[]).find((t) => !nodeAddressTypes.includes(t)) ? `address types are ${nodeAddressTypes.join(', ')}` : undefined) },
  { name: 'kubelet-timeout', type: 'duration', default: 5000, help: 'How long connecting to a node agent may take.', validate: (v) => ((v as number) > 0 ? undefined : 'must be greater than 0') },
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.', validate: nonNegative },
  { name: 'controller-manager', type: 'bool', default: true, help: 'Run the controller manager inside the server\'s process (the flags below that it shares with cluster-controller-manager configure it).' },
  ...controllerManagerFlags,
  ...embeddedSchedulerFlags,
  { name: 'metrics-server', type: 'bool', default: true, help: 'Run a metrics server inside the server\'s process and register it as the APIService of the resource metrics API (metrics.<domain>/v1beta1), which `top` reads; it scrapes each node agent\'s /metrics/resource through nodes/proxy. Turn it off to register another metrics server instead.' },
  { name: 'goaway-chance', type: 'float', default: 0, help: 'On HTTP/2 connections, the chance (0 to 0.02) that, after a request, the server asks the client to go (a graceful GOAWAY: requests in progress finish) so that its next requests open a new connection, perhaps to another server behind a load balancer. 0: never.', validate: (v) => ((v as number) < 0 || (v as number) > 0.02 ? '--goaway-chance can not be less than 0 or greater than 0.02' : undefined) },
  { name: 'http2-max-streams-per-connection', type: 'int', default: 0, help: 'The streams an HTTP/2 client may have open at once on one connection (advertised in its SETTINGS). 0: the default, 250.', validate: nonNegative },
  { name: 'admission-control', type: 'stringList', default: [], help: 'Admission plugins to run, in order; plugins on by default that are not named are off. Not with --enable-admission-plugins or --disable-admission-plugins.', deprecated: 'Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.' },
  { name: 'watch-cache-sizes', type: 'stringList', default: [], help: 'Events the watch cache keeps for a resource (the history a watch from an older resourceVersion can resume from; older ones get 410 Gone), as resource[.group]#size, comma-separated (core resources without a group). Size 0 turns the cache off for the resource: its lists and watches are served from storage. Others keep up to 10,000 events of the last 5 minutes.', validate: (v) => checkWatchCacheSizes(v as string[]) },
  { name: 'delete-collection-workers', type: 'int', default: 1, help: 'How many objects a DELETE of a collection deletes at once.', validate: (v) => ((v as number) < 1 ? 'must be at least 1' : undefined) },
  { name: 'kubernetes-service-node-port', type: 'int', default: 0, help: 'Above 0: the API server\'s own Service in default is of type NodePort, its https port on this node port (inside --service-node-port-range). 0: ClusterIP.', validate: (v) => ((v as number) < 0 || (v as number) > 65535 ? 'must be a port number from 0 to 65535' : undefined) },
  { name: 'aggregator-reject-forwarding-redirect', type: 'bool', default: true, help: 'A redirect (3xx) answered by the backend of an APIService is not passed to the client, which gets a 502 instead.' },
  { name: 'etcd-healthcheck-timeout', type: 'duration', default: 2000, help: 'How long the storage check of /healthz and /livez may take before it fails.', validate: positiveNumber },
  { name: 'etcd-readycheck-timeout', type: 'duration', default: 2000, help: 'How long the storage check of /readyz may take before it fails.', validate: positiveNumber },
  { name: 'etcd-count-metric-poll-period', type: 'duration', default: 60_000, help: 'How often the counts of apiserver_storage_objects are taken (a scrape in between sees the last counts). 0 disables the metric.', validate: nonNegative },
  { name: 'etcd-db-metric-poll-interval', type: 'duration', default: 30_000, help: 'Accepted for compatibility; not acting: this server has no apiserver_storage_db_total_size_in_bytes metric.', validate: nonNegative },
  { name: 'logging-format', type: 'enum', values: ['text', 'json'], default: 'text', help: 'The format of log lines: text (a level letter and a timestamp, then the message) or json (one JSON object a line: ts in seconds, v, msg; errors with err).' },
  { name: 'vmodule', type: 'string', default: '', help: 'Accepted for compatibility (pattern=N,... per-file verbosity); not acting: -v applies to every file.' },
  { name: 'log-json-info-buffer-size', type: 'string', default: '0', help: 'Accepted for compatibility (a quantity of bytes); not acting: JSON log lines are written unbuffered.' },
  { name: 'apiserver-count', type: 'int', default: 1, help: 'Accepted for compatibility; not acting: it sizes the master-count endpoint reconciler, which this server does not have (see --endpoint-reconciler-type).', validate: positiveInt, deprecated: 'apiserver-count is deprecated and will be removed in a future version.' },
  { name: 'storage-media-type', type: 'string', default: 'application/json', help: `The media type objects are stored in: ${storageMediaTypes.join(', ')}. Accepted for compatibility; not acting: objects are always stored as JSON.`, validate: (v) => (storageMediaTypes.includes(v as string) ? undefined : `unsupported storage media type: ${v as string}`) },
  { name: 'contention-profiling', type: 'bool', default: false, help: 'Accepted for compatibility; not acting: the process has no lock-contention profile.' },
  { name: 'lease-reuse-duration-seconds', type: 'int', default: 60, help: 'Accepted for compatibility; not acting: keys with a time to live (Events) are expired by the server itself, without storage leases.', validate: positiveInt },
  { name: 'tracing-config-file', type: 'string', default: '', help: 'A TracingConfiguration file (apiserver.config.<domain>/v1alpha1): read and checked at start; not acting: this server exports no traces.' },
  { name: 'enable-logs-handler', type: 'bool', default: true, help: 'Accepted for compatibility; this server serves no /logs, whatever its value.' },
  { name: 'cloud-provider', type: 'string', default: '', help: 'The cloud provider: "" (none) or "external" (a cloud controller manager runs apart). No provider is built in.', validate: (v) => (v === '' || v === 'external' ? undefined : `cloud provider ${JSON.stringify(v)} is not built in: use "external" and run its cloud controller manager`) },
  { name: 'egress-selector-config-file', type: 'string', default: '', help: 'An EgressSelectorConfiguration file (apiserver.<domain>/v1beta1): read and checked at start. Only the Direct proxy protocol is supported (every connection is made directly), so a selection through a proxy (HTTPConnect, GRPC) is refused.' },
  { name: 'metrics-server-resolution', type: 'duration', default: 15_000, help: 'How often the metrics server inside the server scrapes every node; CPU usage is the rate over the last two scrapes.', validate: (v) => ((v as number) >= 100 ? undefined : 'must be at least 100ms') },
];

export interface ParsedApiServerOptions {
  options: ApiServerOptions;
  warnings: string[];
  /** `--help` was given: print helpText and exit */
  help: boolean;
}

/** the reference's manifests (kubeadm's, k3s's) name etcd by --etcd-servers alone: then etcd is the store, as there */
function chosenStorageBackend(flag: string, given: boolean, etcdServers: readonly string[]): StorageBackend {
  if (flag === 'etcd3') return 'etcd';
  if (!given && etcdServers.length) return 'etcd';
  return flag as StorageBackend;
}

/**
 * The in-process controller manager's options. With RBAC among the authorizers its controllers act as service accounts
 * of their own unless --use-service-account-credentials is given: as the manager's own identity the reference's default
 * roles let them write no workloads, and the distributions set the flag on the separate controller manager they run
 * (kubeadm, k3s), a command line this server's users do not write.
 */
function embeddedControllerManagerOptions(v: Record<string, FlagValue | undefined>, given: ReadonlySet<string>): ControllerManagerOptions {
  const options = controllerManagerOptionsFrom(v);
  if (given.has('use-service-account-credentials')) return options;
  return { ...options, useServiceAccountCredentials: (v['authorization-mode'] as string[]).includes('RBAC') };
}

export function parseApiServerOptions(argv: readonly string[]): ParsedApiServerOptions {
  const parsed = parseFlags(apiServerFlags, argv);
  if (parsed.args.length) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}: the API server takes only flags`);
  const v = parsed.values;
  const warnings = [...parsed.warnings];
  const s = (name: string) => (v[name] as string) || undefined;

  const etcdServers = v['etcd-servers'] as string[];
  const storageBackend = chosenStorageBackend(v['storage-backend'] as string, parsed.given.has('storage-backend'), etcdServers);
  if (storageBackend === 'etcd' && etcdServers.length === 0) throw new FlagError('flag --etcd-servers is required with --storage-backend=etcd');
  if (storageBackend !== 'etcd' && etcdServers.length) warnings.push(`flag --etcd-servers is ignored with --storage-backend=${storageBackend}`);
  if (!s('tls-cert-file') !== !s('tls-private-key-file')) throw new FlagError('flags --tls-cert-file and --tls-private-key-file must be given together');
  if (!s('kubelet-client-certificate') !== !s('kubelet-client-key')) throw new FlagError('flags --kubelet-client-certificate and --kubelet-client-key must be given together');
  if (!s('etcd-certfile') !== !s('etcd-keyfile')) throw new FlagError('flags --etcd-certfile and --etcd-keyfile must be given together');
  // priority and fairness shares out the two limits' sum: the reference refuses to start with nothing to share
  if (v['enable-priority-and-fairness'] && (v['max-requests-inflight'] as number) + (v['max-mutating-requests-inflight'] as number) <= 0)
    throw new FlagError(`invalid configuration: --max-requests-inflight=${v['max-requests-inflight']} and --max-mutating-requests-inflight=${v['max-mutating-requests-inflight']}; they must add up to something positive with --enable-priority-and-fairness`);

  const unavailableSuites = unavailableCipherSuites(v['tls-cipher-suites'] as string[]);
  if (unavailableSuites.length)
    warnings.push(`flag --tls-cipher-suites: ${unavailableSuites.join(', ')} not offered: this server's TLS library (OpenSSL ${process.versions.openssl}) does not have ${unavailableSuites.length > 1 ? 'them' : 'it'}`);
  const featureGates = wrap('feature-gates', () => parseFeatureGates(v['feature-gates'] as Record<string, string>));
  warnings.push(...featureGates.warnings);
  const runtimeConfig = wrap('runtime-config', () => parseRuntimeConfig(v['runtime-config'] as string[]));
  warnings.push(...runtimeConfig.warnings);

  const dataDir = v['data-dir'] as string;
  const options: ApiServerOptions = {
    storageBackend,
    etcdServers,
    etcdPrefix: v['etcd-prefix'] as string,
    etcdTls: { caFile: s('etcd-cafile'), certFile: s('etcd-certfile'), keyFile: s('etcd-keyfile') },
    etcdCompactionIntervalMs: v['etcd-compaction-interval'] as number,
    encryptionProviderConfig: s('encryption-provider-config'),
    encryptionProviderConfigAutomaticReload: v['encryption-provider-config-automatic-reload'] as boolean,
    eventTtlMs: v['event-ttl'] as number,
    dataDir,
    certDir: s('cert-dir') ?? join(dataDir, 'pki'),
    adminKubeconfigPath: join(dataDir, 'admin.kubeconfig'),
    securePort: v['secure-port'] as number,
    bindAddress: v['bind-address'] as string,
    advertiseAddress: s('advertise-address') ?? (['0.0.0.0', '::'].includes(v['bind-address'] as string) ? undefined : (v['bind-address'] as string)),
    externalHostname: s('external-hostname'),
    tlsSans: v['tls-sans'] as string[],
    apiDomain: v['api-domain'] as ApiDomain,
    tlsCertFile: s('tls-cert-file'),
    tlsMinVersion: tlsVersions[v['tls-min-version'] as string],
    tlsCiphers: opensslCiphers(v['tls-cipher-suites'] as string[]),
    tlsSniCertKeys: (v['tls-sni-cert-key'] as string[]).map(parseNamedCertKey),
    tlsPrivateKeyFile: s('tls-private-key-file'),
    clientCaFile: s('client-ca-file'),
    anonymousAuth: v['anonymous-auth'] as boolean,
    authorizationModes: v['authorization-mode'] as AuthorizationMode[],
    authentication: authenticationOptions(v),
    authorization: authorizationOptions(v, v['authorization-mode'] as AuthorizationMode[]),
    enableAdmissionPlugins: v['enable-admission-plugins'] as string[],
    disableAdmissionPlugins: v['disable-admission-plugins'] as string[],
    admissionControlConfigFile: s('admission-control-config-file'),
    defaultNotReadyTolerationSeconds: v['default-not-ready-toleration-seconds'] as number,
    defaultUnreachableTolerationSeconds: v['default-unreachable-toleration-seconds'] as number,
    runtimeConfig,
    featureGates: featureGates.gates,
    allowPrivileged: v['allow-privileged'] as boolean,
    profiling: v['profiling'] as boolean,
    hsts: wrap('strict-transport-security-directives', () => hstsHeader(v['strict-transport-security-directives'] as string[])),
    corsAllowedOrigins: wrap('cors-allowed-origins', () => checkedPatterns(v['cors-allowed-origins'] as string[])),
    aggregation: proxyClientPair(v['proxy-client-cert-file'] as string, v['proxy-client-key-file'] as string) && {
      proxyClientCertFile: (v['proxy-client-cert-file'] as string) || undefined, proxyClientKeyFile: (v['proxy-client-key-file'] as string) || undefined,
    },
    audit: auditFlags(v, v['api-domain'] as ApiDomain),
    maxRequestsInflight: v['max-requests-inflight'] as number,
    maxMutatingRequestsInflight: v['max-mutating-requests-inflight'] as number,
    enablePriorityAndFairness: v['enable-priority-and-fairness'] as boolean,
    requestTimeoutMs: v['request-timeout'] as number,
    minRequestTimeoutSeconds: v['min-request-timeout'] as number,
    livezGracePeriodMs: v['livez-grace-period'] as number,
    shutdownDelayDurationMs: v['shutdown-delay-duration'] as number,
    shutdownSendRetryAfter: v['shutdown-send-retry-after'] as boolean,
    watchCache: v['watch-cache'] as boolean,
    defaultWatchCacheSize: v['default-watch-cache-size'] as number,
    serviceClusterIpRanges: v['service-cluster-ip-range'] as string[],
    serviceNodePortRange: parsePortRange(v['service-node-port-range'] as string),
    endpointReconcilerType: v['endpoint-reconciler-type'] as 'lease' | 'none',
    verbosity: v.v as number,
    kubelet: {
      clientCertificateFile: s('kubelet-client-certificate'), clientKeyFile: s('kubelet-client-key'),
      certificateAuthorityFile: s('kubelet-certificate-authority'),
      preferredAddressTypes: v['kubelet-preferred-address-types'] as string[], timeoutMs: v['kubelet-timeout'] as number,
    },
    controllerManager: v['controller-manager'] ? embeddedControllerManagerOptions(v, parsed.given) : undefined,
    metricsServer: v['metrics-server'] ? { resolutionMs: v['metrics-server-resolution'] as number } : undefined,
    scheduler: v.scheduler ? { configFile: (v['scheduler-config'] as string) || undefined, flagValues: embeddedSchedulerValues(v) } : undefined,
    goawayChance: v['goaway-chance'] as number,
    http2MaxStreamsPerConnection: v['http2-max-streams-per-connection'] as number,
    watchCacheSizes: parseWatchCacheSizes(v['watch-cache-sizes'] as string[]),
    deleteCollectionWorkers: v['delete-collection-workers'] as number,
    kubernetesServiceNodePort: v['kubernetes-service-node-port'] as number,
    aggregatorRejectForwardingRedirect: v['aggregator-reject-forwarding-redirect'] as boolean,
    etcdHealthcheckTimeoutMs: v['etcd-healthcheck-timeout'] as number,
    etcdReadycheckTimeoutMs: v['etcd-readycheck-timeout'] as number,
    etcdCountMetricPollPeriodMs: v['etcd-count-metric-poll-period'] as number,
    loggingFormat: v['logging-format'] as 'text' | 'json',
    tracingConfigFile: s('tracing-config-file'),
    egressSelectorConfigFile: s('egress-selector-config-file'),
  };
  if (v['cloud-provider'] === 'external') warnings.push('flag --cloud-provider=external: node addresses and cloud resources are left to a cloud controller manager run apart');
  const admissionControl = v['admission-control'] as string[];
  if (parsed.given.has('admission-control') && (parsed.given.has('enable-admission-plugins') || parsed.given.has('disable-admission-plugins')))
    throw new FlagError('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  if (parsed.given.has('admission-control')) options.admissionControl = admissionControl;
  const nodePort = options.kubernetesServiceNodePort, range = options.serviceNodePortRange;
  if (nodePort > 0 && (nodePort < range.base || nodePort >= range.base + range.size))
    throw new FlagError(`kubernetes-service-node-port ${nodePort} must be within the range of --service-node-port-range (${range.base}-${range.base + range.size - 1})`);
  warnings.push(...tokenExpirationProblems(options.authentication.serviceAccountMaxTokenExpirationMs, options.authentication.serviceAccountExtendTokenExpiration));
  for (const [flag, why] of Object.entries(notActingFlags)) {
    const decl = apiServerFlags.find(d => d.name === flag)!;
    if (parsed.given.has(flag) && JSON.stringify(v[flag]) !== JSON.stringify(decl.default)) warnings.push(`flag --${flag} is accepted but has no effect: ${why}`);
  }
  // checked now, so a bad combination fails at start-up rather than when the scheduler starts
  if (options.scheduler) schedulerOptionsFrom(options.scheduler.flagValues, undefined);
  const both = options.enableAdmissionPlugins.filter((p) => options.disableAdmissionPlugins.includes(p));
  if (both.length) throw new FlagError(`admission plugins both enabled and disabled (--enable-admission-plugins, --disable-admission-plugins): ${both.join(', ')}`);
  return { options, warnings, help: parsed.help };
}

type Values = Record<string, FlagValue | undefined>;

/** the proxy client certificate and its key come together */
function proxyClientPair(cert: string, key: string): true {
  if (!cert !== !key) throw new FlagError('flags --proxy-client-cert-file and --proxy-client-key-file must be given together');
  return true;
}

function authenticationOptions(v: Values): AuthenticationOptions {
  const str = (name: string) => (v[name] as string) || undefined;
  const list = (name: string) => v[name] as string[];
  const issuerUrl = str('oidc-issuer-url');
  if (!issuerUrl && str('oidc-client-id')) throw new FlagError('flag --oidc-client-id needs --oidc-issuer-url');
  if (issuerUrl && !str('oidc-client-id')) throw new FlagError('flag --oidc-client-id is required with --oidc-issuer-url');
  const requestHeaderCa = str('requestheader-client-ca-file');
  if (!requestHeaderCa && list('requestheader-username-headers').length)
    throw new FlagError('flag --requestheader-client-ca-file is required with --requestheader-username-headers');
  const webhook = str('authentication-token-webhook-config-file');
  return {
    tokenAuthFile: str('token-auth-file'),
    enableBootstrapTokenAuth: v['enable-bootstrap-token-auth'] as boolean,
    serviceAccountKeyFiles: list('service-account-key-file'),
    serviceAccountSigningKeyFile: str('service-account-signing-key-file'),
    serviceAccountIssuers: list('service-account-issuer'),
    serviceAccountJwksUri: str('service-account-jwks-uri'),
    serviceAccountLookup: v['service-account-lookup'] as boolean,
    apiAudiences: list('api-audiences'),
    serviceAccountMaxTokenExpirationMs: v['service-account-max-token-expiration'] as number,
    serviceAccountExtendTokenExpiration: v['service-account-extend-token-expiration'] as boolean,
    oidc: issuerUrl ? {
      issuerUrl, clientId: str('oidc-client-id')!, usernameClaim: v['oidc-username-claim'] as string,
      usernamePrefix: str('oidc-username-prefix'), groupsClaim: str('oidc-groups-claim'), groupsPrefix: (v['oidc-groups-prefix'] as string) ?? '',
      requiredClaims: v['oidc-required-claim'] as Record<string, string>, caFile: str('oidc-ca-file'), signingAlgs: list('oidc-signing-algs'),
    } : undefined,
    tokenWebhook: webhook ? {
      configFile: webhook, cacheTtlMs: v['authentication-token-webhook-cache-ttl'] as number,
      version: v['authentication-token-webhook-version'] as 'v1' | 'v1beta1',
    } : undefined,
    requestHeader: requestHeaderCa ? {
      clientCaFile: requestHeaderCa, allowedNames: list('requestheader-allowed-names'), usernameHeaders: list('requestheader-username-headers'),
      groupHeaders: list('requestheader-group-headers'), extraHeadersPrefixes: list('requestheader-extra-headers-prefix'),
    } : undefined,
  };
}

function auditFlags(v: Values, domain: ApiDomain): AuditFlags {
  const str = (name: string) => (v[name] as string) || undefined;
  // the reference's flags name the events' version; v1 is the only one it still writes
  const eventVersion = `${naming(domain).group('audit')}/v1`;
  for (const f of ['audit-log-version', 'audit-webhook-version'])
    if (str(f) && str(f) !== eventVersion) throw new FlagError(`invalid value for flag --${f}: ${str(f)}: the only version is ${eventVersion}`);
  const num = (name: string) => v[name] as number;
  const batch = (f: string): AuditBatchFlags => ({
    mode: v[`${f}-mode`] as AuditMode, bufferSize: num(`${f}-batch-buffer-size`), maxBatchSize: num(`${f}-batch-max-size`),
    maxWaitMs: num(`${f}-batch-max-wait`),
    throttle: v[`${f}-batch-throttle-enable`] ? { qps: num(`${f}-batch-throttle-qps`), burst: num(`${f}-batch-throttle-burst`) } : undefined,
    truncate: v[`${f}-truncate-enabled`] ? truncateSizes(f) : undefined,
  });
  const truncateSizes = (f: string) => {
    const maxEventSize = num(`${f}-truncate-max-event-size`), maxBatchSize = num(`${f}-truncate-max-batch-size`);
    if (maxBatchSize < maxEventSize)
      throw new FlagError(`invalid value for flag --${f}-truncate-max-batch-size: ${maxBatchSize} must be at least --${f}-truncate-max-event-size (${maxEventSize})`);
    return { maxEventSize, maxBatchSize };
  };
  const logPath = str('audit-log-path'), webhook = str('audit-webhook-config-file');
  return {
    policyFile: str('audit-policy-file'),
    log: logPath ? {
      path: logPath, maxAgeDays: num('audit-log-maxage'), maxBackups: num('audit-log-maxbackup'), maxSizeMb: num('audit-log-maxsize'),
      format: v['audit-log-format'] as 'json' | 'legacy', compress: v['audit-log-compress'] === true, batch: batch('audit-log'),
    } : undefined,
    webhook: webhook ? { configFile: webhook, initialBackoffMs: num('audit-webhook-initial-backoff'), batch: batch('audit-webhook') } : undefined,
  };
}

/** the Strict-Transport-Security value of the flag's directives; throws on a directive the reference refuses */
function hstsHeader(directives: readonly string[]): string | undefined {
  if (!directives.length) return undefined;
  const valid = (d: string) => /^max-age=\d+$/.test(d) || d === 'includeSubDomains' || d === 'preload';
  if (!directives.every(valid) || !directives.some(d => d.startsWith('max-age=')))
    throw new Error('--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information');
  return directives.join('; ');
}

/** RE2 patterns, each compiled once to refuse a bad one at start */
function checkedPatterns(patterns: string[]): string[] {
  for (const p of patterns) { const problem = re2Problem(p); if (problem) throw new Error(`${JSON.stringify(p)}: ${problem}`); }
  return patterns;
}

function authorizationOptions(v: Values, modes: AuthorizationMode[]): AuthorizationOptions {
  const configFile = (v['authorization-webhook-config-file'] as string) || undefined;
  if (modes.includes('Webhook') && !configFile) throw new FlagError('authorization-mode Webhook needs --authorization-webhook-config-file');
  if (!modes.includes('Webhook') && configFile) throw new FlagError('flag --authorization-webhook-config-file needs --authorization-mode to include Webhook');
  const policyFile = (v['authorization-policy-file'] as string) || undefined;
  if (modes.includes('ABAC') && !policyFile) throw new FlagError('authorization-mode ABAC needs --authorization-policy-file');
  if (!modes.includes('ABAC') && policyFile) throw new FlagError('flag --authorization-policy-file needs --authorization-mode to include ABAC');
  return {
    policyFile,
    webhook: configFile ? {
      configFile, authorizedTtlMs: v['authorization-webhook-cache-authorized-ttl'] as number,
      unauthorizedTtlMs: v['authorization-webhook-cache-unauthorized-ttl'] as number,
      version: v['authorization-webhook-version'] as 'v1' | 'v1beta1',
    } : undefined,
  };
}

export function apiServerHelp(program = 'cluster-apiserver'): string {
  return help(apiServerFlags, { usage: `${program} [flags]` });
}

function wrap<T>(flag: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new FlagError(`invalid value for flag --${flag}: ${(e as Error).message}`);
  }
}

function checkUrl(s: string): string | undefined {
  try {
    const u = new URL(s);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname) return undefined;
  } catch {
    // reported below
  }
  return `${JSON.stringify(s)} is not a URL of the form http(s)://host:port`;
}

function checkAuthorizationModes(v: FlagValue): string | undefined {
  const modes = v as string[];
  const unknown = modes.filter((m) => !(authorizationModes as readonly string[]).includes(m));
  if (unknown.length) return `unknown authorization mode ${unknown.join(', ')}: use ${authorizationModes.join(', ')}`;
  const repeated = modes.filter((m, i) => modes.indexOf(m) !== i);
  if (repeated.length) return `authorization mode ${repeated[0]} given more than once`;
  return modes.length ? undefined : 'at least one authorization mode is required';
}

function checkCidrs(v: FlagValue): string | undefined {
  const cidrs = v as string[];
  if (cidrs.length === 0 || cidrs.length > 2) return 'give one CIDR, or two of different IP families';
  for (const cidr of cidrs) {
    const [ip, bits, extra] = cidr.split('/');
    const family = isIP(ip ?? '');
    const max = family === 4 ? 32 : 128;
    if (!family || extra !== undefined || !/^\d+$/.test(bits ?? '') || Number(bits) > max) return `${JSON.stringify(cidr)} is not a CIDR such as 10.0.0.0/24`;
    // as the reference, a range holds at most 2^20 addresses
    if (max - Number(bits) > 20) return `${JSON.stringify(cidr)} is too large; for ${max}-bit addresses, the mask must be >= ${max - 20}`;
  }
  if (cidrs.length === 2 && isIP(cidrs[0]!.split('/')[0]!) === isIP(cidrs[1]!.split('/')[0]!)) return 'two CIDRs must be of different IP families';
  return undefined;
}

function checkPortRange(s: string): string | undefined {
  try {
    parsePortRange(s);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** `resource[.group]#size` entries, as --watch-cache-sizes takes them */
export function parseWatchCacheSizes(entries: readonly string[]): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const entry of entries) {
    const parts = entry.split('#');
    if (parts.length !== 2 || !parts[0]) throw new Error(`invalid value of watch cache size: ${entry}`);
    if (!/^[+-]?\d+$/.test(parts[1]!)) throw new Error(`invalid size of watch cache size: ${entry}`);
    const size = Number(parts[1]);
    if (size < 0) throw new Error(`watch cache size cannot be negative: ${entry}`);
    sizes[parts[0].toLowerCase()] = size;
  }
  return sizes;
}

function checkWatchCacheSizes(entries: string[]): string | undefined {
  try { parseWatchCacheSizes(entries); return undefined; } catch (e) { return (e as Error).message; }
}

/**
 * Reads and checks the configuration files of --tracing-config-file and --egress-selector-config-file (at start, before
 * anything is stored), so that a file the reference would refuse stops the start here too.
 */
export async function checkCompatibilityFiles(o: Pick<ApiServerOptions, 'tracingConfigFile' | 'egressSelectorConfigFile'>): Promise<void> {
  const check = async (flag: string, path: string | undefined, f: (doc: Record<string, unknown>) => void) => {
    if (!path) return;
    try { f(await readConfigFile(path)); } catch (e) { throw new FlagError(`invalid value for flag --${flag}: ${(e as Error).message}`); }
  };
  await check('tracing-config-file', o.tracingConfigFile, checkTracingConfig);
  await check('egress-selector-config-file', o.egressSelectorConfigFile, checkEgressSelectorConfig);
}

/** a configuration file (YAML or JSON) as a plain object */
async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) { throw new Error(unreadable(path, e)); }
  let doc: unknown;
  try { doc = (await loadYaml()).parse(text); } catch (e) { throw new Error(`${path}: ${(e as Error).message}`); }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${path}: not a configuration object`);
  return doc as Record<string, unknown>;
}

/** a TracingConfiguration: its kind, and a sampling rate within one per million */
export function checkTracingConfig(doc: Record<string, unknown>): void {
  if (doc.kind !== 'TracingConfiguration') throw new Error(`kind ${JSON.stringify(doc.kind)} is not TracingConfiguration`);
  const rate = doc.samplingRatePerMillion;
  if (rate !== undefined && !(Number.isInteger(rate) && (rate as number) >= 0 && (rate as number) <= 1_000_000))
    throw new Error('samplingRatePerMillion: Invalid value: must be an integer from 0 to 1000000');
  if (doc.endpoint !== undefined && typeof doc.endpoint !== 'string') throw new Error('endpoint: Invalid value: must be a string');
}

/** an EgressSelectorConfiguration whose every selection connects directly, the only way this server connects */
export function checkEgressSelectorConfig(doc: Record<string, unknown>): void {
  if (doc.kind !== 'EgressSelectorConfiguration') throw new Error(`kind ${JSON.stringify(doc.kind)} is not EgressSelectorConfiguration`);
  const selections = doc.egressSelections ?? [];
  if (!Array.isArray(selections)) throw new Error('egressSelections: Invalid value: must be a list');
  const seen = new Set<string>();
  selections.forEach((sel: { name?: unknown; connection?: { proxyProtocol?: unknown } }, i) => {
    const name = sel?.name;
    if (name !== 'cluster' && name !== 'controlplane' && name !== 'etcd')
      throw new Error(`egressSelections[${i}].name: Unsupported value: ${JSON.stringify(name)}: supported values: "cluster", "controlplane", "etcd"`);
    if (seen.has(name)) throw new Error(`egressSelections[${i}].name: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
    const protocol = sel.connection?.proxyProtocol;
    if (protocol !== 'Direct')
      throw new Error(`egressSelections[${i}].connection.proxyProtocol: ${JSON.stringify(protocol ?? '')} is not supported: this server connects only directly (proxyProtocol: Direct)`);
  });
}

/** `30000-32767` (both ends included) or `30000+2768`. */
export function parsePortRange(s: string): PortRange {
  const m = /^(\d+)(?:([-+])(\d+))?$/.exec(s.trim());
  const bad = () => new Error(`${JSON.stringify(s)} is not a port range such as 30000-32767`);
  if (!m) throw bad();
  const base = Number(m[1]);
  const size = m[2] === '+' ? Number(m[3]) : m[2] === '-' ? Number(m[3]) - base + 1 : 1;
  if (base < 1 || size < 1 || base + size - 1 > 65535) throw bad();
  return { base, size };
}
