#!/usr/bin/env node
// cluster-agent: flags and --config → options → the node(s), their pod sources and workers, and the
// agent's servers. SIGTERM and SIGINT stop it gracefully: the node is marked NotReady on the way out.
import { agentUsage, parseAgentOptions } from '../agent/options.js';
import { runAgent } from '../agent/agent.js';
import { startAgentServers } from '../agent/server.js';
import type { AgentPod } from '../agent/objects.js';
import { readFileSync, writeFileSync } from 'node:fs';

const log = {
  info: (m: string) => process.stderr.write(`I ${new Date().toISOString()} ${m}\n`),
  warn: (m: string) => process.stderr.write(`W ${new Date().toISOString()} ${m}\n`),
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
  for (const w of parsed.warnings) log.warn(w);
  const o = parsed.options;
  if (o.runonce && o.clusterconfig) log.warn('--runonce ignores --clusterconfig: pods come from the file and URL sources only');
  const options = o.runonce ? { ...o, clusterconfig: undefined } : o;
  if (o.runtime === 'remote') prepareHost(o.values['fail-swap-on'] as boolean, o.values['oom-score-adj'] as number);

  // a stop asked for while the agent starts is carried out once it has started
  let stop = (sig: string) => { requested = sig; };
  let requested: string | undefined;
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const agent = await runAgent(options, log).catch((e) => {
    process.stderr.write(`cluster-agent: ${(e as Error).message}\n`);
    process.exit(1);
  });
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

  const servers = await startAgentServers(o, agent.nodes, agent.client, agent.metrics).catch(async (e) => {
    await agent.stop();
    process.stderr.write(`cluster-agent: ${(e as Error).message}\n`);
    process.exit(1);
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
    Promise.all([servers.close(), agent.stop()]).then(() => process.exit(0), (e) => {
      log.warn(String(e));
      process.exit(1);
    });
  };
  if (requested) stop(requested);
}

/** The host checks of the reference agent: swap refused unless allowed; the agent's own OOM score. */
function prepareHost(failSwapOn: boolean, oomScoreAdj: number) {
  const swaps = readFileSync('/proc/swaps', 'utf8').trim().split('\n').slice(1).filter(Boolean);
  if (swaps.length && failSwapOn) {
    process.stderr.write('cluster-agent: running with swap on is not supported; disable swap or set --fail-swap-on=false\n');
    process.exit(1);
  }
  try {
    writeFileSync('/proc/self/oom_score_adj', String(oomScoreAdj));
  } catch (e) {
    log.warn(`could not set the agent's oom_score_adj to ${oomScoreAdj}: ${(e as Error).message}`);
  }
}

void main();
