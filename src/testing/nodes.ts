// Simulated nodes for a test server: the node agent's fake mode, run in the test's own process, so that pods are
// scheduled, run (nothing is executed: containers are simulated) and report their status, logs and exec answers.
// Every port is chosen by the system: the agent's server (which the API server proxies logs and exec to) binds
// port 0 and the nodes report the port it got; the healthz and read-only ports are off. Its files live under `rootDir`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentOptions } from '../agent/options.js';
import { runAgent, type RunningAgent } from '../agent/agent.js';
import { startAgentServers, type AgentServers } from '../agent/server.js';
import type { NodeAgent } from '../agent/agent.js';

export interface SimulatedNodesOptions {
  /** the admin client configuration of the server */
  kubeconfig: string;
  /** the server's CA: the agent's server takes the client certificates it signed (the API server's own among them) */
  caCertPem: string;
  apiDomain: string;
  count: number;
  /** the nodes are named `<prefix>-0` to `<prefix>-(count-1)` */
  prefix: string;
  rootDir: string;
}

export interface SimulatedNodes {
  nodeNames: string[];
  /** marks the nodes NotReady, as a stopping agent does, and closes its server */
  stop(): Promise<void>;
}

const quiet = { info() {}, warn() {} };

/** the node names of `count` simulated nodes with this prefix */
export const simulatedNodeNames = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

export async function startSimulatedNodes(o: SimulatedNodesOptions): Promise<SimulatedNodes> {
  const caFile = join(o.rootDir, 'server-ca.crt');
  writeFileSync(caFile, o.caCertPem);
  // one node keeps the name it is given, more are suffixed: the prefix and an index name every node alike
  const hostname = o.count > 1 ? o.prefix : simulatedNodeNames(o.prefix, 1)[0]!;
  const { options } = await parseAgentOptions([
    `--clusterconfig=${o.kubeconfig}`, '--runtime=fake', `--fake-nodes=${o.count}`, `--hostname-override=${hostname}`,
    `--api-domain=${o.apiDomain}`, `--root-dir=${join(o.rootDir, 'root')}`, `--cert-dir=${join(o.rootDir, 'pki')}`,
    '--address=127.0.0.1', '--node-ip=127.0.0.1', '--healthz-port=0', '--read-only-port=0',
    // only clients with a certificate of the server's CA (the API server's own, its users') reach it
    '--anonymous-auth=false', `--client-ca-file=${caFile}`, '--authorization-mode=AlwaysAllow',
  ]);
  // the server is started first, on a port of the system's choice (the flag refuses 0), and serves the nodes once
  // they run; the nodes report the port it got
  const nodes: NodeAgent[] = [];
  const servers: AgentServers = await startAgentServers({ ...options, port: 0 }, nodes, undefined);
  let agent: RunningAgent;
  try {
    agent = await runAgent({ ...options, port: servers.ports.main }, quiet);
  } catch (e) {
    await servers.close();
    throw e;
  }
  nodes.push(...agent.nodes);
  return {
    nodeNames: agent.nodes.map((n) => n.nodeName),
    async stop() {
      await agent.stop();
      await servers.close();
    },
  };
}
