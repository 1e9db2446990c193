// A small cluster for controller tests: an API server (with its controller manager in-process), node agents
// in fake mode simulating a few nodes, and a binder that places pods without a node on the nodes in turn
// through pods/binding, until the scheduler takes that job.
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer, type TestServerOptions } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startInformer } from '../../src/client/informer.js';

export interface TestCluster {
  server: TestServer;
  client: Client;
  agent: RunningAgent;
  nodes: string[];
  close(): Promise<void>;
}

const quiet = { info() {}, warn() {} };

export async function startTestCluster(opts: TestServerOptions & { nodes?: number; binder?: boolean } = {}): Promise<TestCluster> {
  const server = await startTestServer(opts);
  const client = await clientFromFile(server.kubeconfig);
  const root = mkdtempSync(join(tmpdir(), 'cluster-agent-'));
  const count = opts.nodes ?? 3;
  const { options } = await parseAgentOptions([
    `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--fake-nodes=${count}`, '--hostname-override=node', `--root-dir=${root}`,
    '--node-status-update-frequency=1s',
  ]);
  const agent = await runAgent(options, quiet, { leaseDurationSeconds: 10, relistMs: 200 });
  const nodes = agent.nodes.map((n) => n.nodeName);
  const stopBinder = opts.binder === false ? () => {} : startBinder(client, nodes);
  return {
    server, client, agent, nodes,
    async close() {
      stopBinder();
      await agent.stop();
      client.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** binds every pod that has no node to the next node in turn (a stand-in for the scheduler) */
export function startBinder(client: Client, nodes: string[]): () => void {
  let next = 0;
  const pods = client.resource({ group: '', version: 'v1', resource: 'pods' });
  const bind = (p: any) => {
    if (p.spec?.nodeName || p.metadata.deletionTimestamp || ['Succeeded', 'Failed'].includes(p.status?.phase)) return;
    // a node-name affinity (as daemon pods carry) names the node; otherwise the nodes take turns
    const terms = p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    const named = terms.flatMap((t: any) => t.matchFields ?? []).find((f: any) => f.key === 'metadata.name' && f.operator === 'In')?.values?.[0];
    const node = named ?? nodes[next++ % nodes.length];
    void client.request({
      method: 'POST', path: `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}/binding`,
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
    }).catch(() => {});
  };
  const informer = startInformer(pods, (e) => {
    if (e.type === 'sync') e.items.forEach(bind);
    else if (e.type !== 'deleted') bind(e.object);
  }, { fieldSelector: 'spec.nodeName=' });
  return () => informer.stop();
}

export async function waitFor<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
