// The controller manager's command line: the reference's flag names and defaults, validated into one
// options object. The same options (less the client configuration) run the controllers inside the API server.

import { FlagError, help, parseFlags, type FlagDecl, type FlagValue } from './flags.js';
import { parseCidrText, subnetProblem } from '../api/ip.js';
import { servingFlags, servingOptionsFrom, type ServingOptions } from './serving-options.js';
import { leaderElectionFlags, leaderElectionOptionsFrom, type LeaderElectionOptions } from './leader-election-options.js';

export type { LeaderElectionOptions };

/** Controller names, as the reference's --controllers flag knows them. */
export const knownControllers = [
  'bootstrapsigner', 'csrapproving', 'csrcleaner', 'csrsigning', 'tokencleaner', 'cronjob', 'daemonset', 'deployment', 'disruption', 'endpoint', 'endpointslice', 'endpointslicemirroring', 'ephemeral-volume', 'garbagecollector', 'horizontalpodautoscaling', 'job', 'namespace', 'nodeipam', 'nodelifecycle', 'podgc',
  'persistentvolume-binder', 'persistentvolume-expander', 'pv-protection', 'pvc-protection', 'replicaset', 'replicationcontroller', 'resourcequota', 'root-ca-cert-publisher', 'serviceaccount', 'serviceaccount-token', 'statefulset', 'ttl-after-finished',
] as const;
export type ControllerName = (typeof knownControllers)[number];

/** off unless named, as in the reference: the bootstrap-token controllers */
export const controllersDisabledByDefault: readonly string[] = ['bootstrapsigner', 'tokencleaner'];

/** `--concurrent-<x>-syncs` flags: how many keys each controller works on at once */
export const concurrencyFlags = {
  deployment: ['concurrent-deployment-syncs', 5],
  replicaset: ['concurrent-replicaset-syncs', 5],
  replicationcontroller: ['concurrent-rc-syncs', 5],
  statefulset: ['concurrent-statefulset-syncs', 5],
  daemonset: ['concurrent-daemonset-syncs', 2],
  job: ['concurrent-job-syncs', 5],
  cronjob: ['concurrent-cron-job-syncs', 5],
  garbagecollector: ['concurrent-gc-syncs', 20],
  namespace: ['concurrent-namespace-syncs', 10],
  'ttl-after-finished': ['concurrent-ttl-after-finished-syncs', 5],
  endpoint: ['concurrent-endpoint-syncs', 5],
  endpointslice: ['concurrent-service-endpoint-syncs', 5],
  endpointslicemirroring: ['mirroring-concurrent-service-endpoint-syncs', 5],
  resourcequota: ['concurrent-resource-quota-syncs', 5],
  horizontalpodautoscaling: ['concurrent-horizontal-pod-autoscaler-syncs', 5],
  'ephemeral-volume': ['concurrent-ephemeralvolume-syncs', 5],
} as const satisfies Partial<Record<ControllerName, readonly [string, number]>>;

export interface ControllerManagerOptions {
  /** `*`, `name`, `-name` entries */
  controllers: string[];
  /** workers per controller, by controller name */
  concurrency: Record<string, number>;
  leaderElection: LeaderElectionOptions;
  kubeApiQps: number;
  kubeApiBurst: number;
  /** each controller acts as a service account of its own (`<name>-controller` in the system namespace) */
  useServiceAccountCredentials: boolean;
  enableGarbageCollector: boolean;
  /** informers tell every object again at a random interval between this and twice this */
  minResyncPeriodMs: number;
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
  unhealthyZoneThreshold: number;
  largeClusterSizeThreshold: number;
  terminatedPodGcThreshold: number;
  /** claims of a class whose provisioner is the in-tree host-path one get a hostPath volume under /tmp */
  enableHostPathProvisioner: boolean;
  maxEndpointsPerSlice: number;
  mirroringMaxEndpointsPerSubset: number;
  resourceQuotaSyncPeriodMs: number;
  /** the CA bundle published in every namespace; empty: the CA the manager's client trusts */
  rootCaFile?: string;
  /** the CA each signer signs with (files), by signer suffix; the generic pair applies to signers without their own */
  clusterSigning: { certFile?: string; keyFile?: string; perSigner: Partial<Record<SignerSuffix, { certFile: string; keyFile: string }>> };
  clusterSigningDurationMs: number;
  serviceAccountPrivateKeyFile?: string;
  /** node CIDR allocation (`--allocate-node-cidrs`); absent: the nodeipam controller does not run */
  nodeIpam?: { clusterCidrs: string[]; nodeMaskSizes: number[]; serviceCidrs: string[] };
  clusterName: string;
  hpaSyncPeriodMs: number;
}

/** the signers of the certificates API, by the part of the name after `<domain>/` */
export const signerSuffixes = ['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'] as const;
export type SignerSuffix = (typeof signerSuffixes)[number];
/** each signer's own flags, as the reference names them */
const signerFlagNames: Record<SignerSuffix, string> = {
  'kube-apiserver-client': 'kube-apiserver-client', 'kube-apiserver-client-kubelet': 'kubelet-client',
  'kubelet-serving': 'kubelet-serving', 'legacy-unknown': 'legacy-unknown',
};

const positive = (v: FlagValue) => ((v as number) > 0 ? undefined : 'must be greater than 0');
const nonNegative = (v: FlagValue) => ((v as number) < 0 ? 'must not be negative' : undefined);

/** The flags shared by the program and the API server's embedded controller manager. */
export const controllerManagerFlags: readonly FlagDecl[] = [
  { name: 'controllers', type: 'stringList', default: ['*'], help: `Controllers to run: '*' runs the ones on by default, 'name' adds one, '-name' leaves one out. Known: ${[...knownControllers].sort().join(', ')}; off by default: ${controllersDisabledByDefault.join(', ')}.` },
  ...Object.entries(concurrencyFlags).map(([controller, [name, dflt]]): FlagDecl => ({ name, type: 'int', default: dflt, help: `How many objects the ${controller} controller syncs at once.`, validate: positive })),
  ...leaderElectionFlags('kube-controller-manager', 'controllers'),
  { name: 'kube-api-qps', type: 'float', default: 20, help: 'Requests per second to the API server, per client.', validate: positive },
  { name: 'kube-api-burst', type: 'int', default: 30, help: 'Requests that may go at once above the QPS limit.', validate: positive },
  { name: 'use-service-account-credentials', type: 'bool', default: false, help: 'Run each controller with the credentials of a service account of its own.' },
  { name: 'enable-garbage-collector', type: 'bool', default: true, help: 'Run the garbage collector. Must agree with the API server\'s setting.' },
  { name: 'node-monitor-period', type: 'duration', default: 5_000, help: 'How often the node lifecycle controller looks at node health.', validate: positive },
  { name: 'node-monitor-grace-period', type: 'duration', default: 40_000, help: 'How long a node may go without renewing its Lease or posting status before it is marked Unknown.', validate: positive },
  { name: 'node-startup-grace-period', type: 'duration', default: 60_000, help: 'How long a node that has never posted status may stay silent before it is marked Unknown.', validate: positive },
  { name: 'node-eviction-rate', type: 'float', default: 0.1, help: 'Nodes a second, per zone, that get the NoExecute taint of a Ready condition not True (which evicts their pods) while the zone is healthy or fully down but another zone is not.', validate: nonNegative },
  { name: 'secondary-node-eviction-rate', type: 'float', default: 0.01, help: 'The same in a zone in partial disruption (see --unhealthy-zone-threshold) of more than --large-cluster-size-threshold nodes; a smaller zone then gets none.', validate: nonNegative },
  { name: 'unhealthy-zone-threshold', type: 'float', default: 0.55, help: 'The share of a zone\'s nodes not Ready (at least 3 of them) that puts the zone in partial disruption.', validate: nonNegative },
  { name: 'large-cluster-size-threshold', type: 'int', default: 50, help: 'A zone of more nodes than this keeps tainting at --secondary-node-eviction-rate in partial disruption.', validate: nonNegative },
  { name: 'enable-hostpath-provisioner', type: 'bool', default: false, help: 'Make hostPath volumes under /tmp/hostpath_pv for claims of a class whose provisioner is <domain>/host-path: for one-machine clusters and tests, as the data stays on the machine the controller manager runs on.' },
  { name: 'terminated-pod-gc-threshold', type: 'int', default: 12500, help: 'Finished pods beyond this many are deleted, oldest first. 0 keeps them all.', validate: nonNegative },
  { name: 'resource-quota-sync-period', type: 'duration', default: 5 * 60_000, help: 'How often every ResourceQuota\'s usage is recomputed, besides the changes seen.', validate: positive },
  { name: 'max-endpoints-per-slice', type: 'int', default: 100, help: 'The most endpoints one EndpointSlice holds.', validate: (v) => ((v as number) >= 1 && (v as number) <= 1000 ? undefined : 'must be from 1 to 1000') },
  { name: 'mirroring-max-endpoints-per-subset', type: 'int', default: 1000, help: 'The most endpoints of each Endpoints subset the mirroring controller copies, and the most one mirrored EndpointSlice holds.', validate: (v) => ((v as number) >= 1 && (v as number) <= 1000 ? undefined : 'must be from 1 to 1000') },
  { name: 'root-ca-file', type: 'string', default: '', help: 'The CA bundle published as the root-CA ConfigMap in every namespace. Default: the CA the controller manager trusts for the API server.' },
  { name: 'cluster-signing-cert-file', type: 'string', default: '', help: 'The CA certificate (PEM) approved certificate requests are signed with, for signers without a pair of their own. The API server\'s own controller manager defaults to the server\'s CA.' },
  { name: 'cluster-signing-key-file', type: 'string', default: '', help: 'The private key (PEM) of --cluster-signing-cert-file.' },
  ...signerSuffixes.flatMap((suffix): FlagDecl[] => [
    { name: `cluster-signing-${signerFlagNames[suffix]}-cert-file`, type: 'string', default: '', help: `The CA certificate (PEM) of the ${suffix} signer.` },
    { name: `cluster-signing-${signerFlagNames[suffix]}-key-file`, type: 'string', default: '', help: `The private key (PEM) of the ${suffix} signer.` },
  ]),
  { name: 'cluster-signing-duration', type: 'duration', default: 8760 * 3_600_000, help: 'The longest a signed certificate is valid; a request\'s expirationSeconds may ask for less.', validate: positive },
  { name: 'service-account-private-key-file', type: 'string', default: '', help: 'The private key (PEM) that legacy service-account token Secrets are signed with. Without it the token controller does not run.' },
  { name: 'allocate-node-cidrs', type: 'bool', default: false, help: 'Give every node pod CIDRs (spec.podCIDRs) from --cluster-cidr: the nodeipam controller.' },
  { name: 'cidr-allocator-type', type: 'string', default: 'RangeAllocator', help: 'How node CIDRs are allocated. Only RangeAllocator (from --cluster-cidr) is built.' },
  { name: 'cluster-cidr', type: 'string', default: '', help: 'The pods\' CIDR range, one CIDR or two of different IP families (comma-separated), cut into node CIDRs with --allocate-node-cidrs.' },
  { name: 'node-cidr-mask-size', type: 'int', default: 0, help: 'The prefix length of node CIDRs in a single-stack cluster. Default: 24 for IPv4, 64 for IPv6.', validate: nonNegative },
  { name: 'node-cidr-mask-size-ipv4', type: 'int', default: 0, help: 'The prefix length of IPv4 node CIDRs. Default: 24.', validate: nonNegative },
  { name: 'node-cidr-mask-size-ipv6', type: 'int', default: 0, help: 'The prefix length of IPv6 node CIDRs. Default: 64.', validate: nonNegative },
  { name: 'cluster-name', type: 'string', default: 'kubernetes', help: 'The cluster\'s name. The reference uses it only in cloud-provider controllers (load balancer and route names), which this controller manager does not run: accepted, used by nothing.' },
  { name: 'horizontal-pod-autoscaler-sync-period', type: 'duration', default: 15_000, help: 'How often each HorizontalPodAutoscaler is evaluated.', validate: positive },
  { name: 'pod-eviction-timeout', type: 'duration', default: 5 * 60_000, help: 'No effect: pods of an unreachable or not-ready node are evicted by taints and their tolerationSeconds.', deprecated: 'it has no effect since taint-based eviction is always on, and is removed in 1.28' },
  { name: 'min-resync-period', type: 'duration', default: 12 * 3_600_000, help: 'Informers tell controllers about every object again at a random interval between this and twice this.', validate: nonNegative },
];

/** The program's own flags besides the shared ones. */
const programFlags: readonly FlagDecl[] = [
  { name: 'kubeconfig', type: 'string', default: '', help: 'The client-configuration file with the API server\'s address and credentials (required).' },
  { name: 'master', type: 'string', default: '', help: 'The API server\'s address, overriding the one in --kubeconfig.' },
  // the API server's own --service-cluster-ip-range is the embedded controller manager's
  { name: 'service-cluster-ip-range', type: 'stringList', default: [], help: 'The Services\' cluster IP ranges (as the API server\'s flag), kept out of node CIDRs where they overlap --cluster-cidr.' },
  ...servingFlags(10257),
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.', validate: nonNegative },
];

export function checkControllers(list: readonly string[]): string | undefined {
  const known = new Set<string>(knownControllers);
  for (const entry of list) {
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (entry !== '*' && !known.has(name)) return `"${name}" is not in the list of known controllers (${[...known].sort().join(', ')})`;
  }
  return undefined;
}

/** whether `--controllers` turns a controller on, by the reference's rules */
export function controllerEnabled(name: string, list: readonly string[]): boolean {
  let star = false;
  for (const entry of list) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !controllersDisabledByDefault.includes(name);
}

/** a certificate and key flag pair: both or neither */
function pair(v: Record<string, FlagValue | undefined>, prefix: string): { certFile?: string; keyFile?: string } {
  const certFile = (v[`${prefix}-cert-file`] as string) || undefined;
  const keyFile = (v[`${prefix}-key-file`] as string) || undefined;
  if (!certFile !== !keyFile) throw new FlagError(`flags --${prefix}-cert-file and --${prefix}-key-file must be given together`);
  return { certFile, keyFile };
}

const defaultNodeMask = { IPv4: 24, IPv6: 64 } as const;

/**
 * The node CIDR allocator's configuration, checked as the reference checks it at start: one cluster CIDR per IP
 * family, --node-cidr-mask-size only for a single-stack cluster and not with the per-family flags, a per-family
 * flag only for a family the cluster has, and node CIDRs no larger than the cluster CIDR nor more than 2^16 of them.
 */
export function nodeIpamOptionsFrom(v: Record<string, FlagValue | undefined>): ControllerManagerOptions['nodeIpam'] {
  if (!v['allocate-node-cidrs']) return undefined;
  if (v['cidr-allocator-type'] !== 'RangeAllocator') throw new FlagError(`invalid value for flag --cidr-allocator-type: ${JSON.stringify(v['cidr-allocator-type'])}: only RangeAllocator is built`);
  const text = (v['cluster-cidr'] as string).trim();
  if (!text) throw new FlagError('flag --cluster-cidr is required with --allocate-node-cidrs=true');
  const cidrs = text.split(',').map((c) => c.trim());
  const parsed = cidrs.map((c) => {
    const p = parseCidrText(c);
    if (!p) throw new FlagError(`invalid value for flag --cluster-cidr: ${JSON.stringify(c)} is not a CIDR such as 10.244.0.0/16`);
    return p;
  });
  if (parsed.length > 2) throw new FlagError(`invalid value for flag --cluster-cidr: ${parsed.length} CIDRs, at most 2 (one per IP family) are allowed`);
  const dualStack = parsed.length === 2;
  if (dualStack && parsed[0]!.family === parsed[1]!.family) throw new FlagError('invalid value for flag --cluster-cidr: two CIDRs must be of different IP families');
  const mask = v['node-cidr-mask-size'] as number, mask4 = v['node-cidr-mask-size-ipv4'] as number, mask6 = v['node-cidr-mask-size-ipv6'] as number;
  let sizes = { ...defaultNodeMask } as { IPv4: number; IPv6: number };
  if (dualStack) {
    if (mask) throw new FlagError('flag --node-cidr-mask-size is not allowed with a dual-stack --cluster-cidr: use --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6');
  } else if (mask) {
    if (mask4 || mask6) throw new FlagError('flags --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 are not allowed with --node-cidr-mask-size');
    sizes = { IPv4: mask, IPv6: mask };
  } else {
    const family = parsed[0]!.family;
    if (mask4 && family === 'IPv6') throw new FlagError('flag --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster');
    if (mask6 && family === 'IPv4') throw new FlagError('flag --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
  }
  if (mask4) sizes.IPv4 = mask4;
  if (mask6) sizes.IPv6 = mask6;
  const nodeMaskSizes = parsed.map((p) => sizes[p.family]);
  parsed.forEach((p, i) => {
    const problem = subnetProblem(p, nodeMaskSizes[i]!);
    if (problem) throw new FlagError(`invalid node CIDR mask size for --cluster-cidr ${cidrs[i]}: ${problem}`);
  });
  const service = v['service-cluster-ip-range'];
  const serviceCidrs = (Array.isArray(service) ? service : typeof service === 'string' && service ? service.split(',') : []).map((c) => c.trim());
  for (const c of serviceCidrs) if (!parseCidrText(c)) throw new FlagError(`invalid value for flag --service-cluster-ip-range: ${JSON.stringify(c)} is not a CIDR`);
  return { clusterCidrs: cidrs, nodeMaskSizes, serviceCidrs };
}

/** The shared options from parsed flag values. */
export function controllerManagerOptionsFrom(v: Record<string, FlagValue | undefined>): ControllerManagerOptions {
  const problem = checkControllers(v.controllers as string[]);
  if (problem) throw new FlagError(`invalid value for flag --controllers: ${problem}`);
  const leaderElection = leaderElectionOptionsFrom(v);
  return {
    controllers: v.controllers as string[],
    concurrency: Object.fromEntries(Object.entries(concurrencyFlags).map(([controller, [flag]]) => [controller, v[flag] as number])),
    leaderElection,
    kubeApiQps: v['kube-api-qps'] as number,
    kubeApiBurst: v['kube-api-burst'] as number,
    useServiceAccountCredentials: v['use-service-account-credentials'] as boolean,
    enableGarbageCollector: v['enable-garbage-collector'] as boolean,
    minResyncPeriodMs: v['min-resync-period'] as number,
    nodeMonitorPeriodMs: v['node-monitor-period'] as number,
    nodeMonitorGracePeriodMs: v['node-monitor-grace-period'] as number,
    nodeStartupGracePeriodMs: v['node-startup-grace-period'] as number,
    nodeEvictionRate: v['node-eviction-rate'] as number,
    secondaryNodeEvictionRate: v['secondary-node-eviction-rate'] as number,
    unhealthyZoneThreshold: v['unhealthy-zone-threshold'] as number,
    largeClusterSizeThreshold: v['large-cluster-size-threshold'] as number,
    terminatedPodGcThreshold: v['terminated-pod-gc-threshold'] as number,
    enableHostPathProvisioner: v['enable-hostpath-provisioner'] as boolean,
    maxEndpointsPerSlice: v['max-endpoints-per-slice'] as number,
    mirroringMaxEndpointsPerSubset: v['mirroring-max-endpoints-per-subset'] as number,
    resourceQuotaSyncPeriodMs: v['resource-quota-sync-period'] as number,
    rootCaFile: (v['root-ca-file'] as string) || undefined,
    clusterSigning: {
      ...pair(v, 'cluster-signing'),
      perSigner: Object.fromEntries(signerSuffixes.flatMap((suffix) => {
        const p = pair(v, `cluster-signing-${signerFlagNames[suffix]}`);
        return p.certFile && p.keyFile ? [[suffix, p]] : [];
      })),
    },
    clusterSigningDurationMs: v['cluster-signing-duration'] as number,
    serviceAccountPrivateKeyFile: (v['service-account-private-key-file'] as string) || undefined,
    nodeIpam: nodeIpamOptionsFrom(v),
    clusterName: v['cluster-name'] as string,
    hpaSyncPeriodMs: v['horizontal-pod-autoscaler-sync-period'] as number,
  };
}

/** Defaults of every shared option, for the embedded controller manager. */
export const defaultControllerManagerOptions = (): ControllerManagerOptions => controllerManagerOptionsFrom(parseFlags(controllerManagerFlags, []).values);

export interface ParsedControllerManagerProgram {
  options: ControllerManagerOptions;
  kubeconfig: string;
  master?: string;
  verbosity: number;
  warnings: string[];
  help: boolean;
  serving: ServingOptions;
}

export function parseControllerManagerProgram(argv: readonly string[]): ParsedControllerManagerProgram {
  const parsed = parseFlags([...controllerManagerFlags, ...programFlags], argv);
  if (parsed.args.length) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}: the controller manager takes only flags`);
  const v = parsed.values;
  if (!parsed.help && !v.kubeconfig) throw new FlagError('flag --kubeconfig is required: the controller manager reaches the API server with its credentials');
  return {
    options: controllerManagerOptionsFrom(v),
    kubeconfig: v.kubeconfig as string,
    master: (v.master as string) || undefined,
    verbosity: v.v as number,
    warnings: parsed.warnings,
    help: parsed.help,
    serving: servingOptionsFrom(v),
  };
}


export const controllerManagerHelp = () =>
  help([...controllerManagerFlags, ...programFlags], { usage: 'cluster-controller-manager --kubeconfig=FILE [flags]' });
