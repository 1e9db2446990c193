// The scheduler's command line and its configuration file (a KubeSchedulerConfiguration, v1, in the
// server's API domain or the reference's), validated into one options object. Flags given on the
// command line override the file. The same file configures the scheduler inside the API server
// (--scheduler-config).

import { readFile } from 'node:fs/promises';
import { apiDomains, naming } from '../api/naming.js';
import { loadYaml } from '../util/yaml.js';
import { FlagError, help, parseDuration, parseFlags, type FlagDecl, type FlagValue } from './flags.js';
import { checkLeaderElection, leaderElectionFlags, leaderElectionOptionsFrom, type LeaderElectionOptions } from './leader-election-options.js';
import { servingFlags, servingOptionsFrom, type ServingOptions } from './serving-options.js';

export const defaultSchedulerName = 'default-scheduler';
export const schedulerLeaseName = 'kube-scheduler';
export const configKind = 'KubeSchedulerConfiguration';
/** the configuration file's apiVersion in each API domain */
export const configApiVersions = apiDomains.map((d) => `${naming(d).group('kubescheduler.config')}/v1`);
/** v1beta3, deprecated but still read by kube-scheduler 1.27, with the same fields and default plugins as v1 */
const deprecatedApiVersions = apiDomains.map((d) => `${naming(d).group('kubescheduler.config')}/v1beta3`);

export interface SchedulerOptions {
  /** the file's profiles as written; the scheduler checks them when it builds them */
  profiles: Record<string, unknown>[];
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  leaderElection: LeaderElectionOptions;
  /** requests per second to the API server (0 or less: unlimited), and the burst above it */
  kubeApiQps: number;
  kubeApiBurst: number;
}

export interface ParsedSchedulerProgram {
  options: SchedulerOptions;
  kubeconfig: string;
  master?: string;
  verbosity: number;
  warnings: string[];
  help: boolean;
  serving: ServingOptions;
}

const nonNegative = (v: FlagValue) => ((v as number) < 0 ? 'must not be negative' : undefined);

const programFlags: readonly FlagDecl[] = [
  { name: 'config', type: 'string', default: '', help: `A ${configKind} file (apiVersion ${configApiVersions.join(' or ')}): profiles with their plugins, percentageOfNodesToScore, back-off, leader election, client connection.` },
  { name: 'kubeconfig', type: 'string', default: '', help: 'The client-configuration file with the API server\'s address and credentials (or clientConnection.kubeconfig in --config).' },
  { name: 'master', type: 'string', default: '', help: 'The API server\'s address, overriding the one in the client configuration.' },
  { name: 'scheduler-name', type: 'string', default: defaultSchedulerName, help: 'The name of the default profile: pods whose spec.schedulerName is this are scheduled (when --config sets no profiles).' },
  ...leaderElectionFlags(schedulerLeaseName, 'scheduler'),
  { name: 'kube-api-qps', type: 'float', default: 50, help: 'Requests per second to the API server (0: unlimited).', validate: nonNegative },
  { name: 'kube-api-burst', type: 'int', default: 100, help: 'Requests that may go at once above the QPS limit.', validate: nonNegative },
  ...servingFlags(10259),
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.', validate: nonNegative },
];

const flagOfField: Record<string, string> = {
  'leaderElection.leaderElect': 'leader-elect', 'leaderElection.leaseDuration': 'leader-elect-lease-duration',
  'leaderElection.renewDeadline': 'leader-elect-renew-deadline', 'leaderElection.retryPeriod': 'leader-elect-retry-period',
  'leaderElection.resourceLock': 'leader-elect-resource-lock', 'leaderElection.resourceName': 'leader-elect-resource-name',
  'leaderElection.resourceNamespace': 'leader-elect-resource-namespace',
  'clientConnection.kubeconfig': 'kubeconfig', 'clientConnection.qps': 'kube-api-qps', 'clientConnection.burst': 'kube-api-burst',
};

/** fields of the reference's file this scheduler reads but has no use for */
const ignoredFields = new Set(['parallelism', 'enableProfiling', 'enableContentionProfiling', 'healthzBindAddress', 'metricsBindAddress',
  'delayCacheUntilActive', 'clientConnection.contentType', 'clientConnection.acceptContentTypes']);

export interface SchedulerConfigFile {
  /** the values of the flags the file sets (leaderElection, clientConnection), by flag name */
  flags: Record<string, FlagValue>;
  profiles: Record<string, unknown>[];
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  /** what to tell the user (a deprecated apiVersion) */
  warnings: string[];
}

/** the in-tree cloud volume limits, removed in v1: a v1 file may disable them but not enable or configure them */
const removedInV1 = new Set(['AzureDiskLimits', 'CinderLimits', 'EBSLimits', 'GCEPDLimits']);

/** where a v1 profile enables or configures a removed plugin, as the reference words it (multiPoint is not looked at, as there) */
function removedPluginNamed(profile: Record<string, any>, path: string, apiVersion: string): string | undefined {
  const invalid = (where: string, name: string) =>
    `${where}: Invalid value: ${JSON.stringify(name)}: was invalid in version ${JSON.stringify(apiVersion)} (KubeSchedulerConfiguration is version ${JSON.stringify(apiVersion)})`;
  for (const [point, set] of Object.entries(profile.plugins ?? {})) {
    if (point === 'multiPoint' || !Array.isArray((set as any)?.enabled)) continue;
    const i = (set as any).enabled.findIndex((p: any) => removedInV1.has(p?.name));
    if (i >= 0) return invalid(`${path}.plugins.${point}.enabled[${i}]`, (set as any).enabled[i].name);
  }
  const configs: any[] = Array.isArray(profile.pluginConfig) ? profile.pluginConfig : [];
  const j = configs.findIndex((c) => removedInV1.has(c?.name));
  return j >= 0 ? invalid(`${path}.pluginConfig[${j}]`, configs[j].name) : undefined;
}

/** Reads and checks a KubeSchedulerConfiguration file; an unknown field is an error, as the reference's strict decoding makes it. */
export async function loadSchedulerConfig(path: string): Promise<SchedulerConfigFile> {
  const fail = (msg: string) => new FlagError(`scheduler configuration ${path}: ${msg}`);
  let doc: any;
  try {
    doc = (await loadYaml()).parse(await readFile(path, 'utf8')) ?? {};
  } catch (e) {
    throw fail(`cannot read it: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw fail('must be a mapping');
  const deprecated = deprecatedApiVersions.includes(doc.apiVersion);
  if (doc.kind !== configKind || (!configApiVersions.includes(doc.apiVersion) && !deprecated))
    throw fail(`expected kind ${configKind} with apiVersion ${configApiVersions.join(' or ')}, got kind ${doc.kind ?? '(none)'} apiVersion ${doc.apiVersion ?? '(none)'}`);
  const out: SchedulerConfigFile = { flags: {}, profiles: [], warnings: deprecated ? ['KubeSchedulerConfiguration v1beta3 is deprecated in v1.26, will be removed in v1.29'] : [] };
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'kind' || key === 'apiVersion' || ignoredFields.has(key)) continue;
    const field = `field ${key}`;
    switch (key) {
      case 'profiles':
        if (!Array.isArray(value) || value.some((p) => !p || typeof p !== 'object' || Array.isArray(p))) throw fail(`${field} must be a list of profiles`);
        out.profiles = value;
        break;
      case 'percentageOfNodesToScore':
        if (!Number.isInteger(value)) throw fail(`${field} must be an integer from 0 to 100`);
        // the reference's field errors
        if ((value as number) < 0 || (value as number) > 100) throw fail(`${key}: Invalid value: ${value}: not in valid range [0-100]`);
        out.percentageOfNodesToScore = value as number;
        break;
      case 'podInitialBackoffSeconds': case 'podMaxBackoffSeconds':
        if (!Number.isInteger(value)) throw fail(`${field} must be a positive integer`);
        if (key === 'podInitialBackoffSeconds' && (value as number) <= 0) throw fail(`${key}: Invalid value: ${value}: must be greater than 0`);
        out[key] = value as number;
        break;
      case 'extenders':
        if (Array.isArray(value) && value.length) throw fail('scheduler extenders are not supported');
        break;
      case 'leaderElection': case 'clientConnection':
        if (!value || typeof value !== 'object') throw fail(`${field} must be a mapping`);
        for (const [k, v] of Object.entries(value as object)) {
          const path = `${key}.${k}`;
          if (ignoredFields.has(path)) continue;
          const flag = flagOfField[path];
          if (!flag) throw fail(`unknown field ${path}`);
          if (/Duration|Deadline|Period/.test(k)) {
            try { out.flags[flag] = parseDuration(String(v)); } catch (e) { throw fail(`field ${path}: ${(e as Error).message}`); }
          } else out.flags[flag] = v as FlagValue;
        }
        break;
      default:
        throw fail(`unknown field ${key}`);
    }
  }
  if (!deprecated) out.profiles.forEach((profile, i) => {
    const problem = removedPluginNamed(profile, `profiles[${i}]`, doc.apiVersion);
    if (problem) throw fail(problem);
  });
  // the reference's own checks of fields it reads and this scheduler has no use for
  if (doc.parallelism !== undefined && !((doc.parallelism as number) > 0)) throw fail(`parallelism: Invalid value: ${JSON.stringify(doc.parallelism)}: should be an integer value greater than zero`);
  const lock = out.flags['leader-elect-resource-lock'];
  if (lock !== undefined && lock !== 'leases' && out.flags['leader-elect'] !== false)
    throw fail(`leaderElection.resourceLock: Invalid value: ${JSON.stringify(lock)}: resourceLock value must be "leases"`);
  const maxBackoff = out.podMaxBackoffSeconds ?? 10;
  if (maxBackoff < (out.podInitialBackoffSeconds ?? 1)) throw fail(`podMaxBackoffSeconds: Invalid value: ${maxBackoff}: must be greater than or equal to PodInitialBackoffSeconds`);
  return out;
}

/**
 * The options from flag values and a configuration file: what the file sets wins over the flags'
 * defaults, and flags named in `given` (those on the command line) win over the file.
 */
export function schedulerOptionsFrom(v: Record<string, FlagValue | undefined>, file: SchedulerConfigFile | undefined, given: ReadonlySet<string> = new Set()): SchedulerOptions {
  const values = { ...v };
  for (const [flag, value] of Object.entries(file?.flags ?? {})) if (!given.has(flag)) values[flag] = value;
  if (file?.profiles.length && given.has('scheduler-name'))
    throw new FlagError('--scheduler-name names the default profile; with profiles in the configuration file, set schedulerName in them');
  return {
    profiles: file?.profiles.length ? file.profiles : [{ schedulerName: (values['scheduler-name'] as string) || defaultSchedulerName }],
    percentageOfNodesToScore: file?.percentageOfNodesToScore,
    podInitialBackoffSeconds: file?.podInitialBackoffSeconds ?? 1,
    podMaxBackoffSeconds: file?.podMaxBackoffSeconds ?? 10,
    leaderElection: checkLeaderElection(leaderElectionOptionsFrom(values)),
    kubeApiQps: Number(values['kube-api-qps']),
    kubeApiBurst: Number(values['kube-api-burst']),
  };
}

export async function parseSchedulerProgram(argv: readonly string[]): Promise<ParsedSchedulerProgram> {
  const parsed = parseFlags(programFlags, argv);
  if (parsed.args.length) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}: the scheduler takes only flags`);
  const v = parsed.values;
  if (parsed.help) return { options: undefined as never, kubeconfig: '', verbosity: 0, warnings: parsed.warnings, help: true, serving: undefined as never };
  const file = v.config ? await loadSchedulerConfig(v.config as string) : undefined;
  const kubeconfig = (parsed.given.has('kubeconfig') ? v.kubeconfig : file?.flags.kubeconfig ?? v.kubeconfig) as string;
  if (!kubeconfig) throw new FlagError('flag --kubeconfig (or clientConnection.kubeconfig in --config) is required: the scheduler reaches the API server with its credentials');
  return {
    options: schedulerOptionsFrom(v, file, parsed.given),
    kubeconfig,
    master: (v.master as string) || undefined,
    verbosity: v.v as number,
    warnings: [...parsed.warnings, ...(file?.warnings ?? [])],
    help: false,
    serving: servingOptionsFrom(v),
  };
}

/** The scheduler inside the API server: its configuration file, and the leader-election flags it shares with the controller manager. */
export const embeddedSchedulerFlags: readonly FlagDecl[] = [
  { name: 'scheduler', type: 'bool', default: true, help: 'Run the scheduler inside the server\'s process (leader election as the --leader-elect flags say, with the lease kube-scheduler).' },
  { name: 'scheduler-config', type: 'string', default: '', help: `A ${configKind} file for the scheduler inside the server (profiles, percentageOfNodesToScore, back-off, leader election).` },
];

/** Flag values for the embedded scheduler: the shared leader-election values with the scheduler's lease, and no request limit on the loopback connection. */
export function embeddedSchedulerValues(v: Record<string, FlagValue | undefined>): Record<string, FlagValue | undefined> {
  return { ...v, 'leader-elect-resource-name': schedulerLeaseName, 'kube-api-qps': 0, 'kube-api-burst': 0, 'scheduler-name': defaultSchedulerName };
}

export const schedulerHelp = () => help(programFlags, { usage: 'cluster-scheduler --kubeconfig=FILE [--config=FILE] [flags]' });
