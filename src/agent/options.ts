// The node agent's options (spec §4.9): every flag with its type, default and range, the
// configuration file of --config, and the typed options the agent runs on.
//
// The configuration file is the reference's agent-configuration kind under the project's naming
// rule: kind `AgentConfiguration`, apiVersion `agent.config.<domain>/v1beta1` (the same rename that
// turned --kubeconfig into --clusterconfig). The reference's own kind and group (as spelled with the
// reference naming) are read too, so existing files work. Field names are the reference's, with
// `kube` renamed `cluster` where the flag was renamed. Flags given on the command line override the file.

import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { apiDomains, defaultApiDomain, naming, type ApiDomain, type Naming } from '../api/naming.js';
import { describeFeatureGates, parseFeatureGates, type FeatureGates } from '../config/feature-gates.js';
import { formatDuration, help, parseDuration, parseFlags, type FlagDecl, type FlagValue } from '../config/flags.js';
import { loadYaml } from '../util/yaml.js';
import { agentFeatureGates } from './feature-gates.js';
import { parseQuantity, parseTaint, parseThresholds, validLabel, type Taint, type Threshold } from './quantity.js';
import { parseCpuList } from './cpu-manager.js';
import { parseReservedMemory } from './memory-manager.js';
import { unsafeSysctlProblem } from './sysctls.js';

export interface AgentFlagDecl extends FlagDecl {
  /** the flag is parsed and checked but changes nothing in this agent: why */
  noEffect?: string;
  /** the field of the configuration file (dotted for nested objects) */
  config?: string;
  /** converts the file's value when it is not shaped like the flag's */
  fromConfig?(value: unknown): FlagValue;
  /** the other way: the flag's value as the file writes it */
  toConfig?(value: FlagValue): unknown;
}

const inFile = 'set it in the file given by --config instead';
const cpuPolicyOptions = ['full-pcpus-only', 'distribute-cpus-across-numa', 'align-by-socket'];
const between = (lo: number, hi: number) => (v: FlagValue) => (Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi ? undefined : `must be an integer from ${lo} to ${hi}`);
const atLeast = (lo: number) => (v: FlagValue) => ((v as number) >= lo ? undefined : `must be at least ${lo}`);
const port = between(0, 65535);
const positiveDuration = (v: FlagValue) => ((v as number) > 0 ? undefined : 'must be greater than 0');
const nonNegativeDuration = (v: FlagValue) => ((v as number) >= 0 ? undefined : 'must not be negative');
const ip = (v: FlagValue) => (v === '' || isIP(v as string) ? undefined : `${JSON.stringify(v)} is not an IP address`);
const ips = (v: FlagValue) => (v as string[]).map((s) => ip(s)).find(Boolean);
const tryIt = (f: () => unknown) => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
};
const quantity = (v: FlagValue) => (v === '' ? undefined : tryIt(() => parseQuantity(v as string)));
const resourceNames = ['cpu', 'memory', 'ephemeral-storage', 'pid'];
const reserved = (v: FlagValue) =>
  Object.entries(v as Record<string, string>)
    .map(([k, q]) => (resourceNames.includes(k) || k.startsWith('hugepages-') ? tryIt(() => { if (parseQuantity(q) < 0) throw new Error(`${k} must not be negative`); }) : `unknown resource ${k}; known: ${resourceNames.join(', ')}`))
    .find(Boolean);
const thresholds = (v: FlagValue) => tryIt(() => parseThresholds(v as string[]));
const durationsBySignal = (v: FlagValue) => Object.entries(v as Record<string, string>).map(([k, d]) => tryIt(() => { parseThresholds([`${k}<0`]); parseDuration(d); })).find(Boolean);
const quantitiesBySignal = (v: FlagValue) => Object.entries(v as Record<string, string>).map(([k, q]) => tryIt(() => parseThresholds([`${k}<${q}`]))).find(Boolean);
const cpuSet = (v: FlagValue) => (v === '' || /^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(v as string) ? undefined : `${JSON.stringify(v)} is not a CPU list such as 0-3,8`);

/** config maps of signal → quantity are written on the command line as `signal<quantity` */
const thresholdsFromMap = (v: unknown) => Object.entries(asObject(v)).map(([k, q]) => `${k}<${q}`);
const taintsFromList = (v: unknown) => asArray(v).map((x) => {
  const t = asObject(x);
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
});
const headersFromMap = (v: unknown) => Object.entries(asObject(v)).flatMap(([k, vs]) => asArray(vs).map((x) => `${k}:${x}`));
const reservedMemoryFromList = (v: unknown) => asArray(v).map((x) => {
  const r = asObject(x);
  return `${r.numaNode}:${Object.entries(asObject(r.limits)).map(([k, q]) => `${k}=${q}`).join(',')}`;
});
/** text before and after the first of `sep` (all of it before when there is none) */
const cut = (s: string, sep: string): [string, string | undefined] => {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + sep.length)];
};
const thresholdsToMap = (v: FlagValue) => Object.fromEntries((v as string[]).map((t) => cut(t, '<')));
const taintsToList = (v: FlagValue) => (v as string[]).map((t) => {
  const [keyValue, effect] = cut(t, ':');
  const [key, value] = cut(keyValue, '=');
  return { key, ...(value ? { value } : {}), effect };
});
const headersToMap = (v: FlagValue) => {
  const out: Record<string, string[]> = {};
  for (const h of v as string[]) { const [k, x] = cut(h, ':'); (out[k] ??= []).push(x ?? ''); }
  return out;
};
const reservedMemoryToList = (v: FlagValue) => (v as string[]).map((r) => {
  const [node, limits] = cut(r, ':');
  return { numaNode: Number(node), limits: Object.fromEntries((limits ?? '').split(',').filter(Boolean).map((l) => cut(l, '='))) };
});

const declarations: readonly AgentFlagDecl[] = [
  // serving
  { name: 'address', type: 'string', default: '0.0.0.0', config: 'address', deprecated: inFile, validate: ip, help: 'The IP address the agent serves on (0.0.0.0 or :: for all interfaces).' },
  { name: 'port', type: 'int', default: 10250, config: 'port', deprecated: inFile, validate: between(1, 65535), help: 'The port of the authenticated agent server.' },
  { name: 'read-only-port', type: 'int', default: 10255, config: 'readOnlyPort', deprecated: inFile, validate: port, help: 'The read-only port, served without authentication or authorization (0 disables).' },
  { name: 'healthz-bind-address', type: 'string', default: '127.0.0.1', config: 'healthzBindAddress', deprecated: inFile, validate: ip, help: 'The IP address of the healthz server.' },
  { name: 'healthz-port', type: 'int', default: 10248, config: 'healthzPort', deprecated: inFile, validate: port, help: 'The port of the localhost healthz endpoint (0 disables).' },
  { name: 'enable-server', type: 'bool', default: true, config: 'enableServer', deprecated: inFile, help: 'Enable the agent\'s server.' },
  { name: 'enable-debugging-handlers', type: 'bool', default: true, config: 'enableDebuggingHandlers', deprecated: inFile, help: 'Enable the server endpoints for log collection and running commands in containers.' },
  // authentication and authorization of the agent's server
  { name: 'anonymous-auth', type: 'bool', default: true, config: 'authentication.anonymous.enabled', deprecated: inFile, help: 'Requests not refused by another method are anonymous (user system:anonymous, group system:unauthenticated).' },
  { name: 'authentication-token-webhook', type: 'bool', default: false, config: 'authentication.webhook.enabled', deprecated: inFile, help: 'Authenticate bearer tokens with the TokenReview API.' },
  { name: 'authentication-token-webhook-cache-ttl', type: 'duration', default: 120_000, config: 'authentication.webhook.cacheTTL', deprecated: inFile, validate: nonNegativeDuration, help: 'How long token-review answers are cached.' },
  { name: 'authorization-mode', type: 'enum', values: ['AlwaysAllow', 'Webhook'], default: 'AlwaysAllow', config: 'authorization.mode', deprecated: inFile, help: 'How requests to the agent\'s server are authorized; Webhook asks the SubjectAccessReview API.' },
  { name: 'authorization-webhook-cache-authorized-ttl', type: 'duration', default: 300_000, config: 'authorization.webhook.cacheAuthorizedTTL', deprecated: inFile, validate: nonNegativeDuration, help: 'How long allowed answers of the authorization webhook are cached.' },
  { name: 'authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 30_000, config: 'authorization.webhook.cacheUnauthorizedTTL', deprecated: inFile, validate: nonNegativeDuration, help: 'How long denied answers of the authorization webhook are cached.' },
  { name: 'client-ca-file', type: 'string', default: '', config: 'authentication.x509.clientCAFile', deprecated: inFile, help: 'Clients presenting a certificate signed by one of these authorities are authenticated by its common name.' },
  { name: 'bootstrap-kubeconfig', type: 'string', default: '', help: 'A client-configuration file (a bootstrap token) used to ask for a client certificate when --clusterconfig has no valid one; the certificate is kept in --cert-dir and --clusterconfig is written to use it.' },
  { name: 'cert-dir', type: 'string', default: '/var/lib/kubelet/pki', help: 'Directory of the client certificate got with --bootstrap-kubeconfig, and of the serving certificate and key (unless --tls-cert-file and --tls-private-key-file are given).' },
  { name: 'tls-cert-file', type: 'string', default: '', config: 'tlsCertFile', deprecated: inFile, help: 'The serving certificate (PEM, with intermediates after it).' },
  { name: 'tls-private-key-file', type: 'string', default: '', config: 'tlsPrivateKeyFile', deprecated: inFile, help: 'The private key of --tls-cert-file.' },
  { name: 'rotate-certificates', type: 'bool', default: false, config: 'rotateCertificates', deprecated: inFile, help: 'Request a new client certificate from the API server when the current one nears expiry (at 70 to 84 % of its life).' },
  { name: 'rotate-server-certificates', type: 'bool', default: false, config: 'serverTLSBootstrap', deprecated: inFile, help: 'Request the serving certificate from the API server (kubelet-serving signer, approved by an administrator) and renew it before expiry; the server completes no TLS handshake until the first is signed (beta; needs the RotateKubeletServerCertificate gate).' },
  // the API server
  { name: 'clusterconfig', type: 'string', default: '', help: 'Client-configuration file to reach the API server. Given: API-server mode. Omitted: standalone mode (file and URL sources only).' },
  { name: 'cluster-api-qps', type: 'int', default: 50, config: 'clusterAPIQPS', deprecated: inFile, validate: atLeast(0), help: 'Requests per second to the API server (0 means the default).' },
  { name: 'cluster-api-burst', type: 'int', default: 100, config: 'clusterAPIBurst', deprecated: inFile, validate: atLeast(0), help: 'Requests to the API server that may go at once.' },
  { name: 'cluster-api-content-type', type: 'string', default: naming().protobufMediaType, config: 'contentType', deprecated: inFile, help: 'Content type of requests to the API server (this agent sends JSON whatever is set).', noEffect: 'requests to the API server are JSON; the client does not encode protobuf' },
  { name: 'event-qps', type: 'int', default: 50, config: 'eventRecordQPS', deprecated: inFile, validate: atLeast(0), help: 'Events created per second (0 means unlimited).' },
  { name: 'event-burst', type: 'int', default: 100, config: 'eventBurst', deprecated: inFile, validate: atLeast(0), help: 'Events that may be created at once.' },
  { name: 'register-node', type: 'bool', default: true, config: 'registerNode', help: 'Register the node with the API server.' },
  { name: 'register-schedulable', type: 'bool', default: true, deprecated: 'will be removed in a future version; use --register-with-taints', help: 'Register the node as schedulable.' },
  { name: 'register-with-taints', type: 'stringList', default: [], config: 'registerWithTaints', fromConfig: taintsFromList, toConfig: taintsToList, deprecated: inFile, validate: (v) => tryIt(() => (v as string[]).map(parseTaint)), help: 'Taints of the node when it registers: <key>=<value>:<effect>, comma-separated.' },
  { name: 'node-labels', type: 'map', default: {}, help: 'Labels added when the node registers (alpha): key=value pairs. Labels under the vendor domain are refused except the node-agent allow list.' },
  { name: 'node-ip', type: 'stringList', default: [], validate: ips, help: 'IP addresses of the node (one, or one of each family).' },
  { name: 'hostname-override', type: 'string', default: '', help: 'The node name to use instead of the host name.' },
  { name: 'provider-id', type: 'string', default: '', config: 'providerID', deprecated: inFile, help: 'The provider\'s identifier of the node.' },
  { name: 'node-status-update-frequency', type: 'duration', default: 10_000, config: 'nodeStatusUpdateFrequency', deprecated: inFile, validate: positiveDuration, help: 'How often the node\'s status is posted.' },
  { name: 'node-status-max-images', type: 'int', default: 50, config: 'nodeStatusMaxImages', deprecated: inFile, validate: atLeast(-1), help: 'Images reported in the node status at most (-1: no cap).' },
  // runtime and resources
  { name: 'container-runtime-endpoint', type: 'string', default: 'unix:///run/containerd/containerd.sock', config: 'containerRuntimeEndpoint', deprecated: inFile, validate: (v) => (/^(unix|tcp|npipe):\/\//.test(v as string) ? undefined : 'must be a unix:// (or tcp://) endpoint'), help: 'The CRI runtime service endpoint.' },
  { name: 'image-service-endpoint', type: 'string', default: '', config: 'imageServiceEndpoint', deprecated: inFile, validate: (v) => (v === '' || /^(unix|tcp|npipe):\/\//.test(v as string) ? undefined : 'must be a unix:// (or tcp://) endpoint'), help: 'The CRI image service endpoint (default: the runtime endpoint).' },
  { name: 'runtime-request-timeout', type: 'duration', default: 120_000, config: 'runtimeRequestTimeout', deprecated: inFile, validate: positiveDuration, help: 'Timeout of every runtime request except long-running ones.' },
  { name: 'runtime-cgroups', type: 'string', default: '', deprecated: inFile, help: 'Cgroup of the container runtime, for its statistics.' },
  { name: 'cgroup-driver', type: 'enum', values: ['cgroupfs', 'systemd'], default: 'cgroupfs', config: 'cgroupDriver', deprecated: inFile, help: 'How the agent manipulates cgroups on the host.' },
  { name: 'cgroup-root', type: 'string', default: '', config: 'cgroupRoot', deprecated: inFile, help: 'Root cgroup for pods (default: the runtime\'s).' },
  { name: 'cgroups-per-qos', type: 'bool', default: true, config: 'cgroupsPerQOS', deprecated: inFile, help: 'Create the QoS cgroup hierarchy.' },
  { name: 'agent-cgroups', type: 'string', default: '', config: 'agentCgroups', deprecated: inFile, help: 'Cgroup of the agent, for its statistics.' },
  { name: 'cpu-cfs-quota', type: 'bool', default: true, config: 'cpuCFSQuota', deprecated: inFile, help: 'Enforce CPU limits with the CFS quota.' },
  { name: 'cpu-cfs-quota-period', type: 'duration', default: 100, config: 'cpuCFSQuotaPeriod', deprecated: inFile, validate: (v) => ((v as number) >= 1 && (v as number) <= 1000 ? undefined : 'must be from 1ms to 1s'), help: 'The CFS quota period.' },
  { name: 'cpu-manager-policy', type: 'enum', values: ['none', 'static'], default: 'none', config: 'cpuManagerPolicy', deprecated: inFile, help: 'CPU manager policy.' },
  { name: 'cpu-manager-policy-options', type: 'map', default: {}, config: 'cpuManagerPolicyOptions', deprecated: inFile, validate: (v) => Object.keys(v as object).map((k) => (cpuPolicyOptions.includes(k) ? undefined : `unknown option ${k}; known: ${cpuPolicyOptions.join(', ')}`)).find(Boolean), help: 'Options of the static CPU manager policy: key=value pairs.', noEffect: 'the options are checked; CPUs are given one at a time, without regard to cores, sockets or NUMA nodes' },
  { name: 'cpu-manager-reconcile-period', type: 'duration', default: 10_000, config: 'cpuManagerReconcilePeriod', deprecated: inFile, validate: positiveDuration, help: 'How often the CPU manager reconciles (alpha).' },
  { name: 'memory-manager-policy', type: 'enum', values: ['None', 'Static'], default: 'None', config: 'memoryManagerPolicy', deprecated: inFile, help: 'Memory manager policy.' },
  { name: 'reserved-cpus', type: 'string', default: '', config: 'reservedSystemCPUs', deprecated: inFile, validate: cpuSet, help: 'CPUs reserved for the system and cluster daemons (e.g. 0-3); overrides the CPU of --system-reserved and --cluster-reserved.' },
  { name: 'reserved-memory', type: 'stringList', default: [], config: 'reservedMemory', fromConfig: reservedMemoryFromList, toConfig: reservedMemoryToList, deprecated: inFile, validate: (v) => (v as string[]).map((s) => (/^\d+:[a-z0-9-]+=/.test(s) ? undefined : `${JSON.stringify(s)} is not <numa node>:<resource>=<quantity>`)).find(Boolean), help: 'Memory reserved per NUMA node: <node>:memory=<quantity>,...' },
  { name: 'enforce-node-allocatable', type: 'stringList', default: ['pods'], config: 'enforceNodeAllocatable', deprecated: inFile, validate: (v) => { const l = v as string[]; const bad = l.find((x) => !['none', 'pods', 'system-reserved', 'cluster-reserved'].includes(x)); return bad ? `unknown level ${bad}; use none, pods, system-reserved or cluster-reserved` : l.includes('none') && l.length > 1 ? 'none cannot be combined with other levels' : undefined; }, help: 'Levels of node-allocatable enforcement: none, or pods, system-reserved, cluster-reserved.' },
  { name: 'cluster-reserved', type: 'map', default: {}, config: 'clusterReserved', deprecated: inFile, validate: reserved, help: 'Resources reserved for cluster daemons: cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000.' },
  { name: 'cluster-reserved-cgroup', type: 'string', default: '', config: 'clusterReservedCgroup', deprecated: inFile, help: 'Cgroup of the cluster daemons, for --enforce-node-allocatable=cluster-reserved.' },
  { name: 'system-reserved', type: 'map', default: {}, config: 'systemReserved', deprecated: inFile, validate: reserved, help: 'Resources reserved for the system: cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000.' },
  { name: 'system-reserved-cgroup', type: 'string', default: '', config: 'systemReservedCgroup', deprecated: inFile, help: 'Cgroup of the system daemons, for --enforce-node-allocatable=system-reserved.' },
  { name: 'qos-reserved', type: 'map', default: {}, config: 'qosReserved', deprecated: inFile, validate: (v) => Object.entries(v as Record<string, string>).map(([k, p]) => (k !== 'memory' ? `unknown resource ${k}; only memory` : /^\d{1,3}%$/.test(p) && Number(p.slice(0, -1)) <= 100 ? undefined : `${p} is not a percentage`)).find(Boolean), help: 'Share of requested resources reserved by QoS class (alpha, needs QOSReserved): memory=50%.' },
  { name: 'max-pods', type: 'int', default: 110, config: 'maxPods', deprecated: inFile, validate: atLeast(0), help: 'Pods this node runs at most.' },
  { name: 'pods-per-core', type: 'int', default: 0, config: 'podsPerCore', deprecated: inFile, validate: atLeast(0), help: 'Pods per CPU core at most (0: no limit); the smaller of this and --max-pods applies.' },
  { name: 'pod-max-pids', type: 'int', default: -1, config: 'podPidsLimit', deprecated: inFile, validate: atLeast(-1), help: 'Processes per pod at most (-1: no limit).' },
  { name: 'oom-score-adj', type: 'int', default: -999, config: 'oomScoreAdj', deprecated: inFile, validate: between(-1000, 1000), help: 'The oom_score_adj of the agent process.' },
  { name: 'max-open-files', type: 'int', default: 1_000_000, config: 'maxOpenFiles', deprecated: inFile, validate: atLeast(1), help: 'Files the agent process may open.' },
  { name: 'fail-swap-on', type: 'bool', default: true, config: 'failSwapOn', deprecated: inFile, help: 'Refuse to start when swap is on.' },
  { name: 'protect-kernel-defaults', type: 'bool', default: false, config: 'protectKernelDefaults', deprecated: inFile, help: 'Refuse to start when kernel tunables differ from the agent\'s defaults instead of changing them.' },
  // pod sources
  { name: 'pod-manifest-path', type: 'string', default: '', config: 'staticPodPath', deprecated: inFile, help: 'A file or directory of static pod manifests (files starting with a dot are ignored).' },
  { name: 'file-check-frequency', type: 'duration', default: 20_000, config: 'fileCheckFrequency', deprecated: inFile, validate: positiveDuration, help: 'How often the manifest path is read again.' },
  { name: 'manifest-url', type: 'string', default: '', config: 'staticPodURL', deprecated: inFile, validate: (v) => (v === '' || /^https?:\/\//.test(v as string) ? undefined : 'must be an http:// or https:// URL'), help: 'A URL serving static pod manifests.' },
  { name: 'manifest-url-header', type: 'stringList', default: [], config: 'staticPodURLHeader', fromConfig: headersFromMap, toConfig: headersToMap, deprecated: inFile, validate: (v) => (v as string[]).map((h) => (/^[^:\s]+:/.test(h) ? undefined : `${JSON.stringify(h)} is not key:value`)).find(Boolean), help: 'HTTP headers for --manifest-url, key:value, comma-separated or repeated.' },
  { name: 'http-check-frequency', type: 'duration', default: 20_000, config: 'httpCheckFrequency', deprecated: inFile, validate: positiveDuration, help: 'How often --manifest-url is fetched again.' },
  { name: 'runonce', type: 'bool', default: false, help: 'Start the pods of the file and URL sources once, wait until they run, report and exit.' },
  { name: 'pod-infra-container-image', type: 'string', default: 'registry.local/pause:3.9', deprecated: 'will be removed; the sandbox image is set in the runtime', help: 'The sandbox image, kept from garbage collection.' },
  // networking and DNS
  { name: 'cluster-dns', type: 'stringList', default: [], config: 'clusterDNS', deprecated: inFile, validate: ips, help: 'DNS server addresses for pods with dnsPolicy ClusterFirst.' },
  { name: 'cluster-domain', type: 'string', default: '', config: 'clusterDomain', deprecated: inFile, help: 'The cluster\'s DNS domain, searched by pods.' },
  { name: 'resolv-conf', type: 'string', default: '/etc/resolv.conf', config: 'resolvConf', deprecated: inFile, help: 'The resolver configuration pods inherit ("" disables).' },
  { name: 'hairpin-mode', type: 'enum', values: ['promiscuous-bridge', 'hairpin-veth', 'none'], default: 'promiscuous-bridge', config: 'hairpinMode', deprecated: inFile, help: 'How hairpin NAT is set up.', noEffect: 'with a CRI runtime the CNI network configuration decides hairpin traffic (the bridge plugin\'s hairpinMode), as with the reference' },
  { name: 'pod-cidr', type: 'string', default: '', config: 'podCIDR', deprecated: inFile, validate: (v) => (v === '' || (/^[^/]+\/\d+$/.test(v as string) && isIP((v as string).split('/')[0]!)) ? undefined : `${JSON.stringify(v)} is not a CIDR`), help: 'The pod address range of a standalone node.' },
  { name: 'iptables-drop-bit', type: 'int', default: 15, config: 'iptablesDropBit', deprecated: inFile, validate: between(0, 31), help: 'The fwmark bit marking packets to drop.', noEffect: 'no iptables chains are made: with IPTablesOwnershipCleanup (on by default in 1.27) the reference stops making them too' },
  { name: 'iptables-masquerade-bit', type: 'int', default: 14, config: 'iptablesMasqueradeBit', deprecated: inFile, validate: between(0, 31), help: 'The fwmark bit marking packets to masquerade.', noEffect: 'no iptables chains are made: with IPTablesOwnershipCleanup (on by default in 1.27) the reference stops making them too' },
  { name: 'make-iptables-util-chains', type: 'bool', default: true, config: 'makeIPTablesUtilChains', deprecated: inFile, help: 'Keep the iptables utility chains.', noEffect: 'no iptables chains are made: with IPTablesOwnershipCleanup (on by default in 1.27) the reference stops making them too' },
  // eviction
  { name: 'eviction-hard', type: 'stringList', default: ['imagefs.available<15%', 'memory.available<100Mi', 'nodefs.available<10%', 'nodefs.inodesFree<5%'], config: 'evictionHard', fromConfig: thresholdsFromMap, toConfig: thresholdsToMap, deprecated: inFile, validate: thresholds, help: 'Thresholds that evict pods at once, e.g. memory.available<1Gi.' },
  { name: 'eviction-soft', type: 'stringList', default: [], config: 'evictionSoft', fromConfig: thresholdsFromMap, toConfig: thresholdsToMap, deprecated: inFile, validate: thresholds, help: 'Thresholds that evict pods after their grace period, e.g. memory.available<1.5Gi.' },
  { name: 'eviction-soft-grace-period', type: 'map', default: {}, config: 'evictionSoftGracePeriod', deprecated: inFile, validate: durationsBySignal, help: 'Grace periods of the soft thresholds, e.g. memory.available=1m30s.' },
  { name: 'eviction-minimum-reclaim', type: 'map', default: {}, config: 'evictionMinimumReclaim', deprecated: inFile, validate: quantitiesBySignal, help: 'Least amount reclaimed once eviction starts, e.g. imagefs.available=2Gi.' },
  { name: 'eviction-pressure-transition-period', type: 'duration', default: 300_000, config: 'evictionPressureTransitionPeriod', deprecated: inFile, validate: nonNegativeDuration, help: 'How long a pressure condition holds after the pressure ends.' },
  { name: 'eviction-max-pod-grace-period', type: 'int', default: 0, config: 'evictionMaxPodGracePeriod', deprecated: inFile, validate: atLeast(0), help: 'Longest grace period, in seconds, of pods evicted on a soft threshold (0: the pod\'s own).' },
  { name: 'kernel-memcg-notification', type: 'bool', default: false, config: 'kernelMemcgNotification', deprecated: inFile, help: 'Learn of memory thresholds from the kernel instead of polling.', noEffect: 'memory is observed by polling every 10 s; kernel notifications would only notice pressure sooner' },
  // images and storage
  { name: 'image-gc-high-threshold', type: 'int', default: 85, config: 'imageGCHighThresholdPercent', deprecated: inFile, validate: between(0, 100), help: 'Disk usage percentage that starts image garbage collection (100 disables).' },
  { name: 'image-gc-low-threshold', type: 'int', default: 80, config: 'imageGCLowThresholdPercent', deprecated: inFile, validate: between(0, 100), help: 'Disk usage percentage image garbage collection frees down to; below --image-gc-high-threshold.' },
  { name: 'minimum-image-ttl-duration', type: 'duration', default: 120_000, config: 'imageMinimumGCAge', deprecated: inFile, validate: nonNegativeDuration, help: 'Least age of an unused image before it is collected.' },
  { name: 'registry-qps', type: 'int', default: 5, config: 'registryPullQPS', deprecated: inFile, validate: atLeast(0), help: 'Image pulls per second (0: unlimited).' },
  { name: 'registry-burst', type: 'int', default: 10, config: 'registryBurst', deprecated: inFile, validate: atLeast(0), help: 'Image pulls that may go at once.' },
  { name: 'serialize-image-pulls', type: 'bool', default: true, config: 'serializeImagePulls', deprecated: inFile, help: 'Pull one image at a time.' },
  { name: 'image-credential-provider-bin-dir', type: 'string', default: '', help: 'Directory of the image credential provider plugins.', noEffect: 'credential provider plugins are not run; images are pulled with no credentials' },
  { name: 'image-credential-provider-config', type: 'string', default: '', help: 'Configuration file of the image credential provider plugins.', noEffect: 'credential provider plugins are not run; images are pulled with no credentials' },
  { name: 'container-log-max-files', type: 'int', default: 5, config: 'containerLogMaxFiles', deprecated: inFile, validate: atLeast(2), help: 'Log files kept per container (at least 2).' },
  { name: 'container-log-max-size', type: 'string', default: '10Mi', config: 'containerLogMaxSize', deprecated: inFile, validate: (v) => quantity(v) ?? (parseQuantity(v as string) <= 0 ? 'must be greater than 0' : undefined), help: 'Size at which a container log file is rotated.' },
  { name: 'maximum-dead-containers', type: 'int', default: -1, deprecated: 'use --eviction-hard or --eviction-soft instead', validate: atLeast(-1), help: 'Dead containers kept on the node at most (-1: no limit).' },
  { name: 'maximum-dead-containers-per-container', type: 'int', default: 1, deprecated: 'use --eviction-hard or --eviction-soft instead', validate: atLeast(0), help: 'Dead instances kept per container at most.' },
  { name: 'minimum-container-ttl-duration', type: 'duration', default: 0, deprecated: 'use --eviction-hard or --eviction-soft instead', validate: nonNegativeDuration, help: 'Least age of a dead container before it is collected.' },
  { name: 'root-dir', type: 'string', default: '/var/lib/kubelet', validate: (v) => (v === '' ? 'must not be empty' : undefined), help: 'Directory of the agent\'s files: pod folders, container logs.' },
  { name: 'enable-controller-attach-detach', type: 'bool', default: true, config: 'enableControllerAttachDetach', deprecated: inFile, help: 'Let the attach/detach controller manage volumes of this node.' },
  { name: 'keep-terminated-pod-volumes', type: 'bool', default: false, deprecated: 'will be removed in a future version', help: 'Keep the volumes of terminated pods mounted.' },
  { name: 'local-storage-capacity-isolation', type: 'bool', default: true, config: 'localStorageCapacityIsolation', deprecated: inFile, help: 'Account and limit local ephemeral storage.' },
  { name: 'experimental-mounter-path', type: 'string', default: 'mount', deprecated: 'will be removed in a future version', help: 'The mount binary.' },
  // misc
  { name: 'config', type: 'string', default: '', help: 'The configuration file (kind AgentConfiguration); flags given on the command line override its fields.' },
  { name: 'allowed-unsafe-sysctls', type: 'stringList', default: [], config: 'allowedUnsafeSysctls', deprecated: inFile, validate: (v) => (v as string[]).map(unsafeSysctlProblem).find(Boolean), help: 'Unsafe sysctls (or patterns ending in *) pods may set; only sysctls of the network or IPC namespace.' },
  { name: 'contention-profiling', type: 'bool', default: false, config: 'enableContentionProfiling', deprecated: inFile, help: 'Enable lock contention profiling with the debugging handlers.', noEffect: 'lock contention profiling is a feature of the reference\'s runtime; no profiling endpoints are served' },
  { name: 'exit-on-lock-contention', type: 'bool', default: false, help: 'Exit when another process takes the --lock-file.' },
  { name: 'lock-file', type: 'string', default: '', help: 'A lock file the agent holds while it runs (alpha).' },
  { name: 'log-flush-frequency', type: 'duration', default: 5000, config: 'logging.flushFrequency', validate: positiveDuration, help: 'Largest time between log flushes.' },
  { name: 'logging-format', type: 'enum', values: ['text', 'json'], default: 'text', config: 'logging.format', deprecated: inFile, help: 'Log format.' },
  { name: 'log-json-info-buffer-size', type: 'string', default: '0', config: 'logging.options.json.infoBufferSize', deprecated: inFile, validate: quantity, help: 'Buffer of the info stream with --logging-format=json and split streams (alpha).' },
  { name: 'log-json-split-stream', type: 'bool', default: false, config: 'logging.options.json.splitStream', deprecated: inFile, help: 'Write errors to stderr and info to stdout with --logging-format=json (alpha).' },
  { name: 'seccomp-default', type: 'bool', default: false, config: 'seccompDefault', deprecated: inFile, help: 'Use the runtime\'s default seccomp profile for every workload (beta).' },
  { name: 'cloud-provider', type: 'string', default: '', deprecated: 'will be removed; cloud providers run outside the agent', validate: (v) => (['', 'external'].includes(v as string) ? undefined : 'only "external" or empty (in-tree providers are gone)'), help: 'The cloud provider: empty for none, external for an external one.' },
  { name: 'cloud-config', type: 'string', default: '', deprecated: 'will be removed with the in-tree cloud providers', help: 'The cloud provider\'s configuration file.', noEffect: 'only the in-tree cloud providers read it, and they are gone; an external provider reads its own configuration' },
  { name: 'azure-container-registry-config', type: 'string', default: '', deprecated: 'use --image-credential-provider-config instead', help: 'Azure container registry configuration file.', noEffect: 'registry credentials of the in-tree Azure provider, which is gone; credentials are not read' },
  { name: 'experimental-allocatable-ignore-eviction', type: 'bool', default: false, deprecated: 'will be removed in a future version', help: 'Leave hard eviction thresholds out of node allocatable.' },
  { name: 'feature-gates', type: 'map', default: {}, config: 'featureGates', fromConfig: (v) => Object.fromEntries(Object.entries(asObject(v)).map(([k, b]) => [k, String(b)])),
    toConfig: (v) => Object.fromEntries(Object.entries(v as Record<string, string>).map(([k, b]) => [k, b === 'true'])), deprecated: inFile, help: `Feature gates, Name=true|false, comma-separated:\n          ${describeFeatureGates(agentFeatureGates).split('\n').join('\n          ')}` },
  // our own
  { name: 'runtime', type: 'enum', values: ['remote', 'fake'], default: 'remote', config: 'runtime', help: 'The container runtime: remote is CRI over gRPC (--container-runtime-endpoint); fake simulates containers without running anything (see below).' },
  { name: 'fake-nodes', type: 'int', default: 1, config: 'fakeNodes', validate: between(1, 10_000), help: 'With --runtime=fake: how many nodes this process simulates, named <node name>-0 to <node name>-(N-1) when more than one.' },
  { name: 'fake-node-capacity', type: 'map', default: {}, config: 'fakeNodeCapacity', validate: (v) => Object.entries(v as Record<string, string>).map(([k, q]) => tryIt(() => { if (parseQuantity(q) < 0) throw new Error(`${k} must not be negative`); })).find(Boolean), help: 'With --runtime=fake: the capacity of each simulated node, e.g. cpu=4,memory=16Gi,pods=50,ephemeral-storage=50Gi (default cpu=8, memory=32Gi, ephemeral-storage=100Gi, pods from --max-pods).' },
  { name: 'fake-node-template', type: 'string', default: '', config: 'fakeNodeTemplate', help: 'With --runtime=fake: a YAML or JSON file of one Node, or a list of them (items), whose labels, annotations, taints and status.capacity the simulated nodes take, the i-th node the i-th item (round robin); flags still apply on top.' },
  { name: 'api-domain', type: 'enum', values: apiDomains, default: defaultApiDomain, config: 'apiDomain', help: `The API domain of the server's names (labels, the node-lease namespace). When neither this flag nor the configuration file sets it, the agent asks the server's discovery at start, and takes ${defaultApiDomain} if the server does not answer within a few seconds.` },
];

/** the flags, the help of those without effect saying so */
export const agentFlags: readonly AgentFlagDecl[] = declarations.map((d) => (d.noEffect ? { ...d, help: `${d.help} Accepted without effect: ${d.noEffect}.` } : d));

export interface AgentOptions {
  names: Naming;
  /** neither --api-domain nor the --config file named the domain: the server's discovery tells it */
  apiDomainFromServer?: boolean;
  nodeName: string;
  clusterconfig?: string;
  /** --bootstrap-kubeconfig */
  bootstrapClusterconfig?: string;
  rotateCertificates: boolean;
  rotateServerCertificates: boolean;
  runtime: 'remote' | 'fake';
  fakeNodes: number;
  featureGates: FeatureGates;
  address: string;
  port: number;
  readOnlyPort: number;
  healthzBindAddress: string;
  healthzPort: number;
  enableServer: boolean;
  enableDebuggingHandlers: boolean;
  anonymousAuth: boolean;
  authenticationTokenWebhook: boolean;
  authorizationMode: 'AlwaysAllow' | 'Webhook';
  clientCaFile?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  certDir: string;
  clusterApiQps: number;
  clusterApiBurst: number;
  eventQps: number;
  eventBurst: number;
  registerNode: boolean;
  registerSchedulable: boolean;
  registerWithTaints: Taint[];
  nodeLabels: Record<string, string>;
  nodeIps: string[];
  providerId?: string;
  nodeStatusUpdateFrequencyMs: number;
  nodeStatusMaxImages: number;
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
  runtimeRequestTimeoutMs: number;
  maxPods: number;
  podsPerCore: number;
  systemReserved: Record<string, number>;
  clusterReserved: Record<string, number>;
  podManifestPath?: string;
  fileCheckFrequencyMs: number;
  manifestUrl?: string;
  manifestUrlHeaders: Record<string, string[]>;
  httpCheckFrequencyMs: number;
  runonce: boolean;
  evictionHard: Threshold[];
  evictionSoft: Threshold[];
  evictionSoftGracePeriodMs: Record<string, number>;
  evictionMinimumReclaim: Threshold[];
  evictionPressureTransitionPeriodMs: number;
  imageGcHighThreshold: number;
  imageGcLowThreshold: number;
  minimumImageTtlMs: number;
  containerLogMaxFiles: number;
  containerLogMaxSize: number;
  maximumDeadContainersPerContainer: number;
  rootDir: string;
  podCidr?: string;
  clusterDns: string[];
  clusterDomain?: string;
  cgroupDriver: 'cgroupfs' | 'systemd';
  cgroupRoot: string;
  cgroupsPerQos: boolean;
  enforceNodeAllocatable: string[];
  systemReservedCgroup?: string;
  clusterReservedCgroup?: string;
  podPidsLimit: number;
  cpuCfsQuota: boolean;
  cpuCfsQuotaPeriodMs: number;
  seccompDefault: boolean;
  allowedUnsafeSysctls: string[];
  resolvConf: string;
  podInfraContainerImage: string;
  evictionMaxPodGraceSeconds: number;
  registryQps: number;
  registryBurst: number;
  serializeImagePulls: boolean;
  experimentalMounterPath: string;
  /** --qos-reserved memory as a fraction, when the QOSReserved gate is on */
  qosReservedMemory?: number;
  /** simulated nodes: capacity by resource (from --fake-node-capacity) */
  fakeNodeCapacity: Record<string, number>;
  fakeNodeTemplate?: string;
  /** every flag's final value, by flag name */
  values: Record<string, FlagValue | undefined>;
}

export interface ParsedAgentOptions {
  options: AgentOptions;
  warnings: string[];
  /** -h or --help was given: print `usage` and exit */
  help: boolean;
}

export class AgentOptionsError extends Error {
  override name = 'AgentOptionsError';
}

export const configKind = 'AgentConfiguration';
export const configApiVersion = (names: Naming) => `${names.group('agent.config')}/v1beta1`;
/** the reference's own kind, as the reference spells it, so its files load unchanged */
const referenceDomain = apiDomains.find((d) => d !== defaultApiDomain)!;
const referenceKind = { kind: 'KubeletConfiguration', apiVersion: `${naming(referenceDomain).group('kubelet.config')}/v1beta1` };

export function agentUsage(): string {
  const names = naming();
  return `${help(agentFlags, { usage: 'cluster-agent [flags]' })}
Configuration file (--config): kind ${configKind}, apiVersion ${configApiVersion(names)}, with the reference's field names
(kube renamed cluster: clusterAPIQPS, clusterReserved, ...). Flags given on the command line override the file.

Fake runtime (--runtime=fake): nothing is run; every container is Running as soon as its pod is synced, with an id
fake://<node>/<pod uid>/<container>/<attempt>. Init containers and those of a Job's pods (labelled
batch.${names.labelDomain}/job-name) run their command in the simulated shell below, which logs what it writes and
takes a program it does not know as done, and then exit with its code (without a command, 0 at once): pods start
and Jobs complete. Pod annotations change what a simulated container does:
  ${fakeAnnotation(names, 'exit-code')}: <code>       the containers exit with this code after the run time (default 0)
  ${fakeAnnotation(names, 'run-for')}: <duration>     the containers exit after this long (default: they keep running;
                                     0s for init containers and in a Job's pods)
  ${fakeAnnotation(names, 'ready')}: false            readiness probes fail
  ${fakeAnnotation(names, 'liveness')}: fail          liveness probes fail, so the containers are restarted
  ${fakeAnnotation(names, 'startup')}: fail           startup probes fail
  ${fakeAnnotation(names, 'cpu-usage')}: <quantity>   the CPU the containers are reported to use, e.g. 250m (default: their request)
  ${fakeAnnotation(names, 'memory-usage')}: <quantity> the memory they are reported to use, e.g. 64Mi (default: 8Mi, less under a lower limit)
  ${fakeAnnotation(names, 'log')}: <lines>             the lines the containers log when they start
  ${fakeAnnotation(names, 'log-every')}: <duration>   the containers log a numbered line this often
Exec runs a simulated shell over each container's own in-memory files (echo, cat, ls, mkdir, rm, test, sleep, env,
hostname, exit, sh -c, tar: enough for kubectl exec and cp); attach follows the lines the container logs from then on
and passes stdin to a container with stdin: one whose command the shell knows runs it in the shell, reading what
attaches send (kubectl run -i -- sh: the lines it reads; its exit code is the container's), any other echoes its
input; with stdinOnce (kubectl run -i) that input ends with the first attach (^D on a terminal);
port-forward reaches the node's port for host-network pods and a simulated HTTP answer otherwise.
Each annotation may name one container: ${fakeAnnotation(names, 'exit-code')}.<container>: <code>.
With --fake-nodes=N one process registers and runs N nodes; with --pod-cidr each takes its own part of the range.
Without it, a node's pods get addresses from its spec.podCIDR once it has one (node IPAM of the controller manager),
and until then from a /24 of its own counted from 10.244.0.0 (the nodes of another agent process count alike: give
each process its own --pod-cidr when their pods must not share addresses).
Simulated pods are admitted as real ones are (resources against allocatable, node selector and affinity,
host ports, NoExecute taints); their volumes are not set up.
`;
}

export const fakeAnnotation = (names: Naming, what: string) => `${names.group('agent')}/fake-${what}`;

/** Parses the command line and the --config file into the agent's options; bad values throw naming the option. */
export async function parseAgentOptions(argv: readonly string[], env: { hostname?: string } = {}): Promise<ParsedAgentOptions> {
  let parsed;
  try {
    parsed = parseFlags(agentFlags, argv);
  } catch (e) {
    throw new AgentOptionsError((e as Error).message);
  }
  const warnings = [...parsed.warnings];
  for (const d of agentFlags) if (d.noEffect && parsed.given.has(d.name)) warnings.push(`--${d.name} is accepted without effect: ${d.noEffect}`);
  if (parsed.help) return { options: undefined as never, warnings, help: true };
  if (parsed.args.length) throw new AgentOptionsError(`unexpected arguments: ${parsed.args.join(' ')} (flags start with --)`);
  const values = { ...parsed.values };

  const configPath = values.config as string;
  let domainGiven = parsed.given.has('api-domain');
  if (configPath) {
    const fromFile = await readConfigFile(configPath, values['api-domain'] as ApiDomain, warnings);
    domainGiven ||= fromFile['api-domain'] !== undefined;
    for (const [name, value] of Object.entries(fromFile)) if (!parsed.given.has(name)) values[name] = value;
    // command-line feature gates override single gates of the file, not the whole map
    if (parsed.given.has('feature-gates') && fromFile['feature-gates'])
      values['feature-gates'] = { ...(fromFile['feature-gates'] as object), ...(parsed.values['feature-gates'] as object) };
  }
  return { options: { ...resolve(values, env), apiDomainFromServer: !domainGiven }, warnings, help: false };
}

async function readConfigFile(path: string, domain: ApiDomain, warnings: string[]): Promise<Record<string, FlagValue>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new AgentOptionsError(`--config ${path}: cannot read: ${(e as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = ((await loadYaml()).parse(text) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new AgentOptionsError(`--config ${path}: not valid YAML: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new AgentOptionsError(`--config ${path}: must be a mapping`);
  const own = { kind: configKind, apiVersion: configApiVersion(naming(domain)) };
  const kindOk = [own, referenceKind].some((k) => k.kind === doc.kind && k.apiVersion === doc.apiVersion);
  if (!kindOk) throw new AgentOptionsError(`--config ${path}: expected kind ${own.kind} with apiVersion ${own.apiVersion}, got kind ${doc.kind ?? '(none)'} apiVersion ${doc.apiVersion ?? '(none)'}`);

  const out: Record<string, FlagValue> = {};
  const used = new Set<string>(['kind', 'apiVersion']);
  for (const d of agentFlags) {
    if (!d.config) continue;
    const fieldName = referenceKind.kind === doc.kind ? (referenceFieldNames[d.config] ?? d.config) : d.config;
    const raw = fieldName.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), doc);
    if (raw === undefined || raw === null) continue;
    used.add(fieldName);
    const field = `--config ${path}: field ${fieldName}`;
    let value: FlagValue;
    try {
      value = d.fromConfig ? d.fromConfig(raw) : fromFileValue(d, raw);
    } catch (e) {
      throw new AgentOptionsError(`${field}: ${(e as Error).message}`);
    }
    const problem = d.validate?.(value);
    if (problem) throw new AgentOptionsError(`${field} (--${d.name}): ${problem}`);
    out[d.name] = value;
  }
  for (const field of leafPaths(doc)) if (![...used].some((u) => field === u || field.startsWith(`${u}.`))) warnings.push(`--config ${path}: unknown field ${field} ignored`);
  return out;
}

/**
 * The configuration the agent runs with, as a --config file would give it (what its /configz serves): every field the
 * flags and the file set, at its final value. Under the reference's API domain it is the reference's kind, with the
 * reference's field names.
 */
export function configurationOf(o: Pick<AgentOptions, 'values' | 'names'>): Record<string, unknown> {
  const reference = o.names.domain === referenceDomain;
  const out: Record<string, unknown> = { ...(reference ? referenceKind : { kind: configKind, apiVersion: configApiVersion(o.names) }) };
  for (const d of agentFlags) {
    const value = o.values[d.name];
    if (!d.config || value === undefined) continue;
    const path = (reference ? referenceFieldNames[d.config] ?? d.config : d.config).split('.');
    let at = out;
    for (const k of path.slice(0, -1)) at = (at[k] ??= {}) as Record<string, unknown>;
    at[path.at(-1)!] = d.toConfig ? d.toConfig(value) : d.type === 'duration' ? formatDuration(value as number) : value;
  }
  return out;
}

/** fields whose names changed with the rename of the flags */
const referenceFieldNames: Record<string, string> = {
  clusterAPIQPS: 'kubeAPIQPS', clusterAPIBurst: 'kubeAPIBurst', clusterReserved: 'kubeReserved',
  clusterReservedCgroup: 'kubeReservedCgroup', agentCgroups: 'kubeletCgroups',
};

function fromFileValue(d: AgentFlagDecl, raw: unknown): FlagValue {
  const want = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`expected ${what}, got ${JSON.stringify(raw)}`);
  };
  switch (d.type) {
    case 'string':
      want(typeof raw === 'string', 'a string');
      return raw as string;
    case 'enum':
      want(typeof raw === 'string' && !!d.values?.includes(raw), `one of ${d.values?.join(', ')}`);
      return raw as string;
    case 'int':
      want(Number.isInteger(raw), 'an integer');
      return raw as number;
    case 'float':
      want(typeof raw === 'number', 'a number');
      return raw as number;
    case 'bool':
      want(typeof raw === 'boolean', 'true or false');
      return raw as boolean;
    case 'duration':
      want(typeof raw === 'string', 'a duration string such as 20s');
      return parseDuration(raw as string);
    case 'stringList':
    case 'stringArray':
      want(Array.isArray(raw) && raw.every((x) => typeof x === 'string'), 'a list of strings');
      return raw as string[];
    case 'map':
      want(typeof raw === 'object' && !Array.isArray(raw), 'a mapping');
      return Object.fromEntries(Object.entries(raw as object).map(([k, v]) => [k, String(v)]));
  }
}

function leafPaths(o: unknown, prefix = ''): string[] {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return [prefix];
  const entries = Object.entries(o);
  if (!entries.length) return prefix ? [prefix] : [];
  return entries.flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

function asObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`expected a mapping, got ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
}

function asArray(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new Error(`expected a list, got ${JSON.stringify(v)}`);
  return v;
}

/** Allowed labels under the vendor domain (the reference agent's list), besides these prefixes. */
const allowedLabelNames = ['hostname', 'arch', 'os', 'instance-type'];
const allowedLabelPrefixes = (n: Naming) => [`kubelet.${n.labelDomain}/`, `node.${n.labelDomain}/`];
const allowedLabelKeys = (n: Naming) => [
  ...allowedLabelNames.map((x) => n.label(x)), ...['arch', 'os', 'instance-type'].map((x) => `beta.${n.label(x)}`),
  `node.${n.label('instance-type')}`, `topology.${n.label('region')}`, `topology.${n.label('zone')}`,
  `failure-domain.beta.${n.label('region')}`, `failure-domain.beta.${n.label('zone')}`,
];

function restrictedLabel(key: string, n: Naming): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const domain = key.slice(0, slash);
  const vendor = [n.labelDomain, n.domain].some((d) => domain === d || domain.endsWith(`.${d}`));
  if (!vendor) return false;
  return !allowedLabelKeys(n).includes(key) && !allowedLabelPrefixes(n).some((p) => key.startsWith(p));
}

function resolve(v: Record<string, FlagValue | undefined>, env: { hostname?: string }): AgentOptions {
  const str = (name: string) => (v[name] as string) || undefined;
  const num = (name: string) => v[name] as number;
  const bool = (name: string) => v[name] as boolean;
  const fail = (name: string, message: string) => new AgentOptionsError(`invalid value for --${name}: ${message}`);
  const names = naming(v['api-domain'] as ApiDomain);

  let featureGates: FeatureGates;
  try {
    const r = parseFeatureGates(v['feature-gates'] as Record<string, string>, agentFeatureGates);
    featureGates = r.gates;
  } catch (e) {
    throw fail('feature-gates', (e as Error).message);
  }
  if (num('image-gc-low-threshold') >= num('image-gc-high-threshold') && num('image-gc-high-threshold') !== 100)
    throw fail('image-gc-low-threshold', `must be less than --image-gc-high-threshold (${num('image-gc-high-threshold')})`);
  if (v.runtime !== 'fake' && num('fake-nodes') !== 1) throw fail('fake-nodes', 'only with --runtime=fake');
  for (const name of ['fake-node-capacity', 'fake-node-template']) {
    const given = v[name];
    if (v.runtime !== 'fake' && (typeof given === 'string' ? given : Object.keys(given as object).length)) throw fail(name, 'only with --runtime=fake');
  }
  if (num('cpu-cfs-quota-period') !== 100 && !featureGates.CustomCPUCFSQuotaPeriod) throw fail('cpu-cfs-quota-period', 'a period other than 100ms needs the feature gate CustomCPUCFSQuotaPeriod');
  if (bool('exit-on-lock-contention') && !str('lock-file')) throw fail('exit-on-lock-contention', 'needs --lock-file');
  const enforce = v['enforce-node-allocatable'] as string[];
  for (const [level, group] of [['system-reserved', 'system-reserved-cgroup'], ['cluster-reserved', 'cluster-reserved-cgroup']] as const) {
    if (enforce.includes(level) && !str(group)) throw fail('enforce-node-allocatable', `${level} is enforced but --${group} is not set`);
  }
  if (enforce.length && !enforce.includes('none') && !bool('cgroups-per-qos')) throw fail('enforce-node-allocatable', 'needs --cgroups-per-qos (or --enforce-node-allocatable=none)');
  if (v['cgroup-root'] && !String(v['cgroup-root']).startsWith('/') && v['cgroup-driver'] === 'cgroupfs') throw fail('cgroup-root', 'must be an absolute cgroup path such as /agent');
  if (bool('rotate-server-certificates') && !featureGates.RotateKubeletServerCertificate)
    throw fail('rotate-server-certificates', 'needs the feature gate RotateKubeletServerCertificate');
  if (Object.keys(v['qos-reserved'] as object).length && !featureGates.QOSReserved) throw fail('qos-reserved', 'needs the feature gate QOSReserved');
  if (v['authorization-mode'] === 'Webhook' && !str('clusterconfig')) throw fail('authorization-mode', 'Webhook needs --clusterconfig to reach the API server');
  if (bool('authentication-token-webhook') && !str('clusterconfig')) throw fail('authentication-token-webhook', 'needs --clusterconfig to reach the API server');
  if (str('bootstrap-kubeconfig') && !str('clusterconfig')) throw fail('bootstrap-kubeconfig', 'needs --clusterconfig, the file the agent writes with its new certificate');
  if (str('bootstrap-kubeconfig') && num('fake-nodes') !== 1) throw fail('bootstrap-kubeconfig', 'a certificate is for one node; not with --fake-nodes');

  const nodeLabels = v['node-labels'] as Record<string, string>;
  for (const [key, value] of Object.entries(nodeLabels)) {
    const problem = validLabel(key, value);
    if (problem) throw fail('node-labels', problem);
    if (restrictedLabel(key, names))
      throw fail('node-labels', `label ${key} is under a restricted prefix; allowed under ${names.labelDomain}: ${allowedLabelKeys(names).join(', ')} and prefixes ${allowedLabelPrefixes(names).join(', ')}`);
  }
  const evictionSoft = parseThresholds(v['eviction-soft'] as string[]);
  const graces = Object.fromEntries(Object.entries(v['eviction-soft-grace-period'] as Record<string, string>).map(([k, d]) => [k, parseDuration(d)]));
  for (const t of evictionSoft) if (graces[t.signal] === undefined) throw fail('eviction-soft', `threshold ${t.signal} has no grace period in --eviction-soft-grace-period`);

  const nodeName = (str('hostname-override') ?? env.hostname ?? hostname()).trim().toLowerCase();
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(nodeName) || nodeName.length > 253)
    throw fail('hostname-override', `${JSON.stringify(nodeName)} is not a valid node name (a DNS subdomain)`);

  const headers: Record<string, string[]> = {};
  for (const h of v['manifest-url-header'] as string[]) {
    const colon = h.indexOf(':');
    (headers[h.slice(0, colon).trim()] ??= []).push(h.slice(colon + 1).trim());
  }
  const quantities = (name: string) => Object.fromEntries(Object.entries(v[name] as Record<string, string>).map(([k, q]) => [k, parseQuantity(q)]));
  const systemReserved = quantities('system-reserved');
  const clusterReserved = quantities('cluster-reserved');
  // --reserved-cpus stands for the CPU of both reservations, as the reference has it
  const reservedCpus = str('reserved-cpus');
  if (reservedCpus) {
    systemReserved.cpu = parseCpuList(reservedCpus).length;
    delete clusterReserved.cpu;
  }
  const evictionHard = parseThresholds(v['eviction-hard'] as string[]);
  if (v['memory-manager-policy'] === 'Static') {
    const reservedMemory = [...parseReservedMemory(v['reserved-memory'] as string[], parseQuantity).values()].reduce((a, b) => a + b, 0);
    const hardMemory = evictionHard.find((t) => t.signal === 'memory.available')?.quantity ?? 0;
    const wanted = (systemReserved.memory ?? 0) + (clusterReserved.memory ?? 0) + hardMemory;
    if (!reservedMemory) throw fail('reserved-memory', 'the Static memory manager policy needs memory reserved per NUMA node');
    if (reservedMemory !== wanted) throw fail('reserved-memory', `the memory reserved on the NUMA nodes (${reservedMemory}) must equal --system-reserved and --cluster-reserved memory plus the memory.available hard eviction threshold (${wanted})`);
  }
  if (v['cpu-manager-policy'] === 'static' && !systemReserved.cpu && !clusterReserved.cpu) throw fail('cpu-manager-policy', 'the static policy needs reserved CPUs: --reserved-cpus, or cpu in --system-reserved or --cluster-reserved');

  return {
    names,
    nodeName,
    clusterconfig: str('clusterconfig'),
    bootstrapClusterconfig: str('bootstrap-kubeconfig'),
    rotateCertificates: bool('rotate-certificates'),
    rotateServerCertificates: bool('rotate-server-certificates'),
    runtime: v.runtime as AgentOptions['runtime'],
    fakeNodes: num('fake-nodes'),
    featureGates,
    address: v.address as string,
    port: num('port'),
    readOnlyPort: num('read-only-port'),
    healthzBindAddress: v['healthz-bind-address'] as string,
    healthzPort: num('healthz-port'),
    enableServer: bool('enable-server'),
    enableDebuggingHandlers: bool('enable-debugging-handlers'),
    anonymousAuth: bool('anonymous-auth'),
    authenticationTokenWebhook: bool('authentication-token-webhook'),
    authorizationMode: v['authorization-mode'] as AgentOptions['authorizationMode'],
    clientCaFile: str('client-ca-file'),
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    certDir: v['cert-dir'] as string,
    clusterApiQps: num('cluster-api-qps') || 50,
    clusterApiBurst: num('cluster-api-burst'),
    eventQps: num('event-qps'),
    eventBurst: num('event-burst'),
    registerNode: bool('register-node'),
    registerSchedulable: bool('register-schedulable'),
    registerWithTaints: (v['register-with-taints'] as string[]).map(parseTaint),
    nodeLabels,
    nodeIps: v['node-ip'] as string[],
    providerId: str('provider-id'),
    nodeStatusUpdateFrequencyMs: num('node-status-update-frequency'),
    nodeStatusMaxImages: num('node-status-max-images'),
    containerRuntimeEndpoint: v['container-runtime-endpoint'] as string,
    imageServiceEndpoint: str('image-service-endpoint') ?? (v['container-runtime-endpoint'] as string),
    runtimeRequestTimeoutMs: num('runtime-request-timeout'),
    maxPods: num('max-pods'),
    podsPerCore: num('pods-per-core'),
    systemReserved,
    clusterReserved,
    podManifestPath: str('pod-manifest-path'),
    fileCheckFrequencyMs: num('file-check-frequency'),
    manifestUrl: str('manifest-url'),
    manifestUrlHeaders: headers,
    httpCheckFrequencyMs: num('http-check-frequency'),
    runonce: bool('runonce'),
    evictionHard,
    evictionSoft,
    evictionSoftGracePeriodMs: graces,
    evictionMinimumReclaim: parseThresholds(Object.entries(v['eviction-minimum-reclaim'] as Record<string, string>).map(([k, q]) => `${k}<${q}`)),
    evictionPressureTransitionPeriodMs: num('eviction-pressure-transition-period'),
    imageGcHighThreshold: num('image-gc-high-threshold'),
    imageGcLowThreshold: num('image-gc-low-threshold'),
    minimumImageTtlMs: num('minimum-image-ttl-duration'),
    containerLogMaxFiles: num('container-log-max-files'),
    containerLogMaxSize: parseQuantity(v['container-log-max-size'] as string),
    maximumDeadContainersPerContainer: num('maximum-dead-containers-per-container'),
    rootDir: v['root-dir'] as string,
    podCidr: str('pod-cidr'),
    clusterDns: v['cluster-dns'] as string[],
    clusterDomain: str('cluster-domain'),
    cgroupDriver: v['cgroup-driver'] as AgentOptions['cgroupDriver'],
    cgroupRoot: v['cgroup-root'] as string,
    cgroupsPerQos: bool('cgroups-per-qos'),
    enforceNodeAllocatable: (v['enforce-node-allocatable'] as string[]).filter((x) => x !== 'none'),
    systemReservedCgroup: str('system-reserved-cgroup'),
    clusterReservedCgroup: str('cluster-reserved-cgroup'),
    podPidsLimit: num('pod-max-pids'),
    cpuCfsQuota: bool('cpu-cfs-quota'),
    cpuCfsQuotaPeriodMs: num('cpu-cfs-quota-period'),
    seccompDefault: bool('seccomp-default'),
    allowedUnsafeSysctls: v['allowed-unsafe-sysctls'] as string[],
    resolvConf: v['resolv-conf'] as string,
    podInfraContainerImage: v['pod-infra-container-image'] as string,
    evictionMaxPodGraceSeconds: num('eviction-max-pod-grace-period'),
    registryQps: num('registry-qps'),
    registryBurst: num('registry-burst'),
    serializeImagePulls: bool('serialize-image-pulls'),
    experimentalMounterPath: v['experimental-mounter-path'] as string,
    ...(featureGates.QOSReserved && (v['qos-reserved'] as Record<string, string>).memory ? { qosReservedMemory: Number((v['qos-reserved'] as Record<string, string>).memory!.slice(0, -1)) / 100 } : {}),
    fakeNodeCapacity: quantities('fake-node-capacity'),
    fakeNodeTemplate: str('fake-node-template'),
    values: v,
  };
}

