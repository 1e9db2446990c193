#!/usr/bin/env node
// cluster-apiserver: flags → options → server; SIGTERM and SIGINT shut down gracefully.
import { apiServerHelp, parseApiServerOptions } from '../config/apiserver-options.js';
import { startApiServer } from './apiserver.js';

const log = {
  info: (m: string) => process.stderr.write(`I ${new Date().toISOString()} ${m}\n`),
  warn: (m: string) => process.stderr.write(`W ${new Date().toISOString()} ${m}\n`),
  error: (m: string) => process.stderr.write(`E ${new Date().toISOString()} ${m}\n`),
};

async function main() {
  let parsed;
  try {
    parsed = parseApiServerOptions(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`cluster-apiserver: ${(e as Error).message}\nRun with --help for the list of flags.\n`);
    process.exit(2);
  }
  if (parsed.help) { process.stdout.write(apiServerHelp()); return; }
  for (const w of parsed.warnings) log.warn(w);
  const t0 = performance.now();
  const server = await startApiServer(parsed.options, log).catch(e => {
    process.stderr.write(`cluster-apiserver: ${(e as Error).message}\n`);
    process.exit(1);
  });
  log.info(`serving on ${server.url} (storage: ${parsed.options.storageBackend}, API domain: ${server.names.domain}) ready in ${Math.round(performance.now() - t0)} ms`);
  if (server.adminKubeconfigPath) log.info(`admin client configuration: ${server.adminKubeconfigPath} (try: kubectl --kubeconfig ${server.adminKubeconfigPath} get namespaces)`);
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info(`${sig}: shutting down`);
    server.shutdown().then(() => process.exit(0), e => { log.error(String(e)); process.exit(1); });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main();
