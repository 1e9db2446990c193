#!/usr/bin/env node
// cluster-agent: flags and --config → options → the node(s), their pod sources and workers, and the
// agent's servers. SIGTERM and SIGINT stop it gracefully: the node is marked NotReady on the way out.
import { setFlagsFromString } from 'node:v8';
import { agentUsage, parseAgentOptions } from '../agent/options.js';
import { runAgent } from '../agent/agent.js';
import { namingFromServer } from '../agent/api-domain.js';
import { startAgentServers } from '../agent/server.js';
import type { AgentPod } from '../agent/objects.js';
import { createLogger, type Logger } from '../agent/logger.js';
import { acquireLock } from '../agent/lock.js';
import { checkKernelDefaults, setMaxOpenFiles, setOomScoreAdj, swapOn } from '../agent/host.js';
import { parseQuantity } from '../agent/quantity.js';
import type { AgentOptions } from '../agent/options.js';

// The heap grows to 1.3 times what was live after a full collection before the next, not the up to 4 times V8 allows
// when collecting is cheap: the agent lives long and, with many simulated nodes, holds every pod they run, so its
// resident memory matters more than the little CPU the more frequent collections take (1,000 nodes, 5,000 pods:
// about 100 MiB live; resident 500 MiB without this, 300 MiB at 1.5 times; 30,000 pods: 190 MiB live, a collection
// at 290 MiB and 464 MiB resident at 1.5 times).
setFlagsFromString('--heap-growing-percent=30');

let log: Logger = createLogger({ format: 'text', splitStream: false, infoBufferBytes: 0, flushMs: 5000 });
const fail = (message: string, code = 1): never => {
  log.error(`cluster-agent: ${message}`);
  log.close();
  process.exit(code);
};

async function main() {
  let parsed;
  try {
    parsed = await parseAgentOptions(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`cluster-agent: ${(e as Error).message}\nRun with --help for the list of flags.\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(agentUsage());
    return;
  }
  let o = parsed.options;
  log = createLogger({
    format: o.values['logging-format'] as 'text' | 'json', splitStream: o.values['log-json-split-stream'] as boolean,
    infoBufferBytes: parseQuantity(o.values['log-json-info-buffer-size'] as string), flushMs: o.values['log-flush-frequency'] as number,
  });
  for (const w of parsed.warnings) log.warn(w);
  if (o.runonce && o.clusterconfig) log.warn('--runonce ignores --clusterconfig: pods come from the file and URL sources only');
  if (o.apiDomainFromServer && !o.runonce) {
    const names = await namingFromServer(o, (m) => log.warn(m));
    if (names) o = { ...o, names };
  }
  const options = o.runonce ? { ...o, clusterconfig: undefined } : o;
  await prepareHost(o);

  // a stop asked for while the agent starts is carried out once it has started
  let stop = (sig: string) => { requested = sig; };
  let requested: string | undefined;
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const lockFile = o.values['lock-file'] as string;
  if (lockFile) {
    log.info(`waiting for the lock on ${lockFile}`);
    await acquireLock(lockFile, o.values['exit-on-lock-contention'] ? () => stop('lock contention') : undefined).catch((e) => fail((e as Error).message));
    log.info(`holding the lock on ${lockFile}`);
  }

  const agent = await runAgent(options, log).catch((e) => fail((e as Error).message));
  if (o.runtime === 'remote') {
    // the kernel settings containers rely on, set (or checked) once the runtime answered, as the reference does
    const protect = o.values['protect-kernel-defaults'] as boolean;
    const problems = checkKernelDefaults(protect);
    if (protect && problems.length) {
      await agent.stop();
      fail(`--protect-kernel-defaults: the kernel settings differ from the agent's defaults: ${problems.join('; ')}`);
    }
    for (const p of problems) log.warn(`kernel settings: ${p}`);
  }
  log.info(`running ${agent.nodes.length} node(s) (${agent.nodes.slice(0, 3).map((n) => n.nodeName).join(', ')}${agent.nodes.length > 3 ? ', ...' : ''}), runtime ${o.runtime}, ${options.clusterconfig ? 'API-server mode' : 'standalone mode'}`);

  if (o.runonce) {
    await Promise.all(agent.nodes.map((n) => n.synced));
    const deadline = Date.now() + 5 * 60_000;
    let pods: AgentPod[] = [];
    for (;;) {
      pods = agent.nodes.flatMap((n) => n.workers.pods().map((x) => x.pod));
      const settled = pods.every((p) => ['Running', 'Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
      if (settled || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const p of pods) process.stdout.write(`${p.metadata.namespace}/${p.metadata.name}\t${p.status?.phase ?? 'Unknown'}\n`);
    const failed = pods.some((p) => p.status?.phase !== 'Running' && p.status?.phase !== 'Succeeded');
    for (const n of agent.nodes) await n.workers.close();
    process.exit(failed ? 1 : 0);
  }

  const servers = await startAgentServers(o, agent.nodes, agent.client, agent.metrics, log).catch(async (e) => {
    await agent.stop();
    return fail((e as Error).message);
  });
  log.info(`healthz port ${servers.ports.healthz || 'off'}, server port ${servers.ports.main || 'off'}, read-only port ${servers.ports.readOnly || 'off'}`);

  // the agent's own timers do not hold the process: it runs until it is told to stop
  const keepAlive = setInterval(() => {}, 3_600_000);
  let stopping = false;
  stop = (sig: string) => {
    clearInterval(keepAlive);
    if (stopping) process.exit(1);
    stopping = true;
    log.info(`${sig}: stopping; the node(s) will show NotReady`);
    Promise.all([servers.close(), agent.stop()]).then(() => {
      log.close();
      process.exit(0);
    }, (e) => {
      log.error(String(e));
      log.close();
      process.exit(1);
    });
  };
  if (requested) stop(requested);
}

/** The host checks of the reference agent before it starts: swap refused unless allowed; the agent's own OOM score and file limit. */
async function prepareHost(o: AgentOptions) {
  if (o.runtime === 'remote') {
    if (swapOn() && o.values['fail-swap-on']) fail('running with swap on is not supported; disable swap or set --fail-swap-on=false');
    try {
      setOomScoreAdj(o.values['oom-score-adj'] as number);
    } catch (e) {
      log.warn(`could not set the agent's oom_score_adj to ${o.values['oom-score-adj']}: ${(e as Error).message}`);
    }
  }
  await setMaxOpenFiles(o.values['max-open-files'] as number).catch((e) => log.warn(`could not raise the open-file limit: ${(e as Error).message}`));
}

void main();
