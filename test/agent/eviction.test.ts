// Eviction: unit tests of the manager's choices, and the agent evicting a pod and reporting
// MemoryPressure against a real API server (signals supplied, since a test cannot exhaust memory).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { AgentPod } from '../../src/agent/objects.js';
import { evictionManager, type Signals } from '../../src/agent/eviction.js';
import { parseThresholds } from '../../src/agent/quantity.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { pod, tempDir, waitFor, ensureDefaultServiceAccount } from './helpers.js';

const Mi = 2 ** 20;
const memory = (availableMi: number): Signals => ({ 'memory.available': { available: availableMi * Mi, capacity: 4096 * Mi } });
const active = (name: string, qosClass: 'Guaranteed' | 'Burstable' | 'BestEffort', priority = 0, grace = 30): AgentPod => ({ metadata: { name, namespace: 'default', uid: name }, spec: { containers: [], priority, terminationGracePeriodSeconds: grace }, status: { qosClass } });

describe('eviction manager', () => {
  const setup = (signals: () => Signals, extra: Partial<Parameters<typeof evictionManager>[0]> = {}) => {
    const evicted: { name: string; grace: number; message: string }[] = [];
    const pods = [active('g', 'Guaranteed'), active('b-high', 'Burstable', 100), active('b-low', 'Burstable', 1), active('static', 'BestEffort')];
    const m = evictionManager({
      hard: parseThresholds(['memory.available<100Mi']), soft: parseThresholds(['memory.available<1Gi']), softGraceMs: { 'memory.available': 60_000 },
      transitionMs: 300_000, maxPodGraceSeconds: 10, observe: signals,
      activePods: () => pods.filter((p) => !evicted.some((e) => e.name === p.metadata.name)),
      isCritical: (p) => p.metadata.name === 'static',
      evict: (p, message, grace) => evicted.push({ name: p.metadata.name, grace, message }),
      ...extra,
    });
    return { m, evicted };
  };

  test('a hard threshold evicts at once with no grace, BestEffort and low priority first, never critical pods', () => {
    const { m, evicted } = setup(() => memory(50));
    m.check(0);
    m.check(1);
    m.check(2);
    assert.deepEqual(evicted.map((e) => [e.name, e.grace]), [['b-low', 0], ['b-high', 0], ['g', 0]]);
    assert.match(evicted[0]!.message, /low on resource: memory/);
    m.check(3);
    assert.equal(evicted.length, 3, 'critical pods stay');
  });

  test('a soft threshold waits for its grace period and caps the pod grace period', () => {
    const { m, evicted } = setup(() => memory(500));
    m.check(0);
    m.check(59_999);
    assert.equal(evicted.length, 0);
    m.check(60_000);
    assert.deepEqual(evicted.map((e) => [e.name, e.grace]), [['b-low', 10]]);
  });

  test('pressure holds for the transition period after the signal recovers', () => {
    let available = 50;
    const { m } = setup(() => memory(available), { evict: () => {} });
    assert.equal(m.pressure(0).memory, false);
    m.check(1000);
    assert.equal(m.pressure(1000).memory, true);
    available = 4000;
    m.check(2000);
    assert.equal(m.pressure(1000 + 299_999).memory, true, 'measured from the last time the pressure was seen');
    assert.equal(m.pressure(1000 + 300_000).memory, false);
    assert.equal(m.pressure(2000).disk, false);
  });
});

describe('agent eviction against the API server', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let root: string;
  let low = false;

  before(async () => {
    server = await startTestServer();
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    root = tempDir('agent-evict-');
    const { options } = await parseAgentOptions([`--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--hostname-override=tight', `--root-dir=${root}`,
      '--eviction-hard=memory.available<100Mi', '--node-status-update-frequency=100ms', '--eviction-pressure-transition-period=1s']);
    // memory is low for exactly one observation: one pod is evicted
    const observe = () => {
      const signals = memory(low ? 50 : 3000);
      low = false;
      return signals;
    };
    agent = await runAgent(options, { info() {}, warn() {} }, { evictionIntervalMs: 50, observeSignals: observe });
  });
  after(async () => {
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('a BestEffort pod is evicted (Failed, reason Evicted) before a Guaranteed one; the node shows MemoryPressure', async () => {
    const pods = client.resource(podsRef, 'default');
    const limits = { cpu: '100m', memory: '64Mi' };
    await pods.create(pod('guaranteed', 'tight', { containers: [{ name: 'c', image: 'busybox', resources: { requests: limits, limits } }] }));
    await pods.create(pod('best-effort', 'tight'));
    await waitFor('both Running', async () => (await pods.list()).items.filter((p: any) => p.status?.phase === 'Running').length === 2);
    low = true;
    const evicted = await waitFor('evicted', async () => {
      const p = await pods.get('best-effort');
      return p.status?.reason === 'Evicted' && p;
    });
    assert.equal(evicted.status.phase, 'Failed');
    assert.match(evicted.status.message, /low on resource: memory/);
    assert.equal((await pods.get('guaranteed')).status.phase, 'Running');
    await waitFor('MemoryPressure', async () => (await client.resource(nodesRef).get('tight')).status.conditions.find((c: any) => c.type === 'MemoryPressure')?.status === 'True');
    await waitFor('pressure gone after the transition period', async () => (await client.resource(nodesRef).get('tight')).status.conditions.find((c: any) => c.type === 'MemoryPressure')?.status === 'False');
  });
});
