// The usage summary's CPU rates: from the runtime when it gives them, else from two samples of CPU time; the samples
// of containers and pods no longer there are dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStats } from './summary.js';
import type { AgentPod } from '../objects.js';
import type { ContainerInfo, ContainerRuntime, ContainerStats } from '../runtime/types.js';

const pod: AgentPod = { metadata: { name: 'p', namespace: 'default', uid: 'uid-p' }, spec: { containers: [{ name: 'main' }] } };
const container: ContainerInfo = { id: 'c1', sandboxId: 's1', name: 'main', attempt: 0, state: 'running', image: 'busybox', imageRef: 'sha256:0', createdAt: 0, labels: {} };

/** a runtime whose one container has used `nanos` of CPU time at `at`, and reports `rate` when set */
function setup() {
  const now = { at: 1_000_000, nanos: 0, rate: undefined as number | undefined };
  const runtime = {
    async containerStats(): Promise<ContainerStats[]> {
      return [{ id: 'c1', name: 'main', timestamp: now.at, cpu: { usageCoreNanoSeconds: now.nanos, ...(now.rate !== undefined ? { usageNanoCores: now.rate } : {}) } }];
    },
  } as unknown as ContainerRuntime;
  let running = true;
  const stats = createStats({
    nodeName: 'n', runtime, rootDir: '/nonexistent', labelDomain: 'example.com', podDir: () => '/nonexistent/pod', simulated: { capacityBytes: 0 },
    pods: () => (running ? [{ pod, containers: [container] }] : []),
  });
  return { now, stats, setRunning: (r: boolean) => { running = r; } };
}

test('a runtime that gives its containers\' rates gives them to the pod and the node at the first summary, with no sample before', async () => {
  const { now, stats } = setup();
  now.rate = 250_000_000;
  const s = await stats.summary();
  assert.equal(s.pods[0]!.containers[0]!.cpu!.usageNanoCores, 250_000_000);
  assert.equal(s.pods[0]!.cpu!.usageNanoCores, 250_000_000);
  assert.equal(s.node.cpu!.usageNanoCores, 250_000_000);
});

test('rates from samples a second apart; the samples of a container that went are dropped, not used when one of its id is back', async () => {
  const { now, stats, setRunning } = setup();
  await stats.sample();
  now.at += 2000;
  now.nanos += 1e9;
  assert.equal((await stats.summary()).pods[0]!.containers[0]!.cpu!.usageNanoCores, 500_000_000);
  setRunning(false);
  await stats.sample();
  setRunning(true);
  now.at += 2000;
  now.nanos += 1e9;
  // a rate here would come from a sample of the container's earlier life
  assert.equal((await stats.summary()).pods[0]!.containers[0]!.cpu!.usageNanoCores, undefined);
});
