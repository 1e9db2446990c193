// Pod workers against the fake runtime: the periodic refresh of content volumes syncs only the pods that have some.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { createPodWorkers } from './pod-workers.js';
import { fakeRuntime } from './runtime/fake.js';
import type { VolumeManager } from './volumes/index.js';
import type { AgentPod, PodStatus } from './objects.js';
import { until } from '../../test/support/wait.js';

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
