// kubectl top with the real agent on containerd: the server's metrics server scrapes the agent's /metrics/resource
// (CRI container statistics, the node's own CPU and memory) through nodes/proxy, and kubectl 1.32 prints a pod that
// burns CPU with more than its idle figure, and the node with figures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { containerdMissing } from './containerd.js';
import { slow, startRealNode, type RealNode } from './real-node.js';
import { waitFor } from './helpers.js';
import { freePort } from '../support/ports.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { startKubectlEnv, tableRows, type KubectlEnv } from '../e2e/support.js';

const missing = containerdMissing();
const node = 'top-node';
const image = 'localhost/busybox:1';

describe('kubectl top with the real agent', { skip: missing ? `containerd cannot run here: ${missing}` : false, timeout: 600_000 }, () => {
  let n: RealNode;
  let servers: AgentServers;
  let kubectl: KubectlEnv;

  before(async () => {
    n = await startRealNode(node, ['--address=127.0.0.1', `--port=${await freePort()}`, '--node-ip=127.0.0.1', '--api-domain=k8s.io'], {}, {},
      { apiDomain: 'k8s.io', metricsServer: true, flags: ['--metrics-server-resolution=1s'] });
    servers = await startAgentServers(n.options, n.agent.nodes, n.agent.client, n.agent.metrics);
    kubectl = await startKubectlEnv('1.32', 'k8s.io', n.server);
  }, { timeout: 300_000 });

  after(async () => {
    await kubectl?.close();
    await servers?.close();
    await n?.stop();
  });

  test('a pod that burns CPU shows it in kubectl top pod; the node has figures', async () => {
    await n.pods().create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'burner' },
      spec: { nodeName: node, hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{
        name: 'main', image, command: ['sh', '-c', 'while :; do :; done'], resources: { requests: { cpu: '250m' }, limits: { cpu: '500m' } },
      }] },
    });
    await n.running('burner');
    const millicores = (cell: string | undefined) => Number(/^(\d+)m$/.exec(cell ?? '')?.[1] ?? NaN);
    const pod = await waitFor('kubectl top pod burner shows it busy', async () => {
      const r = await kubectl.run(['top', 'pod', 'burner', '--containers']);
      const row = r.code === 0 ? tableRows(r.stdout)[1] : undefined;
      return row && millicores(row[2]) > 100 && row;
    }, slow, 1000);
    process.stdout.write(`# kubectl top pod burner --containers: ${pod.join(' ')}\n`);
    assert.deepEqual(pod.slice(0, 2), ['burner', 'main']);
    assert.ok(millicores(pod[2]) <= 600, `the limit of 500m holds: ${pod[2]}`);
    assert.match(pod[3]!, /^\d+Mi$/);
    const nodes = tableRows(await kubectl.ok(['top', 'node']));
    process.stdout.write(`# kubectl top node: ${nodes[1]!.join(' ')}\n`);
    assert.equal(nodes[1]![0], node);
    assert.ok(millicores(nodes[1]![1]) >= 100, `the node is busy too: ${nodes[1]![1]}`);
    assert.match(nodes[1]![2]!, /^\d+%$/);
    assert.ok(Number(/^(\d+)Mi$/.exec(nodes[1]![3]!)?.[1]) > 0);
    await n.pods().delete('burner', { gracePeriodSeconds: 0 });
  });
});
