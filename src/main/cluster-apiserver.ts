#!/usr/bin/env node
// cluster-apiserver: flags → options → server; SIGTERM and SIGINT shut down gracefully. The server's modules are
// loaded once the flags are read, so that --help and a mistaken flag answer at once.
import { apiServerHelp, parseApiServerOptions } from '../config/apiserver-options.js';
import { exitWith, log, setLogFormat, stopOnSignal } from './program.js';

async function main() {
  let parsed;
  try {
    parsed = parseApiServerOptions(process.argv.slice(2));
  } catch (e) {
    return exitWith('cluster-apiserver', 2)(e);
  }
  if (parsed.help) { process.stdout.write(apiServerHelp()); return; }
  setLogFormat(parsed.options.loggingFormat);
  for (const w of parsed.warnings) log.warn(w);
  const t0 = performance.now();
  const { startApiServer } = await import('./apiserver.js');
  const server = await startApiServer(parsed.options, log, { componentThreads: true }).catch(exitWith('cluster-apiserver', 1));
  const where = server.listenUrl === server.url ? server.url : `${server.listenUrl} (from this machine: ${server.url})`;
  log.info(`serving on ${where} (storage: ${parsed.options.storageBackend}, API domain: ${server.names.domain}, authorization: ${parsed.options.authorizationModes.join(',')}) ready in ${Math.round(performance.now() - t0)} ms`);
  if (server.adminKubeconfigPath) log.info(`admin client configuration: ${server.adminKubeconfigPath} (try: kubectl --kubeconfig ${server.adminKubeconfigPath} get namespaces)`);
  stopOnSignal('shutting down', () => server.shutdown());
}

void main();
