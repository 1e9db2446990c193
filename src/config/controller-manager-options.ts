// The controller manager's command line: the reference's flag names and defaults, validated into one
// options object. The same options (less the client configuration) run the controllers inside the API server.

import { FlagError, help, parseFlags, type FlagDecl, type FlagValue } from './flags.js';
import { leaderElectionFlags, leaderElectionOptionsFrom, type LeaderElectionOptions } from './leader-election-options.js';

export type { LeaderElectionOptions };

/** Controller names, as the reference's --controllers flag knows them. */
export const knownControllers = [
  'cronjob', 'daemonset', 'deployment', 'disruption', 'garbagecollector', 'job', 'namespace', 'nodelifecycle',
  'pv-protection', 'pvc-protection', 'replicaset', 'replicationcontroller', 'serviceaccount', 'statefulset', 'ttl-after-finished',
] as const;
export type ControllerName = (typeof knownControllers)[number];

/** off unless named, as in the reference (the bootstrap-token controllers of the reference are the others) */
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
}

const positive = (v: FlagValue) => ((v as number) > 0 ? undefined : 'must be greater than 0');
const nonNegative = (v: FlagValue) => ((v as number) < 0 ? 'must not be negative' : undefined);

/** The flags shared by the program and the API server's embedded controller manager. */
export const controllerManagerFlags: readonly FlagDecl[] = [
  { name: 'controllers', type: 'stringList', default: ['*'], help: `Controllers to run: '*' runs the ones on by default, 'name' adds one, '-name' leaves one out. Known: ${[...knownControllers, ...controllersDisabledByDefault].sort().join(', ')}; off by default: ${controllersDisabledByDefault.join(', ')}.` },
  ...Object.entries(concurrencyFlags).map(([controller, [name, dflt]]): FlagDecl => ({ name, type: 'int', default: dflt, help: `How many objects the ${controller} controller syncs at once.`, validate: positive })),
  ...leaderElectionFlags('kube-controller-manager', 'controllers'),
  { name: 'kube-api-qps', type: 'float', default: 20, help: 'Requests per second to the API server, per client.', validate: positive },
  { name: 'kube-api-burst', type: 'int', default: 30, help: 'Requests that may go at once above the QPS limit.', validate: positive },
  { name: 'use-service-account-credentials', type: 'bool', default: false, help: 'Run each controller with the credentials of a service account of its own.' },
  { name: 'enable-garbage-collector', type: 'bool', default: true, help: 'Run the garbage collector. Must agree with the API server\'s setting.' },
  { name: 'min-resync-period', type: 'duration', default: 12 * 3_600_000, help: 'Informers tell controllers about every object again at a random interval between this and twice this.', validate: nonNegative },
];

/** The program's own flags besides the shared ones. */
const programFlags: readonly FlagDecl[] = [
  { name: 'kubeconfig', type: 'string', default: '', help: 'The client-configuration file with the API server\'s address and credentials (required).' },
  { name: 'master', type: 'string', default: '', help: 'The API server\'s address, overriding the one in --kubeconfig.' },
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.', validate: nonNegative },
];

export function checkControllers(list: readonly string[]): string | undefined {
  const known = new Set<string>([...knownControllers, ...controllersDisabledByDefault]);
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
  };
}

export const controllerManagerHelp = () =>
  help([...controllerManagerFlags, ...programFlags], { usage: 'cluster-controller-manager --kubeconfig=FILE [flags]' });
