// Pod workers against the fake runtime: the periodic refresh of content volumes syncs only the pods that have some;
// ephemeral containers run once, never restarted, in their target's process namespace; a changed image restarts a
// container; lifecycle hooks run after the start and before the stop; a pod past its activeDeadlineSeconds fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { createPodWorkers, crashLoopMessage } from './pod-workers.js';
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

/** pod workers on a fake runtime with no volumes, recording the statuses they report, the containers they create,
 *  the events they record, and the commands they run in and stops they ask of containers (in order) */
function recordingWorkers(relistMs = 20) {
  const statuses = new Map<string, PodStatus>();
  /** every status reported, in order */
  const history: { name: string; status: PodStatus }[] = [];
  const runtime = fakeRuntime('n', naming());
  const configs: ContainerConfig[] = [];
  const events: string[] = [];
  const calls: string[] = [];
  /** the grace period of each stop, by container id */
  const graces = new Map<string, number>();
  const { createContainer, execSync, stopContainer } = { createContainer: runtime.createContainer.bind(runtime), execSync: runtime.execSync.bind(runtime), stopContainer: runtime.stopContainer.bind(runtime) };
  runtime.createContainer = (sandboxId, sandbox, config) => { configs.push(config); return createContainer(sandboxId, sandbox, config); };
  runtime.execSync = (id, command, timeout) => { calls.push(`exec ${command.join(' ')}`); return execSync(id, command, timeout); };
  runtime.stopContainer = (id, grace) => { calls.push(`stop ${id.split('/').slice(-3, -1).join('/')}`); graces.set(id, grace); return stopContainer(id, grace); };
  const volumes: VolumeManager = {
    podDir: (p) => `/nonexistent/${p.metadata.uid}`, async setUp() {}, async refresh() {}, refreshes: () => false,
    async containerMounts() { return []; }, async tearDown() {}, async removeOrphans() { return []; },
  };
  const workers = createPodWorkers({
    runtime, runtimeName: 'fake', nodeName: 'n', hostIP: '10.0.0.1', rootDir: '/nonexistent', relistMs,
    reportStatus: (p, s) => { statuses.set(p.metadata.name, s); history.push({ name: p.metadata.name, status: s }); }, terminated() {}, volumes,
    containers: { api: { client: undefined }, allocatable: {}, seccompDefault: false, resources: { cfsQuota: true, cfsPeriodUs: 100_000, memoryCapacity: 2 ** 30 } },
    network: () => ({ ready: true, message: '' }),
    recorder: { event: (_o, _type, reason, message) => { events.push(`${reason}: ${message}`); }, flushed: () => Promise.resolve() },
  });
  return { runtime, workers, statuses, history, configs, events, calls, graces };
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

test('a simulated container\'s processes see the variables of its env', async () => {
  const { runtime, workers, statuses } = recordingWorkers();
  try {
    const p = pod('env');
    p.spec.containers[0]!.env = [{ name: 'GREETING', value: 'hello' }, { name: 'TARGET', value: '$(GREETING) world' }];
    workers.update(p);
    await until(() => statuses.get('env')?.containerStatuses?.[0]?.ready === true, 'the pod ready');
    const id = statuses.get('env')!.containerStatuses![0]!.containerID!.replace(/^fake:\/\//, '');
    const r = await runtime.execSync(id, ['sh', '-c', 'echo "$GREETING, $TARGET"; env'], 5);
    assert.equal(r.stdout.split('\n')[0], 'hello, hello world');
    assert.match(r.stdout, /^GREETING=hello$/m);
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a simulated container\'s processes start in its workingDir, which the runtime makes', async () => {
  const { runtime, workers, statuses } = recordingWorkers();
  try {
    const p = pod('wd');
    p.spec.containers[0]!.workingDir = '/srv/app';
    workers.update(p);
    await until(() => statuses.get('wd')?.containerStatuses?.[0]?.ready === true, 'the pod ready');
    const id = statuses.get('wd')!.containerStatuses![0]!.containerID!.replace(/^fake:\/\//, '');
    assert.equal((await runtime.execSync(id, ['sh', '-c', 'pwd; echo x > f; cat /srv/app/f'], 5)).stdout, '/srv/app\nx\n');
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

test('lifecycle hooks: postStart runs once the container started, and a failing one kills it; preStop runs before the stop', async () => {
  const { runtime, workers, statuses, events, calls } = recordingWorkers();
  try {
    const hooked = pod('hooked');
    hooked.spec.containers[0]!.lifecycle = {
      postStart: { exec: { command: ['sh', '-c', 'echo up > /tmp/started'] } }, preStop: { exec: { command: ['sh', '-c', 'echo bye'] } },
    };
    const failing = pod('failing');
    failing.spec.containers[0]!.lifecycle = { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } } };
    workers.update(hooked);
    workers.update(failing);
    await until(() => statuses.get('hooked')?.containerStatuses?.[0]?.ready === true, 'the hooked pod ready');
    const id = statuses.get('hooked')!.containerStatuses![0]!.containerID!.replace('fake://', '');
    assert.equal((await runtime.execSync(id, ['cat', '/tmp/started'], 1)).stdout, 'up\n');

    await until(() => events.some((e) => e.startsWith('FailedPostStartHook: ')) && (statuses.get('failing')?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
      () => `the failing hook's container killed and restarted; events: ${events.join('\n')}`);
    assert.match(events.find((e) => e.startsWith('FailedPostStartHook: '))!, /exited with 3/);

    workers.update({ ...hooked, status: statuses.get('hooked'), metadata: { ...hooked.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } });
    await until(() => calls.includes('stop uid-hooked/c') && calls.includes('exec sh -c echo bye'), () => `the hooked pod stopped; calls: ${calls.join(', ')}`);
    const mine = calls.filter((c) => c === 'exec sh -c echo bye' || c === 'stop uid-hooked/c');
    assert.equal(mine[0], 'exec sh -c echo bye', 'preStop before the stop');
    assert.ok(!events.some((e) => e.startsWith('FailedPreStopHook')));
    // its containers stopped, a deleted pod is reported done whatever its restart policy: Failed when one did not exit 0
    await until(() => statuses.get('hooked')?.phase === 'Failed' || statuses.get('hooked')?.phase === 'Succeeded', () => `a final phase; status: ${JSON.stringify(statuses.get('hooked'))}`);
    const exit = statuses.get('hooked')!.containerStatuses![0]!.state!.terminated!.exitCode;
    assert.equal(statuses.get('hooked')!.phase, exit === 0 ? 'Succeeded' : 'Failed');
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a container that exits is reported at once when the runtime tells of it, not at the next periodic relist', async () => {
  const names = naming();
  // no periodic relist within the test: only the runtime's word can bring the exit to the status
  const { runtime, workers, statuses } = recordingWorkers(3_600_000);
  try {
    const p = pod('exits');
    p.metadata.annotations = { [fakeAnnotation(names, 'run-for')]: '300ms', [fakeAnnotation(names, 'exit-code')]: '3' };
    p.spec.restartPolicy = 'Never';
    workers.update(p);
    await until(() => statuses.get('exits')?.phase === 'Running', 'the pod Running');
    await until(() => statuses.get('exits')?.phase === 'Failed', () => `the pod Failed; status: ${JSON.stringify(statuses.get('exits'))}`);
    assert.equal(statuses.get('exits')!.containerStatuses![0]!.state!.terminated!.exitCode, 3);
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a container that ended is reported ended before it is restarted, as the reference\'s sync reports first', async () => {
  const names = naming();
  const { runtime, workers, statuses, history } = recordingWorkers();
  try {
    const p = pod('restarts');
    p.metadata.annotations = { [fakeAnnotation(names, 'run-for')]: '200ms', [fakeAnnotation(names, 'exit-code')]: '1' };
    workers.update(p);
    await until(() => (statuses.get('restarts')?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 'a restart');
    const seen = history.filter((h) => h.name === 'restarts').map((h) => h.status.containerStatuses![0]!);
    const restarted = seen.findIndex((c) => c.restartCount === 1);
    const ended = seen.findIndex((c) => c.restartCount === 0 && c.state?.terminated?.exitCode === 1);
    assert.ok(ended >= 0 && ended < restarted, JSON.stringify(seen.map((c) => [c.restartCount, c.state])));
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a pod past its activeDeadlineSeconds is stopped and Failed with reason DeadlineExceeded', async () => {
  const { runtime, workers, statuses, events } = recordingWorkers();
  try {
    const p = pod('deadline');
    p.spec.activeDeadlineSeconds = 1;
    workers.update(p);
    await until(() => statuses.get('deadline')?.phase === 'Failed', () => `the pod Failed; status: ${JSON.stringify(statuses.get('deadline'))}`);
    const s = statuses.get('deadline')!;
    assert.deepEqual([s.reason, s.message], ['DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
    assert.ok(s.containerStatuses![0]!.state!.terminated, JSON.stringify(s.containerStatuses));
    assert.ok(events.includes('DeadlineExceeded: Pod was active on the node longer than the specified deadline'), events.join('\n'));
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('every failed probe attempt is an Unhealthy event saying why, as the reference\'s prober words it', async () => {
  const { runtime, workers, statuses, events } = recordingWorkers();
  let liveness = 0;
  runtime.probe = async (_c, _s, kind) => {
    if (kind === 'readiness') return { ok: false, output: 'HTTP probe failed with statuscode: 404' };
    liveness++;
    if (liveness === 3) throw new Error('runtime gone');
    return { ok: false, output: 'not alive\n' };
  };
  try {
    const probe = { periodSeconds: 1, failureThreshold: 3 };
    workers.update({
      metadata: { name: 'sick', namespace: 'default', uid: 'uid-sick' },
      spec: { containers: [{ name: 'c', image: 'busybox', livenessProbe: { exec: { command: ['false'] }, ...probe }, readinessProbe: { httpGet: { port: 80 }, ...probe } }] },
    });
    await until(() => (statuses.get('sick')?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, () => `a restart; events: ${events.join('\n')}`);
    const unhealthy = events.filter((e) => e.startsWith('Unhealthy: '));
    // liveness fails twice, errs once (which counts neither way), fails a third time and the container is killed
    assert.deepEqual(unhealthy.filter((e) => e.includes('Liveness')).slice(0, 4), [
      'Unhealthy: Liveness probe failed: not alive\n', 'Unhealthy: Liveness probe failed: not alive\n', 'Unhealthy: Liveness probe errored: runtime gone',
      'Unhealthy: Liveness probe failed: not alive\n']);
    const killed = events.indexOf('Killing: Container c failed liveness probe, will be restarted');
    assert.equal(events.slice(0, killed).filter((e) => e.startsWith('Unhealthy: Liveness')).length, 4, events.join('\n'));
    assert.ok(unhealthy.filter((e) => e === 'Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 404').length >= 2, events.join('\n'));
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a probe the fake runtime fails by annotation says what the reference\'s prober says for its kind', async () => {
  const names = naming();
  const { runtime, workers, events } = recordingWorkers();
  try {
    const probe = { periodSeconds: 1, failureThreshold: 3 };
    workers.update({
      metadata: { name: 'unready', namespace: 'default', uid: 'uid-unready', annotations: { [fakeAnnotation(names, 'ready')]: 'false' } },
      spec: { containers: [
        { name: 'web', image: 'busybox', readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, ...probe } },
        { name: 'db', image: 'busybox', readinessProbe: { tcpSocket: { port: 5432 }, ...probe } },
      ] },
    });
    const said = (text: string) => events.some((e) => e.startsWith(`Unhealthy: Readiness probe failed: ${text}`));
    await until(() => said('HTTP probe failed with statuscode: 500') && said('dial tcp '), () => `both probes failed; events: ${events.join('\n')}`);
    assert.ok(events.some((e) => /^Unhealthy: Readiness probe failed: dial tcp [0-9.]+:5432: connect: connection refused$/.test(e)), events.join('\n'));
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('image failures are told as the reference tells them: what went wrong, then "Error: <reason>", then the back-off', async () => {
  const { runtime, workers, statuses, events } = recordingWorkers();
  const ensureImage = runtime.ensureImage.bind(runtime);
  runtime.ensureImage = async (image, policy, onPull) => {
    if (image !== 'unreachable') return ensureImage(image, policy, onPull);
    onPull?.();
    throw new Error('registry unreachable');
  };
  try {
    workers.update({ metadata: { name: 'never', namespace: 'default', uid: 'uid-never' }, spec: { containers: [{ name: 'c', image: 'absent', imagePullPolicy: 'Never' }] } });
    workers.update({ metadata: { name: 'pull', namespace: 'default', uid: 'uid-pull' }, spec: { containers: [{ name: 'c', image: 'unreachable' }] } });
    await until(() => statuses.get('never')?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImageNeverPull', 'ErrImageNeverPull');
    assert.ok(events.includes('ErrImageNeverPull: Container image "absent" is not present with pull policy of Never'), events.join('\n'));
    assert.ok(events.includes('Failed: Error: ErrImageNeverPull'), events.join('\n'));
    await until(() => statuses.get('pull')?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', () => `ImagePullBackOff; events: ${events.join('\n')}`);
    const pulled = events.filter((e) => e.includes('unreachable') || e.startsWith('Failed: Error: ErrImagePull') || e.includes('ImagePullBackOff'));
    assert.deepEqual(pulled.slice(0, 5), [
      'Pulling: Pulling image "unreachable"', 'Failed: Failed to pull image "unreachable": registry unreachable', 'Failed: Error: ErrImagePull',
      'BackOff: Back-off pulling image "unreachable"', 'Failed: Error: ImagePullBackOff',
    ]);
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('the CrashLoopBackOff message writes the delay as the reference writes a duration: 10s doubling to 1m20s and 5m0s', async () => {
  const p = pod('loop');
  assert.deepEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000].map((ms) => crashLoopMessage(ms, 'c', p).split(' ')[1]), ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s']);
  assert.equal(crashLoopMessage(80_000, 'c', p), 'back-off 1m20s restarting failed container=c pod=loop_default(uid-loop)');
  // and it is what a container in back-off shows
  const names = naming();
  const { runtime, workers, statuses } = recordingWorkers();
  try {
    p.metadata.annotations = { [fakeAnnotation(names, 'run-for')]: '10ms', [fakeAnnotation(names, 'exit-code')]: '1' };
    workers.update(p);
    const waiting = await waitFor('CrashLoopBackOff', () => {
      const w = statuses.get('loop')?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CrashLoopBackOff' && w;
    });
    assert.equal(waiting.message, crashLoopMessage(10_000, 'c', p));
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a container of a pod that never restarts, killed by its liveness probe, is not said to be restarted; the pod fails', async () => {
  const { runtime, workers, statuses, events } = recordingWorkers();
  runtime.probe = async () => ({ ok: false, output: 'not alive' });
  try {
    workers.update({
      metadata: { name: 'once', namespace: 'default', uid: 'uid-once' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 } }] },
    });
    await until(() => statuses.get('once')?.phase === 'Failed', () => `the pod Failed; events: ${events.join('\n')}`);
    const killing = events.filter((e) => e.startsWith('Killing: '));
    assert.deepEqual(killing, ['Killing: Container c failed liveness probe'], events.join('\n'));
    assert.equal(statuses.get('once')!.containerStatuses![0]!.restartCount, 0);
  } finally {
    await workers.close();
    runtime.close();
  }
});

test('a deleted pod\'s containers get the deletion\'s grace period, longer than the spec\'s too, as the API server gave it', async () => {
  const { runtime, workers, statuses, graces } = recordingWorkers();
  try {
    const short = pod('short');
    short.spec.terminationGracePeriodSeconds = 1;
    const long = pod('long');
    long.spec.terminationGracePeriodSeconds = 45;
    for (const p of [short, long]) workers.update(p);
    await until(() => statuses.get('short')?.phase === 'Running' && statuses.get('long')?.phase === 'Running', 'both pods Running');
    const deleted = (p: AgentPod, seconds: number) => ({ ...p, status: statuses.get(p.metadata.name), metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: seconds } });
    workers.update(deleted(short, 20));
    workers.update(deleted(long, 5));
    const idOf = (name: string) => statuses.get(name)!.containerStatuses![0]!.containerID!.replace('fake://', '');
    const [shortId, longId] = [idOf('short'), idOf('long')];
    await until(() => graces.has(shortId) && graces.has(longId), () => `both stopped; graces: ${JSON.stringify([...graces])}`);
    assert.deepEqual([graces.get(shortId), graces.get(longId)], [20, 5]);
  } finally {
    await workers.close();
    runtime.close();
  }
});
