// The agent admits pods against its node as the node is now: labels and taints changed between status posts reach it
// through its watch of the node, so a pod bound right after a change is judged on the change. Status posts are ten
// minutes apart here, so nothing but the watch (or a fresh read) can bring the change in time. A process of one node
// watches that node alone; one of several simulated nodes shares one watch among them: both are covered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { ensureDefaultServiceAccount, pod, quiet, tempDir, waitFor } from './helpers.js';

describe('node label and taint changes reach admission at once', () => {
  let server: TestServer;
  let client: Client;
  let dir: string;
  const agents: RunningAgent[] = [];

  const startAgent = async (hostname: string, fakeNodes: number) => {
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--fake-nodes=${fakeNodes}`, `--hostname-override=${hostname}`,
      `--root-dir=${join(dir, hostname, 'root')}`, `--cert-dir=${join(dir, hostname, 'pki')}`, '--node-status-update-frequency=10m',
      '--register-with-taints=dedicated=batch:NoExecute',
    ]);
    const agent = await runAgent(options, quiet, { leaseDurationSeconds: 30, relistMs: 50 });
    agents.push(agent);
    return agent;
  };

  before(async () => {
    // the taint manager would act on the registration taint; the agent's own admission is under test
    server = await startTestServer({ flags: ['--controllers=*,-nodelifecycle'] });
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    dir = tempDir('agent-node-changes-');
  });

  after(async () => {
    for (const a of agents) await a.stop();
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pods = () => client.resource(podsRef, 'default');
  const nodes = () => client.resource(nodesRef);
  const running = async (name: string) => {
    const p = await waitFor(`${name} Running or Failed`, async () => {
      const x = await pods().get(name);
      return ['Running', 'Failed'].includes(x.status?.phase) && x;
    });
    assert.equal(p.status.phase, 'Running', `${name} was rejected: ${p.status?.reason}: ${p.status?.message}`);
  };

  for (const shape of [{ hostname: 'single', fakeNodes: 1, node: 'single', index: 0 }, { hostname: 'many', fakeNodes: 3, node: 'many-1', index: 1 }]) {
    describe(`a process of ${shape.fakeNodes} node(s)`, () => {
      let agent: RunningAgent;
      before(async () => {
        agent = await startAgent(shape.hostname, shape.fakeNodes);
      });

      test('a label added to the node reaches the agent\'s view of it without a status post', async () => {
        await nodes().patch(shape.node, { metadata: { labels: { watched: 'yes' } } }, 'merge');
        await waitFor('the label in the agent\'s view', () => agent.nodes[shape.index]!.node()?.metadata?.labels?.watched === 'yes');
        // the other nodes of the process are not given it
        for (const n of agent.nodes.filter((_, i) => i !== shape.index)) assert.equal(n.node()?.metadata?.labels?.watched, undefined);
      });

      test('a pod bound right after a NoExecute taint it does not tolerate is removed runs', async () => {
        const name = `untainted-${shape.hostname}`;
        await waitFor('the registration taint in the agent\'s view', () => agent.nodes[shape.index]!.node()?.spec?.taints?.some((t) => t.key === 'dedicated'));
        await nodes().patch(shape.node, { spec: { taints: null } }, 'merge');
        await pods().create(pod(name, shape.node));
        await running(name);
      });

      test('a pod bound right after its node is labelled to match its node selector runs', async () => {
        const name = `selected-${shape.hostname}`;
        await nodes().patch(shape.node, { metadata: { labels: { team: 'blue' } } }, 'merge');
        await pods().create(pod(name, shape.node, { spec: { nodeSelector: { team: 'blue' } } }));
        await running(name);
      });

      test('a pod whose node selector the node does not match is still refused', async () => {
        const name = `unmatched-${shape.hostname}`;
        await pods().create(pod(name, shape.node, { spec: { nodeSelector: { team: 'red' } } }));
        const p = await waitFor(`${name} rejected`, async () => {
          const x = await pods().get(name);
          return x.status?.phase === 'Failed' && x;
        });
        assert.equal(p.status.reason, 'NodeAffinity');
        assert.equal(p.status.message, 'Pod was rejected: Predicate NodeAffinity failed');
      });
    });
  }
});
