import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { apiServerFlags, apiServerHelp, checkCompatibilityFiles, parseApiServerOptions, parsePortRange, parseWatchCacheSizes } from './apiserver-options.js';
import { FlagError } from './flags.js';
import { apiDomains, defaultApiDomain } from '../api/naming.js';

const otherDomain = apiDomains.find((d) => d !== defaultApiDomain)!;

describe('API server options', () => {
  test('audit backends: each with its mode and batching, at the reference\'s defaults unless given', () => {
    const { options: o } = parseApiServerOptions(['--audit-log-path=/tmp/a.log', '--audit-webhook-config-file=/tmp/hook.kubeconfig']);
    assert.deepEqual(o.audit.log, { path: '/tmp/a.log', maxAgeDays: 0, maxBackups: 0, maxSizeMb: 0, format: 'json', compress: false,
      batch: { mode: 'blocking', bufferSize: 10000, maxBatchSize: 1, maxWaitMs: 0, throttle: undefined, truncate: undefined } });
    assert.deepEqual(o.audit.webhook, { configFile: '/tmp/hook.kubeconfig', initialBackoffMs: 10_000,
      batch: { mode: 'batch', bufferSize: 10000, maxBatchSize: 400, maxWaitMs: 30_000, throttle: { qps: 10, burst: 15 }, truncate: undefined } });
    const given = parseApiServerOptions(['--audit-log-path=/tmp/a.log', '--audit-log-mode=batch', '--audit-log-batch-max-size=50',
      '--audit-log-batch-max-wait=2s', '--audit-log-batch-throttle-enable=true', '--audit-log-batch-throttle-qps=2.5', '--audit-log-format=legacy',
      '--audit-log-compress', '--audit-log-maxage=3', '--audit-log-maxbackup=4', '--audit-log-maxsize=5']).options.audit.log;
    assert.deepEqual(given, { path: '/tmp/a.log', maxAgeDays: 3, maxBackups: 4, maxSizeMb: 5, format: 'legacy', compress: true,
      batch: { mode: 'batch', bufferSize: 10000, maxBatchSize: 50, maxWaitMs: 2000, throttle: { qps: 2.5, burst: 15 }, truncate: undefined } });
    assert.throws(() => parseApiServerOptions(['--audit-webhook-mode=sometimes']), FlagError);
    assert.throws(() => parseApiServerOptions(['--audit-log-format=xml']), FlagError);
    assert.throws(() => parseApiServerOptions(['--audit-log-batch-max-size=0']), FlagError);
  });

  test('--audit-log-version and --audit-webhook-version: the reference\'s flags are accepted with the one version there is, audit.<domain>/v1', () => {
    parseApiServerOptions(['--api-domain=k8s.io', '--audit-log-version=audit.k8s.io/v1', '--audit-webhook-version=audit.k8s.io/v1']);
    parseApiServerOptions([`--audit-log-version=audit.${defaultApiDomain}/v1`]);
    assert.throws(() => parseApiServerOptions(['--api-domain=k8s.io', '--audit-webhook-version=audit.k8s.io/v1beta1']),
      /invalid value for flag --audit-webhook-version: audit.k8s.io\/v1beta1: the only version is audit.k8s.io\/v1/);
    assert.throws(() => parseApiServerOptions([`--api-domain=${otherDomain}`, `--audit-log-version=audit.${defaultApiDomain}/v1`]), FlagError);
  });

  test('audit truncation: off unless enabled, at the reference\'s sizes (10 MiB a batch, 100 KiB an event) unless given', () => {
    const on = parseApiServerOptions(['--audit-log-path=/tmp/a.log', '--audit-log-truncate-enabled', '--audit-webhook-config-file=/tmp/hook.kubeconfig',
      '--audit-webhook-truncate-enabled=true', '--audit-webhook-truncate-max-event-size=2048', '--audit-webhook-truncate-max-batch-size=4096']).options.audit;
    assert.deepEqual(on.log?.batch.truncate, { maxEventSize: 102_400, maxBatchSize: 10_485_760 });
    assert.deepEqual(on.webhook?.batch.truncate, { maxEventSize: 2048, maxBatchSize: 4096 });
    assert.throws(() => parseApiServerOptions(['--audit-log-path=/tmp/a.log', '--audit-log-truncate-enabled', '--audit-log-truncate-max-event-size=0']), FlagError);
    assert.throws(() => parseApiServerOptions(['--audit-log-path=/tmp/a.log', '--audit-log-truncate-enabled', '--audit-log-truncate-max-event-size=2000',
      '--audit-log-truncate-max-batch-size=1000']), /must be at least --audit-log-truncate-max-event-size/);
  });

  test('encryption at rest: the configuration file, read once unless automatic reload is on', () => {
    const none = parseApiServerOptions([]).options;
    assert.equal(none.encryptionProviderConfig, undefined);
    assert.equal(none.encryptionProviderConfigAutomaticReload, false);
    const given = parseApiServerOptions(['--encryption-provider-config=/etc/enc.yaml', '--encryption-provider-config-automatic-reload']).options;
    assert.equal(given.encryptionProviderConfig, '/etc/enc.yaml');
    assert.equal(given.encryptionProviderConfigAutomaticReload, true);
  });

  test('no flags: the defaults', () => {
    const { options: o, warnings, help } = parseApiServerOptions([]);
    assert.deepEqual(warnings, []);
    assert.equal(help, false);
    assert.equal(o.storageBackend, 'sqlite');
    assert.equal(o.dataDir, './data');
    assert.equal(o.certDir, join('./data', 'pki'));
    assert.equal(o.adminKubeconfigPath, join('./data', 'admin.kubeconfig'));
    assert.equal(o.securePort, 6443);
    assert.equal(o.bindAddress, '0.0.0.0');
    assert.equal(o.advertiseAddress, undefined);
    assert.equal(o.etcdPrefix, '/registry');
    assert.equal(o.etcdCompactionIntervalMs, 300_000);
    assert.equal(o.anonymousAuth, true);
    assert.deepEqual(o.authorizationModes, ['AlwaysAllow']);
    assert.equal(o.maxRequestsInflight, 400);
    assert.equal(o.maxMutatingRequestsInflight, 200);
    assert.equal(o.requestTimeoutMs, 60_000);
    assert.equal(o.minRequestTimeoutSeconds, 1800);
    assert.equal(o.livezGracePeriodMs, 0);
    assert.equal(o.shutdownDelayDurationMs, 0);
    assert.equal(o.watchCache, true);
    assert.equal(o.defaultWatchCacheSize, 100);
    assert.deepEqual(o.serviceClusterIpRanges, ['10.0.0.0/24']);
    assert.deepEqual(o.serviceNodePortRange, { base: 30000, size: 2768 });
    assert.equal(o.featureGates.APIListChunking, true);
    assert.equal(o.featureGates.WatchList, false);
    assert.equal(o.runtimeConfig.isEnabled('apps', 'v1', undefined, true), true);
    assert.equal(o.verbosity, 0);
  });

  test('a full command line', () => {
    const { options: o, warnings } = parseApiServerOptions([
      '--storage-backend=etcd', '--etcd-servers=http://127.0.0.1:2379,https://10.0.0.5:2379', '--etcd-prefix', '/cp',
      '--data-dir=/var/lib/cp', '--secure-port=0', '--bind-address=127.0.0.1', `--api-domain=${otherDomain}`,
      '--tls-cert-file=/x.crt', '--tls-private-key-file=/x.key', '--client-ca-file=/ca.crt', '--anonymous-auth=false',
      '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NamespaceLifecycle', '--disable-admission-plugins', 'ServiceAccount',
      '--runtime-config=api/alpha=true,apps/v1=false', '--feature-gates=WatchList=true,ServerSideApply=true',
      '--request-timeout=30s', '--min-request-timeout=60', '--shutdown-delay-duration=2s', '--watch-cache=false',
      '--service-cluster-ip-range=10.96.0.0/12,fd00::/108', '--service-node-port-range=20000+100', '--tls-sans=api.test,192.0.2.1', '-v=4',
    ]);
    assert.equal(o.storageBackend, 'etcd');
    assert.deepEqual(o.etcdServers, ['http://127.0.0.1:2379', 'https://10.0.0.5:2379']);
    assert.equal(o.etcdPrefix, '/cp');
    assert.equal(o.certDir, join('/var/lib/cp', 'pki'));
    assert.equal(o.securePort, 0);
    assert.equal(o.advertiseAddress, '127.0.0.1');
    assert.equal(o.apiDomain, otherDomain);
    assert.equal(o.tlsCertFile, '/x.crt');
    assert.equal(o.anonymousAuth, false);
    assert.deepEqual(o.authorizationModes, ['Node', 'RBAC']);
    assert.deepEqual(o.disableAdmissionPlugins, ['ServiceAccount']);
    assert.equal(o.runtimeConfig.isEnabled('apps', 'v1', undefined, true), false);
    assert.equal(o.runtimeConfig.isEnabled('x', 'v1alpha1', undefined, false), true);
    assert.equal(o.featureGates.WatchList, true);
    assert.equal(o.requestTimeoutMs, 30_000);
    assert.equal(o.minRequestTimeoutSeconds, 60);
    assert.equal(o.shutdownDelayDurationMs, 2000);
    assert.equal(o.watchCache, false);
    assert.deepEqual(o.serviceClusterIpRanges, ['10.96.0.0/12', 'fd00::/108']);
    assert.deepEqual(o.serviceNodePortRange, { base: 20000, size: 100 });
    assert.deepEqual(o.tlsSans, ['api.test', '192.0.2.1']);
    assert.equal(o.verbosity, 4);
    assert.deepEqual(warnings, ['setting GA feature gate ServerSideApply=true; it will be removed in a future release']);
  });

  test('invalid values are refused with messages naming the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--secure-port=70000'], /--secure-port: must be a port number from 0 to 65535/],
      [['--secure-port=-1'], /--secure-port/],
      [['--storage-backend=mysql'], /--storage-backend: expected one of memory, sqlite, etcd, etcd3/],
      [['--storage-backend=etcd'], /--etcd-servers is required with --storage-backend=etcd/],
      [['--storage-backend=etcd', '--etcd-servers=localhost'], /--etcd-servers.*not a URL/],
      [['--request-timeout=0s'], /--request-timeout: must be greater than 0/],
      [['--shutdown-delay-duration=-1s'], /--shutdown-delay-duration: must not be negative/],
      [['--max-requests-inflight=-5'], /--max-requests-inflight: must not be negative/],
      [['--max-requests-inflight=0', '--max-mutating-requests-inflight=0'], /they must add up to something positive with --enable-priority-and-fairness/],
      [['--bind-address=localhost'], /--bind-address: "localhost" is not an IP address/],
      [['--api-domain=example.com'], /--api-domain: expected one of/],
      [['--authorization-mode=RBAC,Magic'], /--authorization-mode: unknown authorization mode Magic/],
      [['--authorization-mode=RBAC,RBAC'], /--authorization-mode: authorization mode RBAC given more than once/],
      [['--feature-gates=Bogus=true'], /--feature-gates: unrecognized feature gate: Bogus/],
      [['--feature-gates=ServerSideApply=false'], /--feature-gates: .*ServerSideApply/],
      [['--runtime-config=apps'], /--runtime-config: invalid runtime-config key "apps"/],
      [['--service-cluster-ip-range=10.0.0.0/33'], /--service-cluster-ip-range/],
      [['--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24'], /different IP families/],
      [['--service-cluster-ip-range=10.0.0.0/8'], /"10\.0\.0\.0\/8" is too large; for 32-bit addresses, the mask must be >= 12/],
      [['--service-cluster-ip-range=10.96.0.0/12,fd00::/64'], /"fd00::\/64" is too large; for 128-bit addresses, the mask must be >= 108/],
      [['--service-node-port-range=32767-30000'], /--service-node-port-range/],
      [['--etcd-prefix=registry'], /--etcd-prefix: must start with \//],
      [['--tls-cert-file=/x.crt'], /--tls-cert-file and --tls-private-key-file must be given together/],
      [['--enable-admission-plugins=A', '--disable-admission-plugins=A'], /both enabled and disabled.*: A/],
      [['--no-such-flag'], /unknown flag --no-such-flag/],
      [['stray'], /unexpected argument "stray"/],
    ];
    for (const [argv, message] of cases) assert.throws(() => parseApiServerOptions(argv), (e: Error) => e instanceof FlagError && message.test(e.message), argv.join(' '));
  });

  test('--etcd-servers alone (as kubeadm and k3s write it) stores in etcd; etcd3 is the reference\'s name for it', () => {
    assert.equal(parseApiServerOptions(['--etcd-servers=https://127.0.0.1:2379']).options.storageBackend, 'etcd');
    assert.equal(parseApiServerOptions(['--storage-backend=etcd3', '--etcd-servers=https://127.0.0.1:2379']).options.storageBackend, 'etcd');
    assert.equal(parseApiServerOptions([]).options.storageBackend, 'sqlite');
    assert.equal(parseApiServerOptions(['--storage-backend=sqlite', '--etcd-servers=https://127.0.0.1:2379']).options.storageBackend, 'sqlite');
    assert.throws(() => parseApiServerOptions(['--storage-backend=etcd3']), /--etcd-servers is required with --storage-backend=etcd/);
  });

  test('warnings: etcd servers without etcd', () => {
    const { warnings } = parseApiServerOptions(['--storage-backend=memory', '--etcd-servers=http://127.0.0.1:2379']);
    assert.deepEqual(warnings, ['flag --etcd-servers is ignored with --storage-backend=memory']);
  });

  test('--service-account-max-token-expiration: between an hour and 2^32 s; a warning when extended tokens outlive it', () => {
    const bound = /^the service-account-max-token-expiration must be between 1 hour and 2\^32 seconds$/;
    for (const bad of ['30m', '59m59s', `${2 ** 32 + 1}s`]) assert.throws(() => parseApiServerOptions([`--service-account-max-token-expiration=${bad}`]), (e: Error) => e instanceof FlagError && bound.test(e.message), bad);
    assert.deepEqual(parseApiServerOptions(['--service-account-max-token-expiration=1h']).warnings, [
      'service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)',
      'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s',
    ]);
    assert.deepEqual(parseApiServerOptions(['--service-account-max-token-expiration=48h', '--service-account-extend-token-expiration=false']).warnings, []);
    assert.deepEqual(parseApiServerOptions(['--service-account-max-token-expiration=8760h']).warnings, []);
    assert.equal(parseApiServerOptions(['--service-account-max-token-expiration=2h']).options.authentication.serviceAccountMaxTokenExpirationMs, 7_200_000);
  });

  test('--help is reported and the help text lists every flag with its default', () => {
    assert.equal(parseApiServerOptions(['--help']).help, true);
    const text = apiServerHelp();
    for (const d of apiServerFlags) assert.ok(text.includes(`--${d.name}`), d.name);
    assert.match(text, /--secure-port int {2}\(default 6443\)/);
    assert.match(text, /--request-timeout duration {2}\(default 1m0s\)/);
    assert.match(text, /WatchList=true\|false \(ALPHA - default=false\)/);
  });

  test('port ranges', () => {
    assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 });
    assert.deepEqual(parsePortRange('8080'), { base: 8080, size: 1 });
    for (const bad of ['0-10', '65535+2', 'a-b', '5-4']) assert.throws(() => parsePortRange(bad), bad);
  });
});

describe('authentication and authorization flags', () => {
  test('defaults: lookup on, no optional authenticators, no webhook', () => {
    const { options: o } = parseApiServerOptions([]);
    assert.equal(o.authentication.serviceAccountLookup, true);
    assert.equal(o.authentication.enableBootstrapTokenAuth, false);
    assert.equal(o.authentication.oidc, undefined);
    assert.equal(o.authentication.tokenWebhook, undefined);
    assert.equal(o.authorization.webhook, undefined);
  });
  test('OIDC, webhooks, proxy and service-account flags', () => {
    const { options: o } = parseApiServerOptions([
      '--oidc-issuer-url=https://issuer', '--oidc-client-id=c', '--oidc-required-claim=a=b', '--oidc-required-claim=c=d',
      '--service-account-issuer=https://one', '--service-account-issuer=https://two', '--service-account-key-file=a.pem,b.pem',
      '--authentication-token-webhook-config-file=hook.yaml', '--authentication-token-webhook-cache-ttl=30s',
      '--authorization-mode=RBAC,Webhook', '--authorization-webhook-config-file=authz.yaml', '--authorization-webhook-version=v1',
      '--requestheader-client-ca-file=proxy.crt', '--requestheader-username-headers=X-Remote-User',
    ]);
    assert.deepEqual(o.authentication.oidc?.requiredClaims, { a: 'b', c: 'd' });
    assert.equal(o.authentication.oidc?.usernameClaim, 'sub');
    assert.deepEqual(o.authentication.oidc?.signingAlgs, ['RS256']);
    assert.deepEqual(o.authentication.serviceAccountIssuers, ['https://one', 'https://two']);
    assert.deepEqual(o.authentication.serviceAccountKeyFiles, ['a.pem', 'b.pem']);
    assert.deepEqual(o.authentication.tokenWebhook, { configFile: 'hook.yaml', cacheTtlMs: 30_000, version: 'v1beta1' });
    assert.deepEqual(o.authorization.webhook, { configFile: 'authz.yaml', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, version: 'v1' });
    assert.deepEqual(o.authentication.requestHeader?.usernameHeaders, ['X-Remote-User']);
  });
  test('inconsistent combinations are refused', () => {
    assert.throws(() => parseApiServerOptions(['--oidc-issuer-url=https://issuer']), /--oidc-client-id is required/);
    assert.throws(() => parseApiServerOptions(['--oidc-issuer-url=http://issuer', '--oidc-client-id=c']), /must be an https URL/);
    assert.throws(() => parseApiServerOptions(['--authorization-mode=Webhook']), /needs --authorization-webhook-config-file/);
    assert.throws(() => parseApiServerOptions(['--requestheader-username-headers=X-User']), /--requestheader-client-ca-file is required/);
  });
});

describe('API server options: the reference\'s flags for HTTP/2, admission, storage checks, logging and compatibility', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'apiserver-flags-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const file = (name: string, text: string) => { const p = join(tmp, name); writeFileSync(p, text); return p; };

  test('defaults', () => {
    const { options: o, warnings } = parseApiServerOptions([]);
    assert.deepEqual(warnings, []);
    assert.equal(o.goawayChance, 0);
    assert.equal(o.http2MaxStreamsPerConnection, 0);
    assert.equal(o.admissionControl, undefined);
    assert.deepEqual(o.watchCacheSizes, {});
    assert.equal(o.deleteCollectionWorkers, 1);
    assert.equal(o.kubernetesServiceNodePort, 0);
    assert.equal(o.aggregatorRejectForwardingRedirect, true);
    assert.equal(o.etcdHealthcheckTimeoutMs, 2000);
    assert.equal(o.etcdReadycheckTimeoutMs, 2000);
    assert.equal(o.etcdCountMetricPollPeriodMs, 60_000);
    assert.equal(o.loggingFormat, 'text');
  });

  test('--goaway-chance: 0 to 0.02, with the reference\'s message', () => {
    assert.equal(parseApiServerOptions(['--goaway-chance=0.02']).options.goawayChance, 0.02);
    assert.throws(() => parseApiServerOptions(['--goaway-chance=0.021']), /--goaway-chance can not be less than 0 or greater than 0.02/);
    assert.throws(() => parseApiServerOptions(['--goaway-chance=-0.01']), /can not be less than 0/);
    assert.throws(() => parseApiServerOptions(['--goaway-chance=often']), FlagError);
  });

  test('--http2-max-streams-per-connection, --delete-collection-workers, the etcd timeouts and poll period', () => {
    const { options: o } = parseApiServerOptions(['--http2-max-streams-per-connection=100', '--delete-collection-workers=8',
      '--etcd-healthcheck-timeout=5s', '--etcd-readycheck-timeout=500ms', '--etcd-count-metric-poll-period=0']);
    assert.equal(o.http2MaxStreamsPerConnection, 100);
    assert.equal(o.deleteCollectionWorkers, 8);
    assert.equal(o.etcdHealthcheckTimeoutMs, 5000);
    assert.equal(o.etcdReadycheckTimeoutMs, 500);
    assert.equal(o.etcdCountMetricPollPeriodMs, 0);
    assert.throws(() => parseApiServerOptions(['--http2-max-streams-per-connection=-1']), FlagError);
    assert.throws(() => parseApiServerOptions(['--delete-collection-workers=0']), /must be at least 1/);
    assert.throws(() => parseApiServerOptions(['--etcd-healthcheck-timeout=0s']), FlagError);
    assert.throws(() => parseApiServerOptions(['--etcd-count-metric-poll-period=-1s']), FlagError);
  });

  test('--admission-control: the whole list, deprecated, and not with --enable/--disable-admission-plugins', () => {
    const { options: o, warnings } = parseApiServerOptions(['--admission-control=NamespaceLifecycle,ServiceAccount']);
    assert.deepEqual(o.admissionControl, ['NamespaceLifecycle', 'ServiceAccount']);
    assert.ok(warnings.some(w => /--admission-control is deprecated/.test(w)), warnings.join('\n'));
    for (const other of ['--enable-admission-plugins=NodeRestriction', '--disable-admission-plugins=ServiceAccount'])
      assert.throws(() => parseApiServerOptions(['--admission-control=NamespaceLifecycle', other]),
        /admission-control and enable-admission-plugins\/disable-admission-plugins flags are mutually exclusive/);
  });

  test('--watch-cache-sizes: resource[.group]#size, bad entries refused with the reference\'s messages; size 0 acts (no warning)', () => {
    const { options: o, warnings } = parseApiServerOptions(['--watch-cache-sizes=pods#1000,deployments.apps#0']);
    assert.deepEqual(o.watchCacheSizes, { pods: 1000, 'deployments.apps': 0 });
    assert.deepEqual(warnings.filter(w => /--watch-cache-sizes/.test(w)), []);
    assert.deepEqual(parseWatchCacheSizes(['Pods#5']), { pods: 5 });
    assert.throws(() => parseApiServerOptions(['--watch-cache-sizes=pods']), /invalid value of watch cache size: pods/);
    assert.throws(() => parseApiServerOptions(['--watch-cache-sizes=pods#1#2']), /invalid value of watch cache size/);
    assert.throws(() => parseApiServerOptions(['--watch-cache-sizes=pods#many']), /invalid size of watch cache size: pods#many/);
    assert.throws(() => parseApiServerOptions(['--watch-cache-sizes=pods#-1']), /watch cache size cannot be negative: pods#-1/);
  });

  test('--kubernetes-service-node-port: inside --service-node-port-range', () => {
    assert.equal(parseApiServerOptions(['--kubernetes-service-node-port=30443']).options.kubernetesServiceNodePort, 30443);
    assert.throws(() => parseApiServerOptions(['--kubernetes-service-node-port=8443']), /must be within the range of --service-node-port-range \(30000-32767\)/);
    assert.equal(parseApiServerOptions(['--service-node-port-range=8000-9000', '--kubernetes-service-node-port=8443']).options.kubernetesServiceNodePort, 8443);
    assert.throws(() => parseApiServerOptions(['--kubernetes-service-node-port=70000']), FlagError);
  });

  test('--aggregator-reject-forwarding-redirect and --logging-format', () => {
    assert.equal(parseApiServerOptions(['--aggregator-reject-forwarding-redirect=false']).options.aggregatorRejectForwardingRedirect, false);
    assert.equal(parseApiServerOptions(['--logging-format=json']).options.loggingFormat, 'json');
    assert.throws(() => parseApiServerOptions(['--logging-format=xml']), FlagError);
  });

  test('flags that do not act here: accepted, a warning only for a value other than the default', () => {
    const defaults = ['--apiserver-count=1', '--storage-media-type=application/json', '--contention-profiling=false', '--lease-reuse-duration-seconds=60',
      '--etcd-db-metric-poll-interval=30s', '--enable-logs-handler', '--cloud-provider=', '--log-json-info-buffer-size=0'];
    assert.deepEqual(parseApiServerOptions(defaults).warnings.filter(w => /has no effect/.test(w)), []);
    const { warnings } = parseApiServerOptions(['--apiserver-count=3', '--storage-media-type=application/vnd.kubernetes.protobuf', '--contention-profiling',
      '--lease-reuse-duration-seconds=30', '--etcd-db-metric-poll-interval=10s', '--vmodule=foo=4', '--log-json-info-buffer-size=1Mi']);
    for (const flag of ['apiserver-count', 'storage-media-type', 'contention-profiling', 'lease-reuse-duration-seconds', 'etcd-db-metric-poll-interval', 'vmodule', 'log-json-info-buffer-size'])
      assert.ok(warnings.some(w => w.startsWith(`flag --${flag} is accepted but has no effect`)), `no warning for --${flag}:\n${warnings.join('\n')}`);
    assert.ok(warnings.some(w => /--apiserver-count is deprecated/.test(w)));
    assert.throws(() => parseApiServerOptions(['--storage-media-type=application/xml']), /unsupported storage media type: application\/xml/);
    assert.throws(() => parseApiServerOptions(['--cloud-provider=aws']), /cloud provider "aws" is not built in/);
    assert.ok(parseApiServerOptions(['--cloud-provider=external']).warnings.some(w => /cloud controller manager/.test(w)));
  });

  test('--tracing-config-file and --egress-selector-config-file: read and checked at start', async () => {
    const tracing = file('tracing.yaml', 'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: TracingConfiguration\nendpoint: localhost:4317\nsamplingRatePerMillion: 100\n');
    const { options: o, warnings } = parseApiServerOptions([`--tracing-config-file=${tracing}`]);
    assert.ok(warnings.some(w => /--tracing-config-file is accepted but has no effect/.test(w)));
    await checkCompatibilityFiles(o);
    const badRate = file('tracing-bad.yaml', 'kind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n');
    await assert.rejects(checkCompatibilityFiles({ tracingConfigFile: badRate }), /--tracing-config-file: samplingRatePerMillion/);
    await assert.rejects(checkCompatibilityFiles({ tracingConfigFile: join(tmp, 'missing.yaml') }), /cannot read .*missing\.yaml: ENOENT/);
    const direct = file('egress.yaml', 'apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: Direct\n- name: etcd\n  connection:\n    proxyProtocol: Direct\n');
    await checkCompatibilityFiles({ egressSelectorConfigFile: direct });
    const proxied = file('egress-proxy.yaml', 'kind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: https://konnectivity:8131\n');
    await assert.rejects(checkCompatibilityFiles({ egressSelectorConfigFile: proxied }), /egressSelections\[0\]\.connection\.proxyProtocol: "HTTPConnect" is not supported/);
    const unknownName = file('egress-name.yaml', 'kind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection:\n    proxyProtocol: Direct\n');
    await assert.rejects(checkCompatibilityFiles({ egressSelectorConfigFile: unknownName }), /egressSelections\[0\]\.name: Unsupported value: "master"/);
  });

  test('help lists the new flags', () => {
    const text = apiServerHelp();
    for (const flag of ['goaway-chance', 'http2-max-streams-per-connection', 'admission-control', 'watch-cache-sizes', 'delete-collection-workers',
      'kubernetes-service-node-port', 'aggregator-reject-forwarding-redirect', 'etcd-healthcheck-timeout', 'etcd-readycheck-timeout',
      'etcd-count-metric-poll-period', 'etcd-db-metric-poll-interval', 'logging-format', 'vmodule', 'log-json-info-buffer-size', 'apiserver-count',
      'storage-media-type', 'contention-profiling', 'lease-reuse-duration-seconds', 'tracing-config-file', 'enable-logs-handler', 'cloud-provider',
      'egress-selector-config-file'])
      assert.match(text, new RegExp(`--${flag}\\b`));
  });

  test('the in-process controllers act as service accounts of their own with RBAC, unless the flag says otherwise', () => {
    const credentials = (argv: string[]) => parseApiServerOptions(argv).options.controllerManager!.useServiceAccountCredentials;
    assert.equal(credentials([]), false);
    assert.equal(credentials(['--authorization-mode=Node,RBAC']), true);
    assert.equal(credentials(['--authorization-mode=Node,RBAC', '--use-service-account-credentials=false']), false);
    assert.equal(credentials(['--authorization-mode=AlwaysAllow', '--use-service-account-credentials=true']), true);
  });
});

test('--oidc-signing-algs: the reference\'s asymmetric algorithms only; another (HS256, none) refuses the start', () => {
  for (const bad of ['HS256', 'none', 'rs256', 'RS256,EdDSA'])
    assert.throws(() => parseApiServerOptions(['--oidc-issuer-url=https://issuer', '--oidc-client-id=c', `--oidc-signing-algs=${bad}`]), (e: Error) => e instanceof FlagError && /unsupported signing algorithm/.test(e.message), bad);
  assert.deepEqual(parseApiServerOptions(['--oidc-issuer-url=https://issuer', '--oidc-client-id=c', '--oidc-signing-algs=ES256,PS512']).options.authentication.oidc?.signingAlgs, ['ES256', 'PS512']);
});
