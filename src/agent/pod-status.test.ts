import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podStatus, withOthersConditions, type ContainerView } from './pod-status.js';
import type { AgentPod } from './objects.js';

const pod = (restartPolicy: string, initContainers = false) => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { restartPolicy, containers: [{ name: 'c', image: 'x' }], ...(initContainers ? { initContainers: [{ name: 'i', image: 'x' }] } : {}) },
}) as unknown as AgentPod;
const exited = (exitCode: number): ContainerView => ({ current: { id: 'id', name: 'c', state: 'exited', exitCode, createdAt: 1, startedAt: 2, finishedAt: 3 } as never, ready: false, started: false });
const reasons = (p: AgentPod, views: Map<string, ContainerView>, initViews = new Map<string, ContainerView>()) => {
  const s = podStatus({ pod: p, views, initViews, runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  return { phase: s.phase, ...Object.fromEntries((s.conditions ?? []).filter(c => c.type !== 'PodScheduled').map(c => [c.type, `${c.status} ${c.reason ?? ''}`.trim()])) };
};

test('a pod that finished names how on its conditions: PodCompleted when it succeeded, PodFailed when it failed', () => {
  assert.deepEqual(reasons(pod('Never'), new Map([['c', exited(0)]])),
    { phase: 'Succeeded', Initialized: 'True PodCompleted', Ready: 'False PodCompleted', ContainersReady: 'False PodCompleted' });
  assert.deepEqual(reasons(pod('Never'), new Map([['c', exited(1)]])),
    { phase: 'Failed', Initialized: 'True', Ready: 'False PodFailed', ContainersReady: 'False PodFailed' });
});

test('a pod whose init container failed is Failed and not initialized', () => {
  assert.deepEqual(reasons(pod('Never', true), new Map(), new Map([['i', exited(2)]])),
    { phase: 'Failed', Initialized: 'False ContainersNotInitialized', Ready: 'False PodFailed', ContainersReady: 'False PodFailed' });
});

test('a running pod whose container is not ready names it', () => {
  const running: ContainerView = { current: { id: 'id', name: 'c', state: 'running', createdAt: 1, startedAt: 2 } as never, ready: false, started: true };
  assert.deepEqual(reasons(pod('Always'), new Map([['c', running]])),
    { phase: 'Running', Initialized: 'True', Ready: 'False ContainersNotReady', ContainersReady: 'False ContainersNotReady' });
});

test('an init container that completed is ready; one that failed is not', () => {
  const p = { ...pod('Always', true), spec: { ...pod('Always', true).spec, initContainers: [{ name: 'i', image: 'x' }, { name: 'j', image: 'x' }] } } as AgentPod;
  const s = podStatus({ pod: p, views: new Map(), initViews: new Map([['i', exited(0)], ['j', exited(1)]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.deepEqual(s.initContainerStatuses?.map((c) => [c.name, c.ready]), [['i', true], ['j', false]]);
});

test('a running init container is not ready, and init containers carry no started flag (1.27)', () => {
  const running: ContainerView = { current: { id: 'id', name: 'i', state: 'running', createdAt: 1, startedAt: 2 } as never, ready: true, started: true };
  const s = podStatus({ pod: pod('Always', true), views: new Map(), initViews: new Map([['i', running]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.equal(s.initContainerStatuses?.[0]?.ready, false);
  assert.equal('started' in s.initContainerStatuses![0]!, false);
  const done = podStatus({ pod: pod('Always', true), views: new Map(), initViews: new Map([['i', exited(0)]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.equal('started' in done.initContainerStatuses![0]!, false);
});

test('regular and ephemeral container statuses are listed by name, as the reference sorts them; init ones in their order; unready ones named in the spec\'s order', () => {
  const p = {
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: {
      initContainers: [{ name: 'zinit', image: 'x' }, { name: 'ainit', image: 'x' }],
      containers: [{ name: 'web', image: 'x' }, { name: 'app', image: 'x' }, { name: 'sidecar', image: 'x' }],
      ephemeralContainers: [{ name: 'dbg2', image: 'x' }, { name: 'dbg1', image: 'x' }],
    },
  } as unknown as AgentPod;
  const s = podStatus({ pod: p, views: new Map(), initViews: new Map([['zinit', exited(0)], ['ainit', exited(0)]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.deepEqual(s.containerStatuses?.map((c) => c.name), ['app', 'sidecar', 'web']);
  assert.deepEqual(s.ephemeralContainerStatuses?.map((c) => c.name), ['dbg1', 'dbg2']);
  assert.deepEqual(s.initContainerStatuses?.map((c) => c.name), ['zinit', 'ainit']);
  assert.equal(s.conditions?.find((c) => c.type === 'ContainersReady')?.message, 'containers with unready status: [web app sidecar]');
});

test('in a pod with init containers, a container not yet made waits as PodInitializing, its init containers too; without, ContainerCreating', () => {
  const p = { ...pod('Always', true), spec: { ...pod('Always', true).spec, initContainers: [{ name: 'i', image: 'x' }, { name: 'j', image: 'x' }] } } as AgentPod;
  const waiting = (s: ReturnType<typeof podStatus>) => [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].map((c) => [c.name, c.state?.waiting?.reason]);
  const first = podStatus({ pod: p, views: new Map(), initViews: new Map([['i', exited(0)]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.deepEqual(waiting(first), [['i', undefined], ['j', 'PodInitializing'], ['c', 'PodInitializing']]);
  // a reason of its own (a crash loop, a failed pull) wins
  const backingOff: ContainerView = { ...exited(1), waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s' } };
  const looping = podStatus({ pod: p, views: new Map(), initViews: new Map([['i', exited(0)], ['j', backingOff]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.deepEqual(waiting(looping), [['i', undefined], ['j', 'CrashLoopBackOff'], ['c', 'PodInitializing']]);
  const plain = podStatus({ pod: pod('Always'), views: new Map(), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  assert.deepEqual(waiting(plain), [['c', 'ContainerCreating']]);
});

test('a pod whose containers are ready but whose readiness gates are not says which gate and why, as the reference words it', () => {
  const running: ContainerView = { current: { id: 'id', name: 'c', state: 'running', createdAt: 1, startedAt: 2 } as never, ready: true, started: true };
  const gated = (conditions: object[]) => ({
    ...pod('Always'), spec: { ...pod('Always').spec, readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
    status: { conditions },
  }) as unknown as AgentPod;
  const ready = (p: AgentPod) => podStatus({ pod: p, views: new Map([['c', running]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 })
    .conditions!.find((c) => c.type === 'Ready')!;
  const none = ready(gated([]));
  assert.deepEqual([none.status, none.reason, none.message], ['False', 'ReadinessGatesNotReady',
    'corresponding condition of pod readiness gate "example.com/lb" does not exist., corresponding condition of pod readiness gate "example.com/dns" does not exist.']);
  const one = ready(gated([{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }]));
  assert.deepEqual([one.status, one.reason, one.message], ['False', 'ReadinessGatesNotReady', 'the status of pod readiness gate "example.com/dns" is not "True", but False']);
  const all = ready(gated([{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'True' }]));
  assert.deepEqual([all.status, all.reason, all.message], ['True', undefined, undefined]);
  // the conditions others own come first, as the reference's kubelet lists them, in the order the API holds them
  const others = [{ type: 'example.com/lb', status: 'True' }, { type: 'DisruptionTarget', status: 'True' }];
  const types = (conditions?: Array<{ type: string }>) => (conditions ?? []).map((c) => c.type);
  const own = podStatus({ pod: gated(others), views: new Map([['c', running]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0 });
  const order = ['example.com/lb', 'DisruptionTarget', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
  assert.deepEqual(types(own.conditions), order);
  assert.deepEqual(types(withOthersConditions(own, { conditions: others } as never).conditions), order);
});

test('a pod whose termination was asked for ends Failed, a container that never ran reported ended with an unknown status, as the reference ends it', () => {
  const unknown = { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' } };
  const never: ContainerView = { ready: false, started: false, waiting: { reason: 'ErrImageNeverPull', message: 'not present' } };
  const two = { ...pod('Always'), spec: { containers: [{ name: 'c', image: 'x' }, { name: 'd', image: 'x' }] } } as unknown as AgentPod;
  const deleted = podStatus({ pod: two, views: new Map([['c', never], ['d', { ...exited(137), current: { ...exited(137).current!, name: 'd' } }]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0, terminal: true });
  assert.equal(deleted.phase, 'Failed');
  assert.deepEqual(deleted.containerStatuses?.[0]?.state, unknown);
  assert.deepEqual([deleted.containerStatuses?.[1]?.state?.terminated?.exitCode, deleted.containerStatuses?.[1]?.state?.terminated?.reason], [137, 'Error']);
  // while its first init container ran: that one ends unknown, the later ones and the regular ones keep waiting
  const init = { ...pod('Always'), spec: { initContainers: [{ name: 'i', image: 'x' }, { name: 'j', image: 'x' }], containers: [{ name: 'c', image: 'x' }] } } as unknown as AgentPod;
  const pending = podStatus({ pod: init, views: new Map(), initViews: new Map([['i', { ready: false, started: false, waiting: { reason: 'ImagePullBackOff' } }]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0, terminal: true });
  assert.equal(pending.phase, 'Failed');
  assert.deepEqual([...pending.initContainerStatuses!, ...pending.containerStatuses!].map((c) => [c.name, c.state]),
    [['i', unknown], ['j', { waiting: { reason: 'PodInitializing' } }], ['c', { waiting: { reason: 'PodInitializing' } }]]);
  // one that ran to success stays as it ended
  const done = podStatus({ pod: pod('Always'), views: new Map([['c', exited(0)]]), runtimeName: 'fake', hostIP: '10.0.0.1', podIPs: [], startTime: 0, terminal: true });
  assert.equal(done.phase, 'Succeeded');
  assert.equal(done.containerStatuses![0]!.state!.terminated!.reason, 'Completed');
});

test('a container\'s image is named as the runtime names it once made (the image\'s tag), the spec\'s before or when the runtime gives only an id', () => {
  const p = { ...pod('Always'), spec: { containers: [{ name: 'c', image: 'nginx' }] } } as unknown as AgentPod;
  const image = (current?: object) => podStatus({ pod: p, views: new Map([['c', { current: current as never, ready: false, started: false }]]), runtimeName: 'containerd', hostIP: '10.0.0.1', podIPs: [], startTime: 0 })
    .containerStatuses![0]!.image;
  const made = { id: 'id', name: 'c', state: 'running', createdAt: 1, startedAt: 2, imageRef: 'sha256:abc' };
  assert.equal(image({ ...made, image: 'docker.io/library/nginx:latest' }), 'docker.io/library/nginx:latest');
  assert.equal(image({ ...made, image: 'sha256:0123' }), 'nginx');
  assert.equal(image(undefined), 'nginx');
});
