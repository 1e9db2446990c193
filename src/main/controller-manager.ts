#!/usr/bin/env node
// cluster-controller-manager: flags → a client from --kubeconfig → leader election and the controllers.
// SIGTERM and SIGINT stop it gracefully (the lease is freed for the next candidate); losing leadership ends
// the process with a non-zero status, as the reference does, so a supervisor starts a fresh candidate.
import { createClient } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { controllerManagerHelp, parseControllerManagerProgram } from '../config/controller-manager-options.js';
import { startControllerManager } from '../controllers/manager.js';
import { controllerManagerSettings } from './embedded-controller-manager.js';
import { exitWith, log, stopOnSignal } from './program.js';
import { serveComponent, type SecureServing } from './secure-serving.js';
import { createMetrics } from '../metrics/metrics.js';
import { workQueueMetrics } from '../metrics/workqueue.js';

async function main() {
  let parsed;
  try {
    parsed = parseControllerManagerProgram(process.argv.slice(2));
  } catch (e) {
    return exitWith('cluster-controller-manager', 2)(e);
  }
  if (parsed.help) { process.stdout.write(controllerManagerHelp()); return; }
  for (const w of parsed.warnings) log.warn(w);
  const config = await loadClientConfig(parsed.kubeconfig).catch(exitWith('cluster-controller-manager', 1));
  const client = createClient(parsed.master ? { ...config, server: parsed.master } : config, {
    qps: parsed.options.kubeApiQps, burst: parsed.options.kubeApiBurst, userAgent: 'cluster-controller-manager',
  });
  let settings;
  try {
    settings = controllerManagerSettings(parsed.options);
  } catch (e) {
    client.close();
    return exitWith('cluster-controller-manager', 1)(e);
  }
  // the controllers' work queues report to the program's /metrics, as the reference's workqueue_* families
  const metrics = createMetrics();
  const manager = startControllerManager({
    ...settings, client, log, observeQueue: workQueueMetrics(metrics),
    onLostLeadership: () => { log.error('leader election lost'); process.exit(1); },
  });
  let serving: SecureServing | undefined;
  try {
    serving = await serveComponent(parsed.serving, client, { program: 'cluster-controller-manager', leaseName: 'kube-controller-manager', isLeader: () => manager.isLeader() }, metrics);
    if (serving) log.info(`serving HTTPS on ${parsed.serving.bindAddress}:${serving.port}`);
  } catch (e) {
    log.error(`secure serving: ${(e as Error).message}`);
    process.exit(1);
  }
  manager.ready.then(() => log.info(manager.isLeader() ? 'controllers running' : 'waiting to become the leader'),
    (e) => { log.error(String((e as Error).message)); process.exit(1); });
  stopOnSignal('stopping', async () => {
    await serving?.close();
    await manager.stop();
    client.close();
  }, { keepAlive: true });
}

void main();
