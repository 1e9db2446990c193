// Pod workers against the fake runtime: the periodic refresh of content volumes syncs only the pods that have some;
// ephemeral containers run once, never restarted, in their target's process namespace; a changed image restarts a container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { createPodWorkers } from './pod-workers.js';
import { fakeRuntime } from './runtime/fake.js';
import { fakeAnnotation } from './options.js';
import type { ContainerConfig } from './runtime/types.js';
import type { VolumeManager } from './volumes/index.js';
import type { AgentPod, PodStatus } from './objects.js';
import { until, waitFor } from '../../test/support/wait.js';

const pod = (name: string, volumes: AgentPod['spec']['volumes'] = []): AgentPod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'busybox' }], volumes },
});

test('content volumes are refreshed periodically for the pods that have them, and the other pods are not synced for it', async () => {
  const refreshed = new Map<string, number>();
  const volumes: VolumeManager = {
    podDir: (p) => `/nonexistent/${p.metadata.uid}`,
    async setUp() {},
    async refresh(p) { refreshed.set(p.metadata.name, (refreshed.get(p.metadata.name) ?? 0) + 1); },
    refreshes: (p) => (p.spec.volumes ?? []).some((v) => v.configMap),
    async containerMounts() { return []; },
    async tearDown() {},
    async removeOrphans() { return []; },
  };
  const statuses = new Map<string, PodStatus>();
  const runtime = fakeRuntime('n', naming());
  const workers = createPodWorkers({
    runtime, runtimeName: 'fake', nodeName: 'n', hostIP: '10.0.0.1', rootDir: '/nonexistent', relistMs: 60_000, volumeRefreshMs: 20,
    reportStatus: (p, s) => statuses.set(p.metadata.name, s), terminated() {}, volumes,
    containers: { api: { client: undefined }, allocatable: {}, seccompDefault: false, resources: { cfsQuota: true, cfsPeriodUs: 100_000, memoryCapacity: 2 ** 30 } },
    network: () => ({ ready: true, message: '' }),
  });
  try {
    workers.update(pod('with', [{ name: 'config', configMap: { name: 'cm' } }]));
    workers.update(pod('without'));
    await until(() => statuses.get('with')?.phase === 'Running' && statuses.get('without')?.phase === 'Running', 'both pods Running');
    await until(() => (refreshed.get('with') ?? 0) >= 3, 'the pod with a configMap volume refreshed three times');
    assert.equal(refreshed.get('without'), undefined);
  } finally {
    await workers.close();
    runtime.close();
  }
});

/** pod workers on a fake runtime with no volumes, recording the statuses they report and the containers they create */
function recordingWorkers() {
  const statuses = new Map<string, PodStatus>();
  const runtime = fakeRuntime('n', naming());
  const configs: ContainerConfig[] = [];
  const createContainer = runtime.createContainer.bind(runtime);
  runtime.createContainer = (sandboxId, sandbox, config) => { configs.push(config); return createContainer(sandboxId, sandbox, config); };
  const volumes: VolumeManager = {
    podDir: (p) => `/nonexistent/${p.metadata.uid}`, async setUp() {}, async refresh() {}, refreshes: () => false,
    async containerMounts() { return []; }, async tearDown() {}, async removeOrphans() { return []; },
  };
  const workers = createPodWorkers({
    runtime, runtimeName: 'fake', nodeName: 'n', hostIP: '10.0.0.1', rootDir: '/nonexistent', relistMs: 20,
    reportStatus: (p, s) => statuses.set(p.metadata.name, s), terminated() {}, volumes,
    containers: { api: { client: undefined }, allocatable: {}, seccompDefault: false, resources: { cfsQuota: true, cfsPeriodUs: 100_000, memoryCapacity: 2 ** 30 } },
    network: () => ({ ready: true, message: '' }),
  });
  return { runtime, workers, statuses, configs };
}

test('an ephemeral container added to a running pod runs once, in its target\'s process namespace, and counts for nothing', async () => {
  const names = naming();
  const { runtime, workers, statuses, configs } = recordingWorkers();
  try {
    // the debugger exits at once with code 3: it must not be started again
    const p = pod('debugged');
    p.metadata.annotations = { [`${fakeAnnotation(names, 'run-for')}.dbg`]: '10ms', [`${fakeAnnotation(names, 'exit-code')}.dbg`]: '3' };
    workers.update(p);
    await until(() => statuses.get('debugged')?.containerStatuses?.[0]?.ready === true, 'the pod ready');
    const main = statuses.get('debugged')!.containerStatuses![0]!.containerID!.replace('fake://', '');
    workers.update({ ...p, status: statuses.get('debugged'), spec: { ...p.spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'c' }] } });
    const exited = await waitFor('the ephemeral container exited', () => statuses.get('debugged')?.ephemeralContainerStatuses?.[0]?.state?.terminated);
    assert.equal(exited.exitCode, 3);
    const dbg = configs.filter((c) => c.name === 'dbg');
    assert.equal(dbg.length, 1);
    assert.deepEqual(dbg[0]!.security.namespaces, { network: 'POD', pid: 'TARGET', ipc: 'POD', targetId: main });
    await workers.idle();
    const s = statuses.get('debugged')!;
    assert.equal(s.ephemeralContainerStatuses![0]!.restartCount, 0);
    assert.equal(s.ephemeralContainerStatuses![0]!.ready, false);
    assert.equal(s.phase, 'Running');
    assert.ok(s.conditions!.find((c) => c.type === 'Ready')!.status === 'True');
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a container whose image the pod changes is restarted with it, whatever the restart policy', async () => {
  const { runtime, workers, statuses, configs } = recordingWorkers();
  try {
    const p = pod('updated');
    p.spec.restartPolicy = 'Never';
    workers.update(p);
    await until(() => statuses.get('updated')?.containerStatuses?.[0]?.ready === true, 'the pod ready');
    workers.update({ ...p, status: statuses.get('updated'), spec: { ...p.spec, containers: [{ name: 'c', image: 'busybox:2' }] } });
    await until(() => { const c = statuses.get('updated')?.containerStatuses?.[0]; return c?.restartCount === 1 && !!c.state?.running; }, 'the container restarted');
    assert.deepEqual(configs.map((c) => c.labels['container-image']), ['busybox', 'busybox:2']);
    assert.equal(statuses.get('updated')!.phase, 'Running');
  } finally {
    await workers.close();
    runtime.close();
  }
});
