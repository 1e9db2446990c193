// Controllers survive restarts without duplicating pods: the API server (with its in-process controllers)
// restarted on its SQLite store, and the controller manager alone stopped and started again, a pod deleted
// while it was away being replaced exactly once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startControllerManager } from '../../src/controllers/manager.js';
import { defaultControllerManagerOptions } from '../../src/config/controller-manager-options.js';
import { controllerManagerSettings } from '../../src/main/embedded-controller-manager.js';
import { waitFor } from '../support/cluster.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };
const quiet = { info() {}, warn() {}, error() {} };
const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: `${name}:1` }] } } },
});

async function startAgent(kubeconfig: string, root: string): Promise<RunningAgent> {
  const { options } = await parseAgentOptions([`--clusterconfig=${kubeconfig}`, '--runtime=fake', '--fake-nodes=2',
    '--hostname-override=rs-node', `--root-dir=${root}`, '--node-status-update-frequency=1s']);
  return runAgent(options, { info() {}, warn() {} }, { leaseDurationSeconds: 10, relistMs: 200 });
}

const podNames = async (client: Client, app: string) =>
  (await client.resource(podsRef, 'default').list({ labelSelector: `app=${app}` })).items.map((p: any) => p.metadata.name).sort();

describe('restarts', () => {
  let dataDir: string;
  let root: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'restart-data-'));
    root = mkdtempSync(join(tmpdir(), 'restart-agent-'));
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  test('the API server and its controllers restart on the same store: the pods are the same, then they scale', async () => {
    let server: TestServer = await startTestServer({ storage: 'sqlite', dataDir, scheduler: true });
    const port = server.port;
    let client = await clientFromFile(server.kubeconfig);
    const agent = await startAgent(server.kubeconfig, root);
    try {
      await client.resource(deploymentsRef, 'default').create(deployment('durable', 3));
      await waitFor('3 available', async () => (await client.resource(deploymentsRef, 'default').get('durable')).status?.availableReplicas === 3);
      const before = await podNames(client, 'durable');
      assert.equal(before.length, 3);

      client.close();
      await server.close();
      // the same address, store and certificates: the agent reconnects
      server = await startTestServer({ storage: 'sqlite', dataDir, scheduler: true, flags: [`--secure-port=${port}`] });
      client = await clientFromFile(server.kubeconfig);
      const deps = client.resource(deploymentsRef, 'default');
      await waitFor('the controllers have seen the pods again', async () => (await deps.get('durable')).status?.availableReplicas === 3);
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(await podNames(client, 'durable'), before, 'no pod made twice');
      await deps.patch('durable', { spec: { replicas: 4 } });
      await waitFor('4 available', async () => (await deps.get('durable')).status?.availableReplicas === 4);
      assert.equal((await podNames(client, 'durable')).length, 4);
    } finally {
      await agent.stop();
      client.close();
      await server.close();
    }
  });

  test('the controller manager stops and starts again: a pod deleted meanwhile is replaced once', async () => {
    const server = await startTestServer({ scheduler: true, flags: ['--controller-manager=false'] });
    const client = await clientFromFile(server.kubeconfig);
    const agentRoot = mkdtempSync(join(tmpdir(), 'restart-agent2-'));
    const agent = await startAgent(server.kubeconfig, agentRoot);
    const options = { ...controllerManagerSettings(defaultControllerManagerOptions()), client, log: quiet };
    let cm = startControllerManager(options);
    try {
      const deps = client.resource(deploymentsRef, 'default');
      await deps.create(deployment('steady', 3));
      await waitFor('3 available', async () => (await deps.get('steady')).status?.availableReplicas === 3);
      const before = await podNames(client, 'steady');
      await cm.stop();

      await client.resource(podsRef, 'default').delete(before[0]!, { gracePeriodSeconds: 0 });
      await waitFor('the pod gone', async () => !(await podNames(client, 'steady')).includes(before[0]!));
      cm = startControllerManager(options);
      await cm.ready;
      const after = await waitFor('a replacement', async () => { const n = await podNames(client, 'steady'); return n.length === 3 && n; });
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(await podNames(client, 'steady'), after, 'exactly one replacement');
      assert.deepEqual(after.filter((n) => before.includes(n)), before.slice(1));
    } finally {
      await cm.stop();
      await agent.stop();
      client.close();
      await server.close();
      rmSync(agentRoot, { recursive: true, force: true });
    }
  });
});
