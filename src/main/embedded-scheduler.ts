// The scheduler inside the API server's process: a client like any other, over HTTPS to the server's
// own address, with the reference's scheduler identity (system:kube-scheduler, whose default roles the
// server bootstraps).
import { loadSchedulerConfig, schedulerOptionsFrom, type SchedulerOptions } from '../config/scheduler-options.js';
import type { EmbeddedSchedulerOptions } from '../config/apiserver-options.js';
import type { ProfileConfig } from '../scheduler/profiles.js';
import { checkProfiles, startScheduler, type Logger, type RunningScheduler, type StartSchedulerOptions } from '../scheduler/scheduler.js';
import type { Client } from '../client/rest-client.js';
import type { Naming } from '../api/naming.js';
import { loopbackClient, type Loopback } from './loopback.js';

export const schedulerUser = 'system:kube-scheduler';

/** the scheduler's start options from its parsed options and a client */
export const schedulerStartOptions = (options: SchedulerOptions, client: Client, log: Logger): StartSchedulerOptions => ({
  client, log,
  profiles: options.profiles as ProfileConfig[],
  percentageOfNodesToScore: options.percentageOfNodesToScore,
  podInitialBackoffSeconds: options.podInitialBackoffSeconds,
  podMaxBackoffSeconds: options.podMaxBackoffSeconds,
  leaderElection: options.leaderElection,
});

/** throws when the scheduler could not start with the server's --scheduler-config file (unreadable, invalid, profiles it cannot build) */
export async function checkSchedulerConfigFile(o: EmbeddedSchedulerOptions, names: Naming): Promise<void> {
  const file = o.configFile ? await loadSchedulerConfig(o.configFile) : undefined;
  checkProfiles(schedulerOptionsFrom(o.flagValues, file).profiles as ProfileConfig[], names);
}

export async function startEmbeddedScheduler(o: Loopback & { options: EmbeddedSchedulerOptions; log: Logger }): Promise<RunningScheduler> {
  const file = o.options.configFile ? await loadSchedulerConfig(o.options.configFile) : undefined;
  for (const w of file?.warnings ?? []) o.log.warn(`scheduler: ${w}`);
  const options = schedulerOptionsFrom(o.options.flagValues, file);
  const client = loopbackClient(o, schedulerUser, { qps: options.kubeApiQps, burst: options.kubeApiBurst, userAgent: 'cluster-scheduler' });
  const scheduler = startScheduler({ ...schedulerStartOptions(options, client, o.log), names: o.names });
  return {
    ...scheduler,
    async stop() {
      await scheduler.stop();
      client.close();
    },
  };
}
