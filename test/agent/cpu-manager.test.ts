// The static CPU and memory manager policies on containerd: a guaranteed pod asking for a whole CPU gets
// it to itself (and its NUMA node's memory), the shared pool's containers move off it and back when it
// ends, and the state is kept in the agent's folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { nodesRef } from '../../src/agent/node-status.js';
import { containerdMissing } from './containerd.js';
import { waitFor } from './helpers.js';
import { slow, startRealNode, type RealNode } from './real-node.js';

const missing = containerdMissing() ?? (cpus().length < 2 ? 'the static CPU policy needs two CPUs here' : undefined) ?? (!existsSync('/sys/fs/cgroup/cpuset/cpuset.cpus') ? 'the test reads cgroup v1 cpusets' : undefined);
const image = 'localhost/busybox:1';
const node = 'cpu-node';
const hostPod = (name: string, resources: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: node, hostNetwork: true, terminationGracePeriodSeconds: 1, automountServiceAccountToken: false, containers: [{ name: 'main', image, command: ['sleep', '3600'], resources }] },
});

describe('CPU and memory managers on containerd', { skip: missing ? `cannot run here: ${missing}` : false, timeout: 900_000 }, () => {
  let n: RealNode;
  const last = cpus().length - 1;

  before(async () => {
    n = await startRealNode(node, [
      '--enable-server=false', '--cpu-manager-policy=static', '--reserved-cpus=0', '--cpu-manager-reconcile-period=300ms',
      '--memory-manager-policy=Static', '--system-reserved=memory=1Gi', '--reserved-memory=0:memory=1124Mi',
    ]);
  }, { timeout: 300_000 });

  after(async () => {
    await n?.stop();
  });

  const pods = () => n.pods();
  const running = (name: string) => n.running(name);
  const cpuset = (p: any, file: 'cpuset.cpus' | 'cpuset.mems') => readFileSync(join(n.cgroupDir('cpuset', p, 'main'), file), 'utf8').trim();

  test('a guaranteed whole-CPU container gets its CPU alone; the shared pool moves off it and back', async () => {
    const registered = await n.client.resource(nodesRef).get(node);
    assert.equal(registered.status.allocatable.cpu, String(cpus().length - 1), 'the reserved CPU is out of allocatable');
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
    const state = JSON.parse(readFileSync(join(n.containerd.agentRoot, 'cpu_manager_state'), 'utf8'));
    assert.equal(state.policyName, 'static');
    assert.deepEqual(state.entries[pinned.metadata.uid], { main: '1' });

    await pods().delete('pinned', { gracePeriodSeconds: 0 });
    await waitFor('the CPU back in the shared pool', () => cpuset(shared, 'cpuset.cpus') === `0-${last}`, slow, 200);
    await pods().delete('shared', { gracePeriodSeconds: 0 });
  });
});
