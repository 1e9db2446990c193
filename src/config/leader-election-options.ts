// The leader-election flags the controller manager and the scheduler share, with the reference's names
// and defaults; only the lease's default name differs between them.

import { FlagError, type FlagDecl, type FlagValue } from './flags.js';

export interface LeaderElectionOptions {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** empty: the system namespace of the server's API domain */
  resourceNamespace: string;
  resourceName: string;
}

const positive = (v: FlagValue) => ((v as number) > 0 ? undefined : 'must be greater than 0');

/** `--leader-elect` and its companions; `what` names the component that takes the lease */
export const leaderElectionFlags = (defaultResourceName: string, what: string): FlagDecl[] => [
  { name: 'leader-elect', type: 'bool', default: true, help: `Take a lease before running the ${what}, so that of several candidates only one acts.` },
  { name: 'leader-elect-lease-duration', type: 'duration', default: 15_000, help: 'How long other candidates wait after the last renewal before taking the lease.', validate: positive },
  { name: 'leader-elect-renew-deadline', type: 'duration', default: 10_000, help: 'How long the leader keeps trying to renew before it steps down. Shorter than the lease duration.', validate: positive },
  { name: 'leader-elect-retry-period', type: 'duration', default: 2_000, help: 'How long candidates wait between attempts to take or renew the lease.', validate: positive },
  { name: 'leader-elect-resource-lock', type: 'enum', values: ['leases'], default: 'leases', help: 'The kind of object held for leader election.' },
  { name: 'leader-elect-resource-name', type: 'string', default: defaultResourceName, help: 'The name of the lease.' },
  { name: 'leader-elect-resource-namespace', type: 'string', default: '', help: 'The namespace of the lease (default: the system namespace).' },
];

/** the options, checked as the reference checks them */
export function checkLeaderElection(o: LeaderElectionOptions, prefix = '--leader-elect-'): LeaderElectionOptions {
  if (o.enabled) {
    if (o.leaseDurationMs <= o.renewDeadlineMs) throw new FlagError(`${prefix}lease-duration must be longer than ${prefix}renew-deadline`);
    if (o.renewDeadlineMs <= o.retryPeriodMs * 1.2) throw new FlagError(`${prefix}renew-deadline must be longer than 1.2 times ${prefix}retry-period`);
  }
  return o;
}

export function leaderElectionOptionsFrom(v: Record<string, FlagValue | undefined>): LeaderElectionOptions {
  return checkLeaderElection({
    enabled: v['leader-elect'] as boolean,
    leaseDurationMs: v['leader-elect-lease-duration'] as number,
    renewDeadlineMs: v['leader-elect-renew-deadline'] as number,
    retryPeriodMs: v['leader-elect-retry-period'] as number,
    resourceNamespace: v['leader-elect-resource-namespace'] as string,
    resourceName: v['leader-elect-resource-name'] as string,
  });
}
