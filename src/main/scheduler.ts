#!/usr/bin/env node
// cluster-scheduler: flags and --config → a client from the client configuration → leader election and the
// scheduler. SIGTERM and SIGINT stop it gracefully (the lease is freed for the next candidate); losing
// leadership ends the process with a non-zero status, as the reference does, so a supervisor starts a
// fresh candidate.
import { createClient } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { parseSchedulerProgram, schedulerHelp, schedulerLeaseName } from '../config/scheduler-options.js';
import { serveComponent } from './secure-serving.js';
import { createMetrics } from '../metrics/metrics.js';
import { schedulerMetrics } from '../metrics/scheduler.js';
import { startScheduler } from '../scheduler/scheduler.js';
import { schedulerStartOptions } from './embedded-scheduler.js';
import { exitWith, log, stopOnSignal } from './program.js';

async function main() {
  const parsed = await parseSchedulerProgram(process.argv.slice(2)).catch(exitWith('cluster-scheduler', 2));
  if (parsed.help) { process.stdout.write(schedulerHelp()); return; }
  for (const w of parsed.warnings) log.warn(w);
  const config = await loadClientConfig(parsed.kubeconfig).catch(exitWith('cluster-scheduler', 1));
  const client = createClient(parsed.master ? { ...config, server: parsed.master } : config, {
    qps: parsed.options.kubeApiQps, burst: parsed.options.kubeApiBurst, userAgent: 'cluster-scheduler',
  });
  // the scheduler's attempts and queue on the program's /metrics, as the reference's scheduler_* families
  const metrics = createMetrics();
  let scheduler;
  try {
    scheduler = startScheduler({
      ...schedulerStartOptions(parsed.options, client, log),
      metrics: schedulerMetrics(metrics),
      onLostLeadership: () => { log.error('leader election lost'); process.exit(1); },
    });
  } catch (e) {
    return exitWith('cluster-scheduler', 2)(e);
  }
  const running = scheduler;
  const serving = await serveComponent(parsed.serving, client, { program: 'cluster-scheduler', leaseName: schedulerLeaseName, isLeader: () => running.isLeader() }, metrics)
    .catch((e) => { log.error(`secure serving: ${(e as Error).message}`); process.exit(1); });
  if (serving) log.info(`serving HTTPS on ${parsed.serving.bindAddress}:${serving.port}`);
  running.ready.then(() => log.info(running.isLeader() ? 'scheduling' : 'waiting to become the leader'), exitWith('cluster-scheduler', 1));
  stopOnSignal('stopping', async () => {
    await serving?.close();
    await running.stop();
    client.close();
  }, { keepAlive: true });
}

void main();
