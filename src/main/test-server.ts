#!/usr/bin/env node
// cluster-test-server: one isolated API server for tests in any language. It prints the path of its admin
// client-configuration file on the first line of stdout, then serves until stdin closes or a signal comes. Its
// temporary files are removed however it stops, a signal while it starts included.
import { parseArgs } from 'node:util';
import { constants as osConstants } from 'node:os';
import { apiDomains, defaultApiDomain, isApiDomain } from '../api/naming.js';
import { startTestServer, type TestServer } from '../testing.js';

const usage = `Usage: cluster-test-server [--api-domain ${apiDomains.join('|')}] [--crds DIR] [--nodes N] [--keep-stdin] [-- API server flags]

Starts an API server on a random loopback port with an in-memory store, prints the path of an admin
client-configuration file (the kubeconfig format) on the first line, and serves until SIGINT, SIGTERM or
SIGHUP, or until standard input closes when --keep-stdin is not given and standard input is a pipe.
--nodes N runs N simulated nodes (the node agent's fake mode, in this process) and the scheduler, so that
pods are scheduled and run; they are named node-<id>-0 to node-<id>-(N-1).
`;

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'api-domain': { type: 'string', default: defaultApiDomain },
      crds: { type: 'string', multiple: true },
      nodes: { type: 'string', default: '0' },
      'keep-stdin': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(usage); return; }
  const domain = values['api-domain']!;
  if (!isApiDomain(domain)) throw new Error(`--api-domain must be one of ${apiDomains.join(', ')}, not "${domain}"`);
  const nodes = Number(values.nodes);
  if (!/^\d+$/.test(values.nodes!)) throw new Error(`--nodes must be a whole number, 0 or more, not "${values.nodes}"`);
  let server: TestServer | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping || !server) return;
    stopping = true;
    server.close().then(() => process.exit(0), (e) => { process.stderr.write(`${e}\n`); process.exit(1); });
  };
  // a signal while the server starts (nodes and CRDs take a while), or a second one while it closes, ends the process
  // at once; the testing kit's exit hook then removes the temporary folders of servers not closed
  const onSignal = (signal: NodeJS.Signals) => {
    if (!server || stopping) process.exit(128 + (osConstants.signals[signal] ?? 0));
    stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  server = await startTestServer({ apiDomain: domain, flags: positionals, nodes });
  for (const dir of values.crds ?? []) await server.loadCRDs(dir);
  process.stdout.write(`${server.kubeconfig}\n`);
  // a parent that dies closes the pipe: the server goes with it
  if (!values['keep-stdin'] && !process.stdin.isTTY) {
    process.stdin.on('end', stop).on('close', stop).resume();
  }
}

main().catch((e) => {
  process.stderr.write(`cluster-test-server: ${(e as Error).message}\n`);
  process.exit(1);
});
