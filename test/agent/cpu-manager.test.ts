// The static CPU and memory manager policies on containerd: a guaranteed pod asking for a whole CPU gets
// it to itself (and its NUMA node's memory), the shared pool's containers move off it and back when it
// ends, and the state is kept in the agent's folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { containerdMissing, startContainerd, type Containerd } from './containerd.js';
import { ensureDefaultServiceAccount, ensureRootCA, quiet, waitFor } from './helpers.js';

/** how long a condition may take: these machines are shared, and containers start slowly under load */
const slow = 180_000;
const missing = containerdMissing() ?? (cpus().length < 2 ? 'the static CPU policy needs two CPUs here' : undefined) ?? (!existsSync('/sys/fs/cgroup/cpuset/cpuset.cpus') ? 'the test reads cgroup v1 cpusets' : undefined);
const image = 'localhost/busybox:1';
const node = 'cpu-node';
const hostPod = (name: string, resources: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: node, hostNetwork: true, terminationGracePeriodSeconds: 1, automountServiceAccountToken: false, containers: [{ name: 'main', image, command: ['sleep', '3600'], resources }] },
});

describe('CPU and memory managers on containerd', { skip: missing ? `cannot run here: ${missing}` : false, timeout: 900_000 }, () => {
  let server: TestServer;
  let containerd: Containerd;
  let client: Client;
  let agent: RunningAgent;
  const last = cpus().length - 1;

  before(async () => {
    const containerdOnce = () => startContainerd().catch(() => startContainerd());
    [server, containerd] = await Promise.all([startTestServer(), containerdOnce()]);
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    await ensureRootCA(client, server.names.rootCAConfigMap);
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, `--container-runtime-endpoint=${containerd.endpoint}`, `--hostname-override=${node}`,
      `--root-dir=${containerd.agentRoot}`, `--cert-dir=${join(containerd.dir, 'pki')}`, '--node-status-update-frequency=500ms',
      '--enable-server=false', '--read-only-port=0', '--healthz-port=0', `--cgroup-root=${containerd.cgroupRoot}`,
      '--cpu-manager-policy=static', '--reserved-cpus=0', '--cpu-manager-reconcile-period=300ms',
      '--memory-manager-policy=Static', '--system-reserved=memory=1Gi', '--reserved-memory=0:memory=1124Mi',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 5, relistMs: 200 });
  }, { timeout: 300_000 });

  after(async () => {
    await agent?.stop();
    client?.close();
    await containerd?.stop();
    await server?.close();
  });

  const pods = () => client.resource(podsRef, 'default');
  const running = (name: string) => waitFor(`${name} Running`, async () => {
    const p = await pods().get(name);
    return p.status?.phase === 'Running' && p;
  }, slow, 200);
  const cpuset = (p: any, file: 'cpuset.cpus' | 'cpuset.mems') => {
    const qos = p.status.qosClass === 'Guaranteed' ? '' : `/${p.status.qosClass.toLowerCase()}`;
    const id = p.status.containerStatuses[0].containerID.replace('containerd://', '');
    return readFileSync(`/sys/fs/cgroup/cpuset${containerd.cgroupRoot}/kubepods${qos}/pod${p.metadata.uid}/${id}/${file}`, 'utf8').trim();
  };

  test('a guaranteed whole-CPU container gets its CPU alone; the shared pool moves off it and back', async () => {
    const n = await client.resource(nodesRef).get(node);
    assert.equal(n.status.allocatable.cpu, String(cpus().length - 1), 'the reserved CPU is out of allocatable');
    await pods().create(hostPod('shared'));
    const shared = await running('shared');
    await waitFor('the shared pool is every CPU', () => cpuset(shared, 'cpuset.cpus') === `0-${last}`, slow, 200);

    await pods().create(hostPod('pinned', { limits: { cpu: '1', memory: '64Mi' } }));
    const pinned = await running('pinned');
    assert.equal(pinned.status.qosClass, 'Guaranteed');
    assert.equal(cpuset(pinned, 'cpuset.cpus'), '1', 'the first CPU that is neither reserved nor taken');
    assert.equal(cpuset(pinned, 'cpuset.mems'), '0', 'bound to its NUMA node');
    const expectShared = last > 1 ? `0,2${last > 2 ? `-${last}` : ''}` : '0';
    await waitFor('the shared pool left CPU 1', () => cpuset(shared, 'cpuset.cpus') === expectShared, slow, 200);
    const state = JSON.parse(readFileSync(join(containerd.agentRoot, 'cpu_manager_state'), 'utf8'));
    assert.equal(state.policyName, 'static');
    assert.deepEqual(state.entries[pinned.metadata.uid], { main: '1' });

    await pods().delete('pinned', { gracePeriodSeconds: 0 });
    await waitFor('the CPU back in the shared pool', () => cpuset(shared, 'cpuset.cpus') === `0-${last}`, slow, 200);
    await pods().delete('shared', { gracePeriodSeconds: 0 });
  });
});
