// Every option of spec §4.9: declared, with its default and range; deprecation warnings; --help;
// feature gates; the --config file with flags overriding it; bad values refused naming the option.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentFlags, agentUsage, configApiVersion, configKind, configurationOf, parseAgentOptions } from '../../src/agent/options.js';
import { naming } from '../../src/api/naming.js';
import { tempDir } from './helpers.js';

const parse = (...argv: string[]) => parseAgentOptions(['--hostname-override=test-node', ...argv]);
const refused = async (argv: string[], pattern: RegExp) => assert.rejects(parse(...argv), pattern);

// name → default, as the spec lists them (durations in milliseconds)
const specDefaults: Record<string, unknown> = {
  address: '0.0.0.0', port: 10250, 'read-only-port': 10255, 'healthz-bind-address': '127.0.0.1', 'healthz-port': 10248,
  'enable-server': true, 'enable-debugging-handlers': true, 'anonymous-auth': true, 'authentication-token-webhook': false,
  'authentication-token-webhook-cache-ttl': 120_000, 'authorization-mode': 'AlwaysAllow', 'authorization-webhook-cache-authorized-ttl': 300_000,
  'authorization-webhook-cache-unauthorized-ttl': 30_000, 'client-ca-file': '', 'bootstrap-kubeconfig': '', 'cert-dir': '/var/lib/kubelet/pki',
  'tls-cert-file': '', 'tls-private-key-file': '', 'rotate-certificates': false, 'rotate-server-certificates': false, clusterconfig: '',
  'cluster-api-qps': 50, 'cluster-api-burst': 100, 'cluster-api-content-type': naming().protobufMediaType, 'event-qps': 50, 'event-burst': 100,
  'register-node': true, 'register-schedulable': true, 'register-with-taints': [], 'node-labels': {}, 'node-ip': [], 'hostname-override': 'test-node',
  'provider-id': '', 'node-status-update-frequency': 10_000, 'node-status-max-images': 50, 'runtime-request-timeout': 120_000,
  'runtime-cgroups': '', 'cgroup-driver': 'cgroupfs', 'cgroup-root': '', 'cgroups-per-qos': true, 'agent-cgroups': '', 'cpu-cfs-quota': true,
  'cpu-cfs-quota-period': 100, 'cpu-manager-policy': 'none', 'cpu-manager-policy-options': {}, 'cpu-manager-reconcile-period': 10_000,
  'memory-manager-policy': 'None', 'reserved-cpus': '', 'reserved-memory': [], 'enforce-node-allocatable': ['pods'], 'cluster-reserved': {},
  'cluster-reserved-cgroup': '', 'system-reserved': {}, 'system-reserved-cgroup': '', 'qos-reserved': {}, 'max-pods': 110, 'pods-per-core': 0,
  'pod-max-pids': -1, 'oom-score-adj': -999, 'max-open-files': 1_000_000, 'fail-swap-on': true, 'protect-kernel-defaults': false,
  'pod-manifest-path': '', 'file-check-frequency': 20_000, 'manifest-url': '', 'manifest-url-header': [], 'http-check-frequency': 20_000,
  runonce: false, 'cluster-dns': [], 'cluster-domain': '', 'resolv-conf': '/etc/resolv.conf', 'hairpin-mode': 'promiscuous-bridge', 'pod-cidr': '',
  'iptables-drop-bit': 15, 'iptables-masquerade-bit': 14, 'make-iptables-util-chains': true,
  'eviction-hard': ['imagefs.available<15%', 'memory.available<100Mi', 'nodefs.available<10%', 'nodefs.inodesFree<5%'], 'eviction-soft': [],
  'eviction-soft-grace-period': {}, 'eviction-minimum-reclaim': {}, 'eviction-pressure-transition-period': 300_000, 'eviction-max-pod-grace-period': 0,
  'kernel-memcg-notification': false, 'image-gc-high-threshold': 85, 'image-gc-low-threshold': 80, 'minimum-image-ttl-duration': 120_000,
  'registry-qps': 5, 'registry-burst': 10, 'serialize-image-pulls': true, 'image-credential-provider-bin-dir': '', 'image-credential-provider-config': '',
  'container-log-max-files': 5, 'container-log-max-size': '10Mi', 'maximum-dead-containers': -1, 'maximum-dead-containers-per-container': 1,
  'minimum-container-ttl-duration': 0, 'root-dir': '/var/lib/kubelet', 'enable-controller-attach-detach': true, 'keep-terminated-pod-volumes': false,
  'local-storage-capacity-isolation': true, 'experimental-mounter-path': 'mount', config: '', 'allowed-unsafe-sysctls': [], 'contention-profiling': false,
  'exit-on-lock-contention': false, 'lock-file': '', 'log-flush-frequency': 5000, 'logging-format': 'text', 'log-json-info-buffer-size': '0',
  'log-json-split-stream': false, 'seccomp-default': false, 'cloud-provider': '', 'cloud-config': '', 'azure-container-registry-config': '',
  'experimental-allocatable-ignore-eviction': false, 'feature-gates': {},
};

describe('agent options', () => {
  test('every option of the spec is declared with the spec default', async () => {
    const { options } = await parse();
    for (const [name, expected] of Object.entries(specDefaults)) {
      assert.ok(agentFlags.some((d) => d.name === name), `--${name} is declared`);
      assert.deepEqual(options.values[name], expected, `default of --${name}`);
    }
    assert.equal(options.nodeStatusUpdateFrequencyMs, 10_000);
    assert.equal(options.containerLogMaxSize, 10 * 2 ** 20);
    assert.deepEqual(options.evictionHard.find((t) => t.signal === 'memory.available'), { signal: 'memory.available', quantity: 100 * 2 ** 20 });
    assert.equal(options.imageServiceEndpoint, options.containerRuntimeEndpoint);
  });

  test('values are read and typed', async () => {
    const { options } = await parse('--port=11250', '--node-status-update-frequency=1m30s', '--register-with-taints=a=b:NoSchedule,c:NoExecute',
      '--node-labels=team=x,node.cluster.io/role=db', '--system-reserved=cpu=500m,memory=1Gi', '--eviction-soft=memory.available<1.5Gi',
      '--eviction-soft-grace-period=memory.available=1m', '--manifest-url-header=A:1', '--manifest-url-header=A:2,B:3', '--runtime=fake', '--fake-nodes=3');
    assert.equal(options.port, 11250);
    assert.equal(options.nodeStatusUpdateFrequencyMs, 90_000);
    assert.deepEqual(options.registerWithTaints, [{ key: 'a', value: 'b', effect: 'NoSchedule' }, { key: 'c', effect: 'NoExecute' }]);
    assert.deepEqual(options.nodeLabels, { team: 'x', 'node.cluster.io/role': 'db' });
    assert.deepEqual(options.systemReserved, { cpu: 0.5, memory: 2 ** 30 });
    assert.deepEqual(options.evictionSoftGracePeriodMs, { 'memory.available': 60_000 });
    assert.deepEqual(options.manifestUrlHeaders, { A: ['1', '2'], B: ['3'] });
    assert.equal(options.fakeNodes, 3);
  });

  test('ranges and forms are enforced, naming the option', async () => {
    await refused(['--oom-score-adj=1001'], /--oom-score-adj.*-1000 to 1000/);
    await refused(['--oom-score-adj=-1001'], /--oom-score-adj/);
    await refused(['--iptables-drop-bit=32'], /--iptables-drop-bit.*0 to 31/);
    await refused(['--iptables-masquerade-bit=-1'], /--iptables-masquerade-bit/);
    await refused(['--image-gc-high-threshold=101'], /--image-gc-high-threshold/);
    await refused(['--image-gc-low-threshold=90'], /--image-gc-low-threshold.*less than --image-gc-high-threshold/);
    await refused(['--container-log-max-files=1'], /--container-log-max-files.*at least 2/);
    await refused(['--container-log-max-size=ten'], /--container-log-max-size/);
    await refused(['--node-status-max-images=-2'], /--node-status-max-images/);
    await refused(['--node-status-update-frequency=0s'], /--node-status-update-frequency/);
    await refused(['--port=70000'], /--port/);
    await refused(['--healthz-port=x'], /--healthz-port.*integer/);
    await refused(['--file-check-frequency=soon'], /--file-check-frequency.*duration/);
    await refused(['--cgroup-driver=upstart'], /--cgroup-driver.*cgroupfs, systemd/);
    await refused(['--authorization-mode=RBAC'], /--authorization-mode/);
    await refused(['--register-with-taints=a=b:Sometimes'], /--register-with-taints.*effect/);
    await refused(['--eviction-hard=memory.free<1Gi'], /--eviction-hard.*unknown eviction signal/);
    await refused(['--eviction-soft=memory.available<1Gi'], /--eviction-soft.*grace period/);
    await refused(['--system-reserved=gpu=1'], /--system-reserved.*unknown resource gpu/);
    await refused(['--node-ip=not-an-ip'], /--node-ip/);
    await refused(['--container-runtime-endpoint=/run/x.sock'], /--container-runtime-endpoint.*unix:\/\//);
    await refused(['--fake-nodes=5'], /--fake-nodes.*--runtime=fake/);
    await refused(['--max-podz=3'], /unknown flag --max-podz \(did you mean --max-pods\?\)/);
    await refused(['--hostname-override=Not_Valid'], /--hostname-override/);
    await refused(['--qos-reserved=memory=50%'], /--qos-reserved.*QOSReserved/);
    await refused(['--authorization-mode=Webhook'], /--authorization-mode.*--clusterconfig/);
  });

  test('node labels under the vendor domain are refused except the allowed ones', async () => {
    await refused(['--node-labels=cluster.io/role=master'], /--node-labels.*restricted/);
    await refused(['--node-labels=foo.cluster.io/x=y'], /--node-labels.*restricted/);
    const ok = await parse('--node-labels=cluster.io/arch=amd64,topology.cluster.io/zone=a,kubelet.cluster.io/x=y,node.cluster.io/y=z,example.com/z=1');
    assert.equal(Object.keys(ok.options.nodeLabels).length, 5);
  });

  test('deprecated flags warn; the others do not', async () => {
    const { warnings } = await parse('--max-pods=20', '--register-schedulable=false', '--root-dir=/tmp/x');
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /--max-pods is deprecated.*--config/);
    assert.match(warnings[1]!, /--register-schedulable is deprecated/);
  });

  test('--feature-gates takes the agent gates with their stages; unknown gates are refused', async () => {
    const { options } = await parse('--feature-gates=QOSReserved=true,GracefulNodeShutdown=false', '--qos-reserved=memory=50%');
    assert.equal(options.featureGates.QOSReserved, true);
    assert.equal(options.featureGates.GracefulNodeShutdown, false);
    assert.equal(options.featureGates.EventedPLEG, false);
    assert.equal(options.featureGates.WindowsHostNetwork, true);
    const all = await parse('--feature-gates=AllAlpha=true');
    assert.equal(all.options.featureGates.NodeSwap, true);
    await refused(['--feature-gates=NoSuchGate=true'], /--feature-gates.*unrecognized feature gate: NoSuchGate/);
    await refused(['--feature-gates=NodeSwap=maybe'], /--feature-gates/);
  });

  test('--help lists every flag, the gates, the configuration kind and the fake runtime', async () => {
    const parsed = await parseAgentOptions(['--help']);
    assert.equal(parsed.help, true);
    const text = agentUsage();
    for (const d of agentFlags) assert.ok(text.includes(`--${d.name}`), `--${d.name} in help`);
    assert.match(text, /EventedPLEG=true\|false \(BETA - default=false\)/);
    assert.match(text, new RegExp(`kind ${configKind}, apiVersion agent\\.config\\.cluster\\.io/v1beta1`));
    assert.match(text, /--runtime=fake/);
    assert.match(text, /fake-exit-code/);
  });

  describe('--config', () => {
    const dir = tempDir('agent-config-');
    const write = (name: string, body: object | string) => {
      const path = join(dir, name);
      writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
      return path;
    };
    const head = { apiVersion: configApiVersion(naming()), kind: configKind };

    test('fields of the file apply; flags given override them; command-line gates override single gates', async () => {
      const path = write('a.json', {
        ...head, port: 12000, maxPods: 30, nodeStatusUpdateFrequency: '5s', evictionHard: { 'memory.available': '200Mi' },
        registerWithTaints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }], featureGates: { NodeSwap: true, MemoryQoS: true },
        authentication: { anonymous: { enabled: false } }, clusterAPIQPS: 7, staticPodURLHeader: { X: ['1', '2'] },
      });
      const { options, warnings } = await parse(`--config=${path}`, '--max-pods=40', '--feature-gates=MemoryQoS=false');
      assert.equal(options.port, 12000);
      assert.equal(options.maxPods, 40);
      assert.equal(options.nodeStatusUpdateFrequencyMs, 5000);
      assert.deepEqual(options.evictionHard, [{ signal: 'memory.available', quantity: 200 * 2 ** 20 }]);
      assert.deepEqual(options.registerWithTaints, [{ key: 'k', value: 'v', effect: 'NoSchedule' }]);
      assert.equal(options.featureGates.NodeSwap, true);
      assert.equal(options.featureGates.MemoryQoS, false);
      assert.equal(options.anonymousAuth, false);
      assert.equal(options.clusterApiQps, 7);
      assert.deepEqual(options.manifestUrlHeaders, { X: ['1', '2'] });
      assert.equal(warnings.filter((w) => !w.includes('deprecated')).length, 0);
    });

    test('YAML, and the reference kind with its own field names', async () => {
      const ref = naming('k8s.io');
      const path = write('b.yaml', `apiVersion: ${ref.group('kubelet.config')}/v1beta1\nkind: KubeletConfiguration\nkubeAPIQPS: 9\nclusterDNS: [10.0.0.10]\n`);
      const { options } = await parse(`--config=${path}`);
      assert.equal(options.clusterApiQps, 9);
      assert.deepEqual(options.clusterDns, ['10.0.0.10']);
    });

    test('bad files are refused naming the file and field; unknown fields warn', async () => {
      await refused([`--config=${join(dir, 'missing.yaml')}`], /--config .*missing\.yaml: cannot read/);
      await refused([`--config=${write('c.yaml', 'port: [')}`], /--config .*c\.yaml: not valid YAML/);
      await refused([`--config=${write('d.json', { kind: 'Other', apiVersion: 'v1' })}`], /expected kind AgentConfiguration/);
      await refused([`--config=${write('e.json', { ...head, port: 'high' })}`], /field port: expected an integer/);
      await refused([`--config=${write('f.json', { ...head, oomScoreAdj: 5000 })}`], /field oomScoreAdj \(--oom-score-adj\): must be an integer from -1000 to 1000/);
      await refused([`--config=${write('g.json', { ...head, fileCheckFrequency: 20 })}`], /field fileCheckFrequency: expected a duration/);
      const { warnings } = await parse(`--config=${write('h.json', { ...head, noSuchField: 1, authentication: { x509: { bogus: 'y' } } })}`);
      assert.deepEqual(warnings.filter((w) => w.includes('unknown field')).map((w) => w.replace(/.*unknown field (\S+).*/, '$1')).sort(), ['authentication.x509.bogus', 'noSuchField']);
    });

    test('cleanup', () => rmSync(dir, { recursive: true, force: true }));
  });
});

describe('the configuration in force (/configz)', () => {
  test('under the reference domain: the reference kind and field names; structured fields written as a file writes them, and read back the same', async () => {
    const dir = tempDir('agent-configz-');
    try {
      const flags = ['--api-domain=k8s.io', '--runtime=fake', '--cluster-api-qps=7', '--register-with-taints=a=b:NoSchedule,c:NoExecute',
        '--eviction-hard=memory.available<200Mi', '--feature-gates=MemoryManager=false', '--manifest-url-header=X-A:1,X-A:2',
        '--node-status-update-frequency=20s'];
      const { options } = await parseAgentOptions(flags);
      const config = configurationOf(options);
      assert.equal(config.kind, 'KubeletConfiguration');
      assert.equal(config.apiVersion, 'kubelet.config.k8s.io/v1beta1');
      assert.equal(config.kubeAPIQPS, 7);
      assert.equal(config.clusterAPIQPS, undefined);
      assert.deepEqual(config.registerWithTaints, [{ key: 'a', value: 'b', effect: 'NoSchedule' }, { key: 'c', effect: 'NoExecute' }]);
      assert.deepEqual(config.evictionHard, { 'memory.available': '200Mi' });
      assert.deepEqual(config.featureGates, { MemoryManager: false });
      assert.deepEqual(config.staticPodURLHeader, { 'X-A': ['1', '2'] });
      assert.equal(config.nodeStatusUpdateFrequency, '20s');
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify(config));
      const again = (await parseAgentOptions(['--api-domain=k8s.io', `--config=${file}`])).options;
      for (const key of ['clusterApiQps', 'registerWithTaints', 'evictionHard', 'featureGates', 'manifestUrlHeaders', 'nodeStatusUpdateFrequencyMs'] as const)
        assert.deepEqual(again[key], options[key], key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
