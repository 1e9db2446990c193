// A small cluster for controller tests: an API server (with its controller manager and scheduler in-process)
// and a node agent in fake mode simulating a few nodes.
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type TestServerOptions } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';

export interface TestCluster {
  server: TestServer;
  client: Client;
  agent: RunningAgent;
  nodes: string[];
  close(): Promise<void>;
}

const quiet = { info() {}, warn() {} };

/** `nodes` (default 3) are this cluster's own agent's, named node-0 to node-(N-1), not the kit's simulated nodes */
export async function startTestCluster(opts: TestServerOptions = {}): Promise<TestCluster> {
  const { nodes: count = 3, ...serverOpts } = opts;
  const server = await startTestServer({ scheduler: true, ...serverOpts });
  const client = await clientFromFile(server.kubeconfig);
  const root = mkdtempSync(join(tmpdir(), 'cluster-agent-'));
  const { options } = await parseAgentOptions([
    `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--fake-nodes=${count}`, '--hostname-override=node', `--root-dir=${root}`,
    '--node-status-update-frequency=1s', `--api-domain=${server.names.domain}`,
  ]);
  const agent = await runAgent(options, quiet, { leaseDurationSeconds: 10, relistMs: 200 });
  const nodes = agent.nodes.map((n) => n.nodeName);
  return {
    server, client, agent, nodes,
    async close() {
      await agent.stop();
      client.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export { waitFor } from './wait.js';
