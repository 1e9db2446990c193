// The Pod's status as the agent reports it, computed from the runtime's containers (the reference
// agent's phase rules): init, regular and ephemeral containerStatuses with state, last state, restart count
// and ids; phase; conditions PodScheduled, Initialized, ContainersReady and Ready; IPs; QoS class. Ephemeral
// containers count for none of phase, readiness or conditions.

import type { AgentPod, Container, ContainerState, ContainerStatus, PodCondition, PodStatus } from './objects.js';
import { qosClass } from './resources.js';
import type { ContainerInfo } from './runtime/types.js';

export interface ContainerView {
  /** the newest instance of the container, when there is one */
  current?: ContainerInfo;
  /** the instance before it */
  previous?: ContainerInfo;
  ready: boolean;
  started: boolean;
  /** why it is waiting when it is not running (CrashLoopBackOff, ErrImagePull, ...) */
  waiting?: { reason: string; message?: string };
}

/** the text of recent seconds, one string each: the statuses of thousands of pods of a process hold their times */
const secondsText = new Map<number, string>();

export const timestamp = (ms: number) => {
  const second = Math.floor(ms / 1000);
  let text = secondsText.get(second);
  if (text === undefined) {
    if (secondsText.size >= 256) secondsText.clear();
    secondsText.set(second, (text = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')));
  }
  return text;
};

/** the waiting reason of a container with no instance and no reason of its own: PodInitializing in a pod with init
 *  containers (its init, regular and ephemeral ones alike, as the reference's default), else ContainerCreating */
export type DefaultWaiting = 'ContainerCreating' | 'PodInitializing';

function state(c: ContainerInfo | undefined, runtimeName: string, waiting?: ContainerView['waiting'], idle: DefaultWaiting = 'ContainerCreating'): ContainerState {
  if (c?.state === 'running') return { running: { startedAt: timestamp(c.startedAt ?? c.createdAt) } };
  if (c?.state === 'exited' && !waiting) {
    return {
      terminated: {
        exitCode: c.exitCode ?? 0, reason: c.reason ?? (c.exitCode ? 'Error' : 'Completed'), ...(c.message ? { message: c.message } : {}),
        startedAt: c.startedAt ? timestamp(c.startedAt) : undefined, finishedAt: timestamp(c.finishedAt ?? Date.now()), containerID: `${runtimeName}://${c.id}`,
      },
    };
  }
  return { waiting: { reason: waiting?.reason ?? idle, ...(waiting?.message ? { message: waiting.message } : {}) } };
}

function lastState(c: ContainerInfo | undefined, runtimeName: string): ContainerState {
  return c?.state === 'exited' ? state(c, runtimeName) : {};
}

export function containerStatus(spec: Container, view: ContainerView, runtimeName: string, idle: DefaultWaiting = 'ContainerCreating'): ContainerStatus {
  const { current, previous } = view;
  // an exited container waiting for its restart shows as waiting, with the exit as its last state
  const restarting = current?.state === 'exited' && view.waiting;
  return {
    name: spec.name,
    state: state(current, runtimeName, restarting ? view.waiting : current ? undefined : view.waiting, idle),
    lastState: restarting ? lastState(current, runtimeName) : lastState(previous, runtimeName),
    ready: view.ready,
    restartCount: current?.attempt ?? 0,
    // the image as the runtime names it once it made the container (containerd: the image's first tag, so `nginx`
    // shows as docker.io/library/nginx:latest), the spec's before; an id is no name, the spec's then
    image: current?.image && !/^sha256:/.test(current.image) ? current.image : spec.image ?? '',
    imageID: current?.imageRef ?? '',
    ...(current ? { containerID: `${runtimeName}://${current.id}` } : {}),
    started: view.started,
  };
}

/**
 * The reference's phase rules: init containers first, then the regular ones. A pod whose termination was asked for
 * (`terminal`: deleted, evicted) and whose containers all stopped is done whatever its restart policy: Succeeded when
 * every container exited 0, else Failed, as the reference's agent reports it before the pod goes.
 */
export function podPhase(pod: AgentPod, statuses: ContainerStatus[], initStatuses: ContainerStatus[] = [], terminal = false): NonNullable<PodStatus['phase']> {
  const policy = pod.spec.restartPolicy ?? 'Always';
  const initFailed = initStatuses.some((s) => s.state?.terminated && s.state.terminated.exitCode !== 0);
  if (initFailed && policy === 'Never') return 'Failed';
  const initDone = initStatuses.every((s) => s.state?.terminated?.exitCode === 0);
  if (!initDone) return 'Pending';
  let waiting = 0, running = 0, stopped = 0, succeeded = 0;
  for (const s of statuses) {
    if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (terminal && waiting === 0) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return policy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function condition(type: string, ok: boolean, old: PodCondition[], reason?: string, message?: string): PodCondition {
  const status = ok ? 'True' : 'False';
  const prior = old.find((c) => c.type === type);
  return {
    type, status, lastProbeTime: undefined,
    lastTransitionTime: prior?.status === status ? prior.lastTransitionTime : timestamp(Date.now()),
    ...(reason ? { reason } : {}), ...(message ? { message } : {}),
  };
}

export interface PodStatusInput {
  pod: AgentPod;
  views: Map<string, ContainerView>;
  initViews?: Map<string, ContainerView>;
  ephemeralViews?: Map<string, ContainerView>;
  runtimeName: string;
  hostIP: string;
  podIPs: string[];
  startTime: number;
  /** the pod's termination was asked for and its containers have stopped */
  terminal?: boolean;
}

const ownConditions = ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** the agent's status with the conditions others own (DisruptionTarget from an eviction, readiness gates) as the API
 *  holds them now: the agent keeps its own conditions, and writes the others back as it read them, before its own */
export function withOthersConditions(own: PodStatus | undefined, api: PodStatus | undefined): PodStatus {
  // before its first report the agent has no conditions of its own: the API's stand (PodScheduled)
  if (!own?.conditions) return { ...api, ...own };
  const mine = own.conditions.filter((c) => ownConditions.includes(c.type));
  const others = (api?.conditions ?? []).filter((c) => !ownConditions.includes(c.type));
  return { ...api, ...own, conditions: [...others, ...mine] };
}

const byName = <T extends { name: string }>(list: T[]) => [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** what keeps each readiness gate of the pod from being met, in the reference's words */
function unreadyGates(pod: AgentPod, conditions: PodCondition[]): string[] {
  const out: string[] = [];
  for (const { conditionType } of pod.spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === conditionType);
    if (!c) out.push(`corresponding condition of pod readiness gate "${conditionType}" does not exist.`);
    else if (c.status !== 'True') out.push(`the status of pod readiness gate "${conditionType}" is not "True", but ${c.status}`);
  }
  return out;
}

const unknownEnd: ContainerState = {
  terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' },
};

/**
 * The containers of a pod whose termination was asked for, as the reference's status manager ends them: one not
 * terminated is reported ended with an unknown status (exit 137), since whether it would have succeeded is not known.
 * The regular containers only once the pod got past its init containers (one of them left waiting or restarted, or
 * the last init container succeeded); the init containers up to the last one that ever started (the first at least).
 */
function endedStatuses(init: ContainerStatus[], regular: ContainerStatus[]): [ContainerStatus[], ContainerStatus[]] {
  const end = (s: ContainerStatus) => (s.state?.terminated ? s : { ...s, state: unknownEnd });
  const lastInit = init[init.length - 1];
  const initialized = init.length === 0 || regular.some((s) => s.lastState?.terminated || !s.state?.waiting)
    || lastInit?.state?.terminated?.exitCode === 0 || lastInit?.lastState?.terminated?.exitCode === 0;
  let started = init.length - 1;
  while (started > 0 && init[started]!.state?.waiting && !init[started]!.lastState?.terminated) started--;
  return [init.map((s, i) => (i <= started ? end(s) : s)), initialized ? regular.map(end) : regular];
}

export function podStatus({ pod, views, initViews = new Map(), ephemeralViews = new Map(), runtimeName, hostIP, podIPs, startTime, terminal }: PodStatusInput): PodStatus {
  const old = pod.status?.conditions ?? [];
  const idle: DefaultWaiting = pod.spec.initContainers?.length ? 'PodInitializing' : 'ContainerCreating';
  const status = (c: Container, v: Map<string, ContainerView>) => containerStatus(c, v.get(c.name) ?? { ready: false, started: false }, runtimeName, idle);
  // an init container is ready once it completed, and not before, as the reference's prober manager marks it; the
  // started flag is for the containers (1.27 gives init containers none)
  let initContainerStatuses = (pod.spec.initContainers ?? []).map((c) => status(c, initViews))
    .map(({ started: _started, ...s }) => ({ ...s, ready: s.state?.terminated?.exitCode === 0 }));
  let containerStatuses = pod.spec.containers.map((c) => status(c, views));
  if (terminal) [initContainerStatuses, containerStatuses] = endedStatuses(initContainerStatuses, containerStatuses);
  // nothing probes an ephemeral container: as the reference's, it is never ready and has no started flag
  const ephemeralContainerStatuses = (pod.spec.ephemeralContainers ?? []).map((c) => ({ ...status(c, ephemeralViews), ready: false, started: undefined }));
  let phase = podPhase(pod, containerStatuses, initContainerStatuses, terminal);
  // a pod whose termination was asked for ends in a terminal phase, Failed when it was still Pending or Running
  if (terminal && phase !== 'Succeeded') phase = 'Failed';
  const incomplete = initContainerStatuses.filter((s) => s.state?.terminated?.exitCode !== 0).map((s) => s.name);
  const initialized = incomplete.length === 0;
  const notReady = containerStatuses.filter((s) => !s.ready).map((s) => s.name);
  const done = phase === 'Succeeded' || phase === 'Failed';
  const containersReady = notReady.length === 0 && !done;
  const why = phase === 'Succeeded' ? 'PodCompleted' : phase === 'Failed' ? 'PodFailed' : 'ContainersNotReady';
  const message = done ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  const gates = unreadyGates(pod, old);
  const gatesOk = gates.length === 0;
  const conditions = [
    // conditions owned by others (readiness gates, disruption) are kept, first, as the reference's kubelet lists them
    ...old.filter((c) => !ownConditions.includes(c.type)),
    // a pod that succeeded says so on every condition, Initialized too; a failed one keeps its init containers' story
    phase === 'Succeeded' || initialized
      ? condition('Initialized', true, old, phase === 'Succeeded' ? 'PodCompleted' : undefined)
      : condition('Initialized', false, old, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`),
    condition('Ready', containersReady && gatesOk, old, containersReady ? (gatesOk ? undefined : 'ReadinessGatesNotReady') : why, containersReady ? (gatesOk ? undefined : gates.join(', ')) : message),
    condition('ContainersReady', containersReady, old, containersReady ? undefined : why, containersReady ? undefined : message),
    condition('PodScheduled', true, old),
  ];
  const ips = pod.spec.hostNetwork ? [hostIP] : podIPs;
  return {
    phase,
    conditions,
    hostIP,
    ...(ips.length ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {}),
    startTime: timestamp(startTime),
    ...(initContainerStatuses.length ? { initContainerStatuses } : {}),
    // the reference lists the regular and ephemeral containers by name (init containers in their order)
    containerStatuses: byName(containerStatuses),
    ...(ephemeralContainerStatuses.length ? { ephemeralContainerStatuses: byName(ephemeralContainerStatuses) } : {}),
    qosClass: pod.status?.qosClass ?? qosClass(pod),
  };
}
