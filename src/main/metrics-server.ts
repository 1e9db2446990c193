#!/usr/bin/env node
// cluster-metrics-server: the resource metrics API as its own program, as the reference metrics-server runs. It is a
// client of the API server (the client-configuration file names it and its credentials; the API domain is learnt
// from the server's discovery), scrapes every node agent through nodes/proxy and serves metrics.<domain>/v1beta1
// over HTTPS, to be registered by an APIService whose Service (or its Endpoints) leads to this listener. SIGTERM
// and SIGINT stop it.
import { createClient } from '../client/rest-client.js';
import { discoverNaming } from '../client/discovery.js';
import { loadClientConfig } from '../config/client-config.js';
import { metricsServerHelp, parseMetricsServerProgram } from '../config/metrics-server-options.js';
import { resourceMetricsGroup, resourceMetricsVersion } from '../api/resource-metrics.js';
import { startMetricsServer } from '../metricsserver/metrics-server.js';
import { servingPair } from '../pki/serving.js';
import { exitWith, log, stopOnSignal } from './program.js';

const program = 'cluster-metrics-server';

async function main() {
  let parsed;
  try {
    parsed = parseMetricsServerProgram(process.argv.slice(2));
  } catch (e) {
    return exitWith(program, 2)(e);
  }
  if (parsed.help) { process.stdout.write(metricsServerHelp()); return; }
  for (const w of parsed.warnings) log.warn(w);
  const config = await loadClientConfig(parsed.kubeconfig).catch(exitWith(program, 1));
  const client = createClient(config, { qps: parsed.kubeApiQps, burst: parsed.kubeApiBurst, userAgent: program });
  const names = await discoverNaming(client).catch(exitWith(program, 1));
  const tls = await servingPair({
    certFile: parsed.tlsCertFile, keyFile: parsed.tlsPrivateKeyFile, certDir: parsed.certDir, name: 'apiserver',
    dnsNames: ['metrics-server', `metrics-server.${names.systemNamespace}.svc`, 'localhost'], ips: ['127.0.0.1'],
  }).catch(exitWith(program, 1));
  const server = await startMetricsServer({
    client, names, log, resolutionMs: parsed.resolutionMs, host: parsed.bindAddress, port: parsed.securePort, certPem: tls.cert, keyPem: tls.key,
  }).catch(exitWith(program, 1));
  const where = `https://${parsed.bindAddress.includes(':') ? `[${parsed.bindAddress}]` : parsed.bindAddress}:${server.port}`;
  log.info(`serving ${resourceMetricsGroup(names)}/${resourceMetricsVersion} on ${where}`);
  server.synced.then(() => log.info('caches synced: answering'), exitWith(program, 1));
  stopOnSignal('stopping', async () => {
    await server.stop();
    client.close();
  });
}

void main();
