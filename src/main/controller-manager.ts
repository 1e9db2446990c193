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
import { startSecureServing, type SecureServing } from './secure-serving.js';
import { discoverNaming } from '../client/discovery.js';
import { createMetrics } from '../metrics/metrics.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParsedControllerManagerProgram } from '../config/controller-manager-options.js';
import type { Client } from '../client/rest-client.js';
import type { Naming } from '../api/naming.js';

/** the HTTPS port, its delegated authentication and authorization going through the clients their files name */
async function serve(s: ParsedControllerManagerProgram['serving'], client: Client, isLeader: () => boolean): Promise<SecureServing | undefined> {
  if (s.securePort === 0) return undefined;
  let naming: Promise<Naming> | undefined;
  const names = () => (naming ??= discoverNaming(client).catch((e) => { naming = undefined; throw e; }));
  const delegate = async (file?: string) => (file ? createClient(await loadClientConfig(file), { userAgent: 'cluster-controller-manager' }) : undefined);
  const metrics = createMetrics();
  metrics.collected('leader_election_master_status', 'Whether this process holds the lease (1) or not (0).', ['name'], () => [[{ name: 'kube-controller-manager' }, isLeader() ? 1 : 0]]);
  return startSecureServing({
    bindAddress: s.bindAddress, securePort: s.securePort, certFile: s.certFile, keyFile: s.keyFile,
    certDir: s.certDir ?? join(tmpdir(), 'cluster-controller-manager'), name: 'cluster-controller-manager',
    clientCaFile: s.clientCaFile, authentication: await delegate(s.authenticationKubeconfig), authorization: await delegate(s.authorizationKubeconfig), names, metrics,
  });
}


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
  const manager = startControllerManager({
    ...settings, client, log,
    onLostLeadership: () => { log.error('leader election lost'); process.exit(1); },
  });
  let serving: SecureServing | undefined;
  try {
    serving = await serve(parsed.serving, client, () => manager.isLeader());
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
