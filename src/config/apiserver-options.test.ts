import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { apiServerFlags, apiServerHelp, parseApiServerOptions, parsePortRange } from './apiserver-options.js';
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
      [['--storage-backend=mysql'], /--storage-backend: expected one of memory, sqlite, etcd/],
      [['--storage-backend=etcd'], /--etcd-servers is required with --storage-backend=etcd/],
      [['--storage-backend=etcd', '--etcd-servers=localhost'], /--etcd-servers.*not a URL/],
      [['--request-timeout=0s'], /--request-timeout: must be greater than 0/],
      [['--shutdown-delay-duration=-1s'], /--shutdown-delay-duration: must not be negative/],
      [['--max-requests-inflight=-5'], /--max-requests-inflight: must not be negative/],
      [['--bind-address=localhost'], /--bind-address: "localhost" is not an IP address/],
      [['--api-domain=example.com'], /--api-domain: expected one of/],
      [['--authorization-mode=RBAC,Magic'], /--authorization-mode: unknown authorization mode Magic/],
      [['--authorization-mode=RBAC,RBAC'], /--authorization-mode: authorization mode RBAC given more than once/],
      [['--feature-gates=Bogus=true'], /--feature-gates: unrecognized feature gate: Bogus/],
      [['--feature-gates=ServerSideApply=false'], /--feature-gates: .*ServerSideApply/],
      [['--runtime-config=apps'], /--runtime-config: invalid runtime-config key "apps"/],
      [['--service-cluster-ip-range=10.0.0.0/33'], /--service-cluster-ip-range/],
      [['--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24'], /different IP families/],
      [['--service-node-port-range=32767-30000'], /--service-node-port-range/],
      [['--etcd-prefix=registry'], /--etcd-prefix: must start with \//],
      [['--tls-cert-file=/x.crt'], /--tls-cert-file and --tls-private-key-file must be given together/],
      [['--enable-admission-plugins=A', '--disable-admission-plugins=A'], /both enabled and disabled.*: A/],
      [['--no-such-flag'], /unknown flag --no-such-flag/],
      [['stray'], /unexpected argument "stray"/],
    ];
    for (const [argv, message] of cases) assert.throws(() => parseApiServerOptions(argv), (e: Error) => e instanceof FlagError && message.test(e.message), argv.join(' '));
  });

  test('warnings: etcd servers without etcd', () => {
    const { warnings } = parseApiServerOptions(['--storage-backend=memory', '--etcd-servers=http://127.0.0.1:2379']);
    assert.deepEqual(warnings, ['flag --etcd-servers is ignored with --storage-backend=memory']);
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
