#!/usr/bin/env node
// cluster-scheduler: flags and --config → a client from the client configuration → leader election and
// the scheduler. SIGTERM and SIGINT stop it gracefully (the lease is freed for the next candidate);
// losing leadership ends the process with a non-zero status, as the reference does, so a supervisor
// starts a fresh candidate.
import { createClient } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { parseSchedulerProgram, schedulerHelp } from '../config/scheduler-options.js';
import { startScheduler } from '../scheduler/scheduler.js';
import { schedulerStartOptions } from './embedded-scheduler.js';

const log = {
  info: (m: string) => process.stderr.write(`I ${new Date().toISOString()} ${m}\n`),
  warn: (m: string) => process.stderr.write(`W ${new Date().toISOString()} ${m}\n`),
  error: (m: string) => process.stderr.write(`E ${new Date().toISOString()} ${m}\n`),
};

const fail = (code: number) => (e: unknown) => {
  process.stderr.write(`cluster-scheduler: ${(e as Error).message}\n${code === 2 ? 'Run with --help for the list of flags.\n' : ''}`);
  process.exit(code);
};

async function main() {
  const parsed = await parseSchedulerProgram(process.argv.slice(2)).catch(fail(2));
  if (parsed.help) { process.stdout.write(schedulerHelp()); return; }
  for (const w of parsed.warnings) log.warn(w);
  const config = await loadClientConfig(parsed.kubeconfig).catch(fail(1));
  const client = createClient(parsed.master ? { ...config, server: parsed.master } : config, {
    qps: parsed.options.kubeApiQps, burst: parsed.options.kubeApiBurst, userAgent: 'cluster-scheduler',
  });
  let scheduler;
  try {
    scheduler = startScheduler({
      ...schedulerStartOptions(parsed.options, client, log),
      onLostLeadership: () => { log.error('leader election lost'); process.exit(1); },
    });
  } catch (e) {
    fail(2)(e);
    return;
  }
  const running = scheduler;
  running.ready.then(() => log.info(running.isLeader() ? 'scheduling' : 'waiting to become the leader'), fail(1));
  const keepAlive = setInterval(() => {}, 3_600_000);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    clearInterval(keepAlive);
    log.info(`${sig}: stopping`);
    running.stop().then(() => { client.close(); process.exit(0); }, (e) => { log.error(String(e)); process.exit(1); });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
